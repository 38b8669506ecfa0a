"""DP-SGD accounting in one place: certified, CLT and Rényi side by side.

``dpsgd`` (``certified``: every batch sampler, composed by the engine),
``random_allocation`` (``allocation``), last-iterate privacy (``last_iterate``,
``cyclic``, ``shifted_interpolation``), correlated noise (``matrix_factorization``), the
shuffling LOWER curve (``shuffle``; never a guarantee), the CLT μ (``clt``, an
approximation), the Rényi accountant (``rdp``), their comparisons (``compare``,
``report``: one configuration under every sampler), ``check_loop`` (``loop_check``:
does the accounted call describe the loop as run) and ``trajectory`` (ε(δ) at many step
counts from one discretisation). Every function names its parameters the same way:
``noise_multiplier`` (σ), ``sample_rate`` (q), ``steps`` (T), ``sampling``,
``neighbouring``, ``sensitivity`` (of the clipped gradient sum, in clipping norms),
``delta`` and ``tol`` (the engine's grid accuracy).
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
