"""From a privacy profile back to a trade-off function (DRS Prop 2.12).

f(α) = sup_ε max{0, 1 − δ(ε) − e^ε α}. For a symmetric profile (ε ≥ 0, each point
meaning (ε, δ)-DP), each point contributes f_{ε,δ} with both of its lines. Taking the
supremum over finitely many points gives a trade-off function below the true f: an
(ε, δ)-curve sampled at some ε converts back to a valid, slightly weaker guarantee.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fdp import _validate
from fdp.tradeoff import TradeOff


@dataclass(frozen=True, eq=False)
class ProfileBound(TradeOff):
    """max over given points of the supporting lines 1 − δ_i − e^{ε_i} α (and, when
    ``symmetric``, e^{−ε_i}(1 − δ_i − α)), clipped below at 0: max{0, …} is part of
    f_{ε,δ}'s definition, not a repair."""

    eps: np.ndarray
    deltas: np.ndarray
    two_sided: bool = True

    @property
    def symmetric(self) -> bool:
        return self.two_sided

    def _beta(self, alpha):
        a = np.asarray(alpha, dtype=float).ravel()
        out = np.zeros(a.shape)
        with np.errstate(over="ignore"):
            y = np.exp(self.eps)      # +inf past ε ≈ 709: the line is then vertical at α = 0
        for s in range(0, y.size, 512):
            ys, ds = y[s:s + 512, None], self.deltas[s:s + 512, None]
            with np.errstate(invalid="ignore", over="ignore"):
                lines = np.where(a[None, :] == 0, 1.0 - ds, 1.0 - ds - ys * a[None, :])
            if self.two_sided:
                lines = np.maximum(lines, (1.0 - ds - a[None, :]) / ys)
            out = np.maximum(out, lines.max(axis=0))
        return out.reshape(np.shape(alpha))

    _certified_delta = True

    def _lines(self):
        """The supporting lines b − e^σ α of f (σ = log of minus the slope), and 0."""
        b = [1.0 - self.deltas, np.zeros(1)]
        sig = [self.eps, np.array([-np.inf])]
        if self.two_sided:
            b.append(np.exp(-self.eps) * (1.0 - self.deltas))
            sig.append(-self.eps)
        return np.concatenate(b), np.concatenate(sig)

    def _delta(self, eps):
        """δ(ε) = 1 − min_α max_l (b_l + (e^ε − e^{σ_l}) α) exactly (no search over α).

        For a max of lines the minimum over α of the envelope of b_l + (t − s_l) α
        (t = e^ε, s_l = e^{σ_l}) is the largest crossing value of a line with s_j ≤ t
        and one with s_k ≥ t, or of a line with the walls α = 0 (b_j, rising lines)
        and α = 1 (b_k + t − s_k, falling lines) (one-dimensional LP duality):
        the crossing value is (1 − r) b_j + r b_k with
        r = (t − s_j)/(s_k − s_j), evaluated as exp of log differences so that slopes
        e^{800} and crossings at α ≈ e^{−800} (below the smallest double) are exact;
        when no line is steeper than t the minimum is at α = 0 (r = 0). Vectorised
        over ε; O(n_ε · n_lines²) in chunks.
        """
        e = np.asarray(eps, dtype=float)
        flat = e.ravel()
        b, sig = self._lines()
        out = np.empty(flat.shape)
        m = b.size
        step = max(1, 2_000_000 // (m * m))
        for c in range(0, flat.size, step):
            t = flat[c:c + step, None, None]                   # log t = ε
            sj, sk = sig[None, :, None], sig[None, None, :]
            bj, bk = b[None, :, None], b[None, None, :]
            valid = (sj <= t) & (sk >= t)
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                # log(t − s_j) − log(s_k − s_j), both with s_j ≤ t ≤ s_k
                num = t + np.log1p(-np.exp(sj - t))
                den = sk + np.log1p(-np.exp(sj - sk))
                r = np.where(sk == t, 1.0, np.exp(num - den))
                r = np.where(np.isfinite(r), np.clip(r, 0.0, 1.0), 0.0)
            value = np.where(valid, (1.0 - r) * bj + r * bk, -np.inf)
            tt = flat[c:c + step, None]
            # the walls α ≥ 0 and α ≤ 1: b_j for rising lines, ℓ_k(1) for falling ones
            rising = np.where(sig[None, :] <= tt, b[None, :], -np.inf)
            with np.errstate(over="ignore", invalid="ignore"):
                at1 = b[None, :] + (np.exp(tt) - np.exp(sig[None, :]))
            falling = np.where((sig[None, :] >= tt) & ~np.isnan(at1), at1, -np.inf)
            v = np.maximum(value.max(axis=(1, 2)),
                           np.maximum(rising.max(axis=1), falling.max(axis=1)))
            out[c:c + step] = 1.0 - v
        out = np.where(np.isposinf(flat), 1.0 - self._beta(np.zeros(1))[0], out)
        out = np.where(np.isneginf(flat), 1.0, out)
        return np.clip(out, 0.0, 1.0).reshape(e.shape)

    def __repr__(self):
        kind = "symmetric" if self.two_sided else "one-sided"
        return f"from_privacy_profile({self.eps.size} points, {kind})"


def from_privacy_profile(eps, delta, *, symmetric: bool = True) -> TradeOff:
    """sup over the given points of f_{ε_i,δ_i} (DRS Prop 2.12).

    symmetric=True: each (ε_i ≥ 0, δ_i) is an (ε, δ)-DP statement, contributing
    f_{ε_i,δ_i}. symmetric=False: ε_i ranges over all reals and each point gives
    only the line 1 − δ_i − e^{ε_i} α (a profile of one order of the pair).

    Parameters
    ----------
    eps : array_like
        The ε_i (≥ 0 when ``symmetric``, any real otherwise).
    delta : array_like
        The δ_i in [0, 1], one per ε_i.
    symmetric : bool, optional
        How to read the points (default True).

    Returns
    -------
    TradeOff
        The weakest trade-off function implied by all the points.

    Raises
    ------
    ValueError
        For no points, mismatched lengths or values out of range.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.from_privacy_profile([0.5, 1.0], [1e-3, 1e-5])
    >>> print(f"{f(0.1):.4f}")
    0.8341
    """
    e = _validate.reals("eps", eps, low=0.0 if symmetric else -np.inf).ravel()
    d = _validate.reals("delta", delta, low=0.0, high=1.0).ravel()
    if e.shape != d.shape:
        raise ValueError(f"eps and delta must have the same length, got {e.size} and {d.size}")
    if e.size == 0:
        raise ValueError("from_privacy_profile needs at least one (eps, delta) point")
    return ProfileBound(e, d, symmetric)
