"""Set representations for validated integration: the Lohner set.

Enclosure contract (the one every rigorous result of the integrator rests on)
------------------------------------------------------------------------------
A :class:`LohnerSet` ``(c, A, r)`` at time t *encloses* the solution if, for every
initial condition in the initial set, the exact state y(t) ∈ R^N can be written
y(t) = c + A·ρ for some ρ ∈ r. Here c is a vector of exact points, A an N×N matrix of
exact points (near-orthogonal), and r a vector of intervals. Consequently
:meth:`LohnerSet.box` — c + A·r evaluated in interval arithmetic — is a box that
contains y(t). The contract is proved step by step in ``proofs_notes/integrator.md``
(Lemmas I6 and I7); functions that return a LohnerSet say which lemma makes it true.

Why this representation: a box (interval vector) is mapped by the flow to a rotated,
sheared parallelepiped, and re-boxing it every step multiplies widths by a constant >1
per step (the wrapping effect; naive boxes lost every digit by t ≈ 3.6 on two tokens).
Keeping the linear part A (re-orthogonalized by QR) carries the parallelepiped exactly,
and only the small nonlinear error is boxed.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from certified.enclose.arith.base import Backend

__all__ = ["LohnerSet"]


@dataclass(frozen=True)
class LohnerSet:
    """``{c + A·ρ : ρ ∈ r}`` (see the module's enclosure contract).

    Attributes
    ----------
    c : object array, shape (N,)
        Exact points (centre).
    A : object array, shape (N, N)
        Exact points (a near-orthogonal basis).
    r : object array, shape (N,)
        Intervals (coordinates of the error in the basis A).
    """

    c: np.ndarray
    A: np.ndarray
    r: np.ndarray

    @classmethod
    def from_exact(cls, values: Sequence[Fraction], backend: Backend) -> "LohnerSet":
        """The singleton of an exact rational state (rounding goes into r)."""
        enc = backend.array(list(values))
        c = backend.mid_array(enc)
        return cls(c, backend.identity(len(values)), enc - c)

    @classmethod
    def from_box(cls, box: np.ndarray, backend: Backend) -> "LohnerSet":
        """A set containing every point of an interval vector."""
        c = backend.mid_array(box)
        return cls(c, backend.identity(len(box)), box - c)

    def box(self, backend: Backend) -> np.ndarray:
        """An interval vector containing the set (shape (N,))."""
        return self.c + backend.matmul(self.A, self.r.reshape(-1, 1)).reshape(-1)

    def box_with_centre(self, backend: Backend) -> np.ndarray:
        """A box containing the set *and* its centre c: c + A·hull(r, 0), shape (N,).

        A Taylor step expands at c and needs the a-priori enclosure and the mean-value
        segments [c, y0] inside one convex box (Lemma I7); r contains 0 by construction
        here, but the hull makes that hypothesis explicit rather than inductive.
        """
        zero = backend.const(Fraction(0))
        r0 = np.array([backend.hull(x, zero) for x in self.r], dtype=object)
        return self.c + backend.matmul(self.A, r0.reshape(-1, 1)).reshape(-1)

    def linear_image(self, M: np.ndarray, backend: Backend) -> np.ndarray:
        """A box containing {M y : y in the set} for every M in the interval matrix M.

        Computed as M·c + (M·A)·r, which avoids re-wrapping the parallelepiped.
        """
        mc = backend.matmul(M, self.c.reshape(-1, 1)).reshape(-1)
        return mc + backend.matmul(backend.matmul(M, self.A), self.r.reshape(-1, 1)).reshape(-1)

    def max_radius(self, backend: Backend) -> Fraction:
        """Largest radius of the box coordinates."""
        return backend.max_rad(self.box(backend))
