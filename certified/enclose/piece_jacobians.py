"""The defect step's tubes and their Jacobians, every piece at once, in binary64 balls.

Items 6 of Lemma I10 need, on each of the m pieces [τ_j, τ_{j+1}] of a step, the tube
U_j = p([τ_j, τ_{j+1}]) + [−R, R]^N and an interval matrix 𝒥_j ⊇ DF(U_j, t0 + [τ_j, τ_{j+1}]).
In Arb they cost about 10 ms a piece at n = 20 (Python-level balls), and a late step of
the paper's figure setting has 256 pieces, retried as the wrapping control doubles them.
Here the m tubes are one stacked array and the Jacobians of Lemma I3 one stacked
computation in the binary64 balls of :mod:`certified.enclose.arith.float_balls`
(Lemma I12, items 1–10): every operation returns a ball containing its exact value for
every choice of points in its arguments, so 𝒥_j contains DF at every point of U_j and
every time of the piece. A non-finite entry proves nothing; the caller then takes the Arb
path (:meth:`~certified.enclose.field.AttentionField.jacobian`).

Shapes: m pieces, n tokens, d dimensions, N = n·d. Tubes (m, n, d); Jacobians (m, N, N).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np
from flint import arb, fmpq

from certified.enclose.arith import float_balls as fb

__all__ = ["tubes", "jacobians"]


def _balls(values, shape: tuple) -> fb.FMat:
    """Arb balls (exact or not) as one binary64 ball array of ``shape``."""
    return fb.from_arbs(list(np.asarray(values, dtype=object).flat), shape)


def _q(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def tubes(coeffs: Sequence[np.ndarray], w: Fraction, pieces: int, R: Fraction) -> fb.FMat:
    """U_j = p([j·w, (j + 1)·w]) + [−R, R]^N for j < ``pieces``, shape (m, n, d).

    ``coeffs[k]`` (n, d) are p's exact coefficients (Arb balls of radius 0); p over each
    piece is Horner's scheme on the piece's interval (inclusion isotonicity)."""
    n, d = coeffs[0].shape
    K = len(coeffs) - 1
    P = [_balls(c, (1, n, d)) for c in coeffs]
    lo = np.array([float(w * j) for j in range(pieces)])
    hi = np.array([float(w * (j + 1)) for j in range(pieces)])
    # float(Fraction) is correctly rounded: the neighbouring floats bracket each end
    tau = fb.from_ends(np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)).reshape(pieces, 1, 1)
    acc = P[K]
    for k in range(K - 1, -1, -1):
        acc = fb.add(fb.mul(acc, tau), P[k])
    Rf = np.nextafter(float(R), np.inf)  # ≥ R
    return fb.FMat(acc.m, fb.up(acc.r + Rf, 1))


def _score_forms(field, t0: Fraction, w: Fraction, pieces: int
                 ) -> tuple[fb.FMat, fb.FMat | None]:
    """(Bm, c): the scores are c·z_iᵀBm z_j on every piece's times (c None means 1).
    Bm is (d, d), or (m, 1, d, d) for a matrix V in z (B(t) = e^{tVᵀ}Be^{tV} per piece);
    c is (m, 1, 1) for V = λI in z (e^{2λt}, one Arb exponential per piece)."""
    bk = field.backend
    d = field.d
    times = [bk.interval(t0 + w * j, t0 + w * (j + 1)) for j in range(pieces)]
    Bm, c = field._score_form(times[0])
    if c is None and field.variable == "z" and field._scalar_V is None:
        forms = [field._score_form(t)[0] for t in times]
        return _balls(np.stack(forms), (pieces, 1, d, d)), None
    B = _balls(Bm, (d, d))
    if c is None:
        return B, None
    return B, _balls([field._score_form(t)[1] for t in times], (pieces, 1, 1))


def _leaders(Z: fb.FMat, Bm: fb.FMat, c: fb.FMat | None) -> np.ndarray:
    """For each piece and row, a column of largest midpoint score (m, n): the softmax
    shift, a choice only (Lemma I1). Per piece, since a step may cross a change of
    leader, and a shift by a column far below the row's maximum widens the softmax."""
    Bmid = Bm.m if Bm.m.ndim == 2 else Bm.m[:, 0]
    with np.errstate(all="ignore"):
        s = np.matmul(np.matmul(Z.m, Bmid), Z.m.transpose(0, 2, 1))
        if c is not None:
            s = s * c.m
    return np.argmax(np.nan_to_num(s, nan=-np.inf), axis=2)


