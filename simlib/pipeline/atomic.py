"""Atomic file replacement: readers see the old or the new file, never a partial one.

:func:`locked_directory` serializes read-modify-write cycles of small shared
files (the claims ledger, the recorded times) between processes.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes", "locked_directory"]


@contextlib.contextmanager
def locked_directory(path):
    """Hold an exclusive advisory lock on ``path``'s directory (no-op where unsupported).

    Locking the directory rather than a side file leaves no lock file behind.
    """
    try:
        import fcntl

        fd = os.open(Path(path).parent, os.O_RDONLY)
    except (ImportError, OSError):  # pragma: no cover - non-POSIX
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _new_file_mode(path: Path) -> int:
    """The permission bits ``path`` gets: those of the file it replaces, else ``0o666`` less the
    process's umask (what ``open(path, "w")`` gives)."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        mask = os.umask(0o022)          # reading the umask means setting it; put it back at once
        os.umask(mask)
        return 0o666 & ~mask


def atomic_write_bytes(path, data: bytes) -> Path:
    """Atomically replace the file ``path`` by ``data``.

    The bytes go to a temporary file in the same directory, which is flushed,
    fsync'ed and then renamed over ``path`` with :func:`os.replace`; readers see
    either the old or the new content, never a partial file.  The temporary
    file is removed if anything fails.  The file's permissions are those of the file it replaces,
    else the umask's (:func:`_new_file_mode`), not the temporary file's 0600.  Returns the path.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a str or os.PathLike, got {path!r}")
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError(f"data must be bytes, got {type(data).__name__}")
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _new_file_mode(path))          # mkstemp's 0600 would outlive the rename
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path
