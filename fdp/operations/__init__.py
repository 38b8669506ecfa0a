"""Operations on trade-off functions: composition, inversion, envelopes, group, subsampling."""

from fdp.operations import group, inverse, subsample, with_delta  # noqa: F401
from fdp.operations.compose import compose
from fdp.operations.envelope import envelope, strongest

__all__ = ["compose", "envelope", "strongest"]
