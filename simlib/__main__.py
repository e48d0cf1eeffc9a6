"""``python -m simlib``: see :mod:`simlib.cli`."""
import sys

from simlib.cli import main

if __name__ == "__main__":
    sys.exit(main())
