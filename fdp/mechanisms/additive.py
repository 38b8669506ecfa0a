"""Additive noise mechanisms on real-valued queries: Gaussian and Laplace.

Both release ``value + noise`` with i.i.d. noise in every entry of the query array,
drawn with a numpy ``Generator`` in floating point. Floating-point noise is fine for
simulation, auditing and research; for releases about real people prefer the exact
integer samplers of ``fdp.mechanisms.exact`` (see the package docstring: Mironov 2012
showed that the low-order bits of a floating-point Laplace sample can reveal the
input exactly).

Neighbouring relation: the guarantee holds for whatever relation ``sensitivity`` was
computed under (see ``fdp.mechanisms.sensitivity``); the mechanism itself does not care.
"""

from __future__ import annotations

from dataclasses import dataclass

from fdp import _validate
from fdp._types import ArrayLike, FloatOrArray, Seed
from fdp.families.eps_delta import EpsDelta
from fdp.families.gaussian import Gaussian
from fdp.families.laplace import Laplace
from fdp.mechanisms._base import Mechanism, finite_values, like, positive


@dataclass(frozen=True)
class GaussianMechanism(Mechanism):
    """M(x) = x + N(0, σ² I): G_{Δ/σ}-DP, i.e. (Δ/σ)-GDP (DRS Thm 2.7).

    ``sensitivity`` Δ is the L2 sensitivity of the whole query array:
    Δ = sup over neighbours ‖q(S) − q(S')‖₂. By rotation invariance of N(0, σ² I) the
    pair of output laws is, up to a bijection, N(0, σ²) vs N(‖v‖₂, σ²), so the
    guarantee ``tradeoff = Gaussian(Δ/σ)`` is exact (tight) for any shape.

    Parameters
    ----------
    sensitivity : float
        Δ > 0, the L2 sensitivity of the query.
    sigma : float
        σ > 0, the standard deviation of the noise.

    Examples
    --------
    >>> from fdp.mechanisms import GaussianMechanism
    >>> m = GaussianMechanism(sensitivity=1.0, sigma=2.0)
    >>> m.tradeoff
    Gaussian(mu=0.5)
    >>> m.release([1.0, 2.0], rng=0).shape
    (2,)
    >>> import fdp
    >>> print(f"{fdp.calibrate('gaussian', mu=1.0).mechanism.sigma:.4f}")
    1.0000
    """

    sensitivity: float
    sigma: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", positive("sensitivity", self.sensitivity))
        object.__setattr__(self, "sigma", positive("sigma", self.sigma))

    @property
    def tradeoff(self) -> Gaussian:
        """G_μ with μ = Δ/σ."""
        return Gaussian(self.sensitivity / self.sigma)

    def release(self, value: ArrayLike, rng: Seed = None) -> FloatOrArray:
        """value + N(0, σ²) in every entry; a float for a scalar, an ndarray otherwise."""
        x = finite_values("value", value)
        out = x + _validate.generator(rng).normal(0.0, self.sigma, size=x.shape)
        return like(value, out)

    def audit_inputs(self) -> tuple[float, float]:
        """The worst-case neighbouring pair of a scalar query: (0, Δ)."""
        return 0.0, self.sensitivity



@dataclass(frozen=True)
class LaplaceMechanism(Mechanism):
    """M(x) = x + Lap(0, b) in every entry, b = ``scale``.

    Scalar query with sensitivity Δ = sup |q(S) − q(S')|: the output pair is
    Lap(0, b) vs Lap(Δ, b), i.e. T = L_{Δ/b} exactly (DRS Appendix A), which is
    strictly stronger than the classical f_{Δ/b, 0} (pure (Δ/b)-DP).
    ``tradeoff`` is L_{Δ/b}; it applies to scalar queries and to array queries whose
    neighbours differ in one entry by at most Δ.

    Array query with L1 sensitivity Δ₁ = sup ‖q(S) − q(S')‖₁: the classical bound
    (Dwork, McSherry, Nissim, Smith 2006) gives f_{Δ₁/b, 0}; that is
    ``tradeoff_l1``. (We do not claim L_{Δ₁/b} for spread-out differences.)

    Parameters
    ----------
    sensitivity : float
        Δ > 0 (see above for scalar and array queries).
    scale : float
        b > 0, the scale of the Laplace noise.

    Examples
    --------
    >>> from fdp.mechanisms import LaplaceMechanism
    >>> m = LaplaceMechanism(sensitivity=1.0, scale=2.0)
    >>> m.tradeoff, m.tradeoff_l1
    (Laplace(mu=0.5), EpsDelta(eps=0.5, delta=0.0))
    >>> isinstance(m.release(3.0, rng=0), float)
    True
    """

    sensitivity: float
    scale: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", positive("sensitivity", self.sensitivity))
        object.__setattr__(self, "scale", positive("scale", self.scale))

    @property
    def tradeoff(self) -> Laplace:
        """L_μ with μ = Δ/b (scalar queries)."""
        return Laplace(self.sensitivity / self.scale)

    @property
    def tradeoff_l1(self) -> EpsDelta:
        """f_{Δ₁/b, 0}: pure DP for array queries with L1 sensitivity Δ₁ = ``sensitivity``."""
        return EpsDelta(self.sensitivity / self.scale)

    def release(self, value: ArrayLike, rng: Seed = None) -> FloatOrArray:
        """value + Lap(0, b) in every entry; a float for a scalar, an ndarray otherwise."""
        x = finite_values("value", value)
        out = x + _validate.generator(rng).laplace(0.0, self.scale, size=x.shape)
        return like(value, out)

    def audit_inputs(self) -> tuple[float, float]:
        """The worst-case neighbouring pair of a scalar query: (0, Δ)."""
        return 0.0, self.sensitivity

