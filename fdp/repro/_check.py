"""One checked number: a value printed in a paper (or a documented package value)
against ours, with a stated tolerance; or a check that could not run because an optional
package is missing (SKIPPED, naming the extra that installs it)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: The extra of ``pyproject.toml`` that installs each optional peer, by import name (a
#: check or a test needing one is skipped, naming the extra, where it is not installed).
PEER_EXTRAS = {
    "dp_accounting": "interop", "opacus": "interop", "torch": "interop",
    "sklearn": "interop", "prv_accountant": "bench", "dask": "dask",
    "distributed": "dask", "flwr": "flower", "optuna": "tune",
}


def needs_extra(module: str) -> str | None:
    """``"needs <module>: pip install 'fdp[<extra>]'"`` for an optional peer, else None.

    Parameters
    ----------
    module : str
        An import name (``dp_accounting.dp_event`` counts as ``dp_accounting``).

    Returns
    -------
    str or None

    Examples
    --------
    >>> needs_extra("dp_accounting.dp_event")
    "needs dp_accounting: pip install 'fdp[interop]'"
    >>> needs_extra("fdp.engine") is None
    True
    """
    top = module.split(".")[0]
    extra = PEER_EXTRAS.get(top)
    return None if extra is None else f"needs {top}: pip install 'fdp[{extra}]'"


@dataclass(frozen=True)
class Check:
    """A row of the reproduction table.

    ``source`` names where the printed value comes from (paper, figure/table,
    documentation page); ``quantity`` what it is; ``paper`` the printed value as text;
    ``ours`` our value as text; ``tolerance`` the stated acceptance rule as text;
    ``passed`` the verdict; ``skipped`` why the check did not run (an optional package
    is not installed; then ``passed`` is False and the row is neither passed nor
    failed). Build rows with the constructors below, which compute the verdict and the
    texts together so that they cannot disagree.
    """

    source: str
    quantity: str
    paper: str
    ours: str
    tolerance: str
    passed: bool
    skipped: str = ""

    @property
    def verdict(self) -> str:
        return "SKIPPED" if self.skipped else "PASS" if self.passed else "FAIL"

    # ------------------------------------------------------------------
    @classmethod
    def close(cls, source: str, quantity: str, paper: float, ours: float, *,
              atol: float = 0.0, rtol: float = 0.0, note: str = "") -> Check:
        """|ours − paper| ≤ atol + rtol·|paper| (use atol = half a unit of the last printed
        digit for a rounded value)."""
        ok = _finite(ours) and abs(ours - paper) <= atol + rtol * abs(paper)
        tol = " + ".join(t for t in (f"±{atol:.3g}" if atol else "",
                                     f"±{rtol:.3g} rel" if rtol else "") if t) or "exact"
        # Show enough digits for the tolerance to be visible in the table.
        rel = (atol + rtol * abs(paper)) / abs(paper) if paper else 0.0
        digits = 6 if rel == 0 or rel >= 1e-5 else min(16, int(np.ceil(-np.log10(rel))) + 2)
        return cls(source, quantity, _fmt(paper, digits), _fmt(ours, digits),
                   tol + _note(note), ok)

    @classmethod
    def rounds_to(cls, source: str, quantity: str, printed: str, ours: float, *,
                  mode: str = "nearest", slack: float = 0.0, note: str = "") -> Check:
        """``ours`` rounded to the printed number of decimals equals the printed value.

        mode="nearest": |ours − printed| ≤ half a unit of the last digit (+ slack);
        mode="up": the printed value is ours rounded *up* (as the R package fdp
        rounds to keep a bound valid): printed − unit < ours ≤ printed (+ slack);
        mode="truncate": the printed value is ours with the digits cut off:
        printed ≤ ours < printed + unit.
        """
        value = float(printed)
        decimals = len(printed.split(".")[1]) if "." in printed else 0
        unit = 10.0 ** (-decimals)
        if mode == "nearest":
            ok = _finite(ours) and abs(ours - value) <= unit / 2 + slack + 1e-12
            tol = f"±{unit / 2 + slack:.2g} (rounding)"
        elif mode == "up":
            ok = _finite(ours) and value - unit - slack < ours <= value + slack + 1e-12
            tol = f"rounded up = {printed}"
        elif mode == "truncate":
            ok = _finite(ours) and value - slack - 1e-12 <= ours < value + unit + slack
            tol = f"truncated = {printed}"
        else:
            raise ValueError(f"mode must be 'nearest', 'up' or 'truncate', got {mode!r}")
        return cls(source, quantity, printed, _fmt(ours), tol + _note(note), ok)

    @classmethod
    def in_interval(cls, source: str, quantity: str, low: float, high: float, ours: float, *,
                    note: str = "") -> Check:
        """low < ours < high (an interval printed by the source)."""
        ok = _finite(ours) and low < ours < high
        return cls(source, quantity, f"({_fmt(low)}, {_fmt(high)})", _fmt(ours),
                   "inside the interval" + _note(note), ok)

    @classmethod
    def bracket_contains(cls, source: str, quantity: str, paper: float, low: float,
                         high: float, *, slack: float = 0.0, note: str = "") -> Check:
        """Our certified bracket [low, high] contains the printed value (± slack, the
        source's own stated error)."""
        ok = _finite(low) and _finite(high) and low - slack <= paper <= high + slack
        tol = "in our bracket" + (f" ±{slack:.3g}" if slack else "")
        return cls(source, quantity, _fmt(paper), f"[{_fmt(low)}, {_fmt(high)}]",
                   tol + _note(note), ok)

    @classmethod
    def holds(cls, source: str, quantity: str, expected: str, ours: str, ok: bool, *,
              rule: str = "statement holds") -> Check:
        """A qualitative statement of the source (for example 'G_0.5 ≥ f'), checked."""
        return cls(source, quantity, expected, ours, rule, bool(ok))

    @classmethod
    def failed(cls, source: str, quantity: str, reason: str) -> Check:
        """A check that could not be computed (an error, a missing part of fdp)."""
        return cls(source, quantity, "-", reason, "-", False)

    @classmethod
    def needs(cls, source: str, quantity: str, module: str) -> Check:
        """A check that needs ``module``, which is not installed: SKIPPED naming the
        extra that installs it for an optional peer (``PEER_EXTRAS``), else FAIL."""
        why = needs_extra(module)
        if why is None:
            return cls.failed(source, quantity, f"needs module {module} (not installed)")
        return cls(source, quantity, "-", why, "-", False, skipped=why)


def _finite(x: float) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _fmt(x: float, digits: int = 6) -> str:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if v == 0 or (1e-3 <= abs(v) < 1e5):
        return f"{v:.{digits}g}"
    return f"{v:.{max(digits - 2, 4)}e}"


def _note(note: str) -> str:
    return f"; {note}" if note else ""
