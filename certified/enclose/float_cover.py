"""The disk cover's test in binary64 rectangles: every softmax row sum away from 0 on many
complex boxes of time at once (Lemma I10, item 3; Lemma I12, items 11–12).

For a box s of σ the test encloses, for every row i,
Σ_k exp(U_ik(σ)), U_ik(σ) = c(σ)·p_i(σ)ᵀB_m(p_k(σ) − p_{l_i}(σ)), σ ∈ s,
with p and the differences p_k − p_l evaluated as Σ_j q_j·σ^j from their exact
coefficients q_j (balls) and the powers of the box (each power encloses σ^j for every
point of the box), the scores' form (B_m, c) = (B, 1) in x and (B, e^{2λ(t0+σ)}) in z
with V = λI, and l_i the column of largest real midpoint score on the box (a choice:
any l is valid, Lemma I1). The box passes if every row sum's rectangle has a real or an
imaginary part of one strict sign. In z with a matrix V the scores' form is a matrix
exponential of a complex time: :func:`supported` answers False and the caller uses Arb.

Shapes: B boxes, K + 1 coefficients, n tokens, d dimensions, N = n·d.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from certified.enclose.arith import float_balls as fb
from certified.enclose.arith import float_rects as fr

__all__ = ["FloatPoly", "supported", "row_sums_nonzero"]

#: Boxes evaluated together (memory: about 4·B·n²·d floats per array).
CHUNK = 512


def supported(field) -> bool:
    """True where the scores' form is B or e^{2λt}B (x, or z with V = λI)."""
    return field.variable == "x" or field._scalar_V is not None


class FloatPoly:
    """The exact polynomial p (coefficients ``coeffs[k]``, (n, d) Arb balls of radius 0)
    as binary64 balls: P (K + 1, N), and the coefficients of every difference p_k − p_l,
    Q (K + 1, n·n·d) ordered (l, k, e), their exact differences enclosed by item 3."""

    def __init__(self, coeffs: Sequence[np.ndarray]) -> None:
        n, d = coeffs[0].shape
        K1 = len(coeffs)
        self.n, self.d, self.K = n, d, K1 - 1
        self.P = fb.from_arbs([x for c in coeffs for x in c.flat], (K1, n * d))
        P3 = self.P.reshape(K1, n, d)
        Q = fb.sub(P3[:, None, :, :], P3[:, :, None, :])       # Q[j, l, k] ∋ q_jk − q_jl
        same = np.eye(n, dtype=bool)[None, :, :, None]          # p_l − p_l ≡ 0 exactly
        Q = fb.FMat(np.where(same, 0.0, Q.m), np.where(same, 0.0, Q.r))
        self.Q = Q.reshape(K1, n * n * d)

    def powers(self, s: fr.FRect) -> fr.FRect:
        """(B, K + 1): s^j for every box, by repeated products."""
        B = s.shape[0]
        ms = [np.ones(B)], [np.zeros(B)], [np.zeros(B)], [np.zeros(B)]
        w = fr.real(fb.FMat(np.ones(B), np.zeros(B)))
        for _ in range(self.K):
            w = fr.mul(w, s)
            for lst, arr in zip(ms, (w.re.m, w.re.r, w.im.m, w.im.r)):
                lst.append(arr)
        st = [np.stack(x, axis=1) for x in ms]
        return fr.FRect(fb.FMat(st[0], st[1]), fb.FMat(st[2], st[3]))


def _boxes(boxes: Sequence[tuple[Fraction, Fraction, Fraction, Fraction]], shift: Fraction
           ) -> fr.FRect:
    """The rectangles [x0 + shift, x1 + shift] + i[y0, y1] (float(Fraction) is correctly
    rounded: the neighbouring floats bracket each end)."""
    def side(lo, hi):
        return fb.from_ends(np.nextafter(np.array([float(v) for v in lo]), -np.inf),
                            np.nextafter(np.array([float(v) for v in hi]), np.inf))
    return fr.FRect(side([b[0] + shift for b in boxes], [b[1] + shift for b in boxes]),
                    side([b[2] for b in boxes], [b[3] for b in boxes]))


def row_sums_nonzero(field, poly: FloatPoly, t0: Fraction,
                     boxes: Sequence[tuple[Fraction, Fraction, Fraction, Fraction]]
                     ) -> np.ndarray:
    """For each box (x0, x1, y0, y1) of σ: True if every softmax row sum is proved
    non-zero for every σ in it (at time t0 + σ). Shape (B,)."""
    out = [_chunk(field, poly, t0, boxes[a:a + CHUNK]) for a in range(0, len(boxes), CHUNK)]
    return np.concatenate(out) if out else np.zeros(0, dtype=bool)


def _chunk(field, poly: FloatPoly, t0: Fraction, boxes) -> np.ndarray:
    n, d = poly.n, poly.d
    B = len(boxes)
    s = _boxes(boxes, Fraction(0))
    pw = poly.powers(s)                                         # (B, K + 1)
    Z = fr.matmul_real(pw, poly.P).reshape(B, n, d)
    D = fr.matmul_real(pw, poly.Q).reshape(B, n, n, d)         # D[b, l, k] ∋ p_k − p_l
    Bm = fb.from_arbs(list(field.B.flat), (d, d))
    G = fr.matmul_real(Z, Bm)                                   # rows p_iᵀB
    with np.errstate(all="ignore"):
        mid = G.re.m @ Z.re.m.transpose(0, 2, 1) - G.im.m @ Z.im.m.transpose(0, 2, 1)
        lead = np.argmax(np.nan_to_num(mid, nan=-np.inf), axis=2)   # (B, n)
        Dl = D[np.arange(B)[:, None], lead]                     # (B, i, k, d)
        U = fr.fsum(fr.mul(G[:, :, None, :], Dl), axis=3)       # (B, n, n)
        if field.variable == "z":
            lam = fb.interval(Fraction(2 * field._scalar_V), Fraction(2 * field._scalar_V))
            t = _boxes(boxes, t0)
            c = fr.exp(fr.FRect(fb.mul(t.re, lam), fb.mul(t.im, lam)))
            U = fr.mul(U, c[:, None, None])
        # The leader's term is e^0 = 1 exactly (p_l − p_l ≡ 0). If the others have
        # Σ_{k≠l} e^{sup Re U_ik} < 1, the row sum lies in the open disk of radius 1
        # about 1 and is not 0: no cosines needed (most rows once the attention saturates).
        others = np.arange(n)[None, None, :] != lead[:, :, None]
        hi = fb._exp_points(fb.ends(U.re)[1])[1]
        tail = fb.up(np.where(others, hi, 0.0).sum(axis=2), n + 3)
        row_ok = tail < 1.0                                       # (B, n); NaN fails
        b, i = np.nonzero(~row_ok)
        if b.size:  # the full test on the other rows only
            S = fr.fsum(fr.exp(U[b, i]), axis=1)                 # (R,)
            row_ok[b, i] = fr.excludes_zero(S)
        return np.all(row_ok, axis=1)
