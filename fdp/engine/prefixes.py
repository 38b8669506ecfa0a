"""``compose_prefixes``: the certified compositions ⊗_g f_g^{⊗n_{i,g}} of many prefixes
(rows i of counts n_{i,g}) of one schedule of distinct factors f_1, …, f_G, on the grid
``compose`` chooses for the last row, each factor discretised once. The argument of
``fdp.engine`` holds for any step and counts, so every row is a certified bracket of its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from fdp import _validate
from fdp.engine.composition import Direction, GridPolicy, combine_directions
from fdp.engine.discretise import discretise
from fdp.engine.grid import QUESTION_REL_WIDTH, QUESTION_TOL, choose_step
from fdp.engine.lattice import OPTIMISTIC, Lattice
from fdp.engine.numeric import Numeric
from fdp.engine.pipeline import (
    Recipe,
    _directions,
    _label,
    check_tol,
    cropped,
    discretise_groups,
    inverse_parts,
)
from fdp.status import Status, status_of
from fdp.tradeoff import TradeOff


def compose_prefixes(factors: Sequence[TradeOff], counts: Sequence[Sequence[int]],
                     tol: float | None = None, *, directions: tuple[Direction, ...] = ("f",),
                     grid: GridPolicy = "tol", labels: Sequence[str] | None = None
                     ) -> Iterator[Numeric]:
    """One certified ``Numeric`` per row of counts (module docstring; DRS 2022, Def 3.1, Thm 3.2).

    Parameters
    ----------
    factors : sequence of TradeOff
        The distinct factors f_1, …, f_G.
    counts : sequence of rows of G integers ≥ 0
        Row i holds n_{i,1}, …, n_{i,G}, with at least one positive count.
    tol, directions, grid
        As in ``compose`` (``grid="question"``: each result refines its ε bracket on
        demand like ``fdp.dpsgd``'s).
    labels : sequence of str, optional
        One label per row (default: the row's factors joined by ⊗).

    Returns
    -------
    iterator of Numeric
        One per row, in order, each composed when asked for (a caller that reads and
        drops them holds one row's lattices at a time); row i equal to ``compose`` of
        its groups on this grid. The arguments are checked and the factors discretised
        on the call, before the first row.

    Examples
    --------
    >>> import fdp
    >>> from fdp.engine import compose_prefixes
    >>> a, b = compose_prefixes([fdp.Laplace(1.0)], [[1], [3]], 1e-3)
    >>> lo, hi = b.bounds(0.1)
    >>> bool(lo <= fdp.compose_numeric([(fdp.Laplace(1.0), 3)])(0.1) <= hi)
    True
    """
    fs = list(factors)
    rows = [[_validate.positive_int("count", n, low=0) for n in row] for row in counts]
    if not fs or not rows or any(len(r) != len(fs) or sum(r) == 0 for r in rows):
        raise ValueError(f"counts must be rows of {len(fs)} integers >= 0 (one per factor), "
                         "each with a positive count, and factors must not be empty")
    if labels is not None and len(labels) != len(rows):
        raise ValueError(f"labels must hold one label per row ({len(rows)}), got "
                         f"{len(labels)}")
    if grid not in ("tol", "question", "exact"):
        raise ValueError(f"grid must be 'tol', 'question' or 'exact', got {grid!r}")
    if directions not in (("f",), ("f", "inverse")):
        raise ValueError(f"directions must be ('f',) or ('f', 'inverse'), got {directions!r}")
    last = [(f, n) for f, n in zip(fs, rows[-1]) if n > 0]
    question = grid == "question"
    tol = QUESTION_TOL if question and tol is None else check_tol(tol)
    step, _ = choose_step(last, tol, coarsen=grid != "exact",
                          budget=True if question else None)
    # every factor discretised once; the remove direction's lattices per row as ``compose``
    # chooses them (``pipeline.inverse_parts``), the direct ones at most once (``_Once``)
    parts = discretise_groups([(f, 1) for f in fs], step)
    return _rows(fs, rows, parts, _Once(fs, step), step, tol, directions, question, labels)


def _rows(fs: list[TradeOff], rows: list[list[int]], parts: list, inverse: _Once,
          step: float, tol: float, directions: tuple[Direction, ...], question: bool,
          labels: Sequence[str] | None) -> Iterator[Numeric]:
    """``compose_prefixes``'s results, one row at a time."""
    for i, row in enumerate(rows):
        live = [g for g in range(len(fs)) if row[g] > 0]
        kept = tuple((fs[g], row[g]) for g in live)
        add = [(parts[g][0], parts[g][1], row[g]) for g in live]
        per_direction = [cropped(add)]
        if directions == ("f", "inverse"):
            per_direction.append(cropped(inverse_parts(kept, add, reflect_both=True,
                                                       ahead=inverse.among(live))))
        lattices = combine_directions(per_direction)
        label = labels[i] if labels is not None else _label(kept)
        yield Numeric(tuple(p for p, _ in lattices), tuple(o for _, o in lattices), label, tol,
                      directions="both" if len(directions) == 2 else _directions(kept),
                      source=tuple(Recipe(kept, step, d == "inverse") for d in directions),
                      eps_width=QUESTION_REL_WIDTH if question else None,
                      status=status_of(*(f for f, _ in kept), operation=Status.CERTIFIED))


class _Once(dict[int, Lattice]):
    """{index among a row's groups: f_g⁻¹'s optimistic lattice}, as ``inverse_parts``'s
    ``ahead``: every index is offered, and a lattice is discretised the first time that
    ``inverse_parts`` asks for it, then kept for the other rows."""

    def __init__(self, factors: list[TradeOff], step: float) -> None:
        super().__init__()
        self.factors, self.step = factors, step
        self.cache: dict[int, Lattice] = {}
        self.live: list[int] = []

    def among(self, live: list[int]) -> _Once:
        self.live = live
        return self

    def __contains__(self, i: object) -> bool:
        return isinstance(i, int) and 0 <= i < len(self.live)

    def __getitem__(self, i: int) -> Lattice:
        g = self.live[i]
        if g not in self.cache:
            self.cache[g] = discretise(self.factors[g].inverse(), self.step, OPTIMISTIC)
        return self.cache[g]


__all__ = ["compose_prefixes"]
