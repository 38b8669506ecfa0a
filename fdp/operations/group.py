"""Group privacy (DRS Theorem 2.14).

Derivation: docs/derivations/operations.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from fdp import _validate
from fdp._constants import EPS_SEARCH
from fdp._numerics import ArrayFn
from fdp._types import FloatArray
from fdp.families.eps_delta import EpsDelta, RandomizedResponse
from fdp.families.eps_delta_group import EpsDeltaGroup, eps_delta_group
from fdp.families.piecewise import PiecewiseLinear, lower_convex_hull
from fdp.status import Status, status_of
from fdp.tradeoff import TradeOff, math_repr, remark

# Group sizes up to this are also evaluated by iterating 1 − f pointwise (exact to
# rounding for closed-form f); the grid bracket is used for every k.
DIRECT_MAX = 32
# Group sizes above this are computed by repeated doubling of the bounds (O(log k)).
DOUBLING_FROM = 256
# Absolute error allowed for 1 − f(x) computed in double precision (a few ulps of 1).
ROUNDING = 4.5e-16


# -- Generic group privacy: a certified bracket, iterated on a vertex set
def _alpha_nodes() -> FloatArray:
    """Nodes in [0, 1]: ratio ≈ 1.1 on [1e-300, 1e-20], ≈ 1.01 on [1e-20, 0.1],
    uniform (2e-4 apart) on [0.1, 0.9], 1 − x log-spaced (ratio ≈ 1.02) down to 1e-17."""
    return np.unique(np.concatenate([
        [0.0, 1.0], np.logspace(-300.0, -20.0, 7000), np.logspace(-20.0, -1.0, 4400),
        np.linspace(0.1, 0.9, 4001), 1.0 - np.logspace(-17.0, -1.0, 1900)]))


def _eps_nodes() -> FloatArray:
    """Privacy levels for the supporting lines: 0.002 apart on [−40, 40], 0.05 beyond."""
    core = np.linspace(-40.0, 40.0, 40001)
    right = np.arange(40.05, EPS_SEARCH, 0.05)
    return np.concatenate([-right[::-1], core, right, [EPS_SEARCH]])


def _lower_envelope(log_slopes: FloatArray,
                    intercepts: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Vertices on [0, 1] of x ↦ min_j (c_j + e^{s_j} x), a concave piecewise-linear map.

    Derivation: docs/derivations/operations.md.
    """
    s = np.exp(log_slopes)
    c = np.asarray(intercepts, dtype=float)
    keep: list[int] = []
    for j in range(s.size):
        skip = False
        while keep:
            t = keep[-1]
            if c[j] > c[t]:
                skip = s[j] >= s[t]   # steeper and higher at 0: never lowest on x ≥ 0
                break
            if s[j] <= s[t]:
                keep.pop()            # t is above j everywhere on x ≥ 0
                continue
            if len(keep) >= 2:
                u = keep[-2]
                # t is lowest on (x_tj, x_ut): drop it when that interval is empty
                x_ut = (c[u] - c[t]) / (s[t] - s[u])
                x_tj = (c[t] - c[j]) / (s[j] - s[t])
                if x_tj >= x_ut:
                    keep.pop()
                    continue
            break
        if not skip:
            keep.append(j)
    idx = np.array(keep)
    cc, ss = c[idx], s[idx]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        xb = (cc[:-1] - cc[1:]) / (ss[1:] - ss[:-1])
    xs = np.unique(np.concatenate([[0.0, 1.0], xb[(xb > 0.0) & (xb < 1.0)]]))
    # the line lowest at x: the first kept line (from the steep end) whose breakpoint
    # with its flatter neighbour lies at or left of x
    rev = xb[::-1]                                      # increasing
    pos = np.searchsorted(rev, xs, side="right")        # breakpoints ≤ x
    line = idx.size - 1 - pos
    ys = np.full(xs.shape, np.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        for off in (-1, 0, 1):
            near = np.clip(line + off, 0, idx.size - 1)
            ys = np.minimum(ys, cc[near] + np.where(xs == 0.0, 0.0, ss[near] * xs))
    return xs, ys


@dataclass(frozen=True)
class _MonotoneBound:
    """max over parts of non-decreasing piecewise-linear maps (xs, ys), capped at 1,
    with its own value at 0 (for iteration; each part is exact between its vertices)."""

    parts: tuple[tuple[FloatArray, FloatArray], ...]
    at0: float

    def __call__(self, x: FloatArray) -> FloatArray:
        out = np.max([np.interp(x, xs, ys) for xs, ys in self.parts], axis=0)
        return np.where(x == 0.0, self.at0, np.minimum(out, 1.0))


def _iterate(bound: ArrayFn, x0: FloatArray, k: int) -> FloatArray:
    """bound^{∘k}(x0); stops early at a fixed point (further steps change nothing)."""
    x = np.asarray(x0, dtype=float)
    for _ in range(k):
        nxt = bound(x)
        if np.array_equal(nxt, x):
            break
        x = nxt
    return x


def _double_upper(bound: ArrayFn, x: FloatArray) -> _MonotoneBound:
    """A concave non-decreasing bound ≥ bound∘bound, from its values at the nodes.

    bound∘bound is concave when bound is concave and non-decreasing; ``_concave_cap``
    bounds it between nodes, and the least concave majorant (upper hull) of that keeps
    the result concave for the next doubling."""
    v = bound(bound(x))
    cx, cv = _concave_cap(x, v)
    hx, neg = lower_convex_hull(cx, -cv)
    at0 = min(float(-neg[0]), float(bound(bound(np.zeros(1)))[0]))
    return _MonotoneBound(((hx, -neg),), at0)


def _double_lower(bound: ArrayFn, x: FloatArray) -> _MonotoneBound:
    """A non-decreasing bound ≤ ψ∘ψ from one ≤ ψ (ψ concave): the chord of the node
    values of bound∘bound lies below the chord of ψ∘ψ, which is concave."""
    v = np.maximum.accumulate(bound(bound(x)))
    return _MonotoneBound(((x, v),), float(v[0]))


def _power(bound: ArrayFn, x: FloatArray, k: int,
           doubler: Callable[[ArrayFn, FloatArray], _MonotoneBound]) -> FloatArray:
    """Node values of a bound of ψ^{∘k}: plain iteration for small k, else by doubling
    (about 2 log₂ k compositions) and composing the powers 2^j of k's binary digits."""
    if k <= DOUBLING_FROM:
        return _iterate(bound, x, k)
    y = np.asarray(x, dtype=float)
    power = bound
    while k:
        if k & 1:
            y = power(y)
        k >>= 1
        if k:
            power = doubler(power, x)
    return y


def _concave_cap(xs: FloatArray, vs: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Vertices of a piecewise-linear upper bound of a concave non-decreasing Ψ on [0, 1]
    known at the nodes, v_i = Ψ(x_i).

    Derivation: docs/derivations/operations.md.
    """
    h = np.diff(xs)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.diff(vs) / h
    n = h.size
    sl = np.concatenate([[np.inf], s[:-1]])          # left-neighbour slope (cell i)
    sr = np.concatenate([np.maximum(s[1:], 0.0), [0.0]])  # right-neighbour slope
    sl = np.maximum(sl, sr)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = (vs[1:] - vs[:-1] - sr * h) / (sl - sr)
    t = np.where(np.isfinite(t), np.clip(t, 0.0, h), 0.0)
    kx = xs[:-1] + t
    with np.errstate(invalid="ignore"):
        kv = np.where(np.isinf(sl), vs[1:] - sr * (h - t), vs[:-1] + sl * t)
    kv = np.minimum(np.minimum(kv, vs[1:] - sr * (h - t)), vs[1:])
    ax = np.empty(2 * n + 1)
    av = np.empty(2 * n + 1)
    ax[0:-1:2], av[0:-1:2] = xs[:-1], vs[:-1]
    ax[1::2], av[1::2] = kx, kv
    ax[-1], av[-1] = xs[-1], vs[-1]
    # ψ is continuous at 0 (a trade-off function is), so on (0, x_1] only the right
    # extension bounds it: the first segment must start at its value at 0, not at v_0.
    av[0] = max(av[0], av[1])
    ax, idx = np.unique(ax, return_index=True)
    return ax, av[idx]


@dataclass(frozen=True, eq=False)
class Group(TradeOff):
    """1 − (1 − f)^{∘k}: f-DP for individuals ⇒ this for groups of size k (DRS Thm 2.14).

    Derivation: docs/derivations/operations.md.
    """

    of: TradeOff
    k: int
    _cache: dict[str, tuple[PiecewiseLinear, PiecewiseLinear]] = field(
        default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _validate.positive_int("k", self.k))

    def __eq__(self, other: object) -> bool:
        return type(other) is Group and self.of == other.of and self.k == other.k

    def __hash__(self) -> int:
        return hash(("Group", self.of, self.k))

    def __reduce__(self) -> tuple[type[Group], tuple[TradeOff, int]]:
        return Group, (self.of, self.k)         # the cached curves are recomputed

    # -- the bracket ----------------------------------------------------
    def _curves(self) -> tuple[PiecewiseLinear, PiecewiseLinear]:
        if "curves" not in self._cache:
            self._cache["curves"] = self._build()
        return self._cache["curves"]

    def _build(self) -> tuple[PiecewiseLinear, PiecewiseLinear]:
        f, k = self.of, self.k
        x = _alpha_nodes()
        # Supporting lines at the fixed grid and at the slopes of f between nodes (any ε
        # gives a valid line; these touch φ near every node, whatever the scale of f).
        b = f._beta(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.log(np.diff(-b) / np.diff(x))
        e = np.unique(np.concatenate([_eps_nodes(), slope[np.isfinite(slope)]]))
        e = e[np.abs(e) <= EPS_SEARCH]
        with np.errstate(over="ignore", invalid="ignore"):
            d_hi = np.nan_to_num(np.minimum(f._delta(e), 1.0), nan=1.0)     # NaN: safe ends
            d_lo = np.nan_to_num(np.clip(f._delta_lower(e), 0.0, 1.0), nan=0.0)
        d_inf_hi = float(f._delta(np.array([np.inf]))[0])
        d_inf_lo = float(f._delta_lower(np.array([np.inf]))[0])
        # U: min over the supporting lines δ_hi(ε) + e^ε x (and the cap 1).
        ux, uy = _lower_envelope(e, d_hi)
        # δ_hi is known to a relative rounding error: widen by a relative 1e-15.
        uy = uy * (1.0 + 1e-15)
        U = _MonotoneBound(((ux, uy),), min(float(uy[0]), d_inf_hi * (1.0 + 1e-15)))
        # L (dual): φ(x) = inf_ε (δ(ε) + e^ε x) ≥ min_j (δ_lo(ε_{j+1}) + e^{ε_j} x),
        # with the tails ε ≥ ε_max (δ ≥ δ(∞)) and ε ≤ ε_min (δ ≥ δ_lo(ε_min)).
        slopes = np.concatenate([[-np.inf], e])
        icpt = np.concatenate([[d_lo[0]], np.append(d_lo[1:], d_inf_lo)])
        lx, ly = _lower_envelope(slopes, icpt)
        # L (primal): chord of 1 − f_hi at the nodes, made non-decreasing. The maximum
        # of the two is taken pointwise (a chord of the maximum could lie above it).
        # 1 − f_hi(x) is known to an absolute ROUNDING only (it is 0 for x < 1e-16).
        lp = np.maximum.accumulate(np.clip(1.0 - f._upper(x) - ROUNDING, 0.0, 1.0))
        L = _MonotoneBound(((lx, ly), (x, lp)), float(max(d_inf_lo, lp[0])))
        hi = _power(U, x, k, _double_upper)
        lo = _power(L, x, k, _double_lower)
        hi = np.minimum.accumulate(hi[::-1])[::-1]       # ψ is non-decreasing
        lo = np.minimum(np.maximum.accumulate(lo), hi)
        cx, cv = _concave_cap(x, hi)
        lower = PiecewiseLinear(cx, np.clip(1.0 - cv, 0.0, 1.0), cv)
        upper = PiecewiseLinear(x, 1.0 - lo, lo)
        return lower, upper

    def _direct(self, fn: ArrayFn, alpha: FloatArray, margin: float) -> FloatArray:
        """1 − (1 − fn)^{∘k}(α), each step moved by ``margin`` (± ROUNDING) to its safe side."""
        x = np.asarray(alpha, dtype=float)
        for _ in range(self.k):
            x = np.clip(1.0 - fn(x) + margin, 0.0, 1.0)
        return 1.0 - x

    def _beta(self, alpha: FloatArray) -> FloatArray:
        lower = self._curves()[0]._beta(alpha)
        if self.k <= DIRECT_MAX:
            lower = np.maximum(lower, self._direct(self.of._beta, alpha, ROUNDING))
        return np.clip(lower, 0.0, 1.0 - alpha)

    def _upper(self, alpha: FloatArray) -> FloatArray:
        upper = self._curves()[1]._beta(alpha)
        if self.k <= DIRECT_MAX:
            upper = np.minimum(upper, self._direct(self.of._upper, alpha, -ROUNDING))
        return np.maximum(upper, self._beta(alpha))

    def _delta(self, eps: FloatArray) -> FloatArray:
        return self._curves()[0]._delta(eps)

    def _delta_lower(self, eps: FloatArray) -> FloatArray:
        return np.minimum(self._curves()[1]._delta(eps), self._delta(eps))

    @property
    def status(self) -> Status:
        return status_of(self.of, operation=Status.CERTIFIED)

    @property
    def symmetric(self) -> bool:
        return self.of.symmetric

    def _inverse(self) -> TradeOff:
        """Reflecting in the diagonal commutes with 1 − (1 − f)^{∘k}."""
        return Group(self.of.inverse(), self.k)

    def _group(self, k: int) -> TradeOff:
        return Group(self.of, self.k * k)

    def __repr__(self) -> str:
        return f"{math_repr(self.of)}.group({self.k})" + remark(self)

    def latex(self) -> str:
        return rf"1-(1-{self.of.latex()})^{{\circ {self.k}}}"


def group(f: TradeOff, k: int) -> TradeOff:
    """The generic group curve 1 − (1 − f)^{∘k} (DRS Thm 2.14), a certified ``Group(f, k)``.

    The implementation of ``TradeOff._group``; f_{ε,δ} and binary randomized response get
    their exact ``eps_delta_group`` here, families with a closed form override ``_group``.

    Examples
    --------
    >>> import fdp
    >>> from fdp.operations.group import group
    >>> g = group(fdp.Laplace(0.5), 2)
    >>> g
    Laplace(mu=0.5).group(2)
    """
    if isinstance(f, EpsDelta):
        return eps_delta_group(f.eps, f._delta_value, k)
    if isinstance(f, RandomizedResponse) and f.k == 2:
        return eps_delta_group(f.eps, 0.0, k)
    return Group(f, k)

__all__ = ["EpsDeltaGroup", "Group", "eps_delta_group", "group"]
