"""``python -m simlib``: see :mod:`simlib.cli`."""
import sys

if __name__ == "__main__":
    try:
        from simlib.cli import main
    except KeyboardInterrupt:  # Ctrl-C while the command-line modules load, before main() guards it
        print("python -m simlib: interrupted (Ctrl-C); no result", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())
