"""Empirical auditing: estimate a mechanism's trade-off curve from samples.

The derivation: docs/derivations/audits.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtri
from scipy.stats import beta as beta_dist

from fdp import _validate
from fdp._types import ArrayLike, Seed
from fdp.families.piecewise import PiecewiseLinear, from_points
from fdp.tradeoff import TradeOff

#: A function of the outputs (a log-likelihood ratio, a density): array in, array out.
ScoreFn = Callable[[Any], Any]


# ----------------------------------------------------------------------
# Result objects
# ----------------------------------------------------------------------
@dataclass(frozen=True)
class AuditEstimate:
    """Empirical (α, β) points with simultaneous Clopper–Pearson intervals.

    Returned by ``estimate``. Arrays have one entry per test (threshold and
    orientation), and all intervals hold together with probability ≥ ``confidence``.

    Parameters
    ----------
    thresholds : ndarray
        Threshold t of each test.
    orientation : ndarray
        +1: reject when score > t; −1: reject when score < t.
    alpha, beta : ndarray
        Point estimates of the type I and type II errors.
    alpha_lower, alpha_upper, beta_lower, beta_upper : ndarray
        Interval limits (Clopper & Pearson 1934).
    confidence : float
        Joint confidence of all the intervals.
    n_d, n_d_prime : int
        Counted samples on each side.
    tradeoff : PiecewiseLinear
        Lower convex hull of the conservative points (α_U, β_U): an upper bound on the
        true T(P, Q) at the confidence.

    Examples
    --------
    >>> import numpy as np
    >>> from fdp import audit
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.normal(0.0, 1.0, 20_000), rng.normal(1.0, 1.0, 20_000)
    >>> est = audit.estimate(x, y)
    >>> est.n_tests, est.n_d
    (200, 18000)
    >>> bool(est.mu_lower_bound() <= 1.0), bool(0.0 < est.epsilon_lower_bound(1e-5) < 5.0)
    (True, True)
    """

    thresholds: np.ndarray
    orientation: np.ndarray   # +1: reject when score > t; −1: reject when score < t
    alpha: np.ndarray
    beta: np.ndarray
    alpha_lower: np.ndarray
    alpha_upper: np.ndarray
    beta_lower: np.ndarray
    beta_upper: np.ndarray
    confidence: float
    n_d: int
    n_d_prime: int
    tradeoff: PiecewiseLinear = field(repr=False)

    @property
    def n_tests(self) -> int:
        return int(self.alpha.size)

    def epsilon_lower_bound(self, delta: float = 0.0) -> float:
        """Largest ε any (ε, δ) guarantee of the mechanism must have (at the confidence).

        (ε, δ)-DP requires β ≥ 1 − δ − e^ε α for every test, in both orders; so
        ε ≥ max_i log((1 − δ − β_U,i)/α_U,i) and log((1 − δ − α_U,i)/β_U,i).

        ``delta`` in [0, 1] (default 0); 0 when no test says more.
        """
        d = _validate.probability("delta", delta)
        a, b = self.alpha_upper, self.beta_upper
        with np.errstate(divide="ignore", invalid="ignore"):
            one = np.where((1 - d - b > 0), np.log(1 - d - b) - np.log(a), -np.inf)
            two = np.where((1 - d - a > 0), np.log(1 - d - a) - np.log(b), -np.inf)
        return float(max(0.0, np.max(one, initial=0.0), np.max(two, initial=0.0)))

    def mu_lower_bound(self) -> float:
        """Smallest μ a μ-GDP guarantee of the mechanism could have (at the confidence).

        G_μ(α_U) ≤ β_U ⇔ μ ≥ Φ⁻¹(1 − α_U) − Φ⁻¹(β_U); the maximum over the points (both
        orders; G_μ is symmetric).
        """
        a, b = self.alpha_upper, self.beta_upper
        with np.errstate(divide="ignore", invalid="ignore"):
            mu = -ndtri(a) - ndtri(b)
        mu = mu[np.isfinite(mu)]
        return float(max(0.0, np.max(mu, initial=0.0)))


@dataclass(frozen=True)
class Violation:
    """One point where a claimed f is refuted at the stated confidence.

    Parameters
    ----------
    alpha : float
        The type I error (upper limit) of the test.
    beta_upper : float
        Its type II error upper limit.
    claimed : float
        f(alpha), which exceeds ``beta_upper``; ``gap`` is the difference.
    order : str
        "d,d'" for tests of T(M(d), M(d')), "d',d" for the reversed order.

    Examples
    --------
    >>> import numpy as np, fdp
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.normal(0.0, 1.0, 20_000), rng.normal(1.0, 1.0, 20_000)
    >>> v = fdp.audit.check((x, y), fdp.Gaussian(0.5)).violations[0]
    >>> bool(v.gap > 0), v.order in ("d,d'", "d',d")
    (True, True)
    """

    alpha: float
    beta_upper: float
    claimed: float
    order: str

    @property
    def gap(self) -> float:
        return self.claimed - self.beta_upper


@dataclass(frozen=True)
class AuditCheck:
    """The outcome of ``check``: ``passed``, or the ``violations`` sorted by gap.

    True in a boolean context when passed; ``summary()`` says it in one line.

    Parameters
    ----------
    passed : bool
        No violation was found.
    violations : tuple of Violation
        The refuted points, largest gap first.
    estimate : AuditEstimate
        The empirical points behind the verdict.
    claimed : TradeOff
        The claim that was tested.

    Examples
    --------
    >>> import numpy as np, fdp
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.normal(0.0, 1.0, 20_000), rng.normal(1.0, 1.0, 20_000)
    >>> result = fdp.audit.check((x, y), fdp.Gaussian(1.0))
    >>> bool(result), len(result.violations)
    (True, 0)
    """

    passed: bool
    violations: tuple
    estimate: AuditEstimate = field(repr=False)
    claimed: TradeOff = field(repr=False)

    @property
    def alphas(self) -> np.ndarray:
        """The α values where the claim is violated."""
        return np.array([v.alpha for v in self.violations])

    def __bool__(self) -> bool:
        return self.passed

    def summary(self) -> str:
        c = self.estimate.confidence
        if self.passed:
            return (f"no violation found at confidence {c:g} "
                    f"({self.estimate.n_tests} tests, n = {self.estimate.n_d}/"
                    f"{self.estimate.n_d_prime}); eps lower bound "
                    f"{self.estimate.epsilon_lower_bound():.4g}")
        v = self.violations[0]
        return (f"claim violated at confidence {c:g} at {len(self.violations)} point(s); "
                f"worst at alpha = {v.alpha:.4g} ({v.order}): beta <= {v.beta_upper:.4g} "
                f"but the claim needs beta >= {v.claimed:.4g}")


# ----------------------------------------------------------------------
# Clopper–Pearson and the sample-size rule
# ----------------------------------------------------------------------
def clopper_pearson(k: ArrayLike, n: int, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Clopper–Pearson limits, each side at level γ/2 (vectorised in k).

    Clopper & Pearson (1934): with k successes in n trials the limits are quantiles of
    Beta(k, n − k + 1) and Beta(k + 1, n − k); 0 and 1 at k = 0 and k = n.

    Parameters
    ----------
    k : int or array_like
        Successes, 0 ≤ k ≤ n.
    n : int
        Trials.
    gamma : float
        Total error level of the interval, in (0, 1).

    Returns
    -------
    (ndarray, ndarray)
        Lower and upper limits, shaped like ``k``.

    Examples
    --------
    >>> from fdp.audit import clopper_pearson
    >>> lo, hi = clopper_pearson([0, 5, 10], 10, 0.05)
    >>> print(lo.round(4), hi.round(4))
    [0.     0.1871 0.6915] [0.3085 0.8129 1.    ]
    """
    k = np.asarray(k, dtype=float)
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, beta_dist.ppf(gamma / 2, k, n - k + 1), 0.0)
        hi = np.where(k < n, beta_dist.ppf(1 - gamma / 2, k + 1, n - k), 1.0)
    return lo, hi


def min_samples(confidence: float, n_tests: int) -> int:
    """Fewest counted samples per side for which any point can fall below 1 − α.

    With γ = (1 − c)/(2K), zero errors give the upper limit 1 − (γ/2)^{1/n}; the point
    (u, u) lies below Id iff u < 1/2 iff n > log₂(2/γ).

    Parameters
    ----------
    confidence : float
        Joint confidence c in (0, 1).
    n_tests : int
        Number of tests K.

    Returns
    -------
    int
        The smallest such n.

    Examples
    --------
    >>> from fdp.audit import min_samples
    >>> min_samples(0.95, 100)
    13
    """
    gamma = (1.0 - confidence) / (2.0 * n_tests)
    return int(math.floor(math.log2(2.0 / gamma))) + 1


# ----------------------------------------------------------------------
# estimate
# ----------------------------------------------------------------------
def _scores(name: str, samples: ArrayLike) -> np.ndarray:
    arr = np.asarray(samples)
    if arr.dtype == object:
        raise TypeError(f"{name} must be numbers (scalar outputs); map categorical outputs "
                        "to scores with log_ratio=")
    arr = np.asarray(arr, dtype=float)
    if arr.ndim != 1:
        if arr.ndim == 2 and 1 in arr.shape:
            arr = arr.ravel()
        else:
            raise ValueError(f"{name} must be a 1-D array of scalar outputs, got shape "
                             f"{arr.shape}; audit one coordinate (or a scalar statistic)")
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN")
    return arr


def _default_thresholds(pilot: np.ndarray, n_thresholds: int) -> np.ndarray:
    """Midpoints between distinct pilot values if few, else pilot quantiles."""
    values = np.unique(pilot[np.isfinite(pilot)])
    if values.size == 0:
        return np.array([0.0])
    if values.size <= n_thresholds:
        mids = 0.5 * (values[1:] + values[:-1])
        return np.concatenate([[values[0] - 1.0], mids, [values[-1] + 1.0]])
    qs = np.quantile(pilot[np.isfinite(pilot)], np.linspace(0.0, 1.0, n_thresholds))
    return np.unique(qs)


def estimate(samples_d: ArrayLike, samples_d_prime: ArrayLike, confidence: float = 0.95, *,
             thresholds: ArrayLike | None = None, log_ratio: ScoreFn | None = None,
             densities: tuple[ScoreFn, ScoreFn] | None = None, n_thresholds: int = 100,
             pilot_fraction: float = 0.1) -> AuditEstimate:
    """Empirical trade-off points of T(P, Q), P the law of ``samples_d``, Q of ``samples_d_prime``.

    See docs/derivations/audits.md for the confidence statement and the sample-size rule.

    Parameters
    ----------
    samples_d, samples_d_prime : array_like
        Outputs of the mechanism on two neighbouring inputs (1-D, real; or any outputs
        when ``log_ratio`` or ``densities`` maps them to scores).
    confidence : float, optional
        Joint confidence of all the intervals, in (0, 1) (default 0.95).
    thresholds : array_like or None, optional
        Fixed thresholds on the score (then every sample is counted). Default: the first
        ``pilot_fraction`` of each sample set is held out and ``n_thresholds``
        quantiles of the pooled pilot scores are used (or the midpoints between its
        distinct values, for discrete outputs).
    log_ratio : callable or None, optional
        o ↦ log q(o)/p(o); then only the Neyman–Pearson orientation "reject when the
        ratio is large" is used.
    densities : (callable, callable) or None, optional
        Densities (or pmfs) (p, q), giving log_ratio = log q − log p.
    n_thresholds : int, optional
        Number of pilot quantiles (default 100).
    pilot_fraction : float, optional
        Held-out share of each sample set, in (0, 1) (default 0.1).

    Returns
    -------
    AuditEstimate
        The points, their intervals and their hull.

    Raises
    ------
    ValueError
        If an argument is out of range, both ``log_ratio`` and ``densities`` are given,
        or there are too few samples for the audit to say anything (the message gives
        the number needed).
    TypeError
        If ``log_ratio`` or ``densities`` is not callable.

    Examples
    --------
    >>> import numpy as np
    >>> from fdp import audit
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.normal(0.0, 1.0, 20_000), rng.normal(1.0, 1.0, 20_000)
    >>> est = audit.estimate(x, y, confidence=0.99)
    >>> import fdp
    >>> bool(est.tradeoff(0.3) >= fdp.Gaussian(1.0)(0.3))         # above the true curve
    True
    """
    c = _validate.real("confidence", confidence, low=0.0, high=1.0, low_open=True,
                       high_open=True)
    n_thresholds = _validate.positive_int("n_thresholds", n_thresholds, low=1)
    pf = _validate.real("pilot_fraction", pilot_fraction, low=0.0, high=1.0, low_open=True,
                        high_open=True)
    if log_ratio is not None and densities is not None:
        raise ValueError("give at most one of log_ratio and densities")
    if densities is not None:
        p_fn, q_fn = densities
        if not (callable(p_fn) and callable(q_fn)):
            raise TypeError("densities must be a pair of callables (p, q)")

        def from_densities(o: Any, p_fn: ScoreFn = p_fn, q_fn: ScoreFn = q_fn) -> np.ndarray:
            with np.errstate(divide="ignore"):
                return np.log(q_fn(o)) - np.log(p_fn(o))
        log_ratio = from_densities
    if log_ratio is not None and not callable(log_ratio):
        raise TypeError("log_ratio must be a callable o -> log q(o)/p(o)")

    x_raw, y_raw = samples_d, samples_d_prime
    if log_ratio is not None:
        x_raw, y_raw = log_ratio(np.asarray(x_raw)), log_ratio(np.asarray(y_raw))
    x = _scores("samples_d", x_raw)
    y = _scores("samples_d_prime", y_raw)

    if thresholds is None:
        kx, ky = int(math.ceil(pf * x.size)), int(math.ceil(pf * y.size))
        t = _default_thresholds(np.concatenate([x[:kx], y[:ky]]), n_thresholds)
        x, y = x[kx:], y[ky:]
        held = (kx, ky)
    else:
        t = np.unique(_validate.reals("thresholds", thresholds, allow_inf=True).ravel())
        held = (0, 0)
    orient = [1] if log_ratio is not None else [1, -1]
    n_tests = t.size * len(orient)
    need = min_samples(c, n_tests)
    if min(x.size, y.size) < need:
        scale = 1.0 / (1.0 - pf) if thresholds is None else 1.0
        raise ValueError(
            f"too few audit samples for confidence {c:g} with {n_tests} tests: "
            f"{x.size} and {y.size} samples are counted (after holding out {held[0]} and "
            f"{held[1]} for the pilot), at least {need} per side are needed "
            f"(about {int(math.ceil(need * scale))} per side in total); "
            "pass more samples, fewer thresholds or a lower confidence")

    xs, ys = np.sort(x), np.sort(y)
    # counts of x > t, x < t, y <= t, y >= t
    x_gt = x.size - np.searchsorted(xs, t, side="right")
    x_lt = np.searchsorted(xs, t, side="left")
    y_le = np.searchsorted(ys, t, side="right")
    y_ge = y.size - np.searchsorted(ys, t, side="left")
    ka = np.concatenate([x_gt] + ([x_lt] if -1 in orient else []))
    kb = np.concatenate([y_le] + ([y_ge] if -1 in orient else []))
    thr = np.concatenate([t] * len(orient))
    ori = np.concatenate([np.full(t.size, o) for o in orient])

    gamma = (1.0 - c) / (2.0 * n_tests)
    a_lo, a_hi = clopper_pearson(ka, x.size, gamma)
    b_lo, b_hi = clopper_pearson(kb, y.size, gamma)
    # an upper point above β = 1 − α lies above the chord (0, 1)–(1, 0): the hull never
    # uses it, so it is put on the chord (from_points refuses points above it)
    hull = from_points(a_hi, np.minimum(b_hi, 1.0 - a_hi))
    return AuditEstimate(thresholds=thr, orientation=ori, alpha=ka / x.size,
                         beta=kb / y.size, alpha_lower=a_lo, alpha_upper=a_hi,
                         beta_lower=b_lo, beta_upper=b_hi, confidence=c, n_d=int(x.size),
                         n_d_prime=int(y.size), tradeoff=hull)


# ----------------------------------------------------------------------
# check
# ----------------------------------------------------------------------
def check(mechanism_or_samples: Any, claimed_f: TradeOff | None = None,
          confidence: float = 0.95, *, n: int = 100_000, rng: Seed = None,
          inputs: tuple[Any, Any] | None = None, thresholds: ArrayLike | None = None,
          log_ratio: ScoreFn | None = None, densities: tuple[ScoreFn, ScoreFn] | None = None,
          n_thresholds: int = 100,
          pilot_fraction: float = 0.1, both_orders: bool = True) -> AuditCheck:
    """Test a claimed guarantee f against samples; pass, or name the α where it fails.

    Statement: if f is a valid bound for this pair, the probability that ``check``
    reports any violation is at most 1 − ``confidence`` (Bonferroni over all
    Clopper–Pearson intervals; see docs/derivations/audits.md).

    Parameters
    ----------
    mechanism_or_samples : (array_like, array_like) or mechanism
        A pair (samples_d, samples_d_prime), or a mechanism with ``sample``,
        ``audit_inputs``, ``audit_scores`` and ``tradeoff`` (the default claim). For a
        mechanism, ``n`` outputs are drawn on each of ``inputs`` with ``rng``, and the
        thresholds are chosen on a separate pilot draw of max(1000, n/10) outputs, so
        all n are counted.
    claimed_f : TradeOff or None, optional
        The claim; required with samples, default ``mechanism.tradeoff``.
    confidence : float, optional
        Joint confidence, in (0, 1) (default 0.95).
    n : int, optional
        Outputs drawn per input for a mechanism (default 100000).
    rng : int, numpy Generator or None, optional
        Randomness for a mechanism's draws.
    inputs : (object, object) or None, optional
        The neighbouring inputs; default ``mechanism.audit_inputs()``.
    thresholds, log_ratio, densities, n_thresholds, pilot_fraction : optional
        As for ``estimate``.
    both_orders : bool, optional
        Also test the reversed pair (Q, P) against f, which f-DP covers as well
        (default True).

    Returns
    -------
    AuditCheck
        ``passed`` and the violations.

    Raises
    ------
    ValueError
        If ``claimed_f`` is missing with samples, or an argument is out of range.
    TypeError
        If the first argument is neither samples nor a mechanism, or ``claimed_f`` is
        not a TradeOff.

    Examples
    --------
    >>> import fdp
    >>> from fdp import audit
    >>> mech = fdp.mechanisms.GaussianMechanism(sigma=1.0, sensitivity=1.0)
    >>> audit.check(mech, n=20_000, rng=0).passed          # its claim G_1 holds
    True
    >>> audit.check(mech, fdp.Gaussian(0.5), n=20_000, rng=0).passed
    False
    """
    if isinstance(mechanism_or_samples, (tuple, list)) and len(mechanism_or_samples) == 2:
        if claimed_f is None:
            raise ValueError("claimed_f is required when samples are given")
        xs, ys = mechanism_or_samples
        est = estimate(xs, ys, confidence, thresholds=thresholds, log_ratio=log_ratio,
                       densities=densities, n_thresholds=n_thresholds,
                       pilot_fraction=pilot_fraction)
    else:
        mech = mechanism_or_samples
        for attr in ("sample", "audit_scores"):
            if not hasattr(mech, attr):
                raise TypeError(f"mechanism_or_samples must be a pair of sample arrays or a "
                                f"mechanism with .{attr}; got {type(mech).__name__}")
        if claimed_f is None:
            claimed_f = mech.tradeoff
        n = _validate.positive_int("n", n)
        g = _validate.generator(rng)
        d, d_prime = inputs if inputs is not None else mech.audit_inputs()
        n_pilot = max(1000, n // 10)
        if log_ratio is None and densities is None:
            score = lambda o: mech.audit_scores(o, d, d_prime)
        else:
            score = None
        if thresholds is None:
            pilot = [mech.sample(d, n_pilot, g), mech.sample(d_prime, n_pilot, g)]
            if score is not None:
                pilot = [score(o) for o in pilot]
            elif log_ratio is not None:
                pilot = [log_ratio(np.asarray(o)) for o in pilot]
            elif densities is not None:
                pilot = [np.log(densities[1](np.asarray(o))) - np.log(densities[0](
                    np.asarray(o))) for o in pilot]
            thresholds = _default_thresholds(_scores("pilot", np.concatenate(pilot)),
                                             n_thresholds)
        xs, ys = mech.sample(d, n, g), mech.sample(d_prime, n, g)
        if score is not None:
            xs, ys = score(xs), score(ys)
        est = estimate(xs, ys, confidence, thresholds=thresholds, log_ratio=log_ratio,
                       densities=densities)
    if not isinstance(claimed_f, TradeOff):
        raise TypeError(f"claimed_f must be a TradeOff, got {type(claimed_f).__name__}")

    a, b = est.alpha_upper, est.beta_upper
    violations = []
    need = claimed_f._beta(a)
    for i in np.flatnonzero(b < need):
        violations.append(Violation(float(a[i]), float(b[i]), float(need[i]), "d,d'"))
    if both_orders:
        need_r = claimed_f._beta(b)
        for i in np.flatnonzero(a < need_r):
            violations.append(Violation(float(b[i]), float(a[i]), float(need_r[i]), "d',d"))
    violations.sort(key=lambda v: -v.gap)
    return AuditCheck(passed=not violations, violations=tuple(violations), estimate=est,
                      claimed=claimed_f)


__all__ = ["AuditCheck", "AuditEstimate", "Violation", "check", "clopper_pearson", "estimate",
           "min_samples"]
