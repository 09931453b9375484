"""A validated step without a complex Picard contraction: the defect step (Lemma I10).

Candidate A of the step-size study (defect on a circle), proved in
``proofs_notes/integrator.md``, Lemma I10. From the exact centre c of the set at t0:

1. point jets Z_0 … Z_K at c (Lemma I2); p(τ) = Σ_k mid(Z_k) τ^k, an exact polynomial;
2. **holomorphy**: an adaptive cover of the closed disk |σ| ≤ ρ by complex boxes on
   each of which every softmax row sum Σ_k e^{s_ik(p(σ), t0+σ)} is enclosed away from 0;
3. **defect on the circle**: M ≥ max_{|σ|=ρ} |p′(σ) − F(p(σ), t0 + σ)| from a cover of the
   circle by m arc boxes; the defect's first K Taylor coefficients are bounded by
   (k + 1)·rad Z_{k+1} (the jets are interval extensions of the recurrences); the maximum
   modulus principle bounds the rest by (|τ|/ρ)^K(M + Σ_k d_k ρ^k);
4. **real-axis bootstrap** on pieces of [0, h]: tubes p([τ_j, τ_{j+1}]) + [−R, R], the
   logarithmic norm μ∞ of the interval Jacobian on each, a Gronwall bound for the centre's
   error and for the spread of the set (Lemma I10, proved by continuity);
5. **the linear part**: the variational enclosure of Lemma I8 on every piece, multiplied
   (its width is O(h²/m) with m pieces instead of O(h²)).

Nothing here contracts on a complex set; the step size is set by the disk on which the
denominators are proved non-zero and by the defect. A step that cannot be validated
raises :class:`DefectRejected` (a :class:`~certified.errors.ValidationError`); it never
returns an unvalidated result. flint backend only (Arb balls).
"""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import acb, acb_mat, arb, arb_mat, ctx

from certified.enclose import defect_pieces as dp
from certified.enclose import float_cover as fc
from certified.enclose.arith import float_balls as fb
from certified.enclose.defect_pieces import DefectRejected, _q, _round_up, _tick, _up
from certified.enclose.lohner_set import LohnerSet
from certified.enclose.stepper import WRAP_TOL, StepResult, _lohner_update

__all__ = ["DefectRejected", "DefectStepResult", "DefectStepper", "defect_step",
           "disk_holomorphic", "circle_defect", "DefectBound"]

#: Precision (bits) of the covers of the disk and the circle: boxes are wide, Arb's
#: balls stay rigorous at any precision.
COVER_BITS = 64


@dataclass(frozen=True)
class DefectStepResult(StepResult):
    """A :class:`StepResult` of the defect step (Lemma I10). ``rho`` is the radius of the
    circle; ``complex_box``/``velocity`` stay None (no Picard enclosure: the checker
    re-derives the step from ρ, ``pieces``, ``R`` and ``guard_bits``, its Lemma C20)."""

    method: str = "defect"
    pieces: int = 0
    defect: Fraction | None = None      # Δ: sup_{τ∈[0,h]} ‖p′ − F(p)‖∞ (upper bound)
    error: Fraction | None = None       # E: ‖y(h; c) − p(h)‖∞ (upper bound)
    circle_max: float | None = None     # max_i M_i (for reports)
    R: Fraction | None = None           # half-width of the real tubes (Lemma I10, item 6)
    guard_bits: int = 0                 # extra bits of the point jets (a hint for replay)


