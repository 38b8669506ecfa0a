"""The certified numeric composition engine.

Pipeline: ``discretise`` each factor's privacy-loss law on the lattice ΔZ twice,
pessimistically (a mean-preserving spread of the likelihood ratio, Doroshenko et al.
2022) and optimistically (a contraction) → ``convolve`` (FFT, with an a posteriori
bound on its round-off) → read back β(α), δ(ε), ε(δ) from the two lattices
(``Numeric``). The increasing convex order of the likelihood ratio is preserved by
composition and orders δ, hence f (DRS Prop 2.12), so the two sides bracket the truth.
The proof, the floating-point accounting, small δ by tilting, the grid regimes and the
threading: docs/derivations/engine.md.

The modules, one job each, and the public names (``compose`` first): the same page.
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
