"""DP-SGD accounting in one place: certified, CLT and Rényi side by side.

- ``certified``: ``dpsgd(...)``, the certified trade-off of noisy SGD under each batch
  sampler (Poisson, without replacement, truncated Poisson, with replacement, random
  allocation, user-level), composed by the engine.
- ``allocation``: ``random_allocation(...)``, each record in k of t steps (Chua et al.
  2025; Feldman & Shenfeld 2025).
- ``last_iterate``: last-iterate (hidden-state) privacy by shifted interpolation (Bok,
  Su & Altschuler 2024): ``noisy_gd``, ``noisy_cgd`` (exact), ``noisy_sgd`` (certified),
  ``compare_last_iterate``.
- ``matrix_factorization``: correlated noise — ``tree_aggregation`` (DP-FTRL),
  ``banded_mf`` (amplified banded MF ≡ DP-SGD at ⌈n/b⌉ steps), ``mf_sensitivity`` and
  ``multi_epoch_mf`` (multi-epoch MF under (k, b)-participation).
- ``shuffle``: ``shuffle_lower(...)``, the shuffling *lower* curve (fdp ships no upper curve for
  shuffling, see ``fdp.sgd.shuffle``; never a guarantee).
- ``clt``: ``dpsgd_clt_mu(...)``, the CLT μ of noisy SGD (Bu, Dong, Long & Su 2020;
  Dong, Roth & Su 2022, §5), an approximation, and ``compare_dpsgd_clt``.
- ``rdp``: ``dpsgd_rdp_epsilon(...)``, the Rényi (moments) accountant (Mironov, Talwar
  & Zhang 2019), improved conversion by default, Mironov's on request; the formulas
  are in ``fdp.classical.rdp``.
- ``compare``: ``compare_accountants(...)``, the certified, CLT and Rényi ε of one run.
- ``report``: ``compare_samplers(...)``, one training configuration under every sampler.
- ``loop_check``: ``check_loop(Loop(...), accounted)``, whether the accounted call describes
  the training loop as run (sample rate, sampler, accumulation, sum or mean, neighbours),
  and ``loop_accounting(loop)``, the call that does.
- ``trajectory``: ``trajectory(...)``, certified ε(δ) at many step counts of one run
  from one discretisation (a ``Trajectory``, with ``plot()``).

Every function names its parameters the same way: ``noise_multiplier`` (σ),
``sample_rate`` (q), ``steps`` (T), ``sampling`` (the batch sampler), ``neighbouring``,
``sensitivity`` (of the clipped gradient sum, in clipping norms), ``delta`` and
``tol`` (the engine's grid accuracy).
"""

from fdp.sgd.allocation import random_allocation
from fdp.sgd.certified import dpsgd
from fdp.sgd.clt import DPSGDComparison, compare_dpsgd_clt, dpsgd_clt_mu
from fdp.sgd.compare import AccountantComparison, compare_accountants
from fdp.sgd.last_iterate import (
    LastIterate,
    LastIterateComparison,
    LastIterateGaussian,
    compare_last_iterate,
    contraction,
    cyclic_mu,
    noisy_cgd,
    noisy_gd,
    noisy_sgd,
    strongly_convex_mu,
)
from fdp.sgd.loop_check import Loop, LoopMismatch, check_loop, loop_accounting
from fdp.sgd.matrix_factorization import (
    MFSensitivity,
    banded_mf,
    mf_sensitivity,
    multi_epoch_mf,
    tree_aggregation,
)
from fdp.sgd.rdp import dpsgd_rdp_epsilon
from fdp.sgd.report import SamplerRow, compare_samplers
from fdp.sgd.shuffle import ShuffleLower, shuffle_lower
from fdp.sgd.trajectory import Trajectory, trajectory

__all__ = ["AccountantComparison", "DPSGDComparison", "LastIterate", "LastIterateComparison",
           "LastIterateGaussian", "Loop", "LoopMismatch", "MFSensitivity", "SamplerRow",
           "ShuffleLower", "Trajectory", "banded_mf", "check_loop", "compare_accountants",
           "compare_dpsgd_clt", "compare_last_iterate", "compare_samplers", "contraction",
           "cyclic_mu", "dpsgd", "dpsgd_clt_mu", "dpsgd_rdp_epsilon", "loop_accounting",
           "mf_sensitivity", "multi_epoch_mf", "noisy_cgd", "noisy_gd", "noisy_sgd",
           "random_allocation", "shuffle_lower", "strongly_convex_mu", "trajectory",
           "tree_aggregation"]
