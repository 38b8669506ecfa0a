"""The runner of the reproductions of published figures, tables and documented values
(``fdp repro``).

The scripts themselves are not part of the installed package: they live in the folder
``paper_repro/`` of a checkout of the repository, one module per reproduced figure or
table, with

* ``TITLE``, ``SOURCE`` (where the printed numbers come from), ``CAPTION``;
* ``run(out_dir, fast=False) -> list[Check]``: writes ``<out_dir>/<name>.png`` and
  returns one ``Check`` per printed number (paper value, ours, tolerance, verdict).

``fast=True`` lowers the numeric engine's accuracy (wider certified brackets) where a
script is slow; the printed numbers are checked either way.

The folder is looked for in the current directory, its parents, and beside the
``fdp`` package (an editable install of a checkout); ``paper_repro.SCRIPTS`` fixes the
order of the table and of the gallery (``figures/README.md``, written by
``write_gallery``).

Sources are cited by short names: DRS = Dong, Roth & Su, "Gaussian Differential
Privacy", JRSS-B 84(1), 2022; Bu et al. = Bu, Dong, Long & Su, "Deep Learning with
Gaussian Differential Privacy", HDSR 2(3), 2020; KOV = Kairouz, Oh & Viswanath, "The
Composition Theorem for Differential Privacy", ICML 2015; ZDLS = Zheng, Dong, Long & Su,
"Sharp Composition Bounds for Gaussian Differential Privacy via Edgeworth Expansion",
ICML 2020.
"""

from __future__ import annotations

from fdp.repro._check import PEER_EXTRAS, Check, needs_extra
from fdp.repro.command import main_for
from fdp.repro.output import COLUMNS, TABLE_WIDTH, format_table, rows, write_csv
from fdp.repro.runner import (
    FOLDER,
    Progress,
    Result,
    load,
    locate,
    names,
    prepare_out_dir,
    resolve,
    run,
    run_one,
    write_gallery,
)

__all__ = [
    "COLUMNS",
    "FOLDER",
    "PEER_EXTRAS",
    "TABLE_WIDTH",
    "Check",
    "Progress",
    "Result",
    "format_table",
    "load",
    "locate",
    "main_for",
    "names",
    "needs_extra",
    "prepare_out_dir",
    "resolve",
    "rows",
    "run",
    "run_one",
    "write_csv",
    "write_gallery",
]
