"""Trust as a type: every object's status, the one rule that derives it, and the
consumers of a guarantee that refuse what is not exact or certified (fdp.status)."""

import pickle

import numpy as np
import pytest

import fdp
from fdp.operations.weaken import Weakened, weaken
from fdp.status import NotAGuarantee, Status, require_guarantee, status_of, weakest

EXACT, CERT, LOWER, APPROX = (Status.EXACT, Status.CERTIFIED, Status.LOWER_BOUND,
                              Status.APPROXIMATION)


def _edgeworth():
    return fdp.edgeworth([fdp.Laplace(1.0)] * 10)


def _clt_approx():
    return fdp.clt([fdp.Laplace(0.3)] * 20).approx


def _clt_upper():
    return fdp.clt([fdp.EpsDelta(0.5)] * 10).upper


def _shuffle():
    return fdp.sgd.shuffle_lower(2.0, 10, tol=1e-2)


NON_GUARANTEES = {
    "edgeworth": (_edgeworth, APPROX),
    "clt approx": (_clt_approx, APPROX),
    "clt band upper side": (_clt_upper, LOWER),
    "shuffle lower curve": (_shuffle, LOWER),
}


# ----------------------------------------------------------------------
# The rule
# ----------------------------------------------------------------------
def test_weakest_is_a_total_order_with_exact_strongest():
    order = [EXACT, CERT, LOWER, APPROX]
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            assert weakest(a, b) is order[max(i, j)]
    assert [s.is_guarantee for s in order] == [True, True, False, False]
    with pytest.raises(ValueError, match="at least one"):
        weakest()


def test_statuses_of_the_families_and_of_numeric_results():
    assert fdp.Gaussian(1.0).status is EXACT
    assert fdp.EpsDelta(1.0, 1e-5).status is EXACT
    assert (fdp.Gaussian(1.0) ** 4).status is EXACT             # closed forms stay closed
    assert (fdp.Laplace(1.0) @ fdp.Gaussian(1.0)).status is CERT
    assert fdp.dpsgd(1.1, 0.01, 10, tol=1e-2).status is CERT
    assert fdp.random_allocation(2.0, 5, tol=1e-2).status is CERT
    assert _edgeworth().status is APPROX
    r = fdp.clt([fdp.EpsDelta(0.5)] * 10)
    assert r.approx.status is APPROX and r.upper.status is LOWER
    assert r.lower.status.is_guarantee                # DRS Thm 3.4 with exact functionals


@pytest.mark.parametrize("name", sorted(NON_GUARANTEES))
@pytest.mark.slow
def test_every_operation_keeps_the_weakest_status(name):
    make, status = NON_GUARANTEES[name]
    f = make()
    assert f.status is status
    ops = {
        "compose with exact": lambda: f @ fdp.Gaussian(0.5),
        "compose exact with it": lambda: fdp.Laplace(1.0) @ f,
        "power": lambda: f ** 2,
        "inverse": lambda: f.inverse(),
        "symmetrize": lambda: f.symmetrize(),
        "one-sided symmetrize": lambda: f.symmetrize(one_sided=True),
        "group": lambda: f.group(2),
        "subsample add": lambda: f.subsample(0.3, direction="add"),
        "subsample both": lambda: f.subsample(0.3),
        "subsample without replacement": lambda: f.subsample(0.3,
                                                             sampling="without_replacement"),
        "envelope": lambda: fdp.envelope(f, fdp.Gaussian(1.0)),
        "strongest": lambda: fdp.strongest(f, fdp.Gaussian(3.0)),
        "with delta": lambda: fdp.compose(f, fdp.EpsDelta(0.0, 1e-6)),
    }
    for op_name, op in ops.items():
        g = op()
        assert g.status is weakest(status, g.status), op_name
        assert not g.status.is_guarantee, op_name
        assert repr(g).endswith(", not a guarantee"), (op_name, repr(g))


def test_an_approximation_composed_with_a_lower_bound_is_an_approximation():
    h = _edgeworth() @ _clt_upper()
    assert h.status is APPROX
    assert status_of(_edgeworth(), _clt_upper()) is APPROX


def test_exact_and_certified_inputs_give_guarantees():
    for f in (fdp.Laplace(1.0) @ fdp.Gaussian(1.0), fdp.Gaussian(1.0).subsample(0.2),
              fdp.Laplace(1.0).group(2), fdp.envelope(fdp.Gaussian(1.0), fdp.EpsDelta(1.0))):
        assert f.status.is_guarantee, repr(f)
        assert "not a guarantee" not in repr(f)


def test_weaken_refuses_guarantee_statuses_and_keeps_weaker_objects():
    with pytest.raises(ValueError, match="claimed"):
        Weakened(fdp.Gaussian(1.0), CERT, "no")
    with pytest.raises(ValueError, match="reason"):
        Weakened(fdp.Gaussian(1.0), APPROX, "")
    e = _edgeworth()
    assert weaken(e, LOWER, "x") is e                 # already weaker
    w = weaken(fdp.Gaussian(1.0), LOWER, "a test")
    assert isinstance(w, Weakened) and w.status is LOWER
    a = np.linspace(0.0, 1.0, 11)
    assert np.array_equal(w(a), fdp.Gaussian(1.0)(a))
    # a closed-form rule must not rebuild an exact object from it
    assert (w @ fdp.Gaussian(1.0)).status is LOWER
    assert pickle.loads(pickle.dumps(w)) == w