class _Poly:
    """The exact polynomial p(σ) = Σ_k p_k σ^k (n×d coefficients) and the coefficient
    matrices of p, p′ and of the token differences p_j − p_l, evaluated on complex boxes
    by ``acb_mat`` products with the powers of the boxes (each power encloses the powers of
    every point of its box, so each product encloses every value)."""

    def __init__(self, coeffs: list[np.ndarray]) -> None:
        self.K = len(coeffs) - 1
        n, d = coeffs[0].shape
        self.n, self.d = n, d
        K = self.K
        flat = [list(c.reshape(-1)) for c in coeffs]
        der = []
        for k in range(K):  # p′ = Σ_k (k + 1) p_{k+1} σ^k (degree K − 1)
            der.append([x * (k + 1) for x in flat[k + 1]])
        der.append([arb(0)] * (n * d))
        # differences p_j − p_l for every l: columns (l, j, c)
        diff = []
        for k in range(K + 1):
            c = coeffs[k]
            diff.append([c[j, e] - c[l, e] for l in range(n) for j in range(n)
                         for e in range(d)])
        # The covers need only COVER_BITS: balls rounded outward to it (they contain the
        # exact coefficients) make the products 10× cheaper than at the jets' precision.
        with ctx.workprec(COVER_BITS):
            self.C, self.Cd, self.Cdiff = (
                acb_mat(K + 1, len(rows[0]), [acb(x) + 0 for row in rows for x in row])
                for rows in (flat, der, diff))
        self._diff_cache: dict = {}
        self._coeffs = coeffs
        self._float: fc.FloatPoly | None = None

    def float_poly(self) -> "fc.FloatPoly":
        """The same polynomial as binary64 balls (built once)."""
        if self._float is None:
            self._float = fc.FloatPoly(self._coeffs)
        return self._float

    def eval_many(self, boxes: list[acb], only: list[int] | None = None
                  ) -> list[tuple[np.ndarray, np.ndarray | None, callable]]:
        """(p, p′, l ↦ p_j − p_l) enclosed on each box: ``acb_mat`` products for all the
        boxes at once. With ``only`` (the disk's test): the differences for l in ``only``
        and no p′ (fewer entries: their Python objects are most of the cost)."""
        n, d, K = self.n, self.d, self.K
        N = n * d
        rows = []
        for s in boxes:
            w = acb(1)
            for _ in range(K + 1):
                rows.append(w)
                w = w * s
        V = acb_mat(len(boxes), K + 1, rows)
        ls = list(range(n)) if only is None else sorted(set(only))
        pos = {l: k for k, l in enumerate(ls)}
        Cdiff = self.Cdiff if only is None else self._diff_columns(ls)
        Z, D = (V * self.C).entries(), (V * Cdiff).entries()
        dZ = None if only is not None else (V * self.Cd).entries()
        L = len(ls)
        out = []
        for b in range(len(boxes)):
            P = np.array(Z[b * N:(b + 1) * N], dtype=object).reshape(n, d)
            dP = None if dZ is None else \
                np.array(dZ[b * N:(b + 1) * N], dtype=object).reshape(n, d)
            Db = np.array(D[b * L * N:(b + 1) * L * N], dtype=object).reshape(L, n, d)
            out.append((P, dP, lambda l, Db=Db: Db[pos[l]]))
        return out

    def _diff_columns(self, ls: list[int]) -> acb_mat:
        """The columns of ``Cdiff`` for the rows l in ``ls`` (cached per set of rows)."""
        key = tuple(ls)
        if key not in self._diff_cache:
            N = self.n * self.d
            cols = [l * N + j for l in ls for j in range(N)]
            ent = self.Cdiff.entries()
            W = self.Cdiff.ncols()
            self._diff_cache[key] = acb_mat(self.K + 1, len(cols),
                                            [ent[k * W + c] for k in range(self.K + 1)
                                             for c in cols])
        return self._diff_cache[key]


def _c_box(re_lo: Fraction, re_hi: Fraction, im_lo: Fraction, im_hi: Fraction) -> acb:
    return acb(_q(re_lo).union(_q(re_hi)), _q(im_lo).union(_q(im_hi)))


def _nonzero(x: acb) -> bool:
    return bool(x.is_finite()) and not (x.real.contains(0) and x.imag.contains(0))


