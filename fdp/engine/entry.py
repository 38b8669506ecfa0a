"""The engine's entry: ``compose`` (and ``compose_numeric``, its one-direction form).

Every client composes through here — ``fdp.compose`` / ``f @ g`` when no closed form
applies, ``fdp.dpsgd`` and its samplers, random allocation (``Prebuilt`` factors) —
and so does ``Numeric.refined`` (through the same ``composition.compose_lattices``):
choose the grid step, discretise each factor group on both sides, compose each
direction, read back from a ``Numeric``.
"""

from __future__ import annotations

from collections.abc import Sequence

from fdp.engine.composition import (
    Direction,
    Factors,
    GridPolicy,
    _prebuilt,
    compose_lattices,
)
from fdp.engine.numeric import Numeric
from fdp.engine.pipeline import _directions, _label
from fdp.engine.prebuilt import Prebuilt
from fdp.status import Status, status_of


def compose(factors: Factors | Sequence[tuple[Prebuilt, int]], tol: float | None = None, *,
            directions: tuple[Direction, ...] = ("f",), grid: GridPolicy = "tol",
            label: str | None = None, progress: bool | None = None,
            reflect: bool = True) -> Numeric:
    """The engine's entry: certified numeric composition of factor groups
    ⊗_i f_i^{⊗n_i} (DRS 2022, Def 3.1 and Thm 3.2), in one or both directions.

    Derivation: docs/derivations/engine.md.

    Parameters
    ----------
    factors : TradeOff, or list of (TradeOff, int), or list of (Prebuilt, int)
        The factor groups (equal factors grouped; a bare TradeOff counts once), or
        factors their caller bounded itself (``Prebuilt``: both directions given, the
        grid step from their declared variances, ``grid="tol"`` only; the result
        keeps no factors, ``source=()``).
    tol : float, optional
        Accuracy target in (0, 1] the grid step is chosen for (default ``DEFAULT_TOL``
        = 1e-4; ``QUESTION_TOL`` = 1e-3 with ``grid="question"``).
    directions : tuple of {"f", "inverse"}
        The compositions formed, one lattice per side each; two: their one-sided
        symmetrisation (δ = max). Default ("f",).
    grid : {"tol", "question", "exact"}
        "tol": Δ ≈ 1.3·sqrt(tol·V/N)/max(1, V)^{1/4} (``grid.choose_step``; V the
        variance of the composed loss, N the number of factors), coarsened to
        ``GRID_POINTS`` at tol = DEFAULT_TOL; "question": the question-sized grid of
        ``fdp.dpsgd`` without tol (tol = QUESTION_TOL, coarsened to the budget, and
        ``epsilon_bounds`` refines until its bracket is within
        ``QUESTION_REL_WIDTH``·max(ε, 0.01)); "exact": the step tol asks for, never
        coarsened (``Numeric.refined``).
    label : str, optional
        The result's label (default: the factors joined by ⊗).
    progress : bool, optional
        A progress meter on stderr (None: only on a terminal for long runs).
    reflect : bool
        With both directions: build f_i⁻¹'s lattices by reflecting f_i's wherever what
        that adds to a group is at most ``REFLECT_SLACK_CAP`` (``pipeline.inverse_parts``;
        the default). False: the slack-free lattices a result recomposes from (its
        ``source``; ``Numeric.refined``).

    Returns
    -------
    Numeric
        The certified result (status: the weakest of its factors', at best
        certified); for TradeOff factors it keeps them (``source``, one ``Recipe``
        per direction) for refinement and small-δ read-backs.

    Raises
    ------
    TypeError
        If factors is not a list of (TradeOff, count) or (Prebuilt, count) pairs.
    ValueError
        If factors is empty, a count is not a positive integer, tol is not in (0, 1],
        or ``directions`` / ``grid`` is not one of the forms above.
    MemoryError
        If an explicit tol needs a grid over the engine's memory limit (the message
        names tol).

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine import compose
    >>> f = compose([(fdp.Gaussian(1.0), 4)])             # G_1^{⊗4} = G_2 (DRS Cor 3.3)
    >>> lo, hi = f.bounds(0.1)
    >>> bool(lo <= fdp.Gaussian(2.0)(0.1) <= hi)
    True
    >>> add = fdp.Gaussian(1.0).subsample(0.1, direction="add")
    >>> s = compose([(add, 10)], 1e-3, directions=("f", "inverse"))
    >>> s.symmetric, len(s.pess)
    (True, 2)
    """
    c = compose_lattices(factors, tol, directions=directions, grid=grid, progress=progress,
                         reflect=reflect)
    if not c.source:                                   # Prebuilt factors
        return Numeric(c.pess, c.opt, "prebuilt factors" if label is None else label, c.tol)
    return Numeric(c.pess, c.opt, _label(c.groups) if label is None else label, c.tol,
                   directions="both" if len(directions) == 2 else _directions(c.groups),
                   source=c.source, eps_width=c.eps_width,
                   status=status_of(*(f for f, _ in c.groups), operation=Status.CERTIFIED))


def compose_numeric(factors: Factors, tol: float | None = None,
                    progress: bool | None = None) -> Numeric:
    """Certified numeric composition ⊗_i f_i^{⊗n_i}: ``compose`` in one direction with
    the grid chosen for tol (DRS 2022, Def 3.1 and Thm 3.2).

    Derivation: docs/derivations/engine.md.

    Parameters
    ----------
    factors : TradeOff or list of (TradeOff, int)
        The factors with their counts (equal factors grouped); a bare ``TradeOff``
        in the list counts once. Any ``TradeOff`` is accepted, including earlier
        ``Numeric`` results.
    tol : float, optional
        Accuracy target in (0, 1] (default ``DEFAULT_TOL`` = 1e-4).
    progress : bool, optional
        A progress meter on stderr (None: only on a terminal, for ≥ 200 distinct
        factors or a long expected time; False: never).

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
    if _prebuilt(factors):
        raise TypeError("factors must be a list of (TradeOff, count) pairs")
    return compose(factors, tol, progress=progress)


__all__ = ["compose", "compose_numeric"]
