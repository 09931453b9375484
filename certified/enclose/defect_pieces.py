"""The real-axis part of a defect step: the pieces' bootstrap and linear part.

Items 6–8 of Lemma I10 (``proofs_notes/integrator.md``): on m pieces of [0, h], the tubes
p([τ_j, τ_{j+1}]) + [−R, R], interval Jacobians 𝒥_j of the field on them, their
logarithmic norms μ_j, the Gronwall bootstrap e_j (the centre's error) and g_j (the set's
spread) with e_j + g_j < R, and the product S of the pieces' flow Jacobians (Lemma I8).
All pieces at once in binary64 balls (:mod:`certified.enclose.piece_jacobians`, Lemma
I12), or piece by piece in Arb where a binary64 Jacobian is not finite. Also the small
exact-arithmetic helpers the defect step shares with it, and its rejection type.
"""

from __future__ import annotations

import math
import time as _time
from fractions import Fraction

import numpy as np
from flint import arb, fmpq

from certified.enclose import piece_jacobians as pj
from certified.enclose.arith import float_balls as fb
from certified.enclose.stepper import StepRejected
from certified.exact.arb_convert import arb_bounds

__all__ = ["DefectRejected", "pieces"]


class DefectRejected(StepRejected):
    """The defect step could not be validated (the caller may fall back to Lemma I6)."""


def _tick(stats: dict, key: str, since: float) -> None:
    stats[key] = stats.get(key, 0.0) + (_time.perf_counter() - since)


def _q(x: Fraction) -> arb:
    return arb(fmpq(x.numerator, x.denominator))


def _up(x: arb) -> Fraction:
    """A rigorous upper bound of a real ball (raises on non-finite)."""
    if not x.is_finite():
        raise DefectRejected("non-finite bound", t=None, h=None, box=None)
    return arb_bounds(x)[1]


def _round_up(x: Fraction, bits: int = 64) -> Fraction:
    """A dyadic ≥ x with about ``bits`` significant bits (keeps Fractions small)."""
    if x <= 0:
        return Fraction(0)
    e = math.floor(math.log2(x.numerator) - math.log2(x.denominator)) - bits
    s = Fraction(2) ** e
    return math.ceil(x / s) * s


def _mu_and_norm(K: fb.FMat) -> tuple[Fraction, Fraction]:
    """Upper bounds of μ∞ (max_i sup K_ii + Σ_{j≠i} sup|K_ij|) and ‖K‖∞ over the interval
    matrix K (both convex in the matrix, so they bound every point matrix of K), from
    binary64 end points rounded up (Lemma I12)."""
    N = K.m.shape[-1]
    mu = _mu_many(K)
    nrms = fb.up(fb.up(np.abs(K.m) + K.r, 1).sum(axis=-1), N + 3)
    if not (np.isfinite(mu) and np.all(np.isfinite(nrms))):
        raise DefectRejected("non-finite bound", t=None, h=None, box=None)
    return Fraction(float(mu)), Fraction(float(nrms.max()))


def _mu_many(K: fb.FMat) -> np.ndarray:
    """Floats ≥ μ∞ of every matrix of a stack K (…, N, N), shape (…) (Lemma I12, item 6)."""
    N = K.m.shape[-1]
    mag = fb.up(np.abs(K.m) + K.r, 1)                 # ≥ sup |K_ij|
    diag_hi = np.nextafter(np.diagonal(K.m, axis1=-2, axis2=-1)
                           + np.diagonal(K.r, axis1=-2, axis2=-1), np.inf)  # ≥ sup K_ii
    # Σ_{j≠i} |K_ij| as a sum of nonnegative terms (the diagonal zeroed, not subtracted)
    off = fb.up(np.where(np.eye(N, dtype=bool), 0.0, mag).sum(axis=-1), N + 3)
    return np.nextafter(diag_hi + off, np.inf).max(axis=-1)  # one rounding: the float above


def _variational_many(K: fb.FMat, w: Fraction, iterations: int = 8) -> fb.FMat | None:
    """Lemma I8 on each piece of length w of a stack K (m, N, N), K_j ⊇ DF(tube piece j):
    S_j ∋ DΦ over the piece, shape (m, N, N); None if some piece has no fixed point.

    The fixed point of :func:`~certified.enclose.stepper.flow_jacobian_box` (find J with
    I + [0, w]·K·J ⊆ J, then S = I + w·K·J) in binary64 balls (Lemma I12): S multiplies
    the set's r ≈ 10⁻³⁰, a few digits suffice; Arb at 64 bits took ~11 ms a 40×40 piece.
    Each piece's J is frozen at the first iterate that passes its own test, and the others
    are widened by a quarter, as flow_jacobian_box."""
    N = K.m.shape[-1]
    I = fb.identity(N)
    hK = fb.scale(K, fb.interval(Fraction(0), w))
    J = fb.add(I, hK)
    done = np.zeros(K.m.shape[0], dtype=bool)
    for _ in range(iterations):
        nxt = fb.add(I, fb.matmul(hK, J))
        done |= fb.contains(J, nxt, axis=(-2, -1))
        if done.all():
            return fb.add(I, fb.matmul(fb.scale(K, fb.interval(w, w)), J))
        wid = fb.hull_widened(J, nxt)
        keep = done[:, None, None]
        J = fb.FMat(np.where(keep, J.m, wid.m), np.where(keep, J.r, wid.r))
    return None


def _exp_up(x: Fraction) -> Fraction:
    return _up(_q(x).exp())


def _variational_piece(K: fb.FMat, w: Fraction, iterations: int = 8) -> fb.FMat | None:
    """Lemma I8 on one piece of length w with K ⊇ DF(tube piece): S ∋ DΦ over the piece
    (:func:`_variational_many` for a stack of one)."""
    S = _variational_many(K.reshape((1,) + K.shape), w, iterations)
    return None if S is None else S[0]


