"""One validated step: Taylor series, a-priori enclosure, rigorous remainder, QR-Lohner.

A step from a :class:`~certified.enclose.lohner_set.LohnerSet` at time t0 with step h returns its
parts by name (:class:`StepResult`): the a-priori box that contains the whole solution
tube over [t0, t0 + h], the Taylor remainder, the Jacobian enclosure, and the new set.
If the a-priori enclosure cannot be validated the step raises
:class:`StepRejected` (the driver then shortens h or raises the precision). A step
never returns an unvalidated result.

Proofs: ``proofs_notes/integrator.md``, Lemmas I2 (jets), I3 (Jacobian), I6 (a-priori
enclosure and remainder) and I7 (the Lohner update).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from certified.enclose.arith.base import Backend
from certified.enclose.deadline import check as check_deadline
from certified.enclose.field import AttentionField
from certified.enclose.lohner_set import LohnerSet
from certified.errors import UndecidedError, ValidationError

__all__ = ["Apriori", "StepRejected", "StepResult", "cauchy_apriori", "taylor_step", "map_step"]

#: Largest accepted interval width (row sums of radii) of the one-step Jacobian
#: enclosure: the set may grow by at most about this factor per step from wrapping.
WRAP_TOL = Fraction(1, 128)


class StepRejected(ValidationError):
    """The a-priori enclosure could not be validated for this step size."""


@dataclass(frozen=True)
class StepResult:
    """The named parts of one validated step.

    Attributes
    ----------
    t0, h : Fraction
        Start time and step (exact).
    order : int
        Taylor order K (the remainder is the coefficient K + 1).
    input_set, output_set : LohnerSet
        The set at t0 and at t0 + h (enclosure contract of :mod:`certified.enclose.lohner_set`).
    apriori : object array, shape (N,)
        A box containing the solution for every t ∈ [t0, t0 + h] (Lemma I6).
    remainder : object array, shape (N,)
        Enclosure of h^{K+1} times the coefficient K + 1 over the a-priori box.
    rho, complex_box, velocity : Fraction and object arrays, shape (N,)
        The half-side of the complex time square, the complex box W and the exact
        velocity a of the a-priori enclosure y(τ) ∈ c + τa + W of Lemma I6 (c is the
        input set's centre; Taylor steps only): what an independent checker needs to
        replay it.
    """

    t0: Fraction
    h: Fraction
    order: int
    input_set: LohnerSet
    output_set: LohnerSet
    apriori: np.ndarray
    remainder: np.ndarray
    rho: Fraction | None = None
    complex_box: np.ndarray | None = None
    velocity: np.ndarray | None = None


def _poly(backend: Backend, coeffs: list[np.ndarray], h: object, start: int = 0) -> np.ndarray:
    """Σ_{j ≥ start} h^j coeffs[j] by Horner's rule (interval h allowed)."""
    acc = coeffs[-1]
    for c in reversed(coeffs[start:-1]):
        acc = acc * h + c
    return acc * (h ** start) if start else acc


def _qr_basis(backend: Backend, M: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Exact points of an orthogonal Q from a QR of mid(M), columns pre-sorted by
    decreasing ‖M e_j‖·rad(r_j) (Lohner's ordering). Only a choice of basis: any
    invertible exact matrix keeps the step rigorous (Lemma I7)."""
    with np.errstate(all="ignore"):
        Mf = backend.float_array(M)
        radii = np.array([backend.rad_float(x) for x in r])
        if not (np.all(np.isfinite(Mf)) and np.all(np.isfinite(radii))):
            # beyond binary64 (tokens of 10³⁰⁸ after many wide layers): the identity is
            # another admissible choice, and any non-finite enclosure is caught after
            return backend.identity(M.shape[0])
        order = np.argsort(-(np.linalg.norm(Mf, axis=0) * (radii + 1e-300)))
        Q, _ = np.linalg.qr(Mf[:, order])
    if not np.all(np.isfinite(Q)):
        return backend.identity(M.shape[0])
    # mid_array: exact points (Arb's conversion of a dyadic may carry a tiny radius).
    return backend.mid_array(backend.from_floats(Q))


def _lohner_update(backend: Backend, S: LohnerSet, T: np.ndarray, M_lin: np.ndarray,
                   extra: np.ndarray) -> LohnerSet:
    """New set from y₁ ∈ T + M_lin·A·ρ + extra, ρ ∈ r (Lemma I7)."""
    M = backend.matmul(M_lin, S.A)
    c1 = backend.mid_array(T)
    err = (T - c1) + extra
    A1 = _qr_basis(backend, M, S.r)
    A1inv = backend.inv(A1)
    r1 = backend.matmul(backend.matmul(A1inv, M), S.r.reshape(-1, 1)).reshape(-1) + \
        backend.matmul(A1inv, err.reshape(-1, 1)).reshape(-1)
    return LohnerSet(c1, A1, r1)


@dataclass(frozen=True)
class Apriori:
    """The complex a-priori enclosure of one step (Lemma I6).

    For every initial state y0 in the box Y and every τ in the square
    D = {|Re τ|, |Im τ| ≤ ρ}: y(τ) − c − τa ∈ W (the solution is holomorphic there).

    Attributes
    ----------
    center, velocity : object arrays, shape (n, d)
        The exact points c (the set's centre) and a (≈ F(c)): the affine part.
    W : object array, shape (n, d)
        The complex box.
    M : list of Fraction, length N
        Cauchy bounds: |c_k| ≤ M_i/ρ^k for every Taylor coefficient k ≥ 2.
    """

    center: np.ndarray
    velocity: np.ndarray
    W: np.ndarray
    M: list[Fraction]

    def hull(self, D: object) -> np.ndarray:
        """The complex box c + D·a + W, shape (n, d)."""
        return self.center + self.velocity * D + self.W


def cauchy_apriori(field: AttentionField, Y: np.ndarray, t0: Fraction, rho: Fraction,
                   leaders: list[int], center: np.ndarray | None = None,
                   affine: bool = True) -> Apriori:
    """Complex a-priori enclosure on the square |Re τ|, |Im τ| ≤ ρ (Lemma I6).

    With c the exact centre of the set and a an exact point near F(c), finds a complex
    box W with (Y − c) + D·(F(Ĉ, t0 + D) − a) ⊂ int W, Ĉ = {c + σa + w : σ ∈ D, w ∈ W}.
    Then for every initial state in Y the solution is holomorphic on D with
    y(τ) ∈ c + τa + W, and the Taylor coefficients satisfy |c_k| ≤ M/ρ^k for k ≥ 2
    (Cauchy, applied to y(τ) − y0 − τa), M_i = sup |c_i + W_i − Y_i|.

    F is evaluated on Ĉ with the token differences z_j − z_k enclosed as
    (c_j − c_k) + D·(a_j − a_k) + (W_j − W_k): tokens that move together keep a
    small difference, where independent boxes of radius ρ|F| would give 2ρ|F|. On the
    (8, 3) benchmark tokens this raised the admissible ρ from 1/128 to 1/32–1/16 after
    t ≈ 2.5; before t ≈ 2 it stays 1/64 (proofs_notes/integrator.md, I6).

    Parameters
    ----------
    Y : object array, shape (n, d)
        Box of the initial states.
    center : object array, shape (n, d), optional
        Exact points c (default: the midpoints of Y).
    affine : bool
        False gives the plain form (c = a = 0: Y + D·F(W) ⊂ int W), for comparisons.

    Raises
    ------
    StepRejected
        If the inclusion cannot be validated for this ρ.
    """
    bk = field.backend
    side = bk.interval(-rho, rho)
    D = bk.complex_box(side, side)
    tD = bk.const(t0) + D
    zero = bk.const(Fraction(0))
    if not affine:
        c = np.full(Y.shape, zero, dtype=object)
    else:
        c = bk.mid_array(Y) if center is None else center
    Y0 = Y - c  # real box around 0: the initial states relative to c
    # Fields that support structured differences get them (AttentionField); a variant's
    # field is evaluated on the box hull, which the lemma allows too (any extension).
    structured = getattr(field, "supports_diffs", False)

    def F_minus_a(W: np.ndarray, a: np.ndarray) -> np.ndarray:
        box = c + a * D + W
        if not structured:
            return field.velocity(box, tD, leaders) - a
        def diffs(k: int) -> np.ndarray:
            return (c - c[k]) + (a - a[k]) * D + (W - W[k])
        return field.velocity(box, tD, leaders, diffs) - a

    def inflate(box: np.ndarray) -> np.ndarray:
        # Widen every radius by 1/4 and add a common slack (1/16 of the largest
        # radius): coordinates that barely move still need room for the others.
        slack = max(bk.abs_upper(v - bk.c_mid(v)) for v in box.flat) / 16 + Fraction(1, 2 ** 200)
        pad = bk.error_ball(slack, complex_=True)
        quarter = bk.const(Fraction(1, 4))
        out = np.empty(box.shape, dtype=object)
        for idx, v in np.ndenumerate(box):
            out[idx] = v + (v - bk.c_mid(v)) * quarter + pad
        return out

    try:
        a = bk.mid_array(field.velocity(c, bk.const(t0), leaders)) if affine else c
        cand = inflate(Y0 + F_minus_a(np.full(Y.shape, zero, dtype=object), a) * D)
        for _ in range(8):
            check_deadline()  # the outer wall-clock cap, once per Picard iterate
            test = Y0 + F_minus_a(cand, a) * D
            if all(bk.c_contains_interior(cv, tv) for cv, tv in zip(cand.flat, test.flat)):
                M = [bk.abs_upper(cv + ci - yv)
                     for cv, ci, yv in zip(cand.flat, c.flat, Y.flat)]
                return Apriori(c, a, cand, M)
            grown = np.empty(test.shape, dtype=object)
            for idx, v in np.ndenumerate(test):
                grown[idx] = bk.c_hull(cand[idx], v)
            cand = inflate(grown)
    except (ZeroDivisionError, ValueError, ArithmeticError, UndecidedError):
        pass  # a denominator not bounded away from 0 (NaN/inf): the square is too large
    raise StepRejected("complex a-priori enclosure not validated", t=t0, h=rho, box=Y)


def _tight_tube(field: AttentionField, tube: np.ndarray, jP: list[np.ndarray],
                remainder: np.ndarray, offset: np.ndarray, t_int: object, h: Fraction
                ) -> np.ndarray:
    """A narrower tube over [0, h] (Lemma I6b): the centre's solution is in
    Σ_k Z_k(c)τ^k + R for τ ∈ [0, h] (Horner over [0, h]), and every other solution from
    Y stays within ‖y0 − c‖∞·e^{Lh} of it, L ≥ ‖DF(tube)‖∞ on the coarse tube (both
    solutions lie in it; Gronwall). Intersected with the coarse tube, never wider."""
    bk = field.backend
    n, d = field.n, field.d
    N = n * d
    K = field.jacobian(tube.reshape(n, d), t_int)
    # Row sums of |DF| in interval arithmetic, one upper bound per row (cheaper than
    # N² rational bounds).
    L = max(bk.bounds(sum((abs(v) for v in row[1:]), abs(row[0])))[1] for row in K)
    dev = max(bk.abs_upper(v) for v in offset)
    # e^{Lh} ≤ 1/(1 − Lh) for Lh < 1; otherwise keep the coarse tube.
    if L * h >= Fraction(1, 2):
        return tube
    delta = dev / (1 - L * h)
    poly = _poly(field.backend, jP, bk.interval(Fraction(0), h)).reshape(N)
    out = np.empty(N, dtype=object)
    for i in range(N):
        (flo, fhi), (tlo, thi) = bk.bounds(poly[i] + remainder[i]), bk.bounds(tube[i])
        lo, hi = max(flo - delta, tlo), min(fhi + delta, thi)
        out[i] = bk.interval(lo, hi) if lo <= hi else tube[i]
    return out


def variational_bound(field: AttentionField, tube: np.ndarray, t_int: object,
                      h: Fraction) -> np.ndarray:
    """Enclosure of the flow's Jacobian ∂y(t0 + h)/∂y(t0) for trajectories in ``tube``.

    With K = DF(tube, t0 + [0, h]), find J_box with I + [0, h]·K·J_box ⊆ J_box; then
    J(s) ∈ J_box on [0, h] and J(h) ∈ I + h·K·J_box (Lemma I8).
    """
    bk = field.backend
    S = flow_jacobian_box(bk, field.jacobian(tube, t_int), h, iterations=6)
    if S is None:
        raise StepRejected("variational enclosure not validated", t=None, h=h, box=tube)
    return S


def flow_jacobian_box(bk: Backend, K: np.ndarray, h: Fraction, iterations: int
                      ) -> np.ndarray | None:
    """Lemma I8's fixed point: with K ⊇ DF over the tube and [0, h], find J_box with
    I + [0, h]·K·J_box ⊆ J_box (at most ``iterations`` inflations); return
    I + h·K·J_box ∋ DΦ(h), shape (N, N), or None when no J_box was validated."""
    I = bk.identity(K.shape[0])
    hK = K * bk.interval(Fraction(0), h)
    J = I + bk.matmul(hK, I)
    for _ in range(iterations):
        nxt = I + bk.matmul(hK, J)
        if all(bk.contains(a, b) for a, b in zip(J.flat, nxt.flat)):
            return I + bk.matmul(K * bk.const(h), J)
        grown = np.empty(J.shape, dtype=object)
        for idx, v in np.ndenumerate(nxt):
            w = bk.hull(J[idx], v)
            grown[idx] = w + (w - bk.mid_point(w)) / 4
        J = grown
    return None


def taylor_step(field: AttentionField, S: LohnerSet, t0: Fraction, h_max: Fraction,
                order: int, rho: Fraction, tol: Fraction,
                jacobian: str = "variational") -> StepResult:
    """One validated Taylor step of order ``order`` from time t0.

    The step h ≤ h_max is the largest dyadic (or h_max itself) for which the Cauchy
    remainder bound on the disk of radius ``rho`` is below ``tol`` (the rigorous
    remainder drives the step size), halved further while the variational Jacobian
    enclosure is wider than ``WRAP_TOL`` (wrapping control, Lemma I8).

    Raises
    ------
    StepRejected
        If the a-priori enclosure fails (no result is returned).
    """
    bk = field.backend
    n, d = field.n, field.d
    N = n * d
    Y = S.box_with_centre(bk).reshape(n, d)  # c ∈ Y: the expansion point (I7)
    leaders = field.leaders(Y, t0)
    c = S.c.reshape(n, d)
    pri = cauchy_apriori(field, Y, t0, rho, leaders, center=c)
    M = pri.M

    # Step from the remainder: M (h/ρ)^{K+1} / (1 − h/ρ) ≤ tol.
    m_max = max(M) if M else Fraction(0)
    q = Fraction(1, 2)
    while q > Fraction(1, 2 ** 30) and m_max * q ** (order + 1) / (1 - q) > tol:
        q /= 2
    # Refine on a grid of q/16 below 2q: the best q solves M q^{K+1} ≈ tol and lies
    # anywhere in (q, 2q); powers of 2 alone lose up to half the step (measured on the
    # (8, 3) benchmark: q = 1/4 on every step, where 5/16–3/8 pass).
    if q < Fraction(1, 2):
        for j in range(15, 0, -1):
            qj = q * (16 + j) / 16
            if m_max * qj ** (order + 1) / (1 - qj) <= tol:
                q = qj
                break
    h = min(h_max, rho * q)
    jP = field.jets(c, t0, order, leaders)
    # Neither depends on h: compute once, outside the wrapping-control loop.
    F0 = field.velocity(Y, t0, leaders).reshape(N) if jacobian != "taylor" else None
    side = bk.interval(-rho, rho)
    apriori = np.empty(N, dtype=object)  # Re(c + D·a + W) encloses y on [0, ρ]
    for i, v in enumerate(pri.hull(bk.complex_box(side, side)).flat):
        apriori[i] = bk.re_im(v)[0]
    while True:
        qh = h / rho
        factor = qh ** (order + 1) / (1 - qh)
        remainder = np.empty(N, dtype=object)
        for i, m in enumerate(M):
            remainder[i] = bk.interval(-m * factor, m * factor)

        # Point expansion at the centre (Taylor polynomial + Cauchy remainder), and the
        # mean-value form with an enclosure of the flow's Jacobian over the box (Lemma I7).
        hb = bk.const(h)
        T = _poly(bk, jP, hb).reshape(N)
        if not all(bk.is_finite(v) for v in T):
            raise StepRejected("non-finite Taylor polynomial", t=t0, h=h, box=Y)
        # The point coefficients carry rounding radii that grow like (score scale)^k with
        # the order (cancellation in the exp recurrence when P saturates); h^k damps them
        # only for short steps. Keep the polynomial's own radius below the tolerance too:
        # measured on (2, 2) at t = 2.5–2.8, h = 1/64 made it grow ×3 per step.
        if bk.max_rad(T) > tol and h > h_max / 2 ** 20:
            h = h / 2
            continue
        if jacobian == "taylor":
            _, dY = field.jets_with_tangents(Y, t0, order, leaders)
            dpoly = _poly(bk, dY, hb, start=1)  # (N, n, d): Σ_{j≥1} h^j ∂Z_j/∂y_q
            M_lin = bk.identity(N) + dpoly.reshape(N, N).T.copy()
            break
        # A real tube for τ ∈ [0, h]: y(τ) = y0 + τ f(y0) + Σ_{k≥2} c_k τ^k with
        # |c_k| ≤ M/ρ^k (Cauchy), so y(τ) ∈ Y + [0, h]·F(Y) + M q²/(1 − q)·[−1, 1].
        tail2 = qh * qh / (1 - qh)
        tube = np.empty(N, dtype=object)
        for i in range(N):
            tube[i] = Y.flat[i] + F0[i] * bk.interval(Fraction(0), h) + \
                bk.interval(-M[i] * tail2, M[i] * tail2)
        t_int = bk.interval(t0, t0 + h)
        tube = _tight_tube(field, tube, jP, remainder, (Y - c).reshape(N), t_int, h)
        apriori[:] = tube
        M_lin = variational_bound(field, tube.reshape(n, d), t_int, h)
        # The variational S is exact only to O(h²): its width multiplies the set at
        # every step. Shorten the step until that extra wrapping is below WRAP_TOL.
        # (a heuristic: floats; exact Fraction sums of N² radii were 6% of a step)
        wrap = max(sum(bk.rad_float(v) for v in row) for row in M_lin)
        if wrap <= WRAP_TOL or h <= h_max / 2 ** 20:
            break
        h = h / 2
    new = _lohner_update(bk, S, T, M_lin, remainder)
    if not all(bk.is_finite(v) for v in new.r):  # e.g. a denominator enclosure met 0
        raise StepRejected("non-finite enclosure", t=t0, h=h, box=Y)
    return StepResult(t0, h, order, S, new, apriori, remainder, rho, pri.W.reshape(N),
                      pri.velocity.reshape(N))


def map_step(field: AttentionField, S: LohnerSet, layer: int, dt: Fraction) -> StepResult:
    """One validated layer of the discrete map x⁺ = x + Δt P(x) X Vᵀ (Remark 1.1).

    Mean-value form: G(y) ∈ G(ĉ) + DG(Y)(y − ĉ) for y in the box Y (Lemma I7 with no
    remainder: the map is evaluated exactly in interval arithmetic).
    """
    bk = field.backend
    n, d = field.n, field.d
    N = n * d
    Y = S.box(bk).reshape(n, d)
    c = S.c.reshape(n, d)
    T = field.euler_map(c, dt).reshape(N)
    DG = field.euler_map_jacobian(Y, dt)
    new = _lohner_update(bk, S, T, DG, bk.zeros((N,)))
    t0 = dt * layer
    if not all(bk.is_finite(v) for v in new.r):
        raise ValidationError("non-finite enclosure", t=t0, h=dt, box=Y)
    return StepResult(t0, dt, 1, S, new, Y.reshape(N), bk.zeros((N,)))
