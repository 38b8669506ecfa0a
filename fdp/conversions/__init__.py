"""Conversions between trade-off functions, (ε, δ) and GDP."""

from fdp.conversions.gdp import gdp_delta, gdp_epsilon, gdp_mu
from fdp.conversions.from_rdp import from_rdp, from_zcdp
from fdp.conversions.profile import from_privacy_profile
from fdp.conversions.summaries import tightest_eps_delta

__all__ = ["from_privacy_profile", "gdp_delta", "gdp_epsilon", "gdp_mu", "tightest_eps_delta"]