def _bootstrap(e: Fraction, g: Fraction, mu: Fraction, Delta: Fraction, w: Fraction
               ) -> tuple[Fraction, Fraction]:
    """Item 7 of Lemma I10 on one piece: e ← (e + Δ·w)·e^{μ⁺w}, g ← g·e^{μ⁺w}, rounded up
    to 64-bit dyadics (Δ ≥ the defect on the piece, μ ≥ μ∞ of its Jacobian)."""
    grow = _exp_up(_round_up(max(mu, Fraction(0)) * w))  # ≥ e^{μ⁺w}
    return _round_up((e + Delta * w) * grow), _round_up(g * grow)


def pieces(field, t0, h, w, pieces, db, R, r0, coeffs, stats, linear, binary64=True):
    """The real-axis bootstrap of Lemma I10 (step 4) and the product of the pieces'
    variational enclosures (step 5). Returns (E, G, S, tube hull) or a reason string.
    ``db`` is the step's :class:`~certified.enclose.defect_step.DefectBound`.

    Every piece at once in binary64 balls (:mod:`certified.enclose.piece_jacobians`),
    or, if any piece's binary64 Jacobian is not finite (scores beyond binary64's exponent
    range) or with ``binary64=False``, every piece in Arb, one by one."""
    if binary64:
        out = _pieces_float(field, t0, w, pieces, db, R, r0, coeffs, stats, linear)
        if out is not None:
            return out
    return _pieces_arb(field, t0, h, w, pieces, db, R, r0, coeffs, stats, linear)


def _pieces_float(field, t0, w, pieces, db, R, r0, coeffs, stats, linear):
    """:func:`_pieces` in binary64 balls, all pieces at once; None where a tube's
    Jacobian is not finite (the Arb path decides then)."""
    bk = field.backend
    N = field.n * field.d
    clock = _time.perf_counter()
    tb = pj.tubes(coeffs, w, pieces, R)
    Jac = pj.jacobians(field, tb, t0, w)  # leaders piece by piece (a choice)
    mus = _mu_many(Jac)
    if not (fb.is_finite(Jac) and np.all(np.isfinite(mus))):
        _tick(stats, "t_tube", clock)
        return None
    Deltas = db.bounds([w * (j + 1) for j in range(pieces)])  # Δ is increasing in τ
    if not np.all(np.isfinite(Deltas)):
        return "bootstrap"
    e, g = Fraction(0), r0
    for j in range(pieces):
        e, g = _bootstrap(e, g, Fraction(float(mus[j])), Fraction(float(Deltas[j])), w)
        if not e + g < R:
            _tick(stats, "t_tube", clock)
            return "bootstrap"
    lo, hi = fb.ends(tb.reshape(pieces, N))
    hull = np.array([bk.interval(Fraction(float(a)), Fraction(float(b)))
                     for a, b in zip(lo.min(axis=0), hi.max(axis=0))], dtype=object)
    _tick(stats, "t_tube", clock)
    if not linear:
        return e, g, None, hull
    clock = _time.perf_counter()
    Sj = _variational_many(Jac, w)
    if Sj is None:
        return "variational"
    S_tot = Sj[0]
    for j in range(1, pieces):
        S_tot = fb.matmul(Sj[j], S_tot)
    _tick(stats, "t_var", clock)
    if not fb.is_finite(S_tot):
        return "variational"
    return e, g, np.array(fb.to_arbs(S_tot), dtype=object).reshape(N, N), hull


def _pieces_arb(field, t0, h, w, pieces, db, R, r0, coeffs, stats, linear):
    """:func:`_pieces` piece by piece in Arb (64 bits)."""
    bk = field.backend
    n, d = field.n, field.d
    N = n * d
    K = len(coeffs) - 1
    e = Fraction(0)   # bound of ‖y(τ; c) − p(τ)‖∞ at the piece start
    g = r0            # bound of ‖y(τ; y0) − y(τ; c)‖∞ at the piece start
    S_tot, hull = None, None
    for j in range(pieces):
        a, b = w * j, w * (j + 1)
        tau = bk.interval(a, b)
        # p over [a, b] by Horner on the real interval (encloses p(τ) for τ in it)
        acc = coeffs[K]
        for k in range(K - 1, -1, -1):
            acc = acc * tau + coeffs[k]
        tube = acc.reshape(N) + bk.interval(-R, R)
        t_int = bk.interval(t0 + a, t0 + b)
        clock = _time.perf_counter()
        Jac = fb.from_arbs(list(field.jacobian(tube.reshape(n, d), t_int).flat), (N, N))
        try:
            mu, _ = _mu_and_norm(Jac)
        except DefectRejected:
            return "jacobian"
        # Δ(τ) is increasing in τ: its value at the piece's end
        e, g = _bootstrap(e, g, mu, db.bound(b), w)
        _tick(stats, "t_tube", clock)
        if not e + g < R:
            return "bootstrap"
        hull = tube if hull is None else np.array([bk.hull(u, v) for u, v in zip(hull, tube)],
                                                  dtype=object)
        if not linear:  # candidate C: the centre's enclosure only (no set, no S)
            continue
        clock = _time.perf_counter()
        Sj = _variational_piece(Jac, w)
        if Sj is None:
            return "variational"
        S_tot = Sj if S_tot is None else fb.matmul(Sj, S_tot)
        _tick(stats, "t_var", clock)
    if S_tot is not None:
        if not fb.is_finite(S_tot):
            return "variational"
        S_tot = np.array(fb.to_arbs(S_tot), dtype=object).reshape(N, N)
    return e, g, S_tot, hull
