"""Conversions between trade-off functions, (ε, δ) and GDP."""

from fdp.conversions.gdp import gdp_delta, gdp_epsilon, gdp_log_delta, gdp_mu, gdp_mu_for_eps_delta
from fdp.conversions.from_rdp import from_rdp, from_zcdp
from fdp.conversions.profile import from_privacy_profile
from fdp.conversions.risk import (Bracket, GdpFit, advantage_bounds, attack_success,
                                  bayes_risk, gdp_mu_bracket, gdp_shortfall,
                                  reconstruction_bound, risk_lines, tpr_at_fpr)
from fdp.conversions.summaries import tightest_eps_delta

__all__ = ["from_privacy_profile", "gdp_delta", "gdp_epsilon", "gdp_log_delta", "gdp_mu",
           "gdp_mu_for_eps_delta", "tightest_eps_delta", "from_rdp", "from_zcdp",
           "Bracket", "GdpFit", "advantage_bounds", "attack_success", "bayes_risk",
           "gdp_mu_bracket", "gdp_shortfall", "reconstruction_bound", "risk_lines", "tpr_at_fpr"]
