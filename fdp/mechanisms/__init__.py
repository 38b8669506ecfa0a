"""Mechanisms with their exact f-DP guarantees.

Every mechanism is a frozen dataclass with ``.tradeoff`` (its guarantee as an
``fdp.TradeOff``) and ``release(value, rng=None)`` (vectorised over an array of
queries; ``rng`` is a numpy ``Generator``, an int seed, or None for fresh entropy):

===============================  ===============================================
``GaussianMechanism(Δ, σ)``      x + N(0, σ²): ``Gaussian(Δ/σ)`` (Δ = L2 sensitivity)
``LaplaceMechanism(Δ, b)``       x + Lap(0, b): ``Laplace(Δ/b)`` (scalar queries)
``RandomizedResponseMechanism``  k-ary RR: ``RandomizedResponse(ε, k)``
``ExponentialMechanism``         P[r] ∝ e^{ε u(r)/(2Δ)}: ``BoundedRange(ε)`` (ε-bounded range)
``ReportNoisyMax``               argmax u + noise of scale 2Δ/ε: Gumbel ``BoundedRange(ε)``,
                                 exponential ``EpsDelta(ε)``
``PermuteAndFlip``               permute-and-flip: ``EpsDelta(ε)`` = f_{ε,0}
``DiscreteLaplaceMechanism``     integer x + exact discrete Laplace: ``DiscreteLaplace(b, Δ)``
``DiscreteGaussianMechanism``    integer x + exact discrete Gaussian: ``DiscreteGaussian(σ, Δ)``
===============================  ===============================================

``sensitivity`` holds Δ for counts, bounded sums and means, and histograms under a
stated neighbouring relation; ``fdp.calibrate`` chooses the least noise meeting a target (its
``.mechanism``).

Which sampler is safe for real data
-----------------------------------
``GaussianMechanism`` and ``LaplaceMechanism`` draw noise in double precision. Their
``tradeoff`` describes the *idealised* real-valued mechanism, not the floating-point
program: Mironov ("On significance of the least significant bits for differential
privacy", CCS 2012) showed that x + Lap(b) computed as x − b·sign(U)·log(1 − 2|U|)
in doubles produces outputs whose low-order bits depend on x, so that some outputs are
possible under x and impossible under x' -- the privacy loss is infinite, and an
attacker recovers x with substantial probability. Gaussian samplers built from
floating-point transforms (Box–Muller, ziggurat) have the same problem. Use these
classes for simulation, auditing and research.

For releases about real people, use the exact samplers in ``fdp.mechanisms.exact``:
round the query to a fixed integer grid (scaling the sensitivity accordingly) and add
``DiscreteGaussianMechanism`` or ``DiscreteLaplaceMechanism`` noise, whose samplers
(Canonne, Kamath & Steinke 2020) use only integers, exact rationals and random bits
from the OS CSPRNG, so every integer output is possible under every input and the
stated ``tradeoff`` is the guarantee of the code that runs. (Their running time
depends on the output; see CKS §5.3 on timing side channels.) Mironov's other fix,
the snapping mechanism, is not provided here.
"""

from fdp.mechanisms import exact, sensitivity
from fdp.mechanisms._base import Mechanism
from fdp.mechanisms.additive import GaussianMechanism, LaplaceMechanism
from fdp.mechanisms.categorical import (
                                        ExponentialMechanism,
                                        PermuteAndFlip,
                                        RandomizedResponseMechanism,
                                        ReportNoisyMax,
)
from fdp.mechanisms.exact import (
                                        DiscreteGaussianMechanism,
                                        DiscreteLaplaceMechanism,
                                        RandomBits,
                                        bernoulli_exp,
                                        discrete_gaussian,
                                        discrete_laplace,
)

__all__ = ["DiscreteGaussianMechanism", "DiscreteLaplaceMechanism", "ExponentialMechanism",
           "GaussianMechanism", "LaplaceMechanism", "Mechanism", "PermuteAndFlip", "RandomBits",
           "RandomizedResponseMechanism", "ReportNoisyMax", "bernoulli_exp", "discrete_gaussian",
           "discrete_laplace", "exact", "sensitivity"]
