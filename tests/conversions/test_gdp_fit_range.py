"""gdp_fit_range: the μ fitted on an FPR range, against the pointwise μ maximised in
mpmath over a dense grid of the closed-form curves (DRS 2022, Def 2.7 and §2.1)."""

from __future__ import annotations

import mpmath as mp
import pytest

import fdp
from fdp.conversions.gdp_fit import gdp_fit_range
from tests._mp_references import laplace_beta


def _pointwise(beta, a):
    """Φ⁻¹(1 − α) − Φ⁻¹(β(α)), Φ⁻¹(p) = √2 erfinv(2p − 1)."""
    return -mp.sqrt(2) * mp.erfinv(2 * a - 1) - mp.sqrt(2) * mp.erfinv(2 * beta(a) - 1)


def _mp_fit(beta, lo: float, hi: float, n: int = 4000, extra=()) -> float:
    llo, lhi = mp.log(lo / (1 - lo)), mp.log(hi / (1 - hi))
    pts = [1 / (1 + mp.exp(-(llo + (lhi - llo) * i / n))) for i in range(n + 1)]
    return float(max(_pointwise(beta, a) for a in pts + list(extra)))


@pytest.mark.parametrize("lo,hi", [(0.3, 0.5), (1e-3, 0.5), (0.01, 0.1)])
def test_laplace_range_fit_against_mpmath(lo, hi):
    mp.mp.dps = 30
    want = _mp_fit(lambda a: laplace_beta(1.0, a), lo, hi)
    got = gdp_fit_range(fdp.Laplace(1.0), lo, hi)
    assert got.mu == pytest.approx(want, rel=1e-6)
    assert got.status == fdp.Status.APPROXIMATION


def test_eps_delta_range_fit_against_mpmath():
    mp.mp.dps = 30
    e, d = mp.mpf(1), mp.mpf("1e-3")
    def beta(a):
        return max(mp.mpf(0), 1 - d - mp.e ** e * a, mp.e ** -e * (1 - d - a))
    kink = (1 - d) / (1 + mp.e ** e)              # the maximiser sits at the kink
    want = _mp_fit(beta, 0.01, 0.5, extra=[kink])
    assert gdp_fit_range(fdp.EpsDelta(1.0, 1e-3), 0.01, 0.5).mu == pytest.approx(want, rel=1e-6)


def test_range_fit_is_below_the_certified_mu_and_grows_with_the_range():
    f = fdp.Laplace(0.5) ** 4
    mu_star = f.gdp_mu()
    narrow = gdp_fit_range(f, 0.01, 0.05).mu
    wide = gdp_fit_range(f, 0.01, 0.5).mu
    assert narrow <= wide <= mu_star * (1 + 1e-9)
    assert narrow < 0.97 * mu_star            # this part of the curve needs less than μ*
    assert gdp_fit_range(fdp.Gaussian(0.7), 0.01, 0.5).mu == 0.7
    assert "approximation" in repr(gdp_fit_range(f, 0.01, 0.05))


@pytest.mark.parametrize("lo,hi,name", [(0.0, 0.5, "fpr_low"), (0.1, 1.0, "fpr_high"),
                                        (0.5, 0.2, "fpr_high")])
def test_bad_range(lo, hi, name):
    with pytest.raises(ValueError, match=name):
        gdp_fit_range(fdp.Laplace(1.0), lo, hi)
