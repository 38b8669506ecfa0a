"""The closed-form families of trade-off functions."""

from fdp.families.bounded_range import BoundedRange
from fdp.families.discrete import DiscreteGaussian, DiscreteLaplace
from fdp.families.eps_delta import EpsDelta, RandomizedResponse
from fdp.families.finite_pair import FinitePair, from_pair
from fdp.families.gaussian import Gaussian
from fdp.families.gaussian_range import GaussianRange
from fdp.families.identity import Identity
from fdp.families.laplace import Laplace
from fdp.families.mixture import MixtureOfGaussians
from fdp.families.piecewise import PiecewiseLinear, from_points
from fdp.families.shuffle import shuffle_amplification
from fdp.families.user import UserFunction, from_function

__all__ = ["BoundedRange", "DiscreteGaussian", "DiscreteLaplace", "EpsDelta", "FinitePair",
           "Gaussian", "GaussianRange", "Identity", "Laplace", "MixtureOfGaussians",
           "PiecewiseLinear",
           "RandomizedResponse", "UserFunction", "from_function", "from_pair", "from_points",
           "shuffle_amplification"]
