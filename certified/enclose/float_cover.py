"""The disk cover's test in binary64 rectangles: every softmax row sum away from 0 on many
complex boxes of time at once (Lemma I10, item 3; Lemma I12, items 11–12).

For a box s of σ the test encloses, for every row i,
Σ_k exp(U_ik(σ)), U_ik(σ) = c(σ)·p_i(σ)ᵀB_m(p_k(σ) − p_{l_i}(σ)), σ ∈ s,
with p and the differences p_k − p_l evaluated as Σ_j q_j·σ^j from their exact
coefficients q_j (balls) and the powers of the box (each power encloses σ^j for every
point of the box), the scores' form (B_m, c) = (B, 1) in x and (B, e^{2λ(t0+σ)}) in z
with V = λI, and l_i the column of largest real part of the midpoint's p_iᵀB p_k (c left
out: a choice, any l is valid, Lemma I1). A row passes if (a) Σ_{k≠l_i} e^{sup Re U_ik} < 1
(then the sum is 1 + something of modulus < 1), or (b) its rectangle has a real or an
imaginary part of one strict sign; a box passes if every row does. In z with a matrix V
the scores' form is a matrix exponential of a complex time, and other fields (the open
variants) have other formulas: :func:`supported` answers False and the caller uses Arb.

Shapes: B boxes, K + 1 coefficients, n tokens, d dimensions, N = n·d.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from certified.enclose.arith import float_balls as fb
from certified.enclose.arith import float_rects as fr
from certified.enclose.field import AttentionField

__all__ = ["FloatPoly", "supported", "row_sums_nonzero", "disk", "cover_disk"]

#: Boxes evaluated together (memory: about 4·B·n²·d floats per array).
CHUNK = 512
#: The cover is quartered at most FLOAT_DEPTH times and evaluates at most FLOAT_BOXES
#: boxes for one disk: a sixteenth of the checker's DISK_BOXES and one level less than
#: its DISK_DEPTH, on the same grid. The checker has no saturated-row test (a) below: a
#: row passed by (a) only within rounding of its bound could fail there, which refuses
#: the certificate (safe); none has in the test suite or the benchmarks.
FLOAT_DEPTH, FLOAT_BOXES = 6, 1024


def supported(field) -> bool:
    """True for the single-head field whose scores' form is B or e^{2λt}B (x, or z with
    V = λI)."""
    return isinstance(field, AttentionField) and \
        (field.variable == "x" or field._scalar_V is not None)


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


Box = tuple[Fraction, Fraction, Fraction, Fraction]


def cover_disk(rho: Fraction, test: Callable[[list[Box]], Sequence[bool]], start: int = 4,
               max_depth: int = 5, max_boxes: int | None = None) -> tuple[bool, int]:
    """Cover the closed disk |σ| ≤ ρ by boxes (x0, x1, y0, y1) on which ``test`` holds: a
    start×start grid of the square, failing boxes quartered level by level (``test`` sees
    a whole level at once), boxes whose exact distance to 0 exceeds ρ skipped. Returns
    (proved, boxes tested). Gives up at ``max_depth``, beyond ``max_boxes``, or where at
    least 60% of the first subdivision fails (measured on (8, 3): covers that went on to
    succeed had ≤ 55% failing there; a choice of work, a smaller ρ is then tried)."""
    side = 2 * rho / start
    level = [(-rho + a * side, -rho + (a + 1) * side, -rho + b * side, -rho + (b + 1) * side)
             for a in range(start) for b in range(start)]
    count = 0
    for depth in range(max_depth + 1):
        live = []
        for x0, x1, y0, y1 in level:
            dx = Fraction(0) if x0 <= 0 <= x1 else min(abs(x0), abs(x1))
            dy = Fraction(0) if y0 <= 0 <= y1 else min(abs(y0), abs(y1))
            if dx * dx + dy * dy <= rho * rho:  # exact: else the box misses the disk
                live.append((x0, x1, y0, y1))
        if not live:
            return True, count
        if max_boxes is not None and count + len(live) > max_boxes:
            return False, count
        count += len(live)
        failed = [bx for bx, g in zip(live, test(live)) if not g]
        if failed and (depth == max_depth or (depth == 1 and 5 * len(failed) >= 3 * len(live))):
            return False, count
        level = []
        for x0, x1, y0, y1 in failed:
            xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
            level += [(x0, xm, y0, ym), (xm, x1, y0, ym), (x0, xm, ym, y1), (xm, x1, ym, y1)]
    return True, count


def disk(field, fpoly: FloatPoly, t0: Fraction, rho: Fraction, start: int = 4
         ) -> tuple[bool, int]:
    """The defect step's disk cover with the binary64 test (0.6 ms a box at n = 20,
    against 0.9 in Arb), the same grid and early give-up, and at most FLOAT_BOXES boxes.
    (Without the early give-up the disks were 3–4× larger but h grew little: the jets'
    guard bits and the circle hold it, at t = 2 on the figure setting h = 0.092 at ρ = 1/2
    with 240 guard bits, 0.029 with 112; and a step cost 1.5–2× more,
    ``benchmarks/bench_binary64_pieces.py``.)"""
    return cover_disk(rho, lambda live: row_sums_nonzero(field, fpoly, t0, live), start,
                      FLOAT_DEPTH, FLOAT_BOXES)
