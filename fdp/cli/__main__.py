"""``python -m fdp.cli ...``: the same as the ``fdp`` console script."""

import sys

from fdp.cli import main

if __name__ == "__main__":
    sys.exit(main())
