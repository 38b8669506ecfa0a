"""Reproduction `opacus_values` (run: `python paper_repro/opacus_values.py [--out DIR] [--fast]`
or `fdp repro opacus_values`).

The script itself lives in the installed package, `fdp/repro/scripts/opacus_values.py`, so that
`fdp repro` works after any install; this file re-exports its `run(out_dir, fast=False)`
and makes it runnable from a checkout. Output goes to `figures/` next to this folder.
"""

import sys

from fdp.repro import main_for
from fdp.repro.scripts.opacus_values import CAPTION, NAME, SOURCE, TITLE, run  # noqa: F401

if __name__ == "__main__":
    sys.exit(main_for(NAME))
