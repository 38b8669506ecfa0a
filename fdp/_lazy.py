"""A module handle that imports its module on first attribute access.

``import fdp`` stays free of scipy.stats and mpmath (``tests/test_import_cost.py``)
while every import stays at the top of its module: a module that needs one of them
for a rarely used path declares ``mpmath = LazyModule("mpmath")`` next to its imports.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name``; imported on the first attribute read.

    >>> math = LazyModule("math")
    >>> math.sqrt(4.0)
    2.0
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        # introspection (doctest's and inspect's ``__wrapped__``, pickle's hooks) asks
        # for dunder names: answer without importing, so a missing optional peer is
        # reached only by the code that uses it
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"LazyModule({self._name!r})"
