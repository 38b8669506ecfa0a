"""Type aliases shared by the package's annotations (one home; see STYLE.md).

Derivation: docs/derivations/core.md.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
FloatArray = npt.NDArray[np.float64]
FloatOrArray = float | FloatArray
Seed = int | np.random.SeedSequence | np.random.Generator | None

__all__ = ["ArrayLike", "FloatArray", "FloatOrArray", "Seed"]
