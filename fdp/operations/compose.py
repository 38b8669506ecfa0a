"""Composition f ⊗ g = T(P × P', Q × Q') (DRS Def 3.1): the rule table.

Every composition goes through ``compose``. Factors are first flattened and equal
factors counted (``count_factors``); each gets its kind, and the table ``RULES``,
keyed by PAIRS of kinds, says how two reduced factors combine:

    Identity, f_{0,0}, T(P, P)   neutral, dropped                          (DRS Prop 3.2)
    Gaussian ⊗ Gaussian          G_a ⊗ G_b = G_√(a²+b²), closed            (DRS Cor 3.3)
    f_{ε,δ}^{⊗n}                 binomial form, an exact pair              (KOV Thm 3.3)
    exact pair ⊗ exact pair      product pair, equal losses merged, exact  (DRS Def 3.1);
                                 past MAX_ATOMS atoms: the engine
    g ⊗ f_{0,δ}                  (1−δ) g(α/(1−δ)), closed                  (DRS Def 3.1
                                 with the pair of f_{0,δ}, see ``WithDelta``)
    no rule (None)               the numeric engine, certified bracket     (fdp.engine)
                                 with, when every factor has a certified
                                 Rényi curve of its own pair, the RDP bound as
                                 a second upper end (``MinCertified``; Mironov
                                 2017, Prop 1)

The δ part of a pair (equal masses at losses ±inf) is split off exactly, so that
for example G_μ ⊗ f_{ε,δ} runs G_μ ⊗ f_{ε,0} through the engine and adds δ exactly.

A rule that cannot form its exact result (too many atoms) answers None, like a
missing rule (for example Gaussian with Laplace): the engine composes those factors.

References: DRS = Dong, Roth & Su (2022), "Gaussian differential privacy", JRSS-B;
KOV = Kairouz, Oh & Viswanath (2015), "The composition theorem for differential
privacy", ICML.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from fdp import _validate
from fdp._lazy import LazyModule
from fdp.families.eps_delta import EpsDelta
from fdp.families.eps_delta_power import (
    eps_delta_k_fold,
    eps_delta_pair,
    log_binom_pmf,  # noqa: F401  (its home moved; kept importable)
)
from fdp.families.finite_pair import FinitePair
from fdp.families.finite_pair import power as pair_power
from fdp.families.finite_pair import product as pair_product
from fdp.families.gaussian import Gaussian
from fdp.families.identity import Identity
from fdp.law import split_delta
from fdp.operations.rdp_bound import RDPBound
from fdp.operations.with_delta import WithDelta
from fdp.tradeoff import TradeOff, as_factors, count_factors

#: The engine and ``MinCertified`` (a ``Numeric`` subclass) load on the first numeric
#: composition only, so that closed forms and ``import fdp`` stay light.
engine = LazyModule("fdp.engine")
min_certified = LazyModule("fdp.operations.min_certified")


def eps_delta_power(f: EpsDelta, n: int) -> FinitePair | None:
    """The n-fold rule of f_{ε,δ} in the table: its exact pair (KOV Thm 3.3,
    ``eps_delta_pair``), or None past ``MAX_ATOMS`` atoms (then the engine). A lone
    f_{ε,δ}^{⊗n} does not come here: ``eps_delta_k_fold`` reads it in log space."""
    return eps_delta_pair(f.eps, float(f.delta), n)


# A factor's kind is its ``_composition_kind()``, else "pair" (an exact finite pair,
# built once) or "numeric". Payloads: gaussian μ² as 4^e·s, eps_delta f_{ε,δ}, pair a
# FinitePair; ``POWERS`` maps a kind to (result kind, its n-fold), ``RULES[(a, b)]``
# combines two reduced payloads, or is None (the engine; the module docstring's table).
def _gaussian_power(g: Gaussian, n: int) -> tuple[int, float]:
    """n μ² (DRS Cor 3.3) as (e, s) with n μ² = 4^e s: μ² itself under- and overflows
    beyond μ ≈ 1e∓154 (G_{1e-200} ⊗ G_{1e-200} would read as Id). Scaling by powers of
    two is exact, so wherever μ² is a normal double the result is bit for bit that of
    n μ²; n may exceed any double."""
    if g.mu == 0.0:
        return 0, 0.0
    _, e = math.frexp(g.mu)
    s = math.ldexp(g.mu, -e) ** 2                 # (μ/2^e)² ∈ [1/4, 1)
    if n >= 2 ** 1000:
        half = (n.bit_length() - 1000) // 2       # n = n'·4^half + r, the r < 4^half dropped
        return e + half, float(n >> (2 * half)) * s
    return e, n * s


def _add_gaussians(a: tuple[int, float], b: tuple[int, float]) -> tuple[int, float]:
    """μ_a² + μ_b² in the (e, s) form of ``_gaussian_power`` (exact rescaling)."""
    e = max(a[0], b[0])
    return e, math.ldexp(a[1], 2 * (a[0] - e)) + math.ldexp(b[1], 2 * (b[0] - e))


def _gaussian_of(variance: tuple[int, float]) -> Gaussian:
    """G_μ with μ = 2^e √s."""
    e, s = variance
    try:
        mu = math.ldexp(math.sqrt(s), e)
    except OverflowError:
        mu = math.inf
    if not math.isfinite(mu):
        raise ValueError("the composed Gaussian's mu exceeds the largest double "
                         "(about 1.8e308): its trade-off curve is 0 at every α > 0 to "
                         "double precision")
    return Gaussian(mu)


POWERS: dict[str, tuple[str, Callable[[Any, int], Any]]] = {
    "gaussian": ("gaussian", _gaussian_power),
    "eps_delta": ("pair", eps_delta_power),
    "pair": ("pair", pair_power),
}

RULES: dict[tuple[str, str], Callable[[Any, Any], Any] | None] = {
    ("gaussian", "gaussian"): _add_gaussians,      # G_a ⊗ G_b = G_√(a²+b²)
    ("pair", "pair"): pair_product,                # product pair (DRS Def 3.1)
    ("gaussian", "pair"): None,                    # no closed form: the engine
    ("pair", "gaussian"): None,
}

# The result kinds, in the order their reductions are combined.
RESULT_KINDS = ("gaussian", "pair")


def _finish(kind: str, payload: Any) -> TradeOff:
    """A reduced payload as a trade-off function again."""
    return _gaussian_of(payload) if kind == "gaussian" else payload


def _size(kind: str, payload: Any) -> int:
    """Pairs are multiplied smallest first (fewer atoms to merge on the way)."""
    return payload.p.size if kind == "pair" else 0


def _classify(f: TradeOff) -> tuple[str, Any]:
    """(kind, payload) of one factor; the exact pair is built at most once."""
    kind = f._composition_kind()
    if kind is not None:
        return kind, f
    pair = f._pair()
    if pair is None:
        return "numeric", f
    if np.array_equal(pair.p, pair.q):
        return "neutral", None                # P = Q: T(P, P) = Id
    return "pair", pair


def _reduce_kind(kind: str, payloads: list) -> TradeOff | None:
    """One result for the n-folds of one kind, by ``RULES[(kind, kind)]``; None when
    there is no rule or a step would be too large."""
    rule = RULES.get((kind, kind))
    if rule is None and len(payloads) > 1:
        return None
    payloads = sorted(payloads, key=lambda p: _size(kind, p))
    out = payloads[0]
    for part in payloads[1:]:
        out = rule(out, part) if rule is not None else None
        if out is None:
            return None
    return _finish(kind, out)


def compose(*fs: TradeOff, tol: float | None = None) -> TradeOff:
    """f_1 ⊗ f_2 ⊗ … (DRS Def 3.1); adaptive composition of f_i-DP mechanisms is ⊗f_i-DP.

    Closed forms are kept (see the module table); anything else is composed by
    the numeric engine and returned with a certified bracket. ``tol`` (default
    ``fdp.engine.DEFAULT_TOL`` = 1e-4) sets the engine's grid accuracy; it is a
    target, not a guarantee: ε brackets typically come out 3–10 × tol wide, and the
    bracket itself (``bounds``, ``epsilon_bounds``) is what is certified. Unused for
    closed forms. ``fs``: the factors, or one list of them, in any order (composition is
    commutative); ``TypeError`` for one that is not a TradeOff or not a guarantee.

    Examples
    --------
    >>> import fdp
    >>> fdp.compose(fdp.Gaussian(3.0), fdp.Gaussian(4.0))
    Gaussian(mu=5.0)
    >>> fdp.compose([fdp.Gaussian(3.0), fdp.Gaussian(4.0)])
    Gaussian(mu=5.0)
    >>> fdp.compose(fdp.EpsDelta(1.0), fdp.EpsDelta(0.5)).is_exact
    True
    """
    fs = as_factors(fs, "compose")
    if tol is not None:
        _validate.real("tol", tol, low=0.0, low_open=True)
    return _compose_counted(count_factors(fs), tol)


def _compose_counted(items: list[tuple[TradeOff, int]], tol: float | None) -> TradeOff:
    if len(items) == 1:
        f0, n0 = items[0]
        if isinstance(f0, EpsDelta) and f0._composition_kind() == "eps_delta":
            return eps_delta_k_fold(f0, n0)    # exact at any n, in log space (KOV Thm 3.3)
    by_kind: dict[str, list] = {}      # result kind -> [(n-fold payload or None, f, n)]
    numeric: list[tuple[TradeOff, int]] = []
    for f, n in items:
        kind, payload = _classify(f)
        if kind == "neutral":
            continue
        power = POWERS.get(kind)
        if power is None:
            numeric.append((f, n))
            continue
        result_kind, rule = power
        by_kind.setdefault(result_kind, []).append((rule(payload, n), f, n))
    reduced: list[tuple[TradeOff, int]] = []
    for kind in sorted(by_kind, key=RESULT_KINDS.index):    # gaussian, then pair
        group = by_kind[kind]
        parts = [payload for payload, _, _ in group]
        one = None if any(p is None for p in parts) else _reduce_kind(kind, parts)
        if one is None:                # no closed form, or too large: the engine
            reduced.extend((f, n) for _, f, n in group)
        else:
            reduced.append((one, 1))
    reduced.extend(numeric)
    if not reduced:
        return Identity()
    if len(reduced) == 1 and reduced[0][1] == 1:
        return reduced[0][0]
    reduced, delta = _split_delta(reduced)
    if delta > 0.0:
        return WithDelta(_compose_counted(reduced, tol), delta)
    # a second certified upper bound of the same composition, when every factor has a
    # certified Rényi curve of its own pair: the result reports the smaller
    # (``MinCertified``); and advice where the factors were symmetrised one by one
    advice = SYMMETRISED_ADVICE if any(_symmetrised_one_sided(f) for f, _ in reduced) else ""
    return min_certified.with_rdp(engine.compose_numeric(reduced, tol),
                                  RDPBound.of_factors(items), advice)


#: What a composition of one-sided symmetrisations says with its answers.
SYMMETRISED_ADVICE = (
    "min{f, f⁻¹}** composed factor by factor: valid, but looser than symmetrising once; "
    "for Poisson DP-SGD fdp.dpsgd over all steps is the tight answer (in general: "
    "compose subsample(p, direction='add'), then symmetrize(one_sided=True))")


def _symmetrised_one_sided(f: TradeOff) -> bool:
    """Whether f is min{g, g⁻¹}** of a one-direction g, asked of the object: an envelope
    with a one-direction member, or a numeric result with a lattice per direction."""
    members = f._delta_members()
    if members and any(m.directions == "one" for m in members):
        return True
    lattices = f._lattices()
    return lattices is not None and len(lattices[0]) > 1


def _split_delta(items: list[tuple[TradeOff, int]]
                 ) -> tuple[list[tuple[TradeOff, int]], float]:
    """Write an exact pair as pair₀ ⊗ f_{0,δ} when its +inf Q-mass equals its −inf
    P-mass (δ): pair₀ keeps the finite atoms scaled by 1/(1 − δ). Exact, since the
    product of pair₀ with the pair of f_{0,δ} gives back every atom."""
    out, delta = [], 0.0
    for f, n in items:
        if n == 1 and isinstance(f, FinitePair):
            law = f.law()
            up = split_delta(*law.singular_masses(), rtol=1e-15, atol=1e-300)
            if up is not None and 0.0 < up < 1.0:
                g = law.without_delta(up)
                f = FinitePair.from_atoms(g.L, g.p, g.q)
                delta = up + delta - up * delta  # 1 − (1 − δ)(1 − up)
                if np.allclose(f.log_ratio, 0.0):
                    continue  # the pair was f_{0,δ} itself
        out.append((f, n))
    return out, delta


def power(f: TradeOff, n: int) -> TradeOff:
    """f^{⊗n}; n = 0 gives Id. Negative or non-integer n is refused.

    Examples
    --------
    >>> import fdp
    >>> from fdp.operations.compose import power
    >>> power(fdp.Gaussian(1.0), 9)
    Gaussian(mu=3.0)
    """
    if isinstance(n, bool) or (not isinstance(n, (int, np.integer)) and not (
            isinstance(n, float) and n.is_integer())):
        raise ValueError(f"power n must be a non-negative integer, got {n!r}")
    n = int(n)
    if n < 0:
        raise ValueError(f"power n must be a non-negative integer, got {n}")
    if n == 0:
        return Identity()
    return _compose_counted([(f, n)], None)
