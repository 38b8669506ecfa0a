"""Conversions between trade-off functions, (ε, δ) and GDP."""

from fdp.conversions.from_rdp import from_rdp, from_zcdp
from fdp.conversions.gdp import gdp_delta, gdp_epsilon, gdp_log_delta, gdp_mu_for_eps_delta
from fdp.conversions.gdp_fit import GdpRangeFit, gdp_fit_range
from fdp.conversions.profile import from_privacy_profile
from fdp.conversions.repeat_select import RepeatSelect, repeat_and_select
from fdp.conversions.risk import (
                                  Bracket,
                                  GdpFit,
                                  advantage_bounds,
                                  attack_success,
                                  bayes_risk,
                                  gdp_fit,
                                  gdp_shortfall,
                                  reconstruction_bound,
                                  risk_lines,
                                  tpr_at_fpr,
)
from fdp.conversions.summaries import tightest_eps_delta

__all__ = ["Bracket", "GdpFit", "GdpRangeFit", "RepeatSelect", "advantage_bounds",
           "attack_success", "bayes_risk", "from_privacy_profile", "from_rdp", "from_zcdp",
           "gdp_delta", "gdp_epsilon", "gdp_fit", "gdp_fit_range", "gdp_log_delta",
           "gdp_mu_for_eps_delta", "gdp_shortfall", "reconstruction_bound", "repeat_and_select",
           "risk_lines", "tightest_eps_delta", "tpr_at_fpr"]
