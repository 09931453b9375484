"""Certified geometry of limit configurations: hull vertices and the origin.

A point c_k is a vertex of conv{c_1, …, c_K} if some linear functional a satisfies
a·c_k > a·c_j for every j ≠ k (an exposed vertex; for finitely many points every vertex
is exposed). We look for a in floating point (a perceptron on the midpoints), then prove
the strict inequalities on the *boxes*: min over the boxes of a·(c_k − c_j) > 0 in exact
rational arithmetic (a is rational, so the minimum of a linear form over a box is
attained at a corner and is computed exactly). Lemma G1 of ``proofs_notes/tail.md``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from certified.logic import Truth

__all__ = ["is_hull_vertex", "excludes_origin", "linear_form_min"]

Box = tuple[Fraction, Fraction]


def linear_form_min(a: Sequence[Fraction], box: Sequence[Box]) -> Fraction:
    """Exact min over the box of a·x (attained at the corner chosen by the signs of a)."""
    return sum((ai * (lo if ai >= 0 else hi) for ai, (lo, hi) in zip(a, box)), Fraction(0))


def _separates(a: Sequence[Fraction], k: int, boxes: Sequence[Sequence[Box]]) -> bool:
    # min over c_k ∈ box_k of a·c_k  >  max over c_j ∈ box_j of a·c_j, for every j ≠ k
    lo_k = linear_form_min(a, boxes[k])
    neg = [-x for x in a]
    return all(lo_k > -linear_form_min(neg, boxes[j]) for j in range(len(boxes)) if j != k)


def is_hull_vertex(k: int, boxes: Sequence[Sequence[Box]],
                   hint: Sequence[Fraction] | None = None) -> "bool | Truth":
    """Whether every choice of points in the boxes makes c_k a vertex of their hull.

    Returns True when a separating functional is found and verified exactly; otherwise
    ``Truth.UNDECIDED`` (a search failure is not a proof that c_k is not a vertex).
    ``hint`` is a functional to try first (e.g. Bᵀc_k from Lemma T4).
    """
    return True if exposing_functional(k, boxes, hint) is not None else Truth.UNDECIDED


def exposing_functional(k: int, boxes: Sequence[Sequence[Box]],
                        hint: Sequence[Fraction] | None = None) -> list[Fraction] | None:
    """A rational a with min over box k of a·x > max over every other box (Lemma G1),
    verified exactly, or None when the search finds none. With one box: a = 0."""
    K = len(boxes)
    if K == 1:
        return [Fraction(0)] * len(boxes[0])
    mids = np.array([[float((lo + hi) / 2) for lo, hi in b] for b in boxes])
    candidates = []
    if hint is not None:
        candidates.append(np.array([float(x) for x in hint]))
    others = np.delete(mids, k, axis=0)
    a = mids[k] - others.mean(axis=0)
    for _ in range(200):  # perceptron: a += c_k − c_j for the worst violated j
        candidates.append(a.copy())
        gaps = (mids[k] - others) @ a
        j = int(np.argmin(gaps))
        if gaps[j] > 0:
            break
        a = a + (mids[k] - others[j]) / max(np.linalg.norm(mids[k] - others[j]), 1e-300)
    for cand in candidates:
        if not np.all(np.isfinite(cand)) or not np.any(cand):
            continue
        q = [Fraction(float(x)).limit_denominator(2 ** 40) for x in cand / np.abs(cand).max()]
        if _separates(q, k, boxes):
            return q
    return None


def excludes_origin(box: Sequence[Box]) -> bool:
    """True when the box provably does not contain 0 (some coordinate excludes 0)."""
    return any(lo > 0 or hi < 0 for lo, hi in box)
