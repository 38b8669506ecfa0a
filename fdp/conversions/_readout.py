"""Shared pieces of the certified read-outs (``risk``, ``gdp_fit``).

Both orders of a pair (T(Q, P) = T(P, Q)⁻¹, DRS 2022, Lemma A.2), the rounding
allowances the read-outs add on their safe sides, and a certified upper bound on
1 − g(α) from the dual of the privacy profile, 1 − g(α) = inf_ε (δ_g(ε) + e^ε α)
(DRS 2022, Prop 2.12), which does not cancel where g(α) is near 1.
"""

from __future__ import annotations

import numpy as np

from fdp._constants import EPS_SEARCH
from fdp._numerics import maximise_unimodal
from fdp._numerics import search_grid as _search_grid
from fdp._types import ArrayLike, FloatArray
from fdp.operations.subsample import PoissonAdd, PoissonRemove
from fdp.tradeoff import TradeOff

_U = np.finfo(float).eps          # 2^-52: absolute rounding allowance on probabilities
_REL = 1e-12                      # relative allowance on values computed in log space
_EPS_GRID = _search_grid(-50.0, EPS_SEARCH)


def _tradeoff(f: object) -> TradeOff:
    if not isinstance(f, TradeOff):
        raise TypeError(f"f must be a TradeOff, got {type(f).__name__}")
    return f


def one_direction(f: TradeOff) -> str | None:
    """'add', 'remove' or 'one' when f describes one direction of a neighbouring
    relation only (not a guarantee by itself), else None.

    Read from the typed ``directions`` attribute; the subsampling classes name which
    direction they are.
    """
    if f.directions != "one":
        return None
    if isinstance(f, PoissonAdd):
        return "add"
    if isinstance(f, PoissonRemove):
        return "remove"
    return "one"


def _pair_note(f: TradeOff) -> str:
    d = one_direction(f)
    if d is None:
        return "worst ordered pair, min{f, f⁻¹}" if not f.symmetric else ""
    return (f"f describes one direction ({d}) only: read on both orders min{{f, f⁻¹}}, "
            "i.e. that direction and its reverse")


def _orders(f: TradeOff) -> list[TradeOff]:
    """f, and f⁻¹ unless f is symmetric (then the two orders coincide)."""
    return [f] if f.symmetric else [f, f.inverse()]


def _round_down(x: ArrayLike, scale: float = 1.0) -> FloatArray:
    """x lowered by its rounding: 4 ulps relative plus ``scale``·2^-51 absolute (the
    error of a probability formed as a difference of numbers ≤ ``scale``)."""
    return np.maximum(np.asarray(x, dtype=float) * (1.0 - 2 * _U) - 2 * _U * scale, 0.0)


def _round_up(x: ArrayLike, scale: float = 1.0) -> FloatArray:
    """x raised by its rounding (see ``_round_down``), at most 1."""
    return np.minimum(np.asarray(x, dtype=float) * (1.0 + 2 * _U) + 2 * _U * scale, 1.0)


def _one_minus_upper(g: TradeOff, a: FloatArray) -> FloatArray:
    """Certified upper bound on 1 − g(α): min of 1 − g_lo(α) and inf_ε (δ_g(ε) + e^ε α)."""
    plain = _round_up(1.0 - g._beta(a))
    inner = a < 0.5                # α = 0 too: inf_ε δ_g(ε) = 1 − g(0)
    if not inner.any():
        return plain
    d = g._delta(_EPS_GRID)
    e = np.exp(_EPS_GRID)
    dual = np.empty(int(inner.sum()))
    for start in range(0, dual.size, 512):          # rows in blocks: bounded memory
        ai = a[inner][start:start + 512]
        vals = -(d[None, :] + e[None, :] * ai[:, None])

        def row(x: FloatArray, ai: FloatArray = ai) -> FloatArray:
            return -(g._delta(x) + np.exp(x) * ai)

        dual[start:start + ai.size] = -maximise_unimodal(row, _EPS_GRID, vals)
    out = plain.copy()
    # relative allowance only: δ in log space is accurate to rounding relative to itself
    out[inner] = np.minimum(plain[inner], np.minimum(dual * (1.0 + _REL), 1.0))
    return out
