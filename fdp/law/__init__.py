"""Privacy-loss laws: the one description of a trade-off function's dominating pair.

For f = T(P, Q) the privacy loss is L = log(dQ/dP), a random variable with values in
[−∞, +∞]. Its law under P determines f (Neyman–Pearson: the optimal tests reject for
large L; Dong, Roth & Su 2022, §2 and Prop B.4), and its law under Q is the tilt
dQ = e^L dP. A ``PrivacyLossLaw`` answers everything the package reads from a pair:

* ``interval_masses(edges)``: for the intervals (−∞, e_0), [e_0, e_1), …, [e_K, +∞) of
  FINITE losses, the Q-masses κ and P-masses π, plus the atoms Q(L = +∞) and
  P(L = −∞). Each cell's conditional mean of e^L under P is κ/π and lies inside the
  cell: this is all the composition engine's discretisers need (Koskela, Jälkö &
  Honkela 2020; Gopi, Lee & Wutschitz 2021; Doroshenko et al. 2022).
* ``loss_range()``: an interval outside which L has negligible mass under P and Q.
* ``atoms()``: the point masses of the finite loss (locations, Q-masses).
* ``moment(k, c, absolute, under)``, ``cumulants(under)``, ``functionals()``: the moments
  behind the CLT (DRS Thm 3.4) and the Edgeworth expansion (Zheng, Dong, Long & Su
  2020); ``moment_method`` says whether they are a closed form, an exact sum, or
  (``None``) only a numerical approximation.
* ``log_mgf(t, under)`` where known, and ``renyi(orders)``: D_α(Q ‖ P) =
  log E_Q e^{(α−1)L} / (α − 1) (Mironov 2017, Def 3).

``TradeOff.law()`` returns the law of a trade-off function, or ``None`` for functions
known only through β or δ. A new family implements ``law()`` in its own file and gets
the engine, the CLT, Edgeworth and RDP from this interface.

Modules: ``base`` (the base class, finite laws, the δ split and the binning helpers),
``derived`` (the laws built from other laws: the swapped pair of f⁻¹, Poisson
subsampling, sampling without replacement, mixtures, the two-direction envelope) and
``readers`` (``f.law()``'s answers for callers holding a trade-off function). The
package imports only numpy and scipy.
"""

from fdp.law.base import (
    AtomsLaw,
    Masses,
    PrivacyLossLaw,
    bin_atoms,
    intervals,
    mirrored_moment,
    p_masses,
    split_delta,
)
from fdp.law.derived import (
    EnvelopeLaw,
    MixtureLaw,
    SubsampledLaw,
    SwappedLaw,
    WithoutReplacementLaw,
)
from fdp.law.readers import (
    atoms_of,
    interval_masses_of,
    law_of,
    loss_moments_of,
    loss_range_of,
)

__all__ = ["AtomsLaw", "EnvelopeLaw", "Masses", "MixtureLaw", "PrivacyLossLaw",
           "SubsampledLaw", "SwappedLaw", "WithoutReplacementLaw", "atoms_of", "bin_atoms",
           "interval_masses_of", "intervals", "law_of", "loss_moments_of", "loss_range_of",
           "mirrored_moment", "p_masses", "split_delta"]