def jacobians(field, Z: fb.FMat, t0: Fraction, w: Fraction,
              leaders: Sequence[int] | None = None) -> fb.FMat:
    """𝒥_j ⊇ DF(Z_j, t0 + [j·w, (j + 1)·w]) for the stacked boxes Z (m, n, d), shape
    (m, N, N). Lemma I3's blocks (i, k), with B̃ = c·Bm the scores' form:

        V[P_ik I + P_ik (z_k − z̄_i) z_iᵀB̃ + δ_ik Σ_j P_ij (z_j − z̄_i) z_jᵀB̃ᵀ] − δ_ik V (z),

    where z_k − z̄_i = Σ_j P_ij (z_k − z_j) (Σ_j P_ij = 1: tighter on boxes) and P the
    softmax of the scores shifted by the row's leader l_i (Lemma I1; any l is valid):
    ``leaders`` for every piece, or chosen piece by piece from the midpoints."""
    m, n, d = Z.shape
    N = n * d
    Bm, c = _score_forms(field, t0, w, m)
    V = _balls(field.V, (d, d))
    # Dz[…, j, k] ∋ z_k − z_j, exactly 0 on the diagonal
    Dz = fb.sub(Z[:, None, :, :], Z[:, :, None, :])
    eye_n = np.eye(n, dtype=bool)[None, :, :, None]
    Dz = fb.FMat(np.where(eye_n, 0.0, Dz.m), np.where(eye_n, 0.0, Dz.r))
    if Bm.m.ndim == 2:
        G = fb.matmul(Z, Bm)                     # rows z_iᵀBm, (m, n, d)
        H = fb.matmul(Z, Bm.transpose(1, 0))     # rows z_iᵀBmᵀ
    else:
        G = fb.matmul(Z, Bm[:, 0])
        H = fb.matmul(Z, Bm[:, 0].transpose(0, 2, 1))
    if c is not None:
        G, H = fb.mul(G, c), fb.mul(H, c)
    # U_ik = z_iᵀB̃(z_k − z_{l_i}), P = row softmax (the shift cancels, Lemma I1)
    L = _leaders(Z, Bm, c) if leaders is None else np.tile(np.asarray(leaders), (m, 1))
    U = fb.fsum(fb.mul(G[:, :, None, :], Dz[np.arange(m)[:, None], L]), axis=3)  # (m, n, n)
    E = fb.exp(U)
    P = fb.mul(E, fb.recip_positive(fb.fsum(E, axis=2))[:, :, None])
    # dev[…, i, k] ∋ z_k − z̄_i = Σ_j P_ij (z_k − z_j)
    dev = fb.matmul(P, Dz.reshape(m, n, N)).reshape(m, n, n, d)
    X = fb.mul(P[..., None], dev)                                          # (m, i, k, a)
    blk = fb.mul(X[..., :, None], G[:, :, None, None, :])                   # (m, i, k, a, b)
    diag = fb.matmul(X.transpose(0, 1, 3, 2), H[:, None])                   # (m, i, a, b)
    ia = np.arange(d)
    bm, br = blk.m.copy(), blk.r.copy()
    # + P_ik on the diagonal of every block (one rounded sum each: fb.add's bound)
    sm = fb.add(blk[..., ia, ia], P[..., None])
    bm[..., ia, ia], br[..., ia, ia] = sm.m, sm.r
    kk = np.arange(n)
    dd = fb.add(fb.FMat(bm[:, kk, kk], br[:, kk, kk]), diag)
    if field.variable == "z":
        dd = fb.sub(dd, fb.FMat(np.eye(d), np.zeros((d, d))))
    bm[:, kk, kk], br[:, kk, kk] = dd.m, dd.r
    J = fb.matmul(V, fb.FMat(bm, br))                                        # V·block
    return J.transpose(0, 1, 3, 2, 4).reshape(m, N, N)
