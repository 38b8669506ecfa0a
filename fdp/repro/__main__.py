"""``python -m fdp.repro [NAME ...] [--out DIR] [--fast] [--list]``: the same as ``fdp repro``."""

import sys

from fdp.repro.command import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
