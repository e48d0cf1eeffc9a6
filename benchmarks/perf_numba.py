"""Re-run committed result rows under ``perf record`` with numba's compiled functions named (issue 48).

``perf`` shows numba's code as anonymous ``[JIT]`` addresses.  This script re-runs ``--rows`` rows of a
committed result CSV (``data/results/<csv>.csv``, each with its sweep seed, as ``scripts/check_result_rows.py``
reads them), once untimed and then ``--reps`` times, and before it exits writes ``/tmp/perf-<pid>.map``, the
file ``perf report`` reads for such addresses: every function symbol of the object code numba loaded for each
top-level overload this process called (read from its cache file, ``__pycache__/*.nbc``, an ELF object), at the
overload's runtime address.  Functions numba inlined count to their caller; the compiled callees that stay
functions (``inline="never"``, another ``_nrt`` setting, recursion, numba's sorts) get their own lines::

    perf record -F 2000 -o /tmp/p.data python benchmarks/perf_numba.py 44_selmcast_ssp_fig8 \\
        simlib.papers.selmcast.ssp_scenario run_trial --rows 30 --reps 3 --query "scheme=='selmcast'"
    perf report -i /tmp/p.data --sort sym --stdio

It prints the process CPU per trial of the timed repetitions (a profile, not a benchmark: perf's sampling
costs a few per cent).  Needs a warm numba cache (``make warm``): the cache files are where the symbols are.
"""
from __future__ import annotations

import argparse
import gc
import glob
import importlib
import os
import re
import struct
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHT_SYMTAB, STT_FUNC = 2, 2


def elf_functions(data: bytes) -> list[tuple[str, int, int, int]]:
    """``(name, section index, offset in its section, size in bytes)`` of every function symbol of an ELF64
    little-endian relocatable object."""
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize) for i in range(e_shnum)]
    out = []
    for _, typ, _, _, offset, size, link, _, _, entsize in sections:
        if typ != SHT_SYMTAB:
            continue
        strtab = sections[link][4]
        for k in range(size // entsize):
            st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", data, offset + k * entsize)
            if st_info & 0xF == STT_FUNC:
                end = data.index(b"\0", strtab + st_name)
                out.append((data[strtab + st_name:end].decode(), st_shndx, st_value, st_size))
    return out


def short_name(mangled: str) -> str:
    """numba's mangled ``_ZN6simlib4core7sharing11share_ratesB3v92...`` as ``simlib.core.sharing.share_rates``
    (its C-callable wrapper ``cfunc._ZN...`` as ``cfunc simlib...``, its CPython wrapper ``cpython.simlib...``;
    the name as given when it does not parse)."""
    m = re.match(r"(?:cfunc\.)?_ZN", mangled)
    if not m:
        return mangled
    parts, i = [], m.end()
    while True:
        d = re.match(r"\d+", mangled[i:])
        if not d:
            break
        k = int(d.group(0))
        i += len(d.group(0))
        parts.append(mangled[i:i + k])
        i += k
    if not parts:
        return mangled
    return ("cfunc " if mangled.startswith("cfunc.") else "") + ".".join(parts)


def write_perf_map(path: str | None = None) -> int:
    """Write perf's map of this process's loaded numba code (see the module docstring); returns its entries."""
    from numba.core.registry import CPUDispatcher
    entries = set()
    for obj in gc.get_objects():
        if not issubclass(type(obj), CPUDispatcher) or not obj.overloads:    # type(): a dead weak proxy raises
            continue
        code = obj.py_func.__code__
        cache = os.path.join(os.path.dirname(code.co_filename), "__pycache__")
        stem = f"{Path(code.co_filename).stem}.{obj.py_func.__qualname__}"
        for cres in obj.overloads.values():
            name = cres.fndesc.llvm_func_name
            addr = cres.library.get_pointer_to_function(name)
            # the cache files of this version of the function (numba names them by its first line; files of
            # older versions at other lines may hold the same symbol names)
            for nbc in glob.glob(os.path.join(cache, f"{stem}-{code.co_firstlineno}.*.nbc")):
                data = Path(nbc).read_bytes()
                syms = elf_functions(data[data.find(b"\x7fELF"):])
                me = [s for s in syms if s[0] == name]
                if me:
                    base, sec = addr - me[0][2], me[0][1]
                    entries.update((base + off, size, short_name(nm)) for nm, shndx, off, size in syms
                                   if shndx == sec and size)
                    break
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for a, size, nm in sorted(entries):
            f.write(f"{a:x} {size:x} {nm}\n")
    return len(entries)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", help="a committed result CSV's name (data/results/<csv>.csv)")
    ap.add_argument("module", help="the module of the trial function")
    ap.add_argument("fn", help="the trial function's name")
    ap.add_argument("--rows", type=int, default=20, help="rows sampled (default 20)")
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions of the rows (default 3)")
    ap.add_argument("--query", default=None, help="a pandas query selecting the rows sampled from")
    ap.add_argument("--seed", type=int, default=0, help="the row sample's seed")
    args = ap.parse_args()
    import numpy as np
    import pandas as pd

    from simlib.pipeline.sweep import trial_seed
    fn = getattr(importlib.import_module(args.module), args.fn)
    df = pd.read_csv(ROOT / "data" / "results" / f"{args.csv}.csv")
    if args.query:
        df = df.query(args.query)
    keys = list(df.columns[:list(df.columns).index("trial")])
    rows = np.random.default_rng(args.seed).choice(len(df), size=min(args.rows, len(df)), replace=False)
    runs = []
    for i in rows:
        r = df.iloc[i]
        params = {k: (r[k].item() if hasattr(r[k], "item") else r[k]) for k in keys if not pd.isna(r[k])}
        runs.append((params, trial_seed(0, int(r["trial"]), params)))
    for params, seed in runs:           # untimed: numba's cache loaded, data read
        fn(params, seed)
    t = time.process_time()
    for _ in range(args.reps):
        for params, seed in runs:
            fn(params, seed)
    print(f"{(time.process_time() - t) / args.reps / len(runs) * 1e3:.2f} ms of CPU per trial; "
          f"perf map: {write_perf_map()} functions")


if __name__ == "__main__":
    main()
