"""Privacy-loss laws: the one description of a trade-off function's dominating pair.
Derivation: docs/derivations/laws.md."""

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
