"""The version of fdp (one home: the package metadata in pyproject.toml must agree)."""

__version__ = "0.1.0"
