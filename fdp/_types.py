"""Type aliases shared by the package's annotations (one home; see STYLE.md).

``ArrayLike``
    What the vectorised public calls accept: a Python number, a sequence, or an ndarray.
``FloatArray``
    A float64 ndarray, what the numeric internals pass around.
``FloatOrArray``
    A vectorised read-out's result: a float for a scalar input, else an array of the
    input's shape (``fdp._validate.like_input``).
"""

from __future__ import annotations

from typing import Union

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
FloatArray = npt.NDArray[np.float64]
FloatOrArray = Union[float, FloatArray]

__all__ = ["ArrayLike", "FloatArray", "FloatOrArray"]
