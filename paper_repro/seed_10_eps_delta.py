"""Reproduction `seed_10_eps_delta` (run: `python paper_repro/seed_10_eps_delta.py [--out DIR] [--fast]`
or `fdp repro seed_10_eps_delta`).

The script itself lives in the installed package, `fdp/repro/scripts/seed_10_eps_delta.py`, so that
`fdp repro` works after any install; this file re-exports its `run(out_dir, fast=False)`
and makes it runnable from a checkout. Output goes to `figures/` next to this folder.
"""

import sys

from fdp.repro import main_for
from fdp.repro.scripts.seed_10_eps_delta import CAPTION, NAME, SOURCE, TITLE, run  # noqa: F401

if __name__ == "__main__":
    sys.exit(main_for(NAME))
