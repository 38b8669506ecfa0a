"""The plain-language sentence states the TPR bracket's safe end (never less risk), the
Markdown card holds every read-out; the truth is the bracket itself and, for G_μ, the
closed form 1 − G_μ(α) = Φ(μ − Φ⁻¹(1 − α)) (scipy)."""

from __future__ import annotations

import re

import pytest
from scipy.stats import norm

import fdp
from fdp.report.render import caught, ceil_sig, frequency

SENTENCE = re.compile(r"wrongly accuses at most ([\d.]+) in (\d+)(?: \w+s that were not in "
                      r"the data)? catches at most ([\d.]+) in (\d+)")


def _stated(text):
    return [(float(k), int(n), float(x), int(m)) for k, n, x, m in SENTENCE.findall(text)]


@pytest.mark.parametrize("f", [fdp.Gaussian(1.0), fdp.dpsgd(1.0, 0.01, 100, tol=1e-2),
                               fdp.EpsDelta(2.0, 1e-3)])
def test_the_sentence_states_the_tpr_bracket(f):
    fprs = (0.001, 0.01, 0.05, 0.1, 0.5)
    r = f.report(fpr=fprs)
    stated = _stated(r.to_text())
    assert len(stated) == len(fprs)
    for (k, n, x, m), fpr, t in zip(stated, fprs, r.tpr):
        assert n == m and k / n == pytest.approx(fpr, rel=1e-12)
        assert x / n >= t.upper                      # never states less risk
        assert x / n <= max(t.upper * 1.1, 1.0 / n) or x == n   # 2 significant digits up


def test_the_sentence_of_a_gaussian_is_its_closed_form():
    mu = 1.0
    text = fdp.Gaussian(mu).report(fpr=0.01).to_text()
    (k, n, x, _), = _stated(text)
    tpr = norm.cdf(mu - norm.ppf(1 - 0.01))          # 0.09236...
    assert (k, n) == (1.0, 100) and x == pytest.approx(9.3) and x / n >= tpr
    wrong = float(re.search(r"guesses wrong at least ([\d.]+) %", text).group(1))
    assert wrong == 30.8 and wrong / 100 <= norm.cdf(-mu / 2)   # Φ(−1/2) = 0.3085


def test_rounding_helpers():
    assert ceil_sig(3.36142) == pytest.approx(3.4) and ceil_sig(3.4) >= 3.4
    assert ceil_sig(0.0) == 0.0 and ceil_sig(float("inf")) == float("inf")
    assert frequency(0.001) == (1.0, 1000) and frequency(0.05) == (5.0, 100)
    assert frequency(0.5) == (5.0, 10) and frequency(1.0) == (1.0, 1)
    assert caught(0.1, 1.0) == (1.0, 10.0, 10)         # all members, never more


def test_markdown_card_holds_the_readouts_and_how_to_check():
    r = fdp.dpsgd(1.0, 0.01, 100, tol=1e-2).report(delta=1e-5)
    md = r.to_markdown()
    assert md.startswith("## Privacy\n\n" + r.to_text())
    assert "| Privacy unit | one example |" in md
    assert "| Sensitivity | 1 × clipping norm |" in md
    lo, hi = r.epsilon[0][1:]
    assert f"| 1e-05 | [{lo:.6g}, {hi:.6g}] |" in md
    assert r.command in md and "fdp verify report.json" in md
    assert "Not re-computable" in (fdp.Laplace(1.0) @ fdp.Gaussian(1.0)).report().to_markdown()
