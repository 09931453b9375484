"""Exact rational linear algebra on small dense matrices.

Matrices are tuples of rows of :class:`fractions.Fraction` at the API boundary and
:class:`flint.fmpq_mat` inside (FLINT: exact, multimodular, fast). Nothing here rounds.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from flint import fmpq, fmpq_mat, fmpq_poly, fmpz_poly

__all__ = [
    "Matrix",
    "to_fmpq_mat",
    "fmpq_from_floats",
    "from_fmpq_mat",
    "fmpq_to_fraction",
    "matmul",
    "transpose",
    "identity",
    "first_difference",
    "sym_part",
    "charpoly",
    "Inertia",
    "inertia",
    "positive_definite",
    "quadratic_form",
    "primitive_integer_poly",
]

Matrix = tuple[tuple[Fraction, ...], ...]


def to_fmpq_mat(m: Sequence[Sequence[Fraction]]) -> fmpq_mat:
    """The FLINT copy of a rational matrix given as rows."""
    rows, cols = len(m), len(m[0])
    return fmpq_mat(rows, cols, [fmpq(x.numerator, x.denominator) for row in m for x in row])


def fmpq_from_floats(F: Any) -> fmpq_mat:
    """The exact rational matrix of a 2-D array of floats (each float is a binary
    rational, taken exactly: never rounded)."""
    return to_fmpq_mat([[Fraction(float(v)) for v in row] for row in F])


def fmpq_to_fraction(x: fmpq) -> Fraction:
    """Exact conversion of a FLINT rational."""
    return Fraction(int(x.p), int(x.q))


def from_fmpq_mat(m: fmpq_mat) -> Matrix:
    """Rows of Fractions from a FLINT rational matrix."""
    return tuple(tuple(fmpq_to_fraction(m[i, j]) for j in range(m.ncols()))
                 for i in range(m.nrows()))


def matmul(a: Matrix, b: Matrix) -> Matrix:
    """Exact product ``a @ b``."""
    return from_fmpq_mat(to_fmpq_mat(a) * to_fmpq_mat(b))


def transpose(a: Matrix) -> Matrix:
    return tuple(zip(*a))


def identity(d: int, scale: Fraction = Fraction(1)) -> Matrix:
    """``scale * I_d``."""
    return tuple(tuple(scale if i == j else Fraction(0) for j in range(d)) for i in range(d))


def first_difference(a: Matrix, b: Matrix) -> tuple[int, int] | None:
    """Index of the first entry (row-major) where ``a`` and ``b`` differ, or None."""
    for i, (ra, rb) in enumerate(zip(a, b)):
        for j, (x, y) in enumerate(zip(ra, rb)):
            if x != y:
                return i, j
    return None


def sym_part(a: Matrix) -> Matrix:
    """``(a + aᵀ)/2``."""
    n = len(a)
    return tuple(tuple((a[i][j] + a[j][i]) / 2 for j in range(n)) for i in range(n))


def charpoly(a: Matrix) -> fmpq_poly:
    """``det(x I - a)`` exactly (monic, rational coefficients)."""
    return to_fmpq_mat(a).charpoly()


def primitive_integer_poly(p: fmpq_poly) -> fmpz_poly:
    """The primitive integer polynomial with the roots of ``p`` and positive leading coefficient."""
    z = p.numer()
    content = int(z.content())
    if int(z.leading_coefficient()) < 0:
        content = -content
    return fmpz_poly([int(c) // content for c in z.coeffs()])


class Inertia(tuple):
    """Sylvester inertia ``(positive, zero, negative)`` of a symmetric matrix."""

    __slots__ = ()

    def __new__(cls, positive: int, zero: int, negative: int) -> "Inertia":
        return super().__new__(cls, (positive, zero, negative))

    @property
    def positive(self) -> int:
        return self[0]

    @property
    def zero(self) -> int:
        return self[1]

    @property
    def negative(self) -> int:
        return self[2]

    def as_dict(self) -> dict[str, int]:
        return {"positive": self[0], "zero": self[1], "negative": self[2]}


def _sign_changes(coeffs: Sequence[Fraction | int]) -> int:
    signs = [c > 0 for c in coeffs if c != 0]
    return sum(1 for s, t in zip(signs, signs[1:]) if s != t)


def inertia(s: Matrix) -> Inertia:
    """Exact inertia of a **symmetric** rational matrix.

    Uses Descartes' rule of signs on the characteristic polynomial, which is exact for
    polynomials with only real roots (proof: ``proofs_notes/hypotheses.md``, Lemma H2).

    Raises
    ------
    ValueError
        If ``s`` is not symmetric (the rule would not apply).
    """
    if first_difference(s, transpose(s)) is not None:
        raise ValueError("inertia() needs a symmetric matrix")
    d = len(s)
    c = [fmpq_to_fraction(x) for x in charpoly(s).coeffs()]  # c[0] + c[1] x + ...
    c += [Fraction(0)] * (d + 1 - len(c))
    zero = next(i for i, x in enumerate(c) if x != 0)
    positive = _sign_changes(c)
    negative = _sign_changes([x if i % 2 == 0 else -x for i, x in enumerate(c)])
    if positive + zero + negative != d:  # impossible for a real-rooted polynomial
        raise ArithmeticError("Descartes count inconsistent: charpoly not real-rooted")
    return Inertia(positive, zero, negative)


def positive_definite(s: Sequence[Sequence[Fraction]]) -> bool:
    """A **symmetric** rational matrix is positive definite (exact, by :func:`inertia`)."""
    return inertia(s).positive == len(s)


def quadratic_form(P: Sequence[Sequence[Fraction]], v: Sequence[Fraction]) -> Fraction:
    """vᵀPv, exact."""
    m = len(v)
    return sum((v[i] * P[i][j] * v[j] for i in range(m) for j in range(m)), Fraction(0))
