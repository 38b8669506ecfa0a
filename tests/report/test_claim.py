"""``PrivacyReport``: its numbers against closed forms (mpmath), the JSON round trip and
the shipped schema, and the refusals."""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest

import fdp
from fdp.report import SCHEMA_FILE, PrivacyReport, ReportMismatch
from fdp.status import NotAGuarantee

mpmath.mp.dps = 40


def _phi(x):
    return mpmath.ncdf(x)


def _gdp_delta(mu, eps):      # DRS 2022, Cor 2.13
    return _phi(-eps / mu + mu / 2) - mpmath.e ** eps * _phi(-eps / mu - mu / 2)


def _gdp_eps(mu, delta):      # bisection: δ(ε) is decreasing
    lo, hi = mpmath.mpf(0), mpmath.mpf(60)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _gdp_delta(mu, mid) > delta else (lo, mid)
    return hi


def _gdp_tpr(mu, fpr):        # 1 − G_μ(α) = Φ(μ − Φ⁻¹(1 − α))
    return _phi(mu - mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(fpr)))


@pytest.fixture(scope="module")
def schema():
    jsonschema = pytest.importorskip("jsonschema", reason="needs the dev extra")
    s = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


@pytest.fixture(scope="module")
def run_report():
    return fdp.dpsgd(1.0, 0.01, 100, tol=1e-2).report(delta=[1e-5, 1e-8])


def test_gaussian_numbers_are_the_closed_forms():
    r = fdp.Gaussian(1.0).report(delta=[1e-5, 1e-10], epsilon=[0.5, 2.0], prior=0.5)
    assert r.status == "exact" and r.accounted is None and r.privacy_unit == "one record"
    for row in r.epsilon:
        assert row.lower == pytest.approx(float(_gdp_eps(1.0, row.at)), rel=1e-9)
        assert row.upper >= float(_gdp_eps(1.0, row.at)) * (1 - 1e-12)
    for row in r.delta:
        assert row.upper == pytest.approx(float(_gdp_delta(1.0, row.at)), rel=1e-9)
    for row in r.tpr:
        assert row.upper == pytest.approx(float(_gdp_tpr(1.0, row.at)), rel=1e-9)
    assert r.bayes_risk.lower == pytest.approx(float(_phi(-0.5)), rel=1e-9)
    assert (r.mu.lower, r.mu.upper, r.mu.bulk, r.mu.gap_upper) == (1.0, 1.0, 1.0, 0.0)
    assert r.mechanism.kind == "family" and r.mechanism.arguments() == {"mu": 1.0}


def test_dpsgd_report_holds_the_run(run_report):
    r = run_report
    f = fdp.dpsgd(1.0, 0.01, 100, tol=1e-2)
    a = r.accounted
    assert (a.noise_multiplier, a.sample_rate, a.steps, a.sampler, a.neighbouring,
            a.sensitivity, a.examples_per_user) == (1.0, 0.01, 100, "poisson", "add_remove",
                                                    1.0, 1)
    assert r.privacy_unit == "one example" and r.status == "certified"
    for row in r.epsilon:     # one query at a time rounds within 1e-12 of the array query
        assert row[1:] == pytest.approx(tuple(map(float, f.epsilon_bounds(row.at))),
                                        rel=1e-12)
    lo, hi = f.tpr_at_fpr(0.01)
    assert (r.tpr[1].lower, r.tpr[1].upper) == (float(lo), float(hi))
    assert r.mu.upper == pytest.approx(10.0, rel=1e-12)   # μ* = √T/σ (far tail)
    assert r.mu.bulk < r.mu.lower                          # the bulk needs far less
    assert r.fdp_version == fdp.__version__
    assert "fdp.dpsgd(noise_multiplier=1.0, sample_rate=0.01, steps=100" in r.command


def test_user_level_unit_and_replace_one():
    r = fdp.dpsgd(2.0, 0.05, 20, examples_per_user=3, tol=1e-2).report()
    assert r.privacy_unit == "one user (3 examples)"
    s = fdp.dpsgd(2.0, 0.05, 20, sampling="without_replacement", neighbouring="replace_one",
                  tol=1e-2).report()
    assert (s.accounted.neighbouring, s.accounted.sensitivity) == ("replace_one", 2.0)


def test_json_round_trip_and_schema(run_report, schema):
    text = run_report.to_json()
    schema.validate(json.loads(text))
    back = PrivacyReport.from_json(text)
    assert back == run_report
    back.verify()


def test_non_finite_numbers_round_trip(schema):
    r = fdp.EpsDelta(1.0, 0.1).report(delta=0.01)       # no ε reaches δ < 0.1
    assert r.epsilon[0].upper == np.inf
    d = json.loads(r.to_json())
    assert d["epsilon"][0]["upper"] == "inf"
    schema.validate(d)
    assert PrivacyReport.from_json(r.to_json()) == r


def test_per_step_schedule_round_trips(schema):
    f = fdp.dpsgd(np.r_[[1.0] * 4, [2.0] * 6], 0.1, 10, tol=1e-2)
    r = f.report()
    d = json.loads(r.to_json())
    assert d["accounted"]["noise_multiplier"] == [[1.0, 4], [2.0, 6]]
    schema.validate(d)
    PrivacyReport.from_json(r.to_json()).verify()


@pytest.mark.parametrize("f", [fdp.dpsgd(1.0, 0.1, 20, sampling="shuffle"),
                               fdp.edgeworth([fdp.Laplace(1.0)] * 3)])
def test_non_guarantees_are_refused(f):
    with pytest.raises(NotAGuarantee):
        f.report()


def test_an_opaque_certified_object_is_reported_but_not_recomputable():
    r = (fdp.Laplace(1.0) @ fdp.Gaussian(1.0)).report()
    assert r.mechanism.kind == "other" and r.command is None
    back = PrivacyReport.from_json(r.to_json())
    with pytest.raises(ReportMismatch, match=r"^mechanism: .*not re-computable"):
        back.verify()


@pytest.mark.parametrize("kw, name", [({"delta": 2.0}, "delta"), ({"fpr": -0.1}, "fpr"),
                                      ({"prior": 1.5}, "prior"), ({"epsilon": -1.0}, "epsilon")])
def test_bad_queries_name_the_parameter(kw, name):
    with pytest.raises(ValueError, match=name):
        fdp.Gaussian(1.0).report(**kw)


def test_unit_is_the_runs_own():
    with pytest.raises(ValueError, match="unit"):
        fdp.dpsgd(1.0, 0.01, 10, tol=1e-2).report(unit="one patient")
    assert fdp.Laplace(1.0).report(unit="one patient").privacy_unit == "one patient"


def test_reader_refuses_other_versions_and_names_missing_fields(run_report):
    d = run_report.to_dict()
    with pytest.raises(ValueError, match=r"^schema_version"):
        PrivacyReport.from_dict({**d, "schema_version": 2})
    with pytest.raises(ValueError, match=r"^mu: missing field 'bulk'"):
        PrivacyReport.from_dict({**d, "mu": {k: v for k, v in d["mu"].items() if k != "bulk"}})
    with pytest.raises(ValueError, match=r"^not JSON"):
        PrivacyReport.from_json("{")


def test_reports_pickle_and_print_like_the_claim(run_report):
    import pickle
    assert pickle.loads(pickle.dumps(run_report)) == run_report
    assert repr(fdp.Gaussian(1.0).report()) == ("PrivacyReport(Gaussian(mu=1.0); one record; "
                                                "eps <= 4.37718 at delta = 1e-05; exact)")
