"""fdp: f-differential privacy and Gaussian differential privacy.

Trade-off functions (Dong, Roth & Su, "Gaussian Differential Privacy", JRSS-B 2022)
as first-class objects: closed forms where they exist, certified numeric brackets
everywhere else. Start with ``fdp.Gaussian(1.0)``, ``fdp.EpsDelta(1.0, 1e-5)``,
``f @ g`` (composition) and ``f.epsilon(1e-5)``.

The closed-form families, composition and conversions load with ``import fdp``; the
numeric engine, the limit theorems, DP-SGD accounting, plotting (matplotlib), the
symbolic layer (sympy) and the rest load on first use of one of their names, so that
``import fdp`` stays fast. ``dir(fdp)`` and ``fdp.__all__`` list every public name,
those loaded on first use included.
"""

import typing as _typing
from importlib import import_module as _import_module

from fdp._constants import VERSION
from fdp.bracket import Bracket
from fdp.conversions import (
    from_privacy_profile,
    gdp_delta,
    gdp_epsilon,
    gdp_mu_for_eps_delta,
    tightest_eps_delta,
)
from fdp.conversions.from_rdp import from_rdp, from_zcdp
from fdp.conversions.repeat_select import repeat_and_select
from fdp.families import (
    DiscreteGaussian,
    DiscreteLaplace,
    EpsDelta,
    FinitePair,
    Gaussian,
    GaussianRange,
    Identity,
    Laplace,
    MixtureOfGaussians,
    PiecewiseLinear,
    RandomizedResponse,
    UserFunction,
    from_function,
    from_pair,
    from_points,
)
from fdp.families.bounded_range import BoundedRange
from fdp.families.shuffle import shuffle_amplification
from fdp.operations import compose, envelope, strongest
from fdp.operations.selection import compose_selections
from fdp.status import NotAGuarantee, Status
from fdp.tradeoff import TradeOff

__version__ = VERSION

# Names that live in later subpackages, resolved on first use so that importing
# fdp stays fast and does not pull the engine, scipy.stats, matplotlib or sympy:
# name -> (module, attribute or None for the module itself).
_LAZY = {
    "engine": ("fdp.engine", None),
    "compose_numeric": ("fdp.engine", "compose_numeric"),
    "sgd": ("fdp.sgd", None),
    "dpsgd": ("fdp.sgd.certified", "dpsgd"),
    "random_allocation": ("fdp.sgd.allocation", "random_allocation"),
    "shuffle_lower": ("fdp.sgd.shuffle", "shuffle_lower"),
    "compare_samplers": ("fdp.sgd.report", "compare_samplers"),
    "tree_aggregation": ("fdp.sgd.matrix_factorization", "tree_aggregation"),
    "banded_mf": ("fdp.sgd.matrix_factorization", "banded_mf"),
    "multi_epoch_mf": ("fdp.sgd.matrix_factorization", "multi_epoch_mf"),
    "noisy_gd": ("fdp.sgd.last_iterate", "noisy_gd"),
    "noisy_cgd": ("fdp.sgd.last_iterate", "noisy_cgd"),
    "noisy_sgd": ("fdp.sgd.last_iterate", "noisy_sgd"),
    "compare_last_iterate": ("fdp.sgd.last_iterate", "compare_last_iterate"),
    "dpsgd_clt_mu": ("fdp.sgd.clt", "dpsgd_clt_mu"),
    "limits": ("fdp.limits", None),
    "functionals": ("fdp.limits", "functionals"),
    "clt": ("fdp.limits", "clt"),
    "edgeworth": ("fdp.limits", "edgeworth"),
    "classical": ("fdp.classical", None),
    "symbolic": ("fdp.symbolic", None),
    "plotting": ("fdp.plotting", None),
    "plot": ("fdp.plotting", "plot"),
    "mechanisms": ("fdp.mechanisms", None),
    "audit": ("fdp.audit", None),
    "Accountant": ("fdp.accountant", "Accountant"),
    "BudgetExceeded": ("fdp.accountant", "BudgetExceeded"),
    "interop": ("fdp.interop", None),
    "from_dp_event": ("fdp.interop.dp_events", "from_dp_event"),
    "gdp_log_delta": ("fdp.conversions.gdp", "gdp_log_delta"),
    "sweep": ("fdp.sweep", None),
    "calibration": ("fdp.calibration", None),
    "calibrate": ("fdp.calibration", "calibrate"),
    "calibrate_dpsgd": ("fdp.calibration", "calibrate_dpsgd"),
    "report": ("fdp.report", None),
    "PrivacyReport": ("fdp.report", "PrivacyReport"),
}


def __getattr__(name: str) -> _typing.Any:   # a lazily imported module or attribute
    if name in _LAZY:
        module, attr = _LAZY[name]
        obj = _import_module(module)
        return obj if attr is None else getattr(obj, attr)
    raise AttributeError(f"module 'fdp' has no attribute {name!r}")


__all__ = [
    # trade-off functions
    "TradeOff", "Status", "NotAGuarantee", "Bracket", "BoundedRange", "DiscreteGaussian",
    "DiscreteLaplace", "EpsDelta", "FinitePair", "Gaussian", "GaussianRange", "Identity",
    "Laplace", "MixtureOfGaussians", "PiecewiseLinear",
    "RandomizedResponse", "UserFunction", "from_function", "from_pair", "from_points",
    # operations
    "compose", "compose_selections", "envelope", "shuffle_amplification", "strongest",
    # conversions
    "from_privacy_profile", "from_rdp", "from_zcdp", "gdp_delta", "gdp_epsilon",
    "gdp_mu_for_eps_delta", "repeat_and_select", "tightest_eps_delta",
    # public subpackages
    "conversions", "families", "operations",
    # loaded on first use
    *_LAZY,
]


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
