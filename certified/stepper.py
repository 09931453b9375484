"""One validated step: Taylor series, a-priori enclosure, rigorous remainder, QR-Lohner.

A step from a :class:`~certified.sets.LohnerSet` at time t0 with step h returns its
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

from .arith.base import Backend
from .errors import UndecidedError, ValidationError
from .field import AttentionField
from .sets import LohnerSet

__all__ = ["StepRejected", "StepResult", "cauchy_apriori", "taylor_step", "map_step"]

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
        The set at t0 and at t0 + h (enclosure contract of :mod:`certified.sets`).
    apriori : object array, shape (N,)
        A box containing the solution for every t ∈ [t0, t0 + h] (Lemma I6).
    remainder : object array, shape (N,)
        Enclosure of h^{K+1} times the coefficient K + 1 over the a-priori box.
    rho, complex_box : Fraction and object array, shape (N,)
        The half-side of the complex time square and the complex a-priori box of
        Lemma I6 (Taylor steps only): what an independent checker needs to replay it.
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
    Mf = backend.float_array(M)
    radii = np.array([float(backend.rad(x)) for x in r])
    order = np.argsort(-(np.linalg.norm(Mf, axis=0) * (radii + 1e-300)))
    Q, _ = np.linalg.qr(Mf[:, order])
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


def cauchy_apriori(field: AttentionField, Y: np.ndarray, t0: Fraction, rho: Fraction,
                   leaders: list[int]) -> tuple[np.ndarray, list[Fraction]]:
    """Complex a-priori enclosure on the square |Re τ|, |Im τ| ≤ ρ (Lemma I6).

    Finds a complex box C with Y + D·F(C, t0 + D) ⊂ int C, D the square. Then, for
    every initial state in Y, the solution is holomorphic on the disk |τ| < ρ with
    values in C, and its Taylor coefficients satisfy |c_k| ≤ M/ρ^k (k ≥ 1, Cauchy),
    M_i = sup{|w − y_i| : w ∈ C_i, y ∈ Y_i}.

    Returns
    -------
    C : object array, shape (n, d)
        The complex box (its real part encloses the real solution for τ ∈ [0, ρ]).
    M : list of Fraction, length N
        The Cauchy bounds.

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
    Yc = np.empty(Y.shape, dtype=object)
    for idx, v in np.ndenumerate(Y):
        Yc[idx] = bk.complex_box(v, zero)
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
        cand = inflate(Yc + field.velocity(Yc, tD, leaders) * D)
        for _ in range(8):
            test = Yc + field.velocity(cand, tD, leaders) * D
            if all(bk.c_contains_interior(cv, tv) for cv, tv in zip(cand.flat, test.flat)):
                M = [bk.abs_upper(cv - yv) for cv, yv in zip(cand.flat, Y.flat)]
                return cand, M
            grown = np.empty(test.shape, dtype=object)
            for idx, v in np.ndenumerate(test):
                grown[idx] = bk.c_hull(cand[idx], v)
            cand = inflate(grown)
    except (ZeroDivisionError, ValueError, ArithmeticError, UndecidedError):
        pass  # a denominator not bounded away from 0 (NaN/inf): the square is too large
    raise StepRejected("complex a-priori enclosure not validated", t=t0, h=rho, box=Y)


def variational_bound(field: AttentionField, tube: np.ndarray, t_int: object,
                      h: Fraction) -> np.ndarray:
    """Enclosure of the flow's Jacobian ∂y(t0 + h)/∂y(t0) for trajectories in ``tube``.

    With K = DF(tube, t0 + [0, h]), find J_box with I + [0, h]·K·J_box ⊆ J_box; then
    J(s) ∈ J_box on [0, h] and J(h) ∈ I + h·K·J_box (Lemma I8).
    """
    bk = field.backend
    N = tube.size
    K = field.jacobian(tube, t_int)
    I = bk.identity(N)
    hK = K * bk.interval(Fraction(0), h)
    J = I + bk.matmul(hK, I)
    for _ in range(6):
        nxt = I + bk.matmul(hK, J)
        if all(bk.contains(a, b) for a, b in zip(J.flat, nxt.flat)):
            return I + bk.matmul(K * bk.const(h), J)
        grown = np.empty(J.shape, dtype=object)
        for idx, v in np.ndenumerate(nxt):
            w = bk.hull(J[idx], v)
            grown[idx] = w + (w - bk.mid_point(w)) / 4
        J = grown
    raise StepRejected("variational enclosure not validated", t=None, h=h, box=tube)


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
    Y = S.box(bk).reshape(n, d)
    leaders = field.leaders(Y, t0)
    C, M = cauchy_apriori(field, Y, t0, rho, leaders)

    # Step from the remainder: M (h/ρ)^{K+1} / (1 − h/ρ) ≤ tol.
    m_max = max(M) if M else Fraction(0)
    q = Fraction(1, 2)
    while q > Fraction(1, 2 ** 30) and m_max * q ** (order + 1) / (1 - q) > tol:
        q /= 2
    h = min(h_max, rho * q)
    c = S.c.reshape(n, d)
    jP = field.jets(c, t0, order, leaders)
    # Neither depends on h: compute once, outside the wrapping-control loop.
    F0 = field.velocity(Y, t0, leaders).reshape(N) if jacobian != "taylor" else None
    apriori = np.empty(N, dtype=object)  # Re C encloses the real solution on [0, ρ]
    for i, v in enumerate(C.flat):
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
        if jacobian == "taylor":
            _, dY = field.jets_with_tangents(Y, t0, order, leaders)
            dpoly = _poly(bk, dY, hb, start=1)  # (N, n, d): Σ_{j≥1} h^j ∂Z_j/∂y_q
            M_lin = bk.identity(N) + dpoly.reshape(N, N).T.copy()
            break
        # A tight real tube for τ ∈ [0, h]: y(τ) = y0 + τ f(y0) + Σ_{k≥2} c_k τ^k with
        # |c_k| ≤ M/ρ^k (Cauchy), so y(τ) ∈ Y + [0, h]·F(Y) + M q²/(1 − q)·[−1, 1].
        tail2 = qh * qh / (1 - qh)
        tube = np.empty(N, dtype=object)
        for i in range(N):
            tube[i] = Y.flat[i] + F0[i] * bk.interval(Fraction(0), h) + \
                bk.interval(-M[i] * tail2, M[i] * tail2)
            apriori[i] = tube[i]
        M_lin = variational_bound(field, tube.reshape(n, d), bk.interval(t0, t0 + h), h)
        # The variational S is exact only to O(h²): its width multiplies the set at
        # every step. Shorten the step until that extra wrapping is below WRAP_TOL.
        wrap = max(sum(bk.rad(v) for v in row) for row in M_lin)
        if wrap <= WRAP_TOL or h <= h_max / 2 ** 20:
            break
        h = h / 2
    new = _lohner_update(bk, S, T, M_lin, remainder)
    if not all(bk.is_finite(v) for v in new.r):  # e.g. a denominator enclosure met 0
        raise StepRejected("non-finite enclosure", t=t0, h=h, box=Y)
    return StepResult(t0, h, order, S, new, apriori, remainder, rho, C.reshape(N))


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
