"""``python -m tooleval``: the ``tooleval`` command (same arguments, same exit codes)."""

import sys

from tooleval.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
