"""Reproductions of published figures, tables and documented values (run by ``fdp repro``).

One module per reproduced figure or table, each with

* ``NAME``, ``TITLE``, ``SOURCE`` (where the printed numbers come from), ``CAPTION``;
* ``run(out_dir, fast=False) -> list[fdp.repro.Check]``: writes ``<out_dir>/<NAME>.png``
  and returns one ``Check`` per printed number (paper value, ours, tolerance, verdict).

``SCRIPTS`` below fixes the order of the check table and of the gallery
(``figures/README.md``). The installed package carries only the runner
(``fdp.repro``); it finds this folder in a checkout of the repository.
"""

#: The reproductions, in table order.
SCRIPTS = (
    "drs_hypothesis_test",
    "drs_fdp_region",
    "drs_eps_delta",
    "drs_gdp_family",
    "drs_group_privacy",
    "drs_composition_clt",
    "drs_subsampling",
    "bu_figure4",
    "bu_table4",
    "bu_mnist",
    "zdls_edgeworth_laplace",
    "r_fdp_docs",
    "opacus_values",
    "samplers_compare",
    "mf_correlated_noise",
    "bsa_last_iterate",
    "ddr_selection",
    "ps_repeat_select",
)
