"""The filter says why its spent curve is looser than one DP-SGD run over the same steps."""

import fdp


def test_symmetrised_spends_are_noted_and_looser_than_one_run():
    a = fdp.Accountant(epsilon=50.0, delta=1e-5)
    a.spend(fdp.dpsgd(1.0, 0.05, 20))
    assert a.notes == ()
    a.spend(fdp.dpsgd(1.0, 0.05, 20))
    assert len(a.notes) == 1 and "symmetrising the composition once" in a.notes[0]
    assert "# note:" in repr(a)
    whole = fdp.dpsgd(1.0, 0.05, 40)
    spent_lo, _ = a.spent.epsilon_bounds(1e-5)
    _, whole_hi = whole.epsilon_bounds(1e-5)
    # ⊗ of min{f_i, f_i⁻¹}** lies below min{F, F⁻¹}**: strictly larger ε here
    # (measured: [2.47012, 2.47059] against [2.46782, 2.46823])
    assert spent_lo > whole_hi


def test_closed_form_spends_carry_no_note():
    a = fdp.Accountant(mu=2.0)
    a.spend(fdp.Gaussian(1.0))
    a.spend(fdp.Gaussian(1.0))
    assert a.notes == () and "note" not in repr(a)
