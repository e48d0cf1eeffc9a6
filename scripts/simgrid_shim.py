#!/usr/bin/env python3
"""Make Debian's SimGrid Python bindings importable from the project venv.

Debian's ``python3-simgrid`` package installs a single extension module,
``/usr/lib/python3/dist-packages/simgrid.cpython-311-x86_64-linux-gnu.so``.
Adding the whole of ``dist-packages`` to the venv would also expose Debian's
(older) numpy, matplotlib, ... and shadow the pinned versions, so instead this
script

1. creates ``<venv>/simgrid-shim/`` holding only a symlink to that ``.so``;
2. writes ``<site-packages>/simgrid_shim.pth`` whose single line is the path of
   that directory, so ``site`` appends it (and nothing else) to ``sys.path``.

It must be run with the venv's interpreter (``.venv/bin/python
scripts/simgrid_shim.py``); the venv location and the extension suffix
(``.cpython-311-x86_64-linux-gnu.so``) are taken from that interpreter.  If the
bindings are absent it removes any stale shim, says so in one line and exits 0:
the SimGrid test tier skips cleanly without them.  Re-running is idempotent.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import sysconfig
from pathlib import Path

DEFAULT_SEARCH_DIRS = ("/usr/lib/python3/dist-packages",)
SHIM_DIRNAME = "simgrid-shim"
PTH_NAME = "simgrid_shim.pth"


def find_extension(search_dirs) -> Path | None:
    """Return the SimGrid extension module matching this interpreter's ABI, if any."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    for d in search_dirs:
        candidate = Path(d) / f"simgrid{suffix}"
        if candidate.is_file():
            return candidate
    return None


def _remove_shim(shim_dir: Path, pth: Path) -> bool:
    changed = False
    if pth.exists():
        pth.unlink()
        changed = True
    if shim_dir.is_dir():
        for entry in shim_dir.iterdir():
            entry.unlink()
        shim_dir.rmdir()
        changed = True
    return changed


def install(so: Path | None, prefix: Path, site_packages: Path) -> str:
    """Create, refresh or remove the shim; return a one-line status message."""
    shim_dir = prefix / SHIM_DIRNAME
    pth = site_packages / PTH_NAME
    if so is None:
        removed = _remove_shim(shim_dir, pth)
        note = " (removed stale shim)" if removed else ""
        return ("simgrid shim: SimGrid Python bindings not found "
                f"(apt-get install python3-simgrid); skipping{note}")

    shim_dir.mkdir(parents=True, exist_ok=True)
    # Drop anything else in the shim dir so it can only ever expose simgrid.
    for entry in shim_dir.iterdir():
        if entry.name != so.name:
            entry.unlink()
    link = shim_dir / so.name
    changed = False
    if not (link.is_symlink() and Path(link.readlink()) == so):
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(so)
        changed = True
    content = f"{shim_dir.resolve()}\n"
    if not pth.exists() or pth.read_text() != content:
        site_packages.mkdir(parents=True, exist_ok=True)
        pth.write_text(content)
        changed = True
    verb = "installed" if changed else "up to date"
    return f"simgrid shim: {verb} ({link} -> {so})"


def check_import(python: str) -> tuple[bool, str]:
    """Import simgrid in a fresh interpreter (so the .pth file is honoured)."""
    proc = subprocess.run(
        [python, "-c", "import simgrid, sys; sys.stdout.write(getattr(simgrid, '__file__', '?'))"],
        capture_output=True, text=True,
    )
    if proc.returncode == 0:
        return True, proc.stdout.strip()
    lines = (proc.stderr or "").strip().splitlines()
    return False, lines[-1] if lines else f"exit status {proc.returncode}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--search-dir", action="append", metavar="DIR",
                    help="directory to look for simgrid<EXT_SUFFIX> in (repeatable; "
                         f"default: {', '.join(DEFAULT_SEARCH_DIRS)})")
    ap.add_argument("--remove", action="store_true", help="remove the shim and exit")
    ap.add_argument("--no-check", action="store_true",
                    help="do not try to import simgrid after installing the shim")
    args = ap.parse_args(argv)

    if sys.prefix == sys.base_prefix:
        ap.error("run this with the virtualenv's interpreter, e.g. .venv/bin/python "
                 "scripts/simgrid_shim.py (refusing to modify the base Python)")
    prefix = Path(sys.prefix)
    site_packages = Path(sysconfig.get_paths()["purelib"])

    if args.remove:
        removed = _remove_shim(prefix / SHIM_DIRNAME, site_packages / PTH_NAME)
        print("simgrid shim: removed" if removed else "simgrid shim: nothing to remove")
        return 0

    so = find_extension(args.search_dir or DEFAULT_SEARCH_DIRS)
    print(install(so, prefix, site_packages))
    if so is not None and not args.no_check:
        ok, detail = check_import(sys.executable)
        if not ok:
            # Not fatal: the SimGrid tier skips when the import fails.
            print(f"simgrid shim: WARNING: 'import simgrid' still fails: {detail}",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