def _row_sums_nonzero(field, poly: _Poly, t0: Fraction, boxes: list[acb], leaders
                      ) -> list[bool]:
    """For each complex box s: True if every softmax row sum Σ_k e^{s_ik(p(σ), t0 + σ)} is
    proved non-zero for σ in s (p on all boxes at once, :meth:`_Poly.eval_many`)."""
    bk = field.backend
    n, d = field.n, field.d
    out = []
    for s, (P, _, diffs) in zip(boxes, poly.eval_many(boxes, only=list(leaders))):
        Bm, scale = field._score_form(bk.const(t0) + s)
        # U_ik = (p_iᵀBm(p_k − p_{l_i}))·scale as plain acb sums (the same expression as
        # AttentionField._shifted_scores, without its matrix conversions), row by row,
        # stopping at the first row whose sum is not proved non-zero
        ok = True
        for i in range(n):
            G = [sum((P[i, a] * Bm[a, c] for a in range(d)), acb(0)) for c in range(d)]
            if scale is not None:
                G = [g * scale for g in G]
            Dl = diffs(leaders[i])
            tot = acb(0)
            for k in range(n):
                tot += sum((G[c] * Dl[k, c] for c in range(d)), acb(0)).exp()
            if not _nonzero(tot):
                ok = False
                break
        out.append(ok)
    return out


def disk_holomorphic(field, poly: _Poly, t0: Fraction, rho: Fraction, leaders,
                     max_depth: int = 5, start: int = 4) -> tuple[bool, int]:
    """True if every softmax row sum Σ_k e^{s_ik(p(σ), t0 + σ)} is proved non-zero on a
    cover of the closed disk |σ| ≤ ρ by complex boxes (a start×start grid of the square,
    failing boxes quartered level by level, boxes not meeting the disk skipped). Returns
    (proved, number of boxes evaluated).

    In binary64 rectangles (x, or z with V = λI), all boxes of a level at once
    (:func:`~certified.enclose.float_cover.disk`); else in Arb, box by box. Both give up
    early as :func:`~certified.enclose.float_cover.cover_disk` says."""
    if fc.supported(field):
        return fc.disk(field, poly.float_poly(), t0, rho, start)
    return fc.cover_disk(
        rho, lambda live: _row_sums_nonzero(field, poly, t0, [_c_box(*bx) for bx in live],
                                            leaders), start, max_depth)


def circle_defect(field, poly: _Poly, t0: Fraction, rho: Fraction, leaders,
                  m: int = 32, max_depth: int = 4) -> list[arb] | None:
    """Upper bounds M_i (exact arbs) of |p_i′(σ) − F_i(p(σ), t0 + σ)| on the circle
    |σ| = ρ, from arc boxes ρ·e^{iθ}, θ ∈ [2πa, 2πb] (Arb encloses each arc): m arcs, an
    arc whose evaluation is not finite is halved, level by level, up to ``max_depth``
    times. None if some arc still fails (a denominator not bounded away from 0 there)."""
    N = field.n * field.d
    two_pi = arb.pi() * 2
    rq = _q(rho)
    level = [(Fraction(j, m), Fraction(j + 1, m)) for j in range(m)]
    # P_ij = e^{U_ij}/Σ_k e^{U_ik} with the row's leader shift (one divisor per row, the
    # disk's test) instead of the tight form 1/Σ_k e^{s_ik − s_ij} for near columns, whose
    # n divisors per row failed on half the arcs (measured on (8, 3): 1128 evaluations to
    # t = 1 instead of 580, 13.7 s instead of 7.9 s, the same 14 steps). M is then a little
    # larger; it enters h through a K-th root, and the checker's own M is no larger.
    tight, field.tight_softmax = field.tight_softmax, False
    try:
        return _circle_levels(field, poly, t0, leaders, level, rq, two_pi, max_depth, N)
    finally:
        field.tight_softmax = tight


