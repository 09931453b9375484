"""A quadratic norm on G in which V_G grows at a rate ν anywhere above its spectral radius
(Lemma T8's G-growth, ``proofs_notes/tail.md``, "A quadratic norm on G").

Lemma T8 bounds the G-parts y_i of the tokens by N(y_i(t)) ≤ Y e^{ν(t−T)}, for any norm N
on G with N(V_G y) ≤ ν N(y). In a basis of G and the max-norm, ν is at least
‖T⁻¹V_GT‖∞; for a complex pair a ± ib that is |a| + |b| in every real basis, which can
exceed λ while the pair's modulus (a² + b²)^{1/2} is below it (Theorem 5.2 only asks
ρ(V_G) < λ). The norm here closes that gap for every V_G with ρ(V_G) < λ:

    N(y) = (yᵀ P y)^{1/2},  P symmetric rational,  P − I ≻ 0,  ν²P − V_GᵀPV_G ≻ 0.

The second condition is N(V_G y) ≤ ν N(y); the first gives N(y) ≥ |y|₂ ≥ |y|∞, so every
bilinear bound of Lemma T8 stated with |·|∞ (g = Σ|B'_GG|, h_FG, h_GF) holds with N.
P comes from the Stein equation P − AᵀPA = I with A = V_G/ν, whose solution
Σ_k (Aᵀ)^k A^k is positive definite when ρ(A) < 1 and satisfies ν²P − V_GᵀPV_G = ν²I. It
is solved in floats, rounded to rationals, rescaled, and both conditions are then decided
exactly (the checker decides them again); a failed decision means no norm is offered.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from certified.exact.linalg import matmul, positive_definite, quadratic_form, transpose
from certified.exact.rationals import decimal_ceil, sqrt_up

__all__ = ["MAX_G_DIM", "stein_metric", "metric_bound"]

Matrix = list[list[Fraction]]

#: Largest dim G for which the quadratic norm is offered: N's bound on a box is the
#: maximum of yᵀPy over its 2^dim G vertices (exact rationals, by convexity).
MAX_G_DIM = 8


def _dyadic(x: float, bits: int) -> Fraction:
    """x rounded to a multiple of 2^−bits (exact)."""
    return Fraction(round(x * 2 ** bits), 2 ** bits)


def stein_metric(VG: Matrix, lam: Fraction) -> tuple[Matrix, Fraction] | None:
    """A rational P and ν with P − I ≻ 0, ν²P − V_GᵀPV_G ≻ 0 (both decided exactly) and
    ν ≤ λ/2 when ρ(V_G) < λ/2, else ν ≤ λ; None when ρ(V_G) ≥ λ (in floats), dim G is
    0, 1 or above :data:`MAX_G_DIM`, or the rounded P fails the exact decision.

    Parameters
    ----------
    VG : m×m exact matrix
        V restricted to G in the basis of G used by the splitting.
    lam : Fraction
        λ > 0, V|_F = λ Id.

    Returns
    -------
    (P, ν) : (m×m exact symmetric matrix, Fraction) or None
    """
    m = len(VG)
    if not 2 <= m <= MAX_G_DIM:
        return None
    A = np.array([[float(x) for x in row] for row in VG])
    rho = float(max(abs(np.linalg.eigvals(A))))
    lam_f = float(lam)
    if not rho < lam_f * (1 - 2 ** -20):
        return None
    # ν halfway between ρ and the target, as a short dyadic: the plain margin reduction
    # (2ν ≤ λ) when the spectrum allows it, else the combined margin (ν ≤ λ)
    target = lam / 2 if rho < lam_f / 2 * (1 - 2 ** -10) else lam
    nu = min(target, Fraction(int((rho + float(target)) / 2 * 2 ** 16) + 1, 2 ** 16))
    An = A / float(nu)
    # P − AₙᵀPAₙ = I, i.e. (I − Aₙᵀ ⊗ Aₙᵀ) vec P = vec I (row-major vec)
    try:
        p = np.linalg.solve(np.eye(m * m) - np.kron(An.T, An.T), np.eye(m).ravel())
    except np.linalg.LinAlgError:
        return None
    Pf = p.reshape(m, m)
    Pf = (Pf + Pf.T) / 2
    low = float(min(np.linalg.eigvalsh(Pf)))
    if not low > 0 or not np.isfinite(Pf).all():
        return None
    Pf = Pf / low * (1 + 2 ** -10)  # λ_min just above 1: P − I ≻ 0 with a little room
    bits = 40 - int(np.ceil(np.log2(max(1.0, float(abs(Pf).max())))))
    P = [[_dyadic(Pf[min(i, j), max(i, j)], bits) for j in range(m)] for i in range(m)]
    VPV = matmul(transpose(VG), matmul(P, VG))
    if not positive_definite([[P[i][j] - int(i == j) for j in range(m)] for i in range(m)]):
        return None
    if not positive_definite([[nu * nu * P[i][j] - VPV[i][j] for j in range(m)]
                               for i in range(m)]):
        return None
    return P, nu


def metric_bound(P: Matrix | None, box: list[tuple[Fraction, Fraction]]) -> Fraction:
    """An upper bound of the norm on G over a box of G-coordinates: max |endpoint| for
    the max-norm (``P`` None), else ≥ max (yᵀPy)^{1/2} over the box — yᵀPy is convex, so
    its maximum over the box is at a vertex, evaluated exactly (2^m vertices) — rounded
    up to 20 significant digits (so at least the checker's own bound, ``sqrt_up``'s)."""
    if P is None:
        return max((max(abs(lo), abs(hi)) for lo, hi in box), default=Fraction(0))
    best = max(quadratic_form(P, v) for v in itertools.product(*box))
    return Fraction(decimal_ceil(sqrt_up(best), 20))
