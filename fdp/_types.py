"""Type aliases shared by the package's annotations (one home; see STYLE.md).

``ArrayLike``
    What the vectorised public calls accept: a Python number, a sequence, or an ndarray.
``FloatArray``
    A float64 ndarray, what the numeric internals pass around.
``FloatOrArray``
    A vectorised read-out's result: a float for a scalar input, else an array of the
    input's shape (``fdp._validate.like_input``).
``Seed``
    What an ``rng=`` argument accepts (``fdp._validate.generator``): None (fresh OS
    entropy), an int seed, a SeedSequence or a Generator.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
FloatArray = npt.NDArray[np.float64]
FloatOrArray = float | FloatArray
Seed = int | np.random.SeedSequence | np.random.Generator | None

__all__ = ["ArrayLike", "FloatArray", "FloatOrArray", "Seed"]
