"""Replay of a defect step (Lemma I10 of ``integrator.md``; Lemma C20 of ``checker.md``).

A defect step stores no a-priori box. Its record gives what the producer *found* — the
disk radius ρ, the number m of pieces of [0, h], the tube half-width R, the Taylor order K
and a hint for the jets' guard bits — and the Lohner set it claims at t0 + h. The checker
re-derives everything else with its own arithmetic, from its own set at t0:

1. its own jets at the centre c (Lemmas C1, C15), at the certificate's scale plus the
   hinted guard bits; p is the polynomial of their exact midpoints (in s = τ/h);
2. holomorphy: a cover of the disk |σ| ≤ ρ by complex boxes on each of which the
   attention's interval evaluation divides by no ball containing 0;
3. the defect's bound M on the circle |σ| = ρ from arc boxes;
4. the real-axis bootstrap over the m pieces (tubes, Jacobians, μ∞, e_j, g_j < R);
5. the pieces' variational enclosures (Lemma C5) and their product S;
6. the Lohner update (Lemma C4) with T ∋ p(h), remainder e_m, and the containment in the
   stored set.

Nothing of the producer is read but the record; a wrong ρ, m or R only makes a step fail.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .balls import Ball, BallError, scale, scaled
from .dynamics import Field, Jets, zero_diagonal
from .elementary import pi_scaled
from .errors import CheckFailure
from .fballs import FB, FC, bilinear, ccontract, exp_bounds, fconst, finterval, from_balls, \
    from_ends, lower, nx, up, upper
from .lohner import (TOL_FRACTION, LohnerSet, _coords, _lohner_check, centre_value,
                     parse_set, variational_many)

__all__ = ["check_defect_step"]

#: The disk's cover: a DISK_START × DISK_START grid of the square [−ρ, ρ]², boxes halved
#: where the attention cannot be evaluated, at most DISK_DEPTH times (choices of work).
DISK_START, DISK_DEPTH = 4, 7
#: At most this many boxes are evaluated for one disk, so that a record with too large a ρ
#: is refused in seconds, not minutes (a choice of work). The producer's own cover
#: (depth ≤ 5, given up at depth 1 where 60% fail) evaluates at most 16 + 64 + 152 + 608
#: + 2432 + 9728 = 13,000 boxes; the certificates of the test suite need at most 1,048 here.
#: A ρ doubled on one record of a three-token run needed 120,964 boxes and 41–120 s.
DISK_BOXES = 16384
#: The circle: ARCS arcs, each halved at most ARC_DEPTH times.
ARCS, ARC_DEPTH = 32, 6
#: Largest number of guard bits taken from a record's hint (more only costs time).
MAX_GUARD = 1024
#: Guard bits of the checker's second try where the stored ones do not suffice (the
#: producer's guard bits reached 368 before its jets kept the shift column exact).
RETRY_GUARD = 384


def _pi() -> tuple[Fraction, Fraction]:
    """Rationals π_lo ≤ π ≤ π_hi (80 bits, a series on integers: Lemma C1e)."""
    lo, hi = pi_scaled(80)
    return Fraction(lo, 1 << 80), Fraction(hi, 1 << 80)


class _Poly:
    """p(σ) = Σ_k p̂_k (σ/h)^k with balls ``Phat`` (K + 1, n, d) containing p̂_k = h^k p_k;
    :meth:`at` encloses p, p′ and the token differences p_j − p_l on a complex box of s."""

    def __init__(self, Phat: FB, h: Fraction) -> None:
        K1, n, d = Phat.shape
        self.K, self.n, self.d = K1 - 1, n, d
        self.P = Phat.reshape(K1, n * d)
        ks = np.arange(1, K1, dtype=np.float64).reshape(-1, 1)
        self.dP = self.P[1:] * FB(ks)  # (k + 1)·p̂_{k+1}: exact small integers
        Q = Phat.reshape(K1, 1, n, d) - Phat.reshape(K1, n, 1, d)  # Q[k, l, j] ∋ p̂_kj − p̂_kl
        self.Q = Q.reshape(K1, n * n * d)
        self.inv_h = fconst(1 / h)

    def at(self, s: FC) -> tuple[FC, FC, FC]:
        """Enclosures of p(σ), p′(σ) (B, n, d) and of p_j(σ) − p_l(σ) at [b, l, j]
        (B, n, n, d, zero where j = l) for every σ = h·s, s in the boxes s (B,)."""
        K, n, d = self.K, self.n, self.d
        B = s.shape[0]
        re, im = np.zeros((B, K + 1)), np.zeros((B, K + 1))
        rr, ri = np.zeros((B, K + 1)), np.zeros((B, K + 1))
        w = FC(FB(np.ones(B)), FB(np.zeros(B)))
        for k in range(K + 1):  # s^k ∋ σ^k/h^k for every point of the box
            re[:, k], rr[:, k], im[:, k], ri[:, k] = w.re.m, w.re.r, w.im.m, w.im.r
            if k < K:
                w = w * s
        pw = FC(FB(re, rr), FB(im, ri))
        Z = ccontract(np.matmul, pw, self.P, K + 1).reshape(B, n, d)
        dZ = ccontract(np.matmul, pw[:, :K], self.dP, K) * self.inv_h
        D = ccontract(np.matmul, pw, self.Q, K + 1).reshape(B, n, n, d)
        return Z, dZ.reshape(B, n, d), zero_diagonal(D)


def _row_exps(field: Field, Z: FC, c: FC, D: FC) -> tuple[FC, FC]:
    """(E, Σ) on complex boxes: E[b, i, k] ∋ exp(c·z_iᵀB(z_k − z_l)) (B, n, n) and the row
    sums Σ[b, i] = Σ_k E[b, i, k] (B, n), for Z (B, n, d), differences D (B, n, n, d)
    (D[b, l, k] ∋ z_k − z_l, zero where k = l) and score factors c (B,) or (). l = l_{b,i}
    is a column of largest real score at the box's midpoint, a choice: any l gives
    P_ik = E_ik/Σ_i exactly (the factor e^{−s_il} cancels). NaN or inf where the
    evaluation fails."""
    d = field.d
    G = ccontract(np.matmul, Z, field.Bf, d)  # rows z_iᵀB, (B, n, d)
    with np.errstate(all="ignore"):
        mid = G.re.m @ Z.re.m.transpose(0, 2, 1) - G.im.m @ Z.im.m.transpose(0, 2, 1)
        lead = np.argmax(np.nan_to_num(mid, nan=-np.inf), axis=2)  # (B, n)
        b = np.arange(Z.shape[0]).reshape(-1, 1)
        Dl = D[b, lead]  # (B, n, n, d): Dl[b, i, k] ∋ z_k − z_{l_i}
        cb = c.reshape(-1, 1, 1) if c.shape != () else c
        U = ccontract(lambda g, x: np.einsum("bia,bika->bik", g, x), G, Dl, d) * cb
        E = U.exp()
        return E, E.sum(axis=2)


def _row_sums_nonzero(field: Field, Z: FC, c: FC, D: FC) -> np.ndarray:
    """For each box b: True if, for every row i, the enclosure of the row sum of
    :func:`_row_exps` has a real or an imaginary part of one sign (so excludes 0)."""
    _, s = _row_exps(field, Z, c, D)
    with np.errstate(all="ignore"):
        ok = (s.re.lo() > 0) | (s.re.hi() < 0) | (s.im.lo() > 0) | (s.im.hi() < 0)  # NaN: no
    return np.all(ok, axis=1)


def _velocities(field: Field, Z: FC, c: FC, D: FC) -> tuple[FC, np.ndarray]:
    """F(z) on B complex boxes at once (Lemma C2 with one divisor per row): (F (B, n, d),
    ok (B,)), ok[b] False where some row sum's enclosure may contain 0 or the evaluation
    is not finite (that box's F is then meaningless)."""
    n = field.n
    E, s = _row_exps(field, Z, c, D)
    with np.errstate(all="ignore"):
        sq = (s.re.sqr() + s.im.sqr()).lo()
        good = (sq > 0) & np.isfinite(sq)  # (B, n): |Σ|² proved positive
        ok = np.all(good, axis=1)
        safe = FC(FB(np.where(good, s.re.m, 1.0), np.where(good, s.re.r, 0.0)),
                  FB(np.where(good, s.im.m, 0.0), np.where(good, s.im.r, 0.0)))
        P = E * safe.recip().reshape(-1, n, 1)  # (B, n, n)
        F = field.from_attention(P, Z, D)
    return F, ok


def _disk(field: Field, poly: _Poly, t0: Fraction, h: Fraction, rho: Fraction,
          where: str) -> int:
    """Item 3 of Lemma I10: every softmax row sum is non-zero on a cover of |σ| ≤ ρ by
    complex boxes (a grid of the square, failed boxes quartered, level by level, at most
    DISK_BOXES boxes in all). Returns the number of boxes evaluated; raises
    :class:`CheckFailure`."""
    side = 2 * rho / DISK_START
    level = [(-rho + a * side, -rho + (a + 1) * side, -rho + b * side, -rho + (b + 1) * side)
             for a in range(DISK_START) for b in range(DISK_START)]
    count = 0
    for depth in range(DISK_DEPTH + 1):
        live = []
        for x0, x1, y0, y1 in level:
            dx = Fraction(0) if x0 <= 0 <= x1 else min(abs(x0), abs(x1))
            dy = Fraction(0) if y0 <= 0 <= y1 else min(abs(y0), abs(y1))
            if dx * dx + dy * dy <= rho * rho:  # exact: else the box misses the disk
                live.append((x0, x1, y0, y1))
        if not live:
            return count
        if count + len(live) > DISK_BOXES:
            raise CheckFailure(where + ".rho", "a disk |σ| ≤ rho on which every softmax row "
                               f"sum is proved non-zero with at most {DISK_BOXES} boxes "
                               "(Lemma C20)", f"{count + len(live)} boxes by depth {depth}")
        count += len(live)
        s = FC(finterval([(x0 / h, x1 / h) for x0, x1, _, _ in live]),
               finterval([(y0 / h, y1 / h) for _, _, y0, y1 in live]))
        t = FC(finterval([(t0 + x0, t0 + x1) for x0, x1, _, _ in live]),
               finterval([(y0, y1) for _, _, y0, y1 in live]))
        Z, _, D = poly.at(s)
        ok = _row_sums_nonzero(field, Z, field.score_factor(t), D)
        level = []
        for box, good in zip(live, ok):
            if good:
                continue
            x0, x1, y0, y1 = box
            if depth == DISK_DEPTH:
                raise CheckFailure(where + ".rho", "a disk |σ| ≤ rho on which every softmax "
                                   "row sum is proved non-zero (Lemma C20)",
                                   f"a box [{float(x0):.3g}, {float(x1):.3g}] + "
                                   f"i[{float(y0):.3g}, {float(y1):.3g}] that fails at "
                                   f"depth {DISK_DEPTH}")
            xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
            level += [(x0, xm, y0, ym), (xm, x1, y0, ym), (x0, xm, ym, y1), (xm, x1, ym, y1)]
    return count


def _circle(field: Field, poly: _Poly, t0: Fraction, h: Fraction, rho: Fraction,
            where: str, arcs: int = ARCS) -> np.ndarray:
    """Item 4 of Lemma I10: floats M_i ≥ sup_{|σ|=ρ} |p_i′(σ) − F_i(p(σ), t0 + σ)| from arc
    boxes (an arc whose evaluation fails is halved, level by level)."""
    N = poly.n * poly.d
    pi_lo, pi_hi = _pi()
    r_s, r_t, t0f = fconst(rho / h), fconst(rho), fconst(t0)
    M = np.zeros(N)
    level = [(Fraction(j, arcs), Fraction(j + 1, arcs)) for j in range(arcs)]
    for depth in range(ARC_DEPTH + 1):
        if not level:
            return M
        theta = from_ends(np.array([lower(2 * pi_lo * a) for a, _ in level]),
                          np.array([upper(2 * pi_hi * b) for _, b in level]))
        cos, sin = theta.cos_sin()  # ⊇ {e^{iθ} : θ ∈ [2πa, 2πb]}
        Z, dZ, D = poly.at(FC(cos * r_s, sin * r_s))
        cfac = field.score_factor(FC(t0f + cos * r_t, sin * r_t))
        F, ok = _velocities(field, Z, cfac, D)
        with np.errstate(all="ignore"):
            mag = (dZ - F).reshape(len(level), N).mag()
        ok &= np.all(np.isfinite(mag), axis=1)
        if np.any(ok):
            M = np.maximum(M, mag[ok].max(axis=0))
        failed = [arc for arc, good in zip(level, ok) if not good]
        if failed and depth == ARC_DEPTH:
            a, b = failed[0]
            raise CheckFailure(where + ".rho", "the defect p′ − F(p) finite on the circle "
                               "|σ| = rho (Lemma C20)",
                               f"an arc θ ∈ 2π[{float(a):.4g}, {float(b):.4g}] that fails "
                               f"at depth {ARC_DEPTH}")
        level = [half for a, b in failed for half in ((a, (a + b) / 2), ((a + b) / 2, b))]
    return M


def _times_pow2_up(x: np.ndarray | float, e: int) -> np.ndarray:
    """Floats ≥ 2^e·x for floats x ≥ 0: exact for e ≥ 0 (up to overflow, which gives inf
    and fails every later test); for e < 0 an underflow is covered by :func:`up`."""
    y = np.ldexp(x, e)
    return y if e >= 0 else up(y, 1)


def _horner_up(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Floats ≥ Σ_k a_k x^k for nonnegative floats a (K, N) and x (m, 1) (every rounded
    operation bracketed above by the next float, Lemma C13b; all terms are ≥ 0)."""
    acc = np.broadcast_to(a[-1], (x.shape[0], a.shape[1])).copy()
    for k in range(a.shape[0] - 2, -1, -1):
        acc = nx(nx(acc * x) + a[k])
    return acc


def _defect_bounds(a_s: np.ndarray, M_s: np.ndarray, h: Fraction, rho: Fraction,
                   m: int) -> np.ndarray:
    """Item 4's Δ at the pieces' right ends τ_{j+1} = (j + 1)h/m, shape (m,): floats
    ≥ max_i [(1/h)Σ_k â_{k,i}s^k + (τ/ρ)^K (M_i + (1/h)Σ_k â_{k,i}(ρ/h)^k)] with s = τ/h,
    for floats â (K, N) ≥ 0 and M (N,) ≥ 0 (every rounding upward, Lemma C13b)."""
    K = a_s.shape[0]
    inv_h = upper(1 / h)
    s_ends = np.array([upper(Fraction(j + 1, m)) for j in range(m)]).reshape(m, 1)
    low = nx(inv_h * _horner_up(a_s, s_ends))  # (m, N): Σ_k d_k τ_{j+1}^k
    ring = nx(M_s + nx(inv_h * _horner_up(a_s, np.array([[upper(rho / h)]]))[0]))
    q = np.array([upper((h * Fraction(j + 1, m) / rho) ** K) for j in range(m)]).reshape(m, 1)
    return np.max(nx(low + nx(q * ring)), axis=1)


def _log_norms(J: FB) -> np.ndarray:
    """μ_j ≥ max_i (sup J_ii + Σ_{l≠i} |J_il|) for each piece's Jacobian J (m, N, N) (the
    logarithmic ∞-norm over the ball; row sums rounded up); NaN where J is not finite."""
    N = J.shape[-1]
    eye = np.eye(N, dtype=bool)
    off = up(np.where(eye, 0.0, J.mag()).sum(axis=-1), N)
    with np.errstate(invalid="ignore"):
        return np.max(nx(np.diagonal(J.hi(), axis1=1, axis2=2) + off), axis=1)


def _bootstrap(Delta: np.ndarray, mu: np.ndarray, w_up: float, g: float,
               R_lo: float) -> tuple[float, float, int | None]:
    """Item 4's recursion over the pieces: e_{j+1} ≥ (e_j + Δ_j w)e^{μ_j⁺w},
    g_{j+1} ≥ g_j e^{μ_j⁺w} from e_0 = 0 and g_0 = g (C14's upper end of e^x, every
    operation rounded up). Returns (e_m, g_m, None), or (e_j, g_j, j) at the first piece
    j with e_j + g_j ≥ R_lo (or NaN)."""
    grow = exp_bounds(nx(np.maximum(mu, 0.0) * w_up))[1]  # ≥ e^{μ⁺w}, per piece
    e = 0.0
    for j in range(len(Delta)):
        e = float(nx(nx(e + nx(Delta[j] * w_up)) * grow[j]))
        g = float(nx(g * grow[j]))
        if not nx(e + g) < R_lo:
            return e, g, j
    return e, g, None


def _tubes(Phat: FB, m: int, R: Fraction) -> FB:
    """The tubes p([τ_j, τ_{j+1}]) + [−R, R] of the m pieces, shape (m, n, d) (Horner on
    the real intervals of s = τ/h; item 4 of Lemma C20)."""
    K = Phat.shape[0] - 1
    s_int = finterval([(Fraction(j, m), Fraction(j + 1, m)) for j in range(m)]).reshape(m, 1, 1)
    acc = Phat[K:K + 1] * FB(np.ones((m, 1, 1)))
    for k in range(K - 1, -1, -1):
        acc = acc * s_int + Phat[k:k + 1]
    return acc.widen(upper(R))


def _pieces(field: Field, Phat: FB, a_hat: np.ndarray, M: np.ndarray, t0: Fraction,
            h: Fraction, rho: Fraction, m: int, R: Fraction, r0: float,
            where: str) -> tuple[Fraction, FB]:
    """Items 5–8 of Lemma I10: (e_m as an exact rational, S = S_{m−1}⋯S_0).

    a_hat[k, i] ≥ (k + 1)·h^{k+1}·rad Z_{k+1,i} (so d_{k,i}τ^k = a_hat[k, i]·s^k/h). The
    bootstrap runs in binary64 scaled by 2^−E (E = ⌊log₂ R⌋; scaling by a power of two is
    exact but for underflow, rounded up), so that quantities of any precision stay far
    from underflow."""
    N = field.n * field.d
    E = R.numerator.bit_length() - R.denominator.bit_length()
    two_E = Fraction(2) ** E
    R_lo = lower(R / two_E)
    a_s = _times_pow2_up(a_hat, -E)  # upper bounds (floats ≥ 0)
    M_s = _times_pow2_up(M, -E)
    g = float(_times_pow2_up(np.float64(r0), -E))
    if not g < R_lo:
        raise CheckFailure(where + ".R", f"R > sup ‖y − c‖ over the set ({r0:.3g})", str(R))
    w = h / m
    w_up = upper(w)
    Delta = _defect_bounds(a_s, M_s, h, rho, m)  # Δ(τ_{j+1}) (item 5), scaled
    tubes = _tubes(Phat, m, R)
    # Every piece's Jacobian at once (the bootstrap below decides whether they count)
    cfac = field.score_factor(finterval([(t0 + w * j, t0 + w * (j + 1)) for j in range(m)]))
    J = field.jacobian(tubes, cfac)  # (m, N, N)
    mu = _log_norms(J)
    bad = np.nonzero(~np.isfinite(mu))[0]
    if bad.size:
        raise CheckFailure(where, "a finite Jacobian on every tube piece (Lemma C20)",
                           f"a non-finite one on piece {int(bad[0])}")
    e, g, fail = _bootstrap(Delta, mu, w_up, g, R_lo)
    if fail is not None:  # (NaN: fails)
        raise CheckFailure(where + ".R", "the bootstrap e_j + g_j < R on every piece "
                           "(Lemma C20)", f"e + g = {float(e + g) * float(two_E):.3g} "
                           f"≥ R = {float(R):.3g} on piece {fail}")
    Sj = variational_many(J, w, where)  # (m, N, N)
    S = Sj[0]
    for j in range(1, m):
        S = bilinear(np.matmul, Sj[j], S, N)
    return Fraction(e) * two_E, S


def _high(c: np.ndarray, g: int) -> np.ndarray:
    """Exact balls at scale P + g from balls at scale P."""
    return np.array([Ball(b.m << g, b.r << g) for b in c.flat], dtype=object).reshape(c.shape)


def _low(x: np.ndarray, g: int) -> np.ndarray:
    """Balls at scale P containing balls at scale P + g (floor of the midpoint)."""
    return np.array([Ball(b.m >> g, -((-b.r) >> g) + 1) for b in x.flat],
                    dtype=object).reshape(x.shape)


def _polynomial(jets: Jets, h: Fraction) -> tuple[FB, np.ndarray]:
    """(p̂, rad): binary64 balls p̂ (K + 1, n, d) containing h^k p_k, where p_k is the exact
    midpoint of the exact jet Z_k (k ≤ k₁) and h^k p_k the binary64 midpoint of the
    continuation's ball (k > k₁), and floats rad (K + 1, N) ≥ h^k rad Z_k.

    p is a polynomial of points: only the conversions' roundings (≈ 2⁻⁵³ of each
    coefficient) widen p̂, never the jets' radii, which grow with the order and, times
    (ρ/h)^k on the disk, would swamp its boxes. The radii enter only the defect's
    coefficients (item 1 of Lemma C20)."""
    k1 = len(jets.exact)
    n, d = jets.exact[0].shape
    hp = fconst([h ** k for k in range(k1)]).reshape(-1, 1, 1)
    mids = np.array([[Ball(b.m, 0) for b in Zk.flat] for Zk in jets.exact], dtype=object)
    rads = np.array([[Ball(0, b.r) for b in Zk.flat] for Zk in jets.exact], dtype=object)
    head = from_balls(mids).reshape(k1, n, d) * hp
    rad = (from_balls(rads).reshape(k1, n, d) * hp).mag().reshape(k1, n * d)
    if jets.tail is None:
        return head, rad
    tm = jets.tail.m
    Phat = FB(np.concatenate([head.m, tm]), np.concatenate([head.r, np.zeros_like(tm)]))
    return Phat, np.concatenate([rad, jets.tail.r.reshape(-1, n * d)])


def check_defect_step(field: Field, S: LohnerSet, t0: Fraction, h: Fraction, rec: dict,
                      where: str) -> LohnerSet:
    """Verify a defect step's record ``rec`` from the checker's own set S at t0 (Lemma C20)
    and return the checker's set at t0 + h in the stored coordinates."""
    n, d = field.n, field.d
    N = n * d
    try:
        K, rho, m, R = int(rec["order"]), Fraction(rec["rho"]), int(rec["pieces"]), \
            Fraction(rec["R"])
        guard = min(max(int(rec["guard_bits"]), 0), MAX_GUARD)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise CheckFailure(where, "a defect record (order, rho, pieces, R, guard_bits)",
                           repr(exc)) from None
    if not (0 < h < rho):
        raise CheckFailure(where, "0 < h < rho", f"h = {h}, rho = {rho}")
    if not (R > 0 and 1 <= m <= 4096 and 1 <= K):
        raise CheckFailure(where, "R > 0, 1 ≤ pieces ≤ 4096, order ≥ 1",
                           f"R = {R}, pieces = {m}, order = {K}")
    out = parse_set(rec["set"], N, where + ".set")
    rs, e0 = _coords(S)
    # Y − c ⊇ A·hull(r, 0): the set and its centre (Lemma C4); r0 ≥ sup ‖y − c‖∞
    Y0 = bilinear(lambda A, x: A @ x, S.binary64_A(), rs.union(FB(np.zeros(N))), N).scaled(-e0)
    r0 = float(np.max(Y0.mag()))
    # The polynomial starts at p₀ = the centre ball's midpoint, not at the centre c itself
    # when the stored c is not a number of the scale (its ball then has a radius): every
    # y of the set lies within r0 + δ of p₀, and y − p₀ = A·ρ + (c − p₀), whose second term
    # the update adds as ‖S‖∞·δ to the remainder (Lemma C20, item 1).
    dc = max(b.r for b in S.c.flat)
    delta = upper(Fraction(dc, 2 ** scale())) if dc else 0.0
    r0 = float(nx(r0 + delta)) if dc else r0
    # The binary64 continuation (Lemma C15) is kept only where its own radius is below
    # this fraction of the narrowest stored radius, as in a Picard step's replay.
    tol = TOL_FRACTION * float(min(b - a_ for a_, b in out.rq)) / 2

    def polynomial(g: int) -> tuple:
        """Items 1–2 at P + g bits: the jets, p̂, â and the centre's value; the disk."""
        with scaled(scale() + g):  # the jets and their exact parts at P + g bits
            jets = field.jets(_high(S.c, g).reshape(n, d), t0, K, h, tol)
            if jets.order != K:
                raise CheckFailure(where + ".order", str(K), str(jets.order))
            Phat, rad_all = _polynomial(jets, h)
            acc, tail = centre_value(jets, h)
            acc = _low(acc, g)
        ks = np.arange(1, K + 1, dtype=np.float64).reshape(-1, 1)
        a_hat = nx(rad_all[1:] * ks)  # (k + 1)·h^{k+1} rad Z_{k+1}, k = 0 … K − 1
        poly = _Poly(Phat, h)
        _disk(field, poly, t0, h, rho, where)
        return Phat, a_hat, poly, (acc, tail)

    def attempt(data: tuple, arcs: int) -> LohnerSet:
        """Items 3–5 with ``arcs`` arcs on the circle, and the Lohner update."""
        Phat, a_hat, poly, centre = data
        M = _circle(field, poly, t0, h, rho, where, arcs)
        e, Slin = _pieces(field, Phat, a_hat, M, t0, h, rho, m, R, r0, where)
        if dc:  # + ‖S‖∞·|c − p₀| (row sums of |S| rounded up)
            e += Fraction(float(np.max(up(Slin.mag().sum(axis=1), N)))) * Fraction(delta)
        return _lohner_check(S, rs, e0, None, h, np.ones(N), e, Slin, out, where,
                             centre=centre)
    # The circle's bound M enters the remainder e, which is most of a set's radius when
    # the tokens start exact: where the stored set is too tight for the checker's M from
    # ARCS arcs, the step is checked again with 4 × ARCS (a tighter M; measured: 24 arcs
    # instead of 32 failed a valid certificate at its 5th step). The stored guard bits
    # are the producer's (a hint): the checker's fixed-point jets lose more to columns
    # whose exponential is far below 1 than Arb's floating balls do, so where the stored
    # bits do not suffice it tries again with at least RETRY_GUARD (any precision is
    # rigorous; only the work grows). The jets and the disk are derived once per number
    # of guard bits; the last try's failure is the report.
    guards = [guard] + ([RETRY_GUARD] if guard < RETRY_GUARD else [])
    for g in guards:
        last = g == guards[-1]
        try:
            data = polynomial(g)
        except (CheckFailure, BallError):
            if last:
                raise
            continue
        for arcs in (ARCS, 4 * ARCS):
            try:
                return attempt(data, arcs)
            except (CheckFailure, BallError):
                if last and arcs == 4 * ARCS:
                    raise
    raise AssertionError("unreachable: the last try returns or raises")