def _circle_levels(field, poly: _Poly, t0: Fraction, leaders, level: list, rq: arb,
                   two_pi: arb, max_depth: int, N: int) -> list[arb] | None:
    bk = field.backend
    M = [arb(0)] * N
    for depth in range(max_depth + 1):
        if not level:
            break
        boxes = [acb(0, (two_pi * _q(lo)).union(two_pi * _q(hi))).exp() * rq
                 for lo, hi in level]
        failed = []
        for arc, s, (P, dP, diffs) in zip(level, boxes, poly.eval_many(boxes)):
            try:
                F = field.velocity(P, bk.const(t0) + s, leaders, diffs)
                absd = [abs(v) for v in (dP - F).reshape(N)]
                ok = all(a.is_finite() for a in absd)
            except (ZeroDivisionError, ValueError, ArithmeticError):
                ok = False
            if ok:
                M = [max(u, a.upper()) for u, a in zip(M, absd)]  # exact upper ends
            else:
                failed.append(arc)
        if failed and depth == max_depth:
            return None
        level = [half for lo, hi in failed for half in ((lo, (lo + hi) / 2), ((lo + hi) / 2, hi))]
    return M


class DefectBound:
    """Δ(τ) = max_i [Σ_{k<K} d_{k,i} τ^k + (τ/ρ)^K (M_i + Σ_{k<K} d_{k,i} ρ^k)]: an upper
    bound of ‖p′(σ) − F(p(σ))‖∞ for |σ| ≤ τ < ρ (Lemma I10, step 3). ``bound`` is
    rigorous (Arb, rounded up); ``estimate`` is a float for choosing h only."""

    def __init__(self, d: list[list[arb]], M: list, rho: Fraction) -> None:
        self.K, self.N = len(d), len(M)
        self.rho = rho
        self.D = arb_mat(self.K, self.N, [x for row in d for x in row])
        Ma = [m if isinstance(m, arb) else _q(m) for m in M]  # exact arbs or Fractions
        self.M = arb_mat(1, self.N, Ma)
        self.Df = np.array([[float(x.mid()) + float(x.rad()) for x in row] for row in d])
        self.Mf = np.array([float(m.mid()) for m in Ma])
        with ctx.workprec(COVER_BITS):
            self.ring = self.M + self._powers(_q(rho)) * self.D

    def _powers(self, x: arb) -> arb_mat:
        pw = [arb(1)]
        for _ in range(self.K - 1):
            pw.append(pw[-1] * x)
        return arb_mat(1, self.K, pw)

    def bound(self, tau: Fraction) -> Fraction:
        with ctx.workprec(COVER_BITS):
            q = (_q(tau) / _q(self.rho)) ** self.K
            v = self._powers(_q(tau)) * self.D + self.ring * q
            return max(_up(v[0, i]) for i in range(self.N))

    def bounds(self, taus: list[Fraction]) -> np.ndarray:
        """Floats ≥ Δ(τ) for every τ of ``taus`` (< ρ), all at once: one ``arb_mat``
        product for the low orders, the upper ends of the balls rounded up (Lemma I12,
        item 2)."""
        with ctx.workprec(COVER_BITS):
            rows = []
            for tau in taus:
                rows += [x for x in self._powers(_q(tau)).entries()]
            low = arb_mat(len(taus), self.K, rows) * self.D          # (m, N)
            ring = self.ring.entries()
            out = []
            for j, tau in enumerate(taus):
                q = (_q(tau) / _q(self.rho)) ** self.K
                out += [low[j, i] + ring[i] * q for i in range(self.N)]
        hi = fb.ends(fb.from_arbs(out, (len(taus), self.N)))[1]
        return hi.max(axis=1)

    def estimate_low(self, tau: float) -> float:
        """The float estimate of the low-order part max_i Σ_k d_{k,i} τ^k alone."""
        with np.errstate(all="ignore"):  # a choice only: inf/NaN reject the step later
            return float(np.max((float(tau) ** np.arange(self.K)) @ self.Df))

    def estimate(self, tau: float) -> float:
        with np.errstate(all="ignore"):  # a choice only: inf/NaN give no admissible h
            pw = float(tau) ** np.arange(self.K)
            ring = self.Mf + (float(self.rho) ** np.arange(self.K)) @ self.Df
            return float(np.max(pw @ self.Df + (float(tau) / float(self.rho)) ** self.K * ring))


