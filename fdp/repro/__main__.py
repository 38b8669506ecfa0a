"""``python -m fdp.repro [NAME ...] [--out DIR] [--fast] [--list]``: the same as ``fdp repro``."""

import sys

from fdp.cli import main

if __name__ == "__main__":
    sys.exit(main(["repro", *sys.argv[1:]]))
