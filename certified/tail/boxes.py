"""Exact boxes shared by the tail lemmas: the rational intervals they check.

A tail lemma never sees a ball: the enclosure at time T is rounded *outward* to a
few decimal digits first (:func:`checkable_box`), so the boxes stored in a
certificate are exactly the boxes that were checked (``proofs_notes/tail.md``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from certified.enclose.arith.base import Backend
from certified.exact.rationals import bounds_to_json
from certified.precision import GUARD_DIGITS

__all__ = ["Box", "GUARD_DIGITS", "checkable_box", "difference_matrix", "round_box"]

#: A closed interval [lo, hi] with exact rational ends.
Box = tuple[Fraction, Fraction]


def round_box(lo: Fraction, hi: Fraction, digits: int) -> Box:
    """[lo, hi] widened to ``digits`` significant decimal digits (outward), as exact
    rationals: the box a certificate stores is the box that was checked."""
    a, b = bounds_to_json(lo, hi, digits)
    return Fraction(a), Fraction(b)




def difference_matrix(bk: Backend, n: int, d: int, leader: list[int]) -> tuple[np.ndarray, list[int]]:
    """The exact matrix M with (M z)_{j,c} = z_{j,c} − z_{leader(j),c} for each follower j,
    shape (#followers·d, n·d), and the list of followers: applied to a Lohner set it
    encloses the follower–leader differences directly (no cancellation of two boxes)."""
    followers = [j for j in range(n) if leader[j] != j]
    M = bk.zeros((len(followers) * d, n * d))
    one = bk.const(Fraction(1))
    for r, j in enumerate(followers):
        for c in range(d):
            M[r * d + c, j * d + c] = one
            M[r * d + c, leader[j] * d + c] = -one
    return M, followers


def checkable_box(bk: Backend, v: object, keep: int) -> tuple[Fraction, Fraction]:
    """The interval v widened by 1/8 of its radius (+ 2^-(4·keep)) and rounded outward to
    ``keep`` significant digits: the box a certificate stores and a tail lemma checks.

    Why the 1/8: an independent checker (:mod:`certified.checker`) replays the steps in
    its own arithmetic and must find its own enclosure inside the stored box; its
    rounding differs from Arb's, so an exact copy of this run's box would leave it no
    room. The widening costs a factor 9/8 on the lemma's input radii, nothing else.
    """
    lo, hi = bk.bounds(v)
    slack = (hi - lo) / 16 + Fraction(1, 2 ** (4 * keep))
    return round_box(lo - slack, hi + slack, keep)
