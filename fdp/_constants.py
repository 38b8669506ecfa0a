"""Numeric constants of the package, each with its derivation or source.

Every threshold that changes an answer lives here, so that a reader can check it
once. Module-specific constants that are pure implementation choices (grid sizes
that only trade time for accuracy and are paid for in a certified slack) may stay
with their code, but must say so there.
"""

from __future__ import annotations

import math

import numpy as np

#: Search range of ε for conjugate evaluations: e^{709} is the largest finite
#: double exponential (e^{709.78} overflows), so no supporting line with a larger
#: slope can change a float result of 1 − β(α) − e^ε α.
EPS_SEARCH = 709.0

#: Absolute resolution of a δ computed from evaluated β values: 1 − β(α) near
#: β = 1 carries the rounding of β (an ulp of 1 is 2^-52 ≈ 2.2e-16, and the
#: subtraction doubles it), so smaller δ are not resolved from β alone.
DELTA_RESOLUTION = 2.0 ** -51

#: The smallest positive double (subnormal), 4.9e-324.
TINY = float(np.nextafter(0.0, 1.0))

#: Search range of logit(α) for golden-section searches over α ∈ (0, 1):
#: expit(−745) ≈ 5e-324 is the smallest positive double, and expit(40) rounds to
#: 1 − 4e-18 < 1 − ulp/2, i.e. to 1.0: no double α lies outside the range.
LOGIT_SEARCH = (-745.0, 40.0)

#: The golden-section ratio (√5 − 1)/2 (Kiefer 1953).
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0

#: Largest ε the search for ε(δ) tries before answering inf (the safe answer):
#: 2^40 ≈ 1.1e12, far beyond any ε a trade-off function of this package reaches
#: at a δ that is a positive double.
EPS_CAP = 2.0 ** 40

# --- top ---
#: The package version; ``fdp.__version__`` and ``fdp --version`` read it here. It must
#: equal ``[project] version`` in pyproject.toml (a packaging test compares them).
VERSION = "0.1.0"
