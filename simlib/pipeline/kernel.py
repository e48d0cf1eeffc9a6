"""The Jupyter kernel the notebook runner starts: ``python -m simlib.pipeline.kernel -f CONNECTION_FILE``.

It is ipykernel's own kernel (what ``python -m ipykernel_launcher`` starts: the same application, the
same ``sys.path``), with one change at its end (decision S41): once every thread has ended and every
exit handler has run (IPython's history, the sweep workers' pool, multiprocessing's), the process exits
at once with the kernel's exit status instead of tearing down every module and object one by one.  With
numba, pandas, SciPy and matplotlib loaded that teardown takes 0.4-0.5 s (0.25-0.5 CPU-s) and the runner waits
for it (polling every 0.1 s) after each notebook's last cell; it writes nothing a notebook made.  Every
file a notebook writes is closed by then (``with`` blocks, pandas, matplotlib, atomic writes); an object
left open in the notebook's namespace would not be flushed (none is).

:func:`simlib.pipeline.notebooks._kernel_for_root` puts this module in place of ``ipykernel_launcher`` in
the kernelspec of a run; JupyterLab keeps the registered kernel.
"""
from __future__ import annotations

import atexit
import os
import sys
from pathlib import Path

#: The module the registered kernelspec runs (``-m ipykernel_launcher``) and the one a run uses instead.
IPYKERNEL_MODULE = "ipykernel_launcher"
MODULE = "simlib.pipeline.kernel"


def exit_status(code) -> int:
    """The process exit status of ``SystemExit(code)``, as the interpreter gives it: None 0, an int
    itself, anything else 1 (the interpreter prints it to stderr)."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def _exit_now(status: list) -> None:
    """The last exit handler (registered first): flush the standard streams, then end the process with the
    kernel's status (``status[0]``, which :func:`main` sets when the application ends), without the
    interpreter's teardown of modules and objects."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except Exception:                  # closed, broken or ipykernel's stream already shut: nothing to flush
            pass
    os._exit(status[0])


def main() -> None:
    """Run ipykernel's kernel application on ``sys.argv`` as ``ipykernel_launcher`` does; on the way out
    every exit handler registered after this one runs first, then :func:`_exit_now`."""
    # as ipykernel_launcher: the working folder leaves sys.path while ipykernel loads
    # (IPython's InteractiveShellApp.init_path puts '' back)
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    # exit handlers run last-registered first: this one after all the others (none is registered before it:
    # the imports above register none; logging's, multiprocessing's, IPython's and the sweep pool's come later)
    status = [0]
    atexit.register(_exit_now, status)
    from ipykernel import kernelapp

    try:
        kernelapp.launch_new_instance()
    except SystemExit as exc:
        status[0] = exit_status(exc.code)
        raise
    except BaseException:            # the interpreter prints the traceback, then runs the exit handlers
        status[0] = 1
        raise


if __name__ == "__main__":
    main()
