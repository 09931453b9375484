"""Hypothesis strategies for instances inside and outside each theorem's hypotheses.

The public façade of :mod:`certified.studies.strategies`: import from here.
"""

from certified.studies.strategies import (
    THEOREMS,
    VIOLATIONS,
    inside,
    rationals,
    tokens,
    violating,
)

__all__ = ["THEOREMS", "VIOLATIONS", "inside", "violating", "tokens", "rationals"]
