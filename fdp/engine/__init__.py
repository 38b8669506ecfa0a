"""The certified numeric composition engine.

Pipeline: ``discretise`` each factor's privacy-loss law on the lattice ΔZ twice,
pessimistically (a mean-preserving spread of the likelihood ratio, Doroshenko et al.
2022) and optimistically (a contraction) → ``convolve`` (FFT, with an a posteriori
bound on its round-off) → read back β(α), δ(ε), ε(δ) from the two lattices
(``Numeric``). The increasing convex order of the likelihood ratio is preserved by
composition and orders δ, hence f (DRS Prop 2.12), so the two sides bracket the truth.
The proof, the floating-point accounting, small δ by tilting, the grid regimes and the
threading: docs/derivations/engine.md.

Modules, bottom to top: ``lattice`` (the data type), ``direct_band`` and
``convolution`` (composing lattices), ``connect_dots`` / ``contraction`` (the two
sides of a law's discretisation), ``from_profile`` (curves known through β or δ only),
``from_lattices`` (regridding, envelopes), ``discretise``, ``grid`` (the step),
``pipeline``, ``tilted`` (small δ), ``summaries`` (GDP μ, pure ε), ``readback``,
``numeric`` (the result), ``composition`` (both directions), ``entry`` (``compose``,
the entry every client uses), ``prebuilt`` (factors given as bounding atoms),
``worker`` (a share in another process). The engine asks objects (``f.law()`` and
the hooks of ``fdp._hooks.EngineHooks``) instead of importing above ``fdp.tradeoff``.

Public: ``compose(factors, tol, directions=, grid=, label=, progress=)`` and its
one-direction form ``compose_numeric``, the result ``Numeric``, ``Prebuilt`` /
``Atoms`` for factors a client bounds itself, and ``convolve``, ``Lattice``, the side
names and ``MAX_POINTS`` such a client builds them with; ``compose_prefixes``
(many prefixes of one schedule on one grid, for ``fdp.sgd.trajectory``).
"""

from fdp.engine.convolution import convolve
from fdp.engine.entry import compose, compose_numeric
from fdp.engine.grid import DEFAULT_TOL, QUESTION_TOL
from fdp.engine.lattice import MAX_POINTS, OPTIMISTIC, PESSIMISTIC, GridBudgetExceeded, Lattice
from fdp.engine.numeric import Numeric
from fdp.engine.prebuilt import Atoms, Prebuilt
from fdp.engine.prefixes import compose_prefixes
from fdp.engine.summaries import certified_singular

__all__ = ["DEFAULT_TOL", "MAX_POINTS", "OPTIMISTIC", "PESSIMISTIC", "QUESTION_TOL", "Atoms",
           "GridBudgetExceeded",
           "Lattice", "Numeric", "Prebuilt", "certified_singular", "compose",
           "compose_numeric", "compose_prefixes", "convolve"]
