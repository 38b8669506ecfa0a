"""fdp: f-differential privacy and Gaussian differential privacy.

Trade-off functions (Dong, Roth & Su, "Gaussian Differential Privacy", JRSS-B 2022)
as first-class objects: closed forms where they exist, certified numeric brackets
everywhere else. Start with ``fdp.Gaussian(1.0)``, ``fdp.EpsDelta(1.0, 1e-5)``,
``f @ g`` (composition) and ``f.epsilon(1e-5)``.
"""

from importlib import import_module

from fdp.conversions import from_privacy_profile, gdp_delta, gdp_epsilon, gdp_mu, tightest_eps_delta
from fdp.conversions.from_rdp import from_rdp, from_zcdp
from fdp.families import (
    DiscreteGaussian,
    DiscreteLaplace,
    EpsDelta,
    FinitePair,
    Gaussian,
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
from fdp.families.bounded_range import BoundedRange, compose_selections
from fdp.families.shuffle import shuffle_amplification
from fdp.operations import compose, envelope, strongest
from fdp.tradeoff import TradeOff

from fdp._version import __version__

# Names that live in later subpackages, resolved on first use so that importing
# fdp stays fast and does not pull matplotlib or sympy.
_LAZY = {
    "engine": ("fdp.engine", None),
    "compose_numeric": ("fdp.engine", "compose_numeric"),
    "dpsgd": ("fdp.sgd.certified", "dpsgd"),
    "random_allocation": ("fdp.sgd.allocation", "random_allocation"),
    "shuffle_lower": ("fdp.sgd.shuffle", "shuffle_lower"),
    "compare_samplers": ("fdp.sgd.report", "compare_samplers"),
    "functionals": ("fdp.limits", "functionals"),
    "clt": ("fdp.limits", "clt"),
    "edgeworth": ("fdp.limits", "edgeworth"),
    "dpsgd_clt_mu": ("fdp.sgd.clt", "dpsgd_clt_mu"),
    "classical": ("fdp.classical", None),
    "symbolic": ("fdp.symbolic", None),
    "plotting": ("fdp.plotting", None),
    "plot": ("fdp.plotting", "plot"),
    "mechanisms": ("fdp.mechanisms", None),
    "audit": ("fdp.audit", None),
    "Accountant": ("fdp.accountant", "Accountant"),
    "BudgetExceeded": ("fdp.accountant", "BudgetExceeded"),
    "calibrate": ("fdp.calibration", "calibrate"),
    "calibrate_dpsgd": ("fdp.calibration", "calibrate_dpsgd"),
    "from_dp_event": ("fdp.interop.dp_accounting", "from_dp_event"),
    "gdp_mu_for_eps_delta": ("fdp.conversions.gdp", "gdp_mu_for_eps_delta"),
    "gdp_log_delta": ("fdp.conversions.gdp", "gdp_log_delta"),
    "sweep": ("fdp.sweep", None),
}


def __getattr__(name):
    if name in _LAZY:
        module, attr = _LAZY[name]
        obj = import_module(module)
        return obj if attr is None else getattr(obj, attr)
    raise AttributeError(f"module 'fdp' has no attribute {name!r}")


__all__ = ["DiscreteGaussian", "DiscreteLaplace", "EpsDelta", "FinitePair", "Gaussian", "Identity", "Laplace", "MixtureOfGaussians", "PiecewiseLinear",
           "RandomizedResponse", "TradeOff", "UserFunction", "compose", "envelope",
           "from_function", "from_pair", "from_points", "from_privacy_profile", "gdp_delta",
           "gdp_epsilon", "gdp_mu", "strongest", "tightest_eps_delta", *_LAZY]
__all__ += ["BoundedRange", "compose_selections"]
__all__ += ["from_rdp", "from_zcdp", "shuffle_amplification"]
