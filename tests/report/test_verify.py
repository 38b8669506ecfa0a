"""``PrivacyReport.verify``: an untouched report verifies; each tampered field is named.

The truth is the report's own recomputation from an independent edit of its JSON: a
number changed by hand, or an input changed so that the numbers no longer follow."""

from __future__ import annotations

import copy

import pytest

import fdp
from fdp.report import PrivacyReport, ReportMismatch


@pytest.fixture(scope="module")
def data():
    return fdp.dpsgd(1.0, 0.01, 100, tol=1e-2).report(delta=1e-5).to_dict()


def _tampered(data, edit):
    d = copy.deepcopy(data)
    edit(d)
    return PrivacyReport.from_dict(d)


def _set(path, value):
    def edit(d):
        *head, last = path
        for k in head:
            d = d[k]
        d[last] = value
    return edit


def test_untouched_report_verifies(data):
    PrivacyReport.from_dict(data).verify()


def test_a_lowered_epsilon_is_named(data):
    eps = data["epsilon"][0]["upper"]
    r = _tampered(data, _set(("epsilon", 0, "upper"), 0.5))
    with pytest.raises(ReportMismatch) as err:
        r.verify()
    assert str(err.value) == f"epsilon[delta=1e-05].upper: file says 0.5, recomputed {eps:.6g}"
    assert err.value.field == "epsilon[delta=1e-05].upper"


def test_a_raised_epsilon_is_named_too(data):
    # weaker but not what the inputs give: the file no longer states fdp's numbers
    r = _tampered(data, _set(("epsilon", 0, "upper"), data["epsilon"][0]["upper"] * 1.01))
    with pytest.raises(ReportMismatch, match=r"^epsilon\[delta=1e-05\]\.upper: "):
        r.verify()


@pytest.mark.parametrize("path, value, field", [
    (("delta", 0, "upper"), 1e-9, "delta[epsilon=1].upper"),
    (("tpr", 1, "lower"), 0.0, "tpr[fpr=0.01].lower"),
    (("bayes_risk", "lower"), 0.5, "bayes_risk[prior=0.5].lower"),
    (("mu", "bulk"), 0.1, "mu.bulk"),
    (("privacy_unit",), "one user", "privacy_unit"),
    (("status",), "exact", "status"),
    # the claim's own statement of the run, edited
    (("accounted", "steps"), 90, "accounted.steps"),
    (("accounted", "sampler"), "without_replacement", "accounted.sampler"),
    (("accounted", "sensitivity"), 0.5, "accounted.sensitivity"),
    # the inputs, edited: what they give differs from what the file states
    (("mechanism", "inputs", "steps"), 90, "accounted.steps"),
    (("mechanism", "inputs", "sensitivity"), 0.5, "accounted.sensitivity"),
    (("mechanism", "inputs", "noise_multiplier"), 1.2, "accounted.noise_multiplier"),
    (("mechanism", "inputs", "tol"), 0.1, "epsilon[delta=1e-05].lower"),
])
def test_each_tampered_field_is_named(data, path, value, field):
    r = _tampered(data, _set(path, value))
    with pytest.raises(ReportMismatch) as err:
        r.verify()
    assert err.value.field == field
    assert "\n" not in str(err.value) and str(err.value).startswith(f"{field}: file says ")


def test_a_changed_sampler_is_named(data):
    def edit(d):
        d["mechanism"]["inputs"].update(sampling="without_replacement",
                                        neighbouring="replace_one")
    with pytest.raises(ReportMismatch) as err:
        _tampered(data, edit).verify()
    assert str(err.value) == ("accounted.sampler: file says 'poisson', recomputed "
                              "'without_replacement'")
    # an input the mechanism refuses names the inputs and the reason
    r = _tampered(data, _set(("mechanism", "inputs", "sampling"), "with_replacement"))
    with pytest.raises(ReportMismatch, match=r"^mechanism\.inputs: refused by fdp\.dpsgd: "
                                             r"sampling='with_replacement'"):
        r.verify()


def test_a_family_report_is_recomputed_from_its_parameters():
    r = fdp.Laplace(1.0).report()
    r.verify()
    d = r.to_dict()
    d["mechanism"]["inputs"]["mu"] = 1.1
    with pytest.raises(ReportMismatch, match=r"^epsilon\[delta=1e-05\]"):
        PrivacyReport.from_dict(d).verify()


def test_rtol_admits_rounding_and_nothing_more(data):
    eps = data["epsilon"][0]["upper"]
    r = _tampered(data, _set(("epsilon", 0, "upper"), eps * (1 + 1e-7)))
    with pytest.raises(ReportMismatch):
        r.verify()
    r.verify(rtol=1e-6)


def test_an_infinite_value_matches_only_infinity():
    r = fdp.EpsDelta(1.0, 0.1).report(delta=0.01)
    d = r.to_dict()
    d["epsilon"][0]["upper"] = 3.0
    with pytest.raises(ReportMismatch, match="file says 3, recomputed inf"):
        PrivacyReport.from_dict(d).verify()
