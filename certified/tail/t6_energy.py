"""Lemma T6 (energy bound): V = −μI with μ > 0, B symmetric positive definite.

:func:`norm_bound_contracting` verifies, on exact boxes of the tokens at a time T,
the hypotheses of Lemma T6 of ``proofs_notes/tail.md`` and returns a bound on
sup_{t ≥ T} max_i x_iᵀBx_i and its exponential approach to log n. Nothing here
integrates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from certified.enclose.arith.base import Backend
from certified.exact.rationals import bounds_to_json, fraction_to_str
from certified.tail.boxes import Box
from certified.tail.protocol import LemmaPicture

__all__ = ["NormBound", "norm_bound_contracting"]


@dataclass(frozen=True)
class NormBound:
    """Lemma T6: for t ≥ T and every i, q_i(t) = x_i(t)ᵀBx_i(t) satisfies
    q_i(t) ≤ log n + (q_i(T) − log n)⁺ e^{−2μ(t−T)}; hence sup_{t≥T} max_i q_i ≤ qmax.

    Attributes
    ----------
    T, mu : Fraction
    q_at_T : list of Fraction
        Upper bounds of q_i(T).
    log_n : Fraction
        An upper bound of log n.
    qmax : Fraction
        max(max_i q_at_T, log_n).
    """

    T: Fraction
    mu: Fraction
    q_at_T: list[Fraction]
    log_n: Fraction

    lemma = "T6"

    def picture(self) -> LemmaPicture:
        """Nothing to draw: the lemma bounds a norm, it proves no limit."""
        return LemmaPicture()

    @property
    def qmax(self) -> Fraction:
        return max(max(self.q_at_T), self.log_n)

    def to_json(self, digits: int) -> dict:
        return {
            "lemma": "T6 (energy bound, V = −μI, B symmetric positive definite)",
            "T": fraction_to_str(self.T),
            "mu": fraction_to_str(self.mu),
            "q_at_T_upper": [bounds_to_json(Fraction(0), q, digits)[1] for q in self.q_at_T],
            "log_n_upper": bounds_to_json(Fraction(0), self.log_n, digits)[1],
            "sup_q_upper": bounds_to_json(Fraction(0), self.qmax, digits)[1],
        }


def _log_upper(bk: Backend, n: int) -> Fraction:
    """A rational L ≥ log n, verified rigorously by exp(L) ≥ n in interval arithmetic."""
    if n <= 1:
        return Fraction(0)
    L = Fraction(math.ceil(math.log(n) * 2 ** 40) + 1, 2 ** 40)  # a float guess, then proved
    while bk.bounds(bk.exp(bk.const(L)))[0] < n:
        L += Fraction(1, 2 ** 40)
    return L


def norm_bound_contracting(bk: Backend, mu: Fraction, B: Sequence[Sequence[Fraction]],
                           T: Fraction, boxes: Sequence[Sequence[Box]]) -> NormBound:
    """Lemma T6 on x-boxes at time T (B must be symmetric positive definite; the caller
    decides that exactly)."""
    n = len(boxes)
    Bm = np.array([[bk.const(x) for x in row] for row in B], dtype=object)
    q = []
    for row in boxes:
        x = np.array([bk.interval(lo, hi) for lo, hi in row], dtype=object)
        val = bk.matmul(bk.matmul(x.reshape(1, -1), Bm), x.reshape(-1, 1))[0, 0]
        q.append(bk.bounds(val)[1])
    log_n = _log_upper(bk, n)
    return NormBound(T, mu, q, log_n)
