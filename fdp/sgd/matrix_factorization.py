"""Correlated noise: DP-FTRL tree aggregation and matrix-factorisation mechanisms.

Training with correlated noise releases, instead of the per-step noisy gradients
g_t + z_t, the rows of a linear map of them. With the gradient matrix G (one row per
step, each row a clipped gradient sum) and a factorisation A = B C of the workload A
(A the lower-triangular all-ones prefix-sum matrix for DP-FTRL), the mechanism
releases C G + Z, Z with i.i.d. N(0, σ²) entries (per coordinate), and the learner
reads B (C G + Z) = A G + B Z. Everything private is in C G + Z: a Gaussian mechanism
whose sensitivity is the largest change of C G between neighbouring datasets.

Tree aggregation (Kairouz et al. 2021, "Practical and Private (Deep) Learning without
Sampling or Shuffling", ICML 2021, §3 and Appendix D)
-----------------------------------------------------------------------------------
The binary tree over T steps releases every completed dyadic partial sum
Σ_{t ∈ node} g_t + N(0, σ² s²) (s the sensitivity of one step's clipped sum, in
clipping norms). Its levels ℓ = 0, 1, … with 2^ℓ ≤ T hold completed nodes, so one leaf
lies in depth(T) = ⌊log2 T⌋ + 1 = ⌈log2(T + 1)⌉ released nodes (the bit length of T;
depth(0) = 0). The neighbouring relation is "replace one record with a special record"
(the special record contributes the zero gradient, Kairouz et al. 2021 §2): a record
used once moves its one leaf by a vector v with |v| ≤ s, hence each of the depth(T)
nodes above the leaf by v, and C G by a vector of norm s √depth(T) — the same vector
in every node, chosen (adaptively) when the record's step runs. The release is then
the Gaussian mechanism with sensitivity s √depth(T) and noise σ s: exactly
G_{√depth(T)/σ} (DRS Thm 2.7; adaptively, DRS Cor 3.3), attained by a record whose
clipped gradient has norm C in every released direction.

Several trees (restarts after T_1, …, T_k steps) compose: a record used once in every
tree gives μ² = Σ_i depth(T_i) s²/σ² (DRS Cor 3.3, G_a ⊗ G_b = G_√(a²+b²)). If each
record is used at most once across all trees (one epoch; dp_accounting's
``SingleEpochTreeAggregationDpEvent``), only its own tree moves and
μ = s √(max_i depth(T_i))/σ, which is the RDP α·max_depth/(2σ²) that dp_accounting's
``_compute_rdp_single_epoch_tree_aggregation`` charges.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fdp import _validate
from fdp.families import Gaussian


def tree_depth(steps: int) -> int:
    """Number of released nodes above one leaf of the DP-FTRL tree over T steps:
    ⌈log2(T + 1)⌉ = ⌊log2 T⌋ + 1 for T ≥ 1, 0 for T = 0 (Kairouz et al. 2021, §3).

    Computed exactly as the bit length of T (no floating-point logarithm).

    Parameters
    ----------
    steps : int
        T ≥ 0.

    Returns
    -------
    int

    Examples
    --------
    >>> from fdp.sgd.matrix_factorization import tree_depth
    >>> [tree_depth(t) for t in (0, 1, 2, 3, 4, 1600)]
    [0, 1, 2, 2, 3, 11]
    """
    return _validate.positive_int("steps", steps, low=0).bit_length()


def tree_aggregation(noise_multiplier: float, steps: int | Sequence[int], *,
                     sensitivity: float = 1.0, single_epoch: bool = False) -> Gaussian:
    """Exact trade-off function of DP-FTRL tree aggregation: G_μ with
    μ = s √(Σ_i ⌈log2(T_i + 1)⌉) / σ (Kairouz et al. 2021, §3 and Appendix D).

    The neighbouring relation is REPLACE ONE RECORD WITH A SPECIAL (zero-gradient)
    RECORD, the relation of Kairouz et al. 2021; the curve is not a guarantee for
    add/remove or replace-one neighbours. Each tree node carries independent noise
    N(0, σ² s²); the derivation is in the module docstring.

    Parameters
    ----------
    noise_multiplier : float
        σ > 0: the noise standard deviation per tree node, in units of the clipping
        norm (dp_accounting's ``noise_multiplier``).
    steps : int or sequence of int
        T ≥ 0 steps in one tree, or the step counts T_1, …, T_k (each ≥ 0, at least
        one) of k trees (the tree restarted after each).
    sensitivity : float, optional
        s > 0: the largest change of one step's clipped gradient sum when a record is
        replaced by the special record, in clipping norms (1 for the usual clipping).
    single_epoch : bool, optional
        False (default): a record may be used once in every tree, and the trees
        compose, μ² = Σ_i depth(T_i) s²/σ². True: each record is used at most once
        across all trees (dp_accounting's ``SingleEpochTreeAggregationDpEvent``),
        μ² = max_i depth(T_i) s²/σ².

    Returns
    -------
    Gaussian
        G_μ, status exact. For one tree and s = 1 it is ``Gaussian(√depth / σ)``.

    Raises
    ------
    ValueError
        If σ ≤ 0, s ≤ 0, a step count is negative or not an integer, or ``steps``
        is an empty sequence.

    Examples
    --------
    >>> import fdp
    >>> from fdp.sgd.matrix_factorization import tree_aggregation
    >>> tree_aggregation(1.0, 3) == fdp.Gaussian(2.0 ** 0.5)
    True
    >>> print(f"{tree_aggregation(2.0, [3, 4]).mu ** 2:.6f}")      # (2 + 3) / 4
    1.250000
    """
    sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    s = _validate.real("sensitivity", sensitivity, low=0.0, low_open=True)
    once = _validate.flag("single_epoch", single_epoch)
    if isinstance(steps, (str, bytes)):
        raise TypeError(f"steps must be an integer or a sequence of integers, got "
                        f"{type(steps).__name__}")
    if np.ndim(steps) == 0:
        counts = [steps]
    else:
        counts = list(np.asarray(steps, dtype=object).ravel())
        if not counts:
            raise ValueError("steps must be an integer >= 0 or a non-empty sequence of "
                             "integers >= 0, got an empty sequence")
    depths = [tree_depth(t) for t in counts]
    total = max(depths) if once else sum(depths)
    mu = s * math.sqrt(total) / sigma
    if not math.isfinite(mu):
        raise ValueError(f"noise_multiplier must be at least sensitivity·√depth / 1.8e308, "
                         f"got {_validate.number(sigma)} (μ would be infinite)")
    return Gaussian(mu)


__all__ = ["tree_aggregation", "tree_depth"]
