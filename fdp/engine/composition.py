"""``compose_numeric``: the engine's entry point (the pipeline, then a ``Numeric``)."""

from __future__ import annotations

from fdp.engine.grid import choose_step, expected_seconds
from fdp.engine.numeric import Numeric
from fdp.engine.pipeline import (
    Recipe,
    _directions,
    _label,
    _validate_groups,
    check_tol,
    combine_parts,
    cropped,
    discretise_groups,
    work_units,
)
from fdp.engine.progress import Meter


def compose_numeric(factors, tol: float | None = None, progress: bool | None = None) -> Numeric:
    """Certified numeric composition ⊗_i f_i^{⊗n_i} (DRS 2022, Def 3.1 and Thm 3.2).

    Each factor is discretised on the privacy-loss lattice ΔZ twice — pessimistic
    (connect the dots) and optimistic (a mean-preserving contraction) — and the
    lattices are composed by FFT with every round-off and truncation bounded on the
    safe side (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022; Koskela, Jälkö &
    Honkela 2020 for FFT accounting; Gopi, Lee & Wutschitz 2021 for the tilted
    read-back at small δ).

    ``tol`` (default 1e-4) sets the accuracy the grid is chosen for: the loss grid
    step is Δ ≈ 1.3·sqrt(tol·V/N)/max(1, V)^{1/4} (V the variance of the composed
    privacy loss, N the number of factors). The bracket width in β is then about
    tol/3, in ε about 3–10·tol for DP-SGD-like compositions (the discretisation
    changes the composed law's variance by a relative N·Δ²/V ∝ tol). It is a
    target, not a guarantee; the returned bracket is always certified, whatever its
    width (read it with ``bounds`` / ``epsilon_bounds``).
    ``progress``: a meter on stderr (None: only on a terminal, for ≥ 200 distinct
    factors or an expected time ≥ 2 s; False: never). Smaller tol costs memory and
    time ∝ 1/sqrt(tol). At the default tol a grid over ``GRID_POINTS`` is coarsened
    to fit (certified, wider; refine with ``width=``).

    Parameters
    ----------
    factors : TradeOff or list of (TradeOff, int)
        The factors with their counts (equal factors grouped); a bare ``TradeOff``
        in the list counts once. Any ``TradeOff`` is accepted, including earlier
        ``Numeric`` results.
    tol : float, optional
        Accuracy target in (0, 1] (default ``DEFAULT_TOL`` = 1e-4).
    progress : bool, optional
        A progress meter on stderr (None: only on a terminal for long runs).

    Returns
    -------
    Numeric
        The certified result; it keeps its factors (``source``) for refinement.

    Raises
    ------
    TypeError
        If factors is not a list of (TradeOff, count) pairs.
    ValueError
        If factors is empty, a count is not a positive integer, or tol is not in (0, 1].
    MemoryError
        If an explicit tol needs a grid over the engine's memory limit (the message
        names tol).

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine import compose_numeric
    >>> f = compose_numeric([(fdp.Gaussian(1.0), 4)])      # G_1^{⊗4} = G_2 (DRS Cor 3.3)
    >>> lo, hi = f.bounds(0.1)
    >>> bool(lo <= fdp.Gaussian(2.0)(0.1) <= hi), bool(hi - lo < 1e-3)
    (True, True)
    """
    groups = _validate_groups(factors)
    tol = check_tol(tol)
    step, spreads = choose_step(groups, tol)
    meter = Meter(work_units(len(groups)), "composing", progress,
                  seconds=expected_seconds(groups, spreads, step))
    pess, opt = combine_parts(cropped(discretise_groups(groups, step, meter)), meter=meter)
    meter.close()
    return Numeric((pess,), (opt,), _label(groups), tol, directions=_directions(groups),
                   source=(Recipe(tuple(groups), step),))


__all__ = ["compose_numeric"]