def _rad_bounds(bk, Z: list[np.ndarray]) -> list[list[arb]]:
    """d_{k,i} = (k + 1)·rad Z_{k+1,i}, k < K: bounds of the defect's Taylor coefficients
    (Lemma I10, step 2)."""
    out = []
    with ctx.workprec(COVER_BITS):
        for k in range(len(Z) - 1):
            out.append([arb(x.rad()) * (k + 1) for x in Z[k + 1].reshape(-1)])
    return out


class DefectStepper:
    """The defect step with its own disk radius ρ carried from step to step (only a
    heuristic for the next try; every step is validated on its own).

    Parameters
    ----------
    circle : int
        Arc boxes on the circle (m).
    wrap_tol : Fraction
        Largest width (row sums of radii) of S: a heuristic like stepper.WRAP_TOL, larger
        because there are ≈ 15× fewer steps (the set grows by ≲ (1 + wrap) per step).
    jet_guard_bits : int
        Extra bits for the point jets (their rounding radii enter the defect bound).
    pieces : int
        Initial number of pieces of [0, h] for the real tube (doubled up to
        ``max_pieces`` by the wrapping control).
    """

    def __init__(self, circle: int = 32, pieces: int = 8, max_pieces: int = 256,
                 max_rho_tries: int = 5, wrap_tol: Fraction = Fraction(1, 32),
                 jet_guard_bits: int = 48) -> None:
        self.circle, self.pieces, self.max_pieces = circle, pieces, max_pieces
        self.wrap_tol, self.jet_guard_bits = wrap_tol, jet_guard_bits
        self.max_rho_tries = max_rho_tries
        self.rho: Fraction | None = None
        self.stats: dict[str, int] = {"accepted": 0, "rejected": 0, "rho_tries": 0,
                                      "disk_boxes": 0}

    def __call__(self, field, S: LohnerSet, t0: Fraction, h_max: Fraction, order: int,
                 tol: Fraction) -> "DefectStepResult":
        try:
            res = defect_step(field, S, t0, h_max, order, tol, self)
        except DefectRejected:
            self.stats["rejected"] += 1
            raise
        self.stats["accepted"] += 1
        return res


