"""Helpers shared by the reproduction scripts."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fdp.plotting import new_figure, save


def figure(nrows: int = 1, ncols: int = 1, size: float = 4.2):
    """A stand-alone figure (Agg, no pyplot state) and a flat array of its Axes."""
    fig, axes = new_figure(nrows, ncols, size=size)
    return fig, axes.ravel()


def write(fig, out_dir, name: str) -> Path:
    """Save ``<out_dir>/<name>.png`` deterministically (no timestamp metadata)."""
    path = Path(out_dir) / f"{name}.png"
    save(fig, path)
    return path


def mnist_steps(epochs: float, n: int = 60000, batch: int = 256) -> float:
    """Steps of DP-SGD as Bu et al. count them: epochs · n / batch (may be fractional)."""
    return epochs * n / batch


def sup_distance(f, g, alpha=None) -> float:
    """max_α |f(α) − g(α)| on a fine grid (uniform plus log-spaced tails)."""
    from fdp.plotting.style import alpha_grid
    a = alpha_grid(4000) if alpha is None else alpha
    return float(np.max(np.abs(np.asarray(f(a)) - np.asarray(g(a)))))


def have(module: str) -> bool:
    """True if an optional fdp subpackage (for example ``fdp.engine``) is installed."""
    from importlib import import_module
    try:
        mod = import_module(module)
    except ImportError:
        return False
    # A directory still being written is an empty namespace package: not installed yet.
    return getattr(mod, "__file__", None) is not None


def missing(source: str, quantity: str, module: str):
    """The row of a check that needs a module that is not installed: SKIPPED, naming the
    extra, for an optional peer; FAIL for a part of fdp."""
    from fdp.repro import Check
    return Check.needs(source, quantity, module)


def engine_tol(fast: bool):
    """Numeric-engine accuracy: the engine default, or a coarser one in fast mode (the
    brackets stay certified, only wider)."""
    return 1e-2 if fast else None


#: Engine accuracy of the DP-SGD figures (full run, fast run): every bracket stays
#: certified; 1e-3 keeps the ε brackets within ~0.005 and the full run to minutes.
DPSGD_TOL = (1e-3, 1e-2)


def certified_dpsgd(sigma: float, rate: float, steps: float, fast: bool, tol=None):
    """fdp.dpsgd (Poisson, add/remove) with an integer number of steps (rounded up),
    at ``tol`` if given, else ``DPSGD_TOL``."""
    import math

    import fdp
    return fdp.dpsgd(sigma, rate, int(math.ceil(steps - 1e-9)), sampling="poisson",
                     neighbouring="add_remove", tol=tol if tol is not None else DPSGD_TOL[fast])
