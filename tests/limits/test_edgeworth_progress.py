"""Edgeworth: the quantile solve stops once converged (same answer as an independent
root of the Edgeworth survival function in mpmath), and a long cumulant computation
shows the package's progress meter."""

from __future__ import annotations

import io

import mpmath as mp
import numpy as np

import fdp
from fdp import progress


def _sf_mp(x, skew, exkurt):
    x = mp.mpf(x)
    poly = (skew / 6 * (x ** 2 - 1) + exkurt / 24 * x * (x ** 2 - 3)
            + skew ** 2 / 72 * x * (x ** 4 - 10 * x ** 2 + 15))
    return mp.ncdf(-x) + mp.npdf(x) * poly


def test_quantile_matches_an_mpmath_root():
    g = fdp.edgeworth([fdp.Laplace(0.1)] * 100)
    g = getattr(g, "base", g)
    alpha = np.array([1e-6, 1e-3, 0.1, 0.5, 0.9])
    h = g._quantile_p(alpha)
    mp.mp.dps = 30
    for a, x in zip(alpha, h):
        root = mp.findroot(lambda t, a=a: _sf_mp(t, g.skew_p, g.exkurt_p) - a, float(x))
        assert abs(float(root) - x) <= 1e-12 * max(1.0, abs(x))


def test_a_long_cumulant_computation_shows_the_meter(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True
    stream = Tty()
    monkeypatch.setattr(progress.sys, "stderr", stream)
    monkeypatch.setattr(progress, "AUTO_SECONDS", 0.0)     # every run counts as long
    fdp.edgeworth([fdp.Laplace(0.1 + 0.01 * i) for i in range(5)])
    assert "edgeworth: [" in stream.getvalue() and "5/5" in stream.getvalue()
    monkeypatch.setattr(progress, "AUTO_SECONDS", 1e9)     # short: silent
    stream.seek(0)
    stream.truncate()
    fdp.edgeworth([fdp.Laplace(0.1 + 0.01 * i) for i in range(5)])
    assert stream.getvalue() == ""
