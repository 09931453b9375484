"""Hypothesis strategies for instances inside and outside each theorem's hypotheses.

The public façade of :mod:`certified.studies.strategies`: import from here.
"""

from certified.studies.strategies import (
    STEP_SIZES,
    THEOREMS,
    VIOLATIONS,
    discrete,
    discrete_split,
    inside,
    rationals,
    tokens,
    violating,
)

__all__ = ["STEP_SIZES", "THEOREMS", "VIOLATIONS", "discrete", "discrete_split", "inside",
           "violating", "tokens", "rationals"]