# ----------------------------------------------------------------------
# Read-outs say so
# ----------------------------------------------------------------------
@pytest.mark.slow
def test_readouts_of_non_guarantees_carry_their_status():
    e = _edgeworth()
    composed = e @ fdp.Gaussian(1.0)
    for b in (e.bounds(0.1), e.delta_bounds(1.0), e.epsilon_bounds(1e-3),
              e.tpr_at_fpr(0.1), e.advantage_bounds(), composed.epsilon_bounds(1e-3)):
        assert isinstance(b, fdp.Bracket) and b.status is APPROX
        assert "approximation, not proven" in repr(b)
    b = fdp.Gaussian(1.0).epsilon_bounds(1e-5)
    assert b.status is EXACT and "not proven" not in repr(b)


def test_bracket_is_a_tuple_that_floats_only_when_exact():
    b = fdp.Bracket(0.25, 0.5, CERT)
    lo, hi = b
    assert (lo, hi) == (0.25, 0.5) and b == (0.25, 0.5) and b.safe == 0.5
    with pytest.raises(TypeError, match="not a number"):
        float(b)
    assert float(fdp.Bracket(0.5, 0.5)) == 0.5
    c = pickle.loads(pickle.dumps(b))
    assert c == b and c.status is CERT
    with pytest.raises(AttributeError):
        b.lo = 1.0
    with pytest.raises(ValueError, match="safe_side"):
        fdp.Bracket(0.0, 1.0, safe_side="middle")


# ----------------------------------------------------------------------
# Consumers of a guarantee refuse
# ----------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(NON_GUARANTEES))
def test_the_accountant_refuses_and_changes_nothing(name):
    f = NON_GUARANTEES[name][0]()
    for adaptive in (False, True):
        acc = fdp.Accountant(budget=fdp.Gaussian(5.0), adaptive=adaptive)
        for g in (f, f @ fdp.Gaussian(0.5)):
            with pytest.raises(NotAGuarantee, match=NON_GUARANTEES[name][1].value):
                acc.spend(g)
        assert len(acc.spends) == 0


@pytest.mark.parametrize("name", sorted(NON_GUARANTEES))
def test_dominates_refuses_a_non_guarantee_as_the_proof(name):
    f = NON_GUARANTEES[name][0]()
    with pytest.raises(NotAGuarantee):
        f.dominates(fdp.Gaussian(4.0))


def test_dominates_against_a_lower_bound_is_a_proof_against_an_approximation_is_not():
    # g a lower bound: f ≥ g ≥ truth of g, so a proof is meaningful
    assert fdp.Identity().dominates(_clt_upper())
    with pytest.raises(NotAGuarantee, match="approximation"):
        fdp.Identity().dominates(_edgeworth())


def test_calibration_refuses_a_non_guarantee():
    from fdp.calibration.search import search_noise
    from fdp.calibration.targets import Target
    with pytest.raises(NotAGuarantee, match="calibration"):
        search_noise(lambda x: fdp.edgeworth([fdp.Laplace(1.0 / x)] * 3), Target.make(mu=1.0))


def test_the_adapters_refuse_a_non_guarantee(monkeypatch):
    pytest.importorskip("dp_accounting")
    from fdp.interop import dp_accounting as dpa
    from fdp.interop import opacus
    monkeypatch.setattr(opacus, "_tradeoff", lambda key: _edgeworth())
    acc = opacus.FdpAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.01)
    with pytest.raises(NotAGuarantee, match="Opacus"):
        acc.get_epsilon(delta=1e-5)
    monkeypatch.setattr(dpa, "_finish", lambda mapped: _clt_approx())
    import dp_accounting
    acc2 = dpa.FdpAccountant()
    acc2.compose(dp_accounting.GaussianDpEvent(1.0))
    with pytest.raises(NotAGuarantee, match="FdpAccountant"):
        acc2.get_epsilon(1e-5)


def test_sweep_rows_and_the_cli_refuse_a_non_guarantee(monkeypatch, capsys):
    import fdp.sgd.certified as certified
    import fdp.sweep as sweep
    from fdp.sweep import DpsgdConfig, dpsgd_rows
    monkeypatch.setattr(certified, "dpsgd", lambda *a, **k: _edgeworth())
    monkeypatch.setattr(sweep, "dpsgd", lambda *a, **k: _edgeworth())
    with pytest.raises(NotAGuarantee, match="sweep"):
        dpsgd_rows(DpsgdConfig(1.0, 0.01, 10, (1e-5,), tol=1e-2))
    from fdp.cli import main
    code = main(["dpsgd", "--noise-multiplier", "1", "--sample-rate", "0.01", "--steps", "10"])
    err = capsys.readouterr().err
    assert code != 0 and "the certified line refuses" in err and "approximation" in err


def test_require_guarantee_refuses_one_direction_objects():
    add = fdp.Gaussian(1.0).subsample(0.5, direction="add")
    assert add.status is EXACT
    with pytest.raises(NotAGuarantee, match="one direction"):
        require_guarantee(add, "test")
    with pytest.raises(NotAGuarantee, match="one direction"):
        fdp.Accountant(mu=5.0).spend(add)
