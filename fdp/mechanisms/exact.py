"""Exact discrete samplers and the integer mechanisms built on them.

Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy"
(NeurIPS 2020, arXiv 2004.00010; CKS below) sample the discrete Laplace and discrete
Gaussian distributions *exactly*, using only integer arithmetic, exact rationals and
uniformly random bits (the algorithms: docs/derivations/discrete-samplers.md). Each
sampler takes a rational parameter (int, float at its exact binary value, or
Fraction) and ``rng``: None (the OS CSPRNG), an int seed, a numpy ``Generator`` or a
``RandomBits`` source of random bits.
"""

from __future__ import annotations

import math
import numbers
import secrets
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from fdp import _validate
from fdp._types import ArrayLike, Seed
from fdp.families.discrete import DiscreteGaussian, DiscreteLaplace
from fdp.mechanisms._base import Mechanism

#: What the exact samplers take as a rational parameter: an int, a Fraction, a decimal
#: string or a float (taken at its exact binary value; ``to_fraction``).
RationalLike = int | Fraction | str | float


class RandomBits:
    """Uniform random bits and integers.

    ``RandomBits()`` (or ``rng=None`` anywhere in this module) draws from the operating
    system's CSPRNG (``os.urandom`` via ``secrets``) -- use it for real data.
    ``RandomBits(generator)`` or ``RandomBits(seed)`` draws bytes from a numpy
    ``Generator``: reproducible, for testing only (a seeded generator is predictable).
    Bits are pooled 2048 at a time; each request consumes exactly the bits it uses.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        None for the OS CSPRNG; a seed or a Generator for reproducible tests.

    Examples
    --------
    >>> from fdp.mechanisms import RandomBits
    >>> bits = RandomBits(0)              # seeded: for tests only
    >>> 0 <= bits.below(10) < 10
    True
    """

    __slots__ = ("_gen", "_nbits", "_pool", "_source")
    _REFILL = 256  # bytes

    def __init__(self, rng: Seed = None) -> None:
        if rng is None:
            self._source, self._gen = "os", None
        elif isinstance(rng, np.random.Generator):
            self._source, self._gen = "numpy", rng
        elif isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
            self._source, self._gen = "numpy", np.random.default_rng(int(rng))
        elif isinstance(rng, np.random.SeedSequence):   # as every Mechanism accepts
            self._source, self._gen = "numpy", np.random.default_rng(rng)
        else:
            raise TypeError("rng must be None (OS CSPRNG), an int seed, a SeedSequence or a "
                            f"numpy Generator, got {type(rng).__name__}")
        self._pool, self._nbits = 0, 0

    def __repr__(self) -> str:
        return f"RandomBits({self._source})"

    def bits(self, k: int) -> int:
        """A uniform integer in [0, 2^k)."""
        if k <= 0:
            return 0
        while self._nbits < k:
            raw = (secrets.token_bytes(self._REFILL) if self._gen is None
                   else self._gen.bytes(self._REFILL))
            self._pool |= int.from_bytes(raw, "little") << self._nbits
            self._nbits += 8 * self._REFILL
        out = self._pool & ((1 << k) - 1)
        self._pool >>= k
        self._nbits -= k
        return out

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) by rejection (exact for any n ≥ 1)."""
        if n < 1:
            raise ValueError(f"n must be an integer >= 1, got {n}")
        k = (n - 1).bit_length()
        while True:
            r = self.bits(k)
            if r < n:
                return r


#: What the exact samplers take as ``rng``: a RandomBits source, or what builds one.
ExactRng = RandomBits | int | np.random.SeedSequence | np.random.Generator | None


def _bits(rng: ExactRng) -> RandomBits:
    return rng if isinstance(rng, RandomBits) else RandomBits(rng)


def to_fraction(name: str, x: object, *, positive: bool = True) -> Fraction:
    """An exact rational from an int, Fraction, decimal string or float (exact binary value)."""
    if isinstance(x, bool):
        raise TypeError(f"{name} must be a rational number, got bool")
    if isinstance(x, (numbers.Rational, str)):
        try:
            q = Fraction(x)
        except (ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"{name} must be a rational number: {exc}") from None
    elif isinstance(x, (float, np.floating)):
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x!r}")
        q = Fraction(float(x))
    else:
        raise TypeError(f"{name} must be an int, Fraction, str or float, got {type(x).__name__}")
    if positive and q <= 0:
        raise ValueError(f"{name} must be > 0, got {q}")
    return q


def bernoulli(p: RationalLike, rng: ExactRng = None) -> bool:
    """Bernoulli(p) for rational p ∈ [0, 1]: one uniform integer below the denominator."""
    p = to_fraction("p", p, positive=False)
    if not 0 <= p <= 1:
        raise ValueError(f"p must lie in [0, 1], got {p}")
    return _bits(rng).below(p.denominator) < p.numerator


def bernoulli_exp(gamma: RationalLike, rng: ExactRng = None) -> bool:
    """Bernoulli(e^{−γ}) for rational γ ≥ 0, exactly (Canonne, Kamath & Steinke 2020,
    Algorithm 1); a ValueError for γ < 0.

    Examples
    --------
    >>> from fdp.mechanisms import bernoulli_exp
    >>> bernoulli_exp(0), bernoulli_exp(1000, rng=0)
    (True, False)
    """
    g = to_fraction("gamma", gamma, positive=False)
    if g < 0:
        raise ValueError(f"gamma must be >= 0, got {g}")
    return _bexp(g.numerator, g.denominator, _bits(rng))


def _bexp(n: int, d: int, src: RandomBits) -> bool:
    """Bernoulli(e^{−n/d}) in integers: ⌊n/d⌋ unit trials, then the fractional part."""
    whole, rest = divmod(n, d)
    for _ in range(whole):
        if not _bexp_unit(1, 1, src):
            return False
    return _bexp_unit(rest, d, src)


def _bexp_unit(n: int, d: int, src: RandomBits) -> bool:
    """Bernoulli(e^{−γ}), γ = n/d ∈ [0, 1]: K = first k with Bernoulli(γ/k) = 0; odd K wins."""
    k = 1
    while src.below(d * k) < n:   # Bernoulli(n / (d k))
        k += 1
    return k % 2 == 1


def discrete_laplace(scale: RationalLike, rng: ExactRng = None) -> int:
    """One draw of P[Z = z] ∝ e^{−|z|/b}, b = ``scale`` rational > 0 (Canonne, Kamath &
    Steinke 2020, Algorithm 2).

    Examples
    --------
    >>> from fdp.mechanisms import discrete_laplace
    >>> isinstance(discrete_laplace(2, rng=0), int)
    True
    """
    b = to_fraction("scale", scale)
    return _dlap(b.numerator, b.denominator, _bits(rng))


def _dlap(t: int, s: int, src: RandomBits) -> int:
    """Z with P ∝ e^{−|z| s/t}."""
    while True:
        u = src.below(t)
        if not _bexp(u, t, src):
            continue
        v = 0
        while _bexp_unit(1, 1, src):
            v += 1
        y = (u + t * v) // s
        negative = src.bits(1) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def discrete_gaussian(sigma2: RationalLike, rng: ExactRng = None) -> int:
    """One draw of P[Z = z] ∝ e^{−z²/(2σ²)}, σ² = ``sigma2`` rational > 0 (Canonne,
    Kamath & Steinke 2020, Algorithm 3).

    Examples
    --------
    >>> from fdp.mechanisms import discrete_gaussian
    >>> isinstance(discrete_gaussian(4, rng=0), int)
    True
    """
    s2 = to_fraction("sigma2", sigma2)
    return _dgauss(s2, _bits(rng))


def _dgauss(s2: Fraction, src: RandomBits) -> int:
    n, d = s2.numerator, s2.denominator
    # t = ⌊σ⌋ + 1 with ⌊√(n/d)⌋ = ⌊√(n d)⌋ // d, in integers.
    t = math.isqrt(n * d) // d + 1
    while True:
        y = _dlap(t, 1, src)
        # (|y| − σ²/t)² / (2σ²) = (|y| d t − n)² / (2 n d t²)
        if _bexp((abs(y) * d * t - n) ** 2, 2 * n * d * t * t, src):
            return y


def _integers(name: str, value: ArrayLike) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) \
                and np.all(arr == np.round(arr)):
            return arr.astype(np.int64)
        raise TypeError(f"{name} must hold integers (scale and round a real query to a "
                        f"fixed grid first), got dtype {arr.dtype}")
    return arr.astype(np.int64)


def _sensitivity_int(x: object) -> int:
    return _validate.positive_int("sensitivity", x, low=1)


class _IntegerNoise(Mechanism):
    """An integer query plus exact integer noise (``_noise``), one draw per entry."""

    __slots__ = ()
    sensitivity: int

    def _noise(self, src: RandomBits) -> int:
        raise NotImplementedError

    def release(self, value: ArrayLike, rng: ExactRng = None) -> int | np.ndarray:
        """value + exact noise, entry by entry (integers in, integers out)."""
        x = _integers("value", value)
        src = _bits(rng)
        noise = [self._noise(src) for _ in range(x.size)]
        out = x + np.array(noise, dtype=np.int64).reshape(x.shape)
        return int(out) if np.ndim(value) == 0 else out

    def sample(self, value: Any, n: int, rng: ExactRng = None) -> np.ndarray:
        n = _validate.positive_int("n", n)
        return np.asarray(self.release(np.full(n, int(value), dtype=np.int64), rng))

    def audit_inputs(self) -> tuple[int, int]:
        return 0, self.sensitivity


@dataclass(frozen=True)
class DiscreteLaplaceMechanism(_IntegerNoise):
    """M(x) = x + Z, Z ~ discrete Laplace with scale b, for integer queries; exact sampler.

    ``sensitivity`` Δ: a positive integer, sup |q(S) − q(S')|. ``scale``: rational b > 0
    (a float is taken at its exact binary value).

    Exact guarantee (``tradeoff``): ``fdp.DiscreteLaplace(b, Δ)``, the finite pair
    DLap(0, b) vs DLap(Δ, b) (losses (2j − Δ)/b, j = 0, …, Δ; see
    ``fdp.families.discrete``). For Δ = 1 this is exactly f_{1/b, 0}; in general it
    lies above f_{Δ/b, 0}.

    Parameters
    ----------
    sensitivity : int
        Δ ≥ 1.
    scale : int, float or Fraction
        b > 0.

    Examples
    --------
    >>> from fdp.mechanisms import DiscreteLaplaceMechanism
    >>> m = DiscreteLaplaceMechanism(1, 2)
    >>> print(f"{m.tradeoff.epsilon(0.0):.4f}")
    0.5000
    >>> isinstance(m.release(10, rng=0), int)
    True
    """

    sensitivity: int
    scale: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", _sensitivity_int(self.sensitivity))
        object.__setattr__(self, "scale", to_fraction("scale", self.scale))

    @property
    def tradeoff(self) -> DiscreteLaplace:
        """``fdp.DiscreteLaplace(scale, sensitivity)``, exact (b rounded to the nearest double)."""
        return DiscreteLaplace(float(self.scale), self.sensitivity)

    def _noise(self, src: RandomBits) -> int:
        return _dlap(self.scale.numerator, self.scale.denominator, src)


@dataclass(frozen=True)
class DiscreteGaussianMechanism(_IntegerNoise):
    """M(x) = x + Z, Z ~ discrete Gaussian N_Z(0, σ²), for integer queries; exact sampler.

    ``sensitivity`` Δ: a positive integer (for vector queries, integer vectors with
    L2 sensitivity Δ; see CKS Thm 15 for the multivariate statement). ``sigma``: σ > 0,
    rational (a float is taken at its exact binary value; σ² is formed exactly).

    Guarantee (``tradeoff``): ``fdp.DiscreteGaussian(σ, Δ)`` = T(N_Z(0, σ²), N_Z(Δ, σ²))
    for a scalar query, losses L(x) = (2xΔ − Δ²)/(2σ²): an exact finite pair for
    σ ≤ 64, above that a certified bracket (Euler–Maclaurin tails, cost independent
    of σ; see ``fdp.families.discrete``). Its privacy profile is CKS Thm 7:
    δ(ε) = P[Y > εσ²/Δ − Δ/2] − e^ε P[Y > εσ²/Δ + Δ/2], Y ~ N_Z(0, σ²). The discrete
    Gaussian is close to, but not exactly, (Δ/σ)-GDP.

    Parameters
    ----------
    sensitivity : int
        Δ ≥ 1.
    sigma : int, float or Fraction
        σ > 0.

    Examples
    --------
    >>> from fdp.mechanisms import DiscreteGaussianMechanism
    >>> m = DiscreteGaussianMechanism(1, 2)
    >>> bool(m.tradeoff.epsilon(1e-5) > 0)
    True
    >>> isinstance(m.release(10, rng=0), int)
    True
    """

    sensitivity: int
    sigma: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", _sensitivity_int(self.sensitivity))
        object.__setattr__(self, "sigma", to_fraction("sigma", self.sigma))

    @property
    def sigma2(self) -> Fraction:
        return self.sigma ** 2

    @property
    def tradeoff(self) -> DiscreteGaussian:
        """``fdp.DiscreteGaussian(sigma, sensitivity)``: exact for σ ≤ 64, a certified
        bracket above at a cost independent of σ (σ rounded to the nearest double)."""
        return DiscreteGaussian(float(self.sigma), self.sensitivity)

    def _noise(self, src: RandomBits) -> int:
        return _dgauss(self.sigma2, src)