def _radius_estimate(bk, Z: list[np.ndarray]) -> float:
    """min_k |Z_k|^{−1/k} over the upper half of the orders (a heuristic start for ρ)."""
    K = len(Z) - 1
    best = float("inf")
    for k in range(max(2, K // 2), K + 1):
        mx = max(abs(bk.to_float(x)) for x in Z[k].reshape(-1))
        if mx > 0:
            best = min(best, mx ** (-1.0 / k))
    return best


def _dyadic_down(x: float, bits: int = 8) -> Fraction:
    if x <= 0:
        return Fraction(0)
    e = math.floor(math.log2(x)) - bits
    return Fraction(math.floor(x / 2.0 ** e)) * Fraction(2) ** e


def choose_rho(field, poly: _Poly, t0: Fraction, leaders, start: Fraction, tries: int,
               circle: int, stats: dict | None = None
               ) -> tuple[Fraction, list[Fraction]] | None:
    """The largest ρ in start·(4/5)^j, j < tries, with the disk proved holomorphic and the
    circle's defect finite; (ρ, M) or None."""
    rho = start
    for _ in range(tries):
        if stats is not None:
            stats["rho_tries"] = stats.get("rho_tries", 0) + 1
        with ctx.workprec(COVER_BITS):
            ok, cnt = disk_holomorphic(field, poly, t0, rho, leaders)
            if stats is not None:
                stats["disk_boxes"] = stats.get("disk_boxes", 0) + cnt
            M = circle_defect(field, poly, t0, rho, leaders, circle) if ok else None
        if M is not None:
            return rho, M
        rho = _dyadic_down(float(rho) * 0.8)
    return None


def admissible_h(db: "DefectBound", tol: Fraction, h_max: Fraction,
                 growth: float = 1.0) -> Fraction:
    """Largest h = ρ·j/256 (≤ h_max) with the float estimate Δ(h)·h·growth ≤ tol (a
    choice only; the step is validated afterwards, rigorously)."""
    rho = db.rho
    for j in range(255, 0, -1):
        h = min(rho * j / 256, h_max)
        if db.estimate(float(h)) * float(h) * growth <= float(tol):
            return h
    return Fraction(0)


def defect_step(field, S: LohnerSet, t0: Fraction, h_max: Fraction, order: int,
                tol: Fraction, state: DefectStepper | None = None,
                point_only: bool = False) -> DefectStepResult:
    """One validated defect step (Lemma I10) from the set S at t0, h ≤ h_max, with the
    centre's error E ≤ tol. Raises :class:`DefectRejected` if it cannot be validated.
    ``point_only`` (measurements of candidate C): return (h, ρ, E) for the centre alone,
    with no set and no linear part."""
    bk = field.backend
    if bk.name != "flint":
        raise DefectRejected("the defect step needs the flint backend", t=t0, h=None, box=None)
    state = state or DefectStepper()
    n, d = field.n, field.d
    Y = S.box_with_centre(bk)
    c = S.c.reshape(n, d)
    leaders = field.leaders(Y.reshape(n, d), t0)
    clock = _time.perf_counter()  # timings for reports only, never for decisions
    # Guard bits for the jets: their rounding radii give the low-order defect d_k, which
    # binds late (on (8, 3) at t = 2: h = 0.028 at 140 bits, 0.064 with 40 more).
    state_guard = state.jet_guard_bits  # this step's (the next one may change it)
    with ctx.workprec(ctx.prec + state_guard):
        Z = field.jets(c, t0, order, leaders)
    _tick(state.stats, "t_jets", clock)
    if not all(bk.is_finite(x) for z in Z for x in z.flat):
        raise DefectRejected("non-finite jets", t=t0, h=None, box=Y)
    coeffs = [bk.mid_array(z) for z in Z]
    if any(bk.rad(x) != 0 for x in coeffs[0].flat) or \
            not all(a == b for a, b in zip(coeffs[0].flat, c.flat)):
        raise DefectRejected("p(0) is not the centre", t=t0, h=None, box=Y)
    dk = _rad_bounds(bk, Z)
    poly = _Poly(coeffs)
    est = _radius_estimate(bk, Z)
    # Half the series' apparent radius of convergence: a larger disk lets h grow little
    # (h is mostly held by the tolerance and the jets' rounding) and costs many more boxes
    # near the singularities (measured on (8, 3) to T = 3: factor 0.9 → 53 steps, 13544
    # boxes, 23 s; 0.5 → 54 steps, 2046 boxes, 16 s; 0.3 → 81 steps, 21 s).
    start = _dyadic_down(min(0.5 * est, 2.0))
    if state.rho is not None:
        # at most 5/4 of the last ρ: the estimate may overshoot, the last ρ held. (Growing
        # 5/4 only every third step lagged behind the estimate: 19 steps instead of 17 on
        # (20, 2) to t = 1/2.)
        start = min(start, _dyadic_down(float(state.rho) * 1.25))
    clock = _time.perf_counter()
    got = choose_rho(field, poly, t0, leaders, start, state.max_rho_tries, state.circle,
                     state.stats)
    _tick(state.stats, "t_cover", clock)
    if got is None:
        state.rho = _dyadic_down(float(start) * 0.8 ** state.max_rho_tries)
        raise DefectRejected("no disk with non-vanishing denominators", t=t0, h=None, box=Y)
    rho, M = got
    state.rho = rho
    r0 = max((bk.abs_upper(v) for v in (Y - S.c)), default=Fraction(0))
    db = DefectBound(dk, M, rho)
    h = admissible_h(db, tol, h_max)
    # Guard bits for the next step's jets (a choice only): raise them while the rounding
    # radii (the low-order part of Δ) bind h, as late in a run (on (8, 3) at t = 2.75:
    # h = 0.018 / 0.045 / 0.116 with 48 / 112 / 176 guard bits).
    low = db.estimate_low(float(h)) if h > 0 else 1.0
    if low >= 0.5 * db.estimate(float(h)) if h > 0 else True:
        state.jet_guard_bits = min(state.jet_guard_bits + 64, 368)
    elif low < 1e-3 * db.estimate(float(h)) and state.jet_guard_bits > 48:
        state.jet_guard_bits -= 16
    if h <= 0:
        raise DefectRejected("no admissible h", t=t0, h=None, box=Y)
    h = min(h, h_max)
    pieces = state.pieces
    while True:
        out = _validate(field, S, Y, t0, h, rho, db, r0, coeffs, leaders, pieces, tol,
                        state.stats, linear=not point_only, wrap_tol=state.wrap_tol,
                        guard_bits=state_guard)
        if isinstance(out, tuple):  # point_only: (h, ρ, E) of the centre's enclosure
            return h, rho, out[1]
        state.stats["why_" + (out if isinstance(out, str) else "ok")] = \
            state.stats.get("why_" + (out if isinstance(out, str) else "ok"), 0) + 1
        if isinstance(out, DefectStepResult):
            # where the next step starts (a heuristic): fewer pieces when this step's
            # linear part was far inside the wrapping threshold (its width ∝ h²/m)
            state.pieces = pieces // 2 if pieces > 8 and \
                state.stats.get("ok_wrap", 0.0) < float(state.wrap_tol) / 4 else pieces
            return out
        why = out
        if why == "wrap" and pieces < state.max_pieces:
            # the width of S is about C·h²/m: jump to the m that should pass
            ratio = state.stats.get("last_wrap", 2 * float(state.wrap_tol)) / float(state.wrap_tol)
            while pieces < state.max_pieces and ratio > 0.8:
                pieces, ratio = pieces * 2, ratio / 2
            continue
        if h <= h_max / 2 ** 10:
            raise DefectRejected(f"not validated ({why})", t=t0, h=h, box=Y)
        h = _round_up(h / 2, 16)


def _validate(field, S, Y, t0, h, rho, db, r0, coeffs, leaders, pieces, tol, stats,
              linear: bool = True, wrap_tol: Fraction = WRAP_TOL, guard_bits: int = 0):
    """Lemma I10 for this h and number of pieces; a DefectStepResult or a reason string."""
    bk = field.backend
    N = field.n * field.d
    K = len(coeffs) - 1
    R = max(Fraction(1, 2 ** 50), 8 * r0)
    with ctx.workprec(COVER_BITS):  # tubes, Jacobians, S: wide boxes, 64 bits suffice
        loop = dp.pieces(field, t0, h, h / pieces, pieces, db, R, r0, coeffs, stats, linear)
    if isinstance(loop, str):
        return loop
    e, _, S_tot, hull = loop
    if e > tol:
        return "tolerance"
    if not linear:
        return ("point", e)
    wrap = max(sum(bk.rad_float(v) for v in row) for row in S_tot)
    stats["ok_wrap"] = wrap
    if wrap > float(wrap_tol):
        stats["last_wrap"] = wrap
        return "wrap"
    hb = bk.const(h)
    acc = coeffs[K]
    for k in range(K - 1, -1, -1):  # p(h) at the working precision
        acc = acc * hb + coeffs[k]
    T = acc.reshape(N)
    # Lemma I7 with S and Φ(c) ∈ T + [−E, E], carried as [−2E, 2E]: E is most of a set's
    # radius when the tokens start exact, and the independent checker derives its own E
    # (Lemma C20, binary64 covers): a 6% larger E there failed the replay's containment.
    extra = np.array([bk.interval(-2 * e, 2 * e) for _ in range(N)], dtype=object)
    new = _lohner_update(bk, S, T, S_tot, extra)
    if not all(bk.is_finite(v) for v in new.r):
        return "non-finite"
    return DefectStepResult(t0, h, K, S, new, hull, extra, rho, None, None,
                            method="defect", pieces=pieces, defect=db.bound(h), error=e,
                            circle_max=max(db.Mf.tolist()), R=R, guard_bits=guard_bits)
