"""The engine's entry: ``compose`` (and ``compose_numeric``, its one-direction form).
Derivation: docs/derivations/engine.md."""

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

    Returns a certified ``Numeric`` (status: the weakest of its factors', at best certified)
    that keeps its TradeOff factors (``source``) for refinement and small-δ read-backs.
    Derivation: docs/derivations/engine.md.

    Parameters
    ----------
    factors : TradeOff, or list of (TradeOff, int), or list of (Prebuilt, int)
        The factor groups (a bare TradeOff counts once), or factors their caller bounded
        itself (``Prebuilt``: both directions given, ``grid="tol"`` only, no ``source``).
    tol : float, optional
        Accuracy target in (0, 1] the grid step is chosen for (default ``DEFAULT_TOL``
        = 1e-4; ``QUESTION_TOL`` = 1e-3 with ``grid="question"``).
    directions : tuple of {"f", "inverse"}
        The compositions formed; two: their one-sided symmetrisation (δ = max).
    grid : {"tol", "question", "exact"}
        "tol": Δ from tol (``grid.choose_step``), coarsened to ``GRID_POINTS`` at the
        default tol; "question": ``fdp.dpsgd``'s question-sized grid (``epsilon_bounds``
        refines to ``QUESTION_REL_WIDTH``·max(ε, 0.01)); "exact": never coarsened.
    label : str, optional
        The result's label (default: the factors joined by ⊗).
    progress : bool, optional
        A progress meter on stderr (None: only on a terminal for long runs).
    reflect : bool
        With both directions, build f_i⁻¹'s lattices by reflection where that costs at most
        ``REFLECT_SLACK_CAP`` (``pipeline.inverse_parts``); False: the slack-free lattices.

    Raises
    ------
    MemoryError
        If an explicit tol needs a grid over the memory limit (the message names tol).

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
    """Certified numeric composition ⊗_i f_i^{⊗n_i}: ``compose`` in one direction (DRS 2022,
    Def 3.1 and Thm 3.2); ``factors``, ``tol``, ``progress`` and what raises as there.

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
