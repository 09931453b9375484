"""The attention vector field, re-implemented for the checker.

V = λI, rescaled variable z (``variable="z"``): ż_i = λ Σ_j P_ij (z_j − z_i) with
P_ij = softmax_j(c(t)·z_iᵀBz_j), c(t) = e^{2λt}. Original variable x: ẋ_i = V Σ_j P_ij x_j,
c ≡ 1, for V = λI or any rational matrix V (``V=``; only in x, where no e^{tV} enters).
Independent of :mod:`certified.enclose.field`.

Two arithmetics, chosen by what each quantity needs (``proofs_notes/checker.md``):

* boxes — the Picard test, the tube, the Jacobian — are :class:`~.fballs.FB` /
  :class:`~.fballs.FC` binary64 balls, vectorized over tokens (Lemmas C2, C13, C14):
  they are 10⁻³ wide, so 16 digits of their own size suffice;
* the Taylor coefficients at the set's centre, whose sum must be known to the
  certificate's precision, are exact integer balls (:mod:`.balls`, Lemmas C1, C1f) for
  the low orders, continued in binary64 once a coefficient times h^k is below what the
  check needs (Lemma C15).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .balls import (
    Ball,
    ExactRadii,
    const,
    exp_up,
    mpf_fraction,
    mpf_up,
    mul_up,
    one,
    scale,
    with_radii,
)
from .fballs import (
    ETA,
    FB,
    FC,
    add_parts,
    bilinear,
    bilinear_parts,
    ccontract,
    fconst,
    from_balls,
    mul_parts,
    sum_parts,
    up,
)

__all__ = ["Field", "Jets", "pairwise", "zero_diagonal"]

#: Try the binary64 tail once max|Z_k|h^k ≤ HANDOVER·tol (two orders in a row); it is
#: kept only if its own radius is ≤ tol (on (8, 3) steps its radius is ≈ 2⁻⁵⁸ of the last
#: exact coefficient, on Remark 7.9's near-coinciding tokens ≈ 2⁻⁴³). Only the work
#: depends on it, never the rigor (Lemma C15).
HANDOVER = 2.0 ** 50


def _int_balls(m: np.ndarray, r: np.ndarray, P: int, R: ExactRadii) -> FB:
    """Binary64 balls containing (m ± r)·2^−P for integer midpoints m and radius bounds r
    in R's representation (integers, or binary64 bounds of Lemma C1f): float() and ldexp
    round at most twice, so 4u|m| plus the inflation of :func:`~.fballs.up` covers them,
    and ETA an underflow of either (Lemma C13)."""
    mf = np.ldexp(np.asarray(m, dtype=object).astype(np.float64), -P)
    rf = R.absolute(r, P)
    return FB(mf, up(rf + 4 * 2.0 ** -53 * np.abs(mf) + ETA, 4))


class _FarOverflow(ArithmeticError):
    """A far column's majorant left binary64's range (the jets are then recomputed
    without it)."""


#: A column is far when e^{U_0} < 2^−P·e^{−FAR_MARGIN}: below one unit of the scale.
FAR_MARGIN = 40


def _far_columns(Um0: np.ndarray, ur0: np.ndarray, lead: np.ndarray, P: int
                 ) -> np.ndarray | None:
    """The entries (i, j), j ≠ l_i, whose shifted score U_0 is below −(P·ln 2 + FAR_MARGIN)
    (a choice only: any set of entries may be bounded by the majorant); None if none."""
    n = Um0.shape[0]

    def flt(q: Fraction) -> float:  # beyond binary64: ±inf keeps the comparison right
        try:
            return float(q)
        except OverflowError:
            return math.inf if q > 0 else -math.inf
    hi = np.array([[flt(Fraction(int(Um0[i, j]) + int(ur0[i, j]), 1 << P))
                    for j in range(n)] for i in range(n)])
    far = hi < -(P * math.log(2) + FAR_MARGIN)
    far[np.arange(n), lead] = False
    return far if far.any() else None


def _far_start(Um0: np.ndarray, ur0: np.ndarray, far: np.ndarray, P: int) -> np.ndarray:
    """Floats F_0 ≥ e^{hi U_0}·2^P on the far entries, 0 elsewhere: the smallest subnormal
    where hi U_0/ln 2 + P < −1080 (then F_0 < 2^−1080), else mpmath rounded up and capped
    by 10^−16 > e^{−39} (a far entry has e^{hi U_0}·2^P < e^{−39}: the float test of
    :func:`_far_columns` is off by a relative 2^−52 at most)."""
    out = np.zeros(far.shape)
    for i, j in zip(*np.nonzero(far)):
        hi = Fraction(int(Um0[i, j]) + int(ur0[i, j]), 1 << P)
        if hi < -(P + 1080) * Fraction(7, 10):  # ln 2 > 7/10: hi/ln 2 + P < −1080
            out[i, j] = np.nextafter(0.0, 1.0)
            continue
        e = mul_up(exp_up(mpf_up(hi)), mpf_up(Fraction(1 << P)))
        out[i, j] = np.nextafter(float(mpf_fraction(e, Fraction(1, 10 ** 16))), np.inf)
    return out


def _re(x):
    return x.re if isinstance(x, FC) else x


def pairwise(Z):
    """D[…, k, j] ∋ z_j − z_k for the box Z (…, n, d), with D[…, k, k] = 0 exactly (z_k − z_k
    is 0 for every state, not a ball of twice the radius)."""
    D = Z[..., None, :, :] - Z[..., :, None, :]
    return zero_diagonal(D)


def zero_diagonal(D):
    """D with D[..., k, k, :] = 0 exactly (a difference of a token with itself), for D of
    shape (n, n, d) or with leading batch axes (…, n, n, d)."""
    k = np.arange(D.shape[-2])
    for part in ((D.re, D.im) if isinstance(D, FC) else (D,)):
        part.m = part.m.copy()
        part.r = np.array(part.r)
        part.m[..., k, k, :] = 0.0
        part.r[..., k, k, :] = 0.0
    return D


class Field:
    """F(y, t) for V = λI (or a rational matrix V in x) and a rational B.

    Parameters
    ----------
    lam : Fraction or None
        λ when V = λI; None with ``V`` given.
    B : list of list of Fraction, d×d
    variable : {"z", "x"}
    V : list of list of Fraction, optional
        A general value matrix (variable "x" only).
    """

    def __init__(self, lam: Fraction | None, B: list[list[Fraction]], n: int, variable: str,
                 V: list[list[Fraction]] | None = None) -> None:
        if (lam is None) == (V is None) or (V is not None and variable != "x"):
            raise ValueError("Field needs either λ, or a matrix V with variable 'x'")
        self.lam, self.n, self.d, self.variable = lam, n, len(B), variable
        self.Bq = [[Fraction(x) for x in row] for row in B]
        self.Vq = None if V is None else [[Fraction(x) for x in row] for row in V]
        # binary64 balls of the data (re-made if the scale changes: they do not depend on it)
        self.Bf = fconst(self.Bq)
        self.VTf = None if V is None else fconst([list(col) for col in zip(*self.Vq)])
        self.lamf = None if lam is None else fconst(lam)
        self.two_lamf = None if lam is None else fconst(2 * lam)

    # -- binary64 boxes (Lemma C2) ----------------------------------------------------------
    def score_factor(self, t):
        """c(t) = e^{2λt} (z) or 1 (x), for a real or complex ball t of shape ()."""
        if self.variable == "x":
            return FB(1.0)
        return (t * self.two_lamf).exp()

    def attention(self, Z, c, D):
        """P over the box Z (n, d) for the score factor c, with D (n, n, d) enclosing
        D[k, j] ∋ z_j − z_k for every state meant (D[k, k] = 0; the Picard test passes the
        tighter differences of its affine candidate, Lemma C3).

        With l_i a column of (approximately) largest score and U_ij = c·z_iᵀB(z_j − z_{l_i}),
        columns near the maximum use P_ij = 1 / Σ_k exp(c·z_iᵀB(z_k − z_j)) (one reciprocal,
        no shared numerator: tight on wide and complex boxes), the others
        P_ij = e^{U_ij} / Σ_k e^{U_ik} (a tiny numerator is tight). Both are exact
        identities, so the choice only affects widths (Lemma C2). (The defect step's
        circle uses the second form for every column, with a failure per box instead of an
        exception: ``defect._velocities``.)

        Every argument may carry leading batch axes (…, n, d), c then (…) (one box each).
        """
        n, d = self.n, self.d
        batch = Z.shape[:-2]
        G = ccontract(np.matmul, Z, self.Bf, d)  # rows z_iᵀB
        # raw[…, i, j, k] ∋ c·z_iᵀB(z_k − z_j) = c·Σ_a G[…, i, a] D[…, j, k, a]
        raw = ccontract(lambda g, x: np.einsum("...ia,...jka->...ijk", g, x), G, D, d) * \
            (c.reshape(batch + (1, 1, 1)) if c.shape != () else c)
        with np.errstate(invalid="ignore"):
            lead = np.argmax(np.nan_to_num(_re(raw).m[..., :, 0, :], nan=-np.inf), axis=-1)
        # U[…, i, j] ∋ c·z_iᵀB(z_j − z_lead): raw at j = lead, picked by index arrays
        idx = np.indices(batch + (n,))
        U = raw[tuple(idx) + (lead,)]
        cols = np.arange(n)
        near = (cols == lead[..., None]) | (_re(U).m > -4)
        P = U.copy()
        if not np.all(near):  # (only then: a divisor no near column needs may contain 0)
            Eu = U.exp()
            P = Eu * Eu.sum(axis=-1).recip()[..., None]
        sel = np.nonzero(near)
        P[sel] = raw[sel].exp().sum(axis=-1).recip()  # the k = j term is e^0 = 1
        return P

    def velocity(self, Z, c, D=None):
        """F over the box Z, shape (…, n, d): λ Σ_j P_ij (z_j − z_i) (+ λz_i in x); ``D``
        as in :meth:`attention` (default D: the differences of the box)."""
        D = pairwise(Z) if D is None else D
        return self.from_attention(self.attention(Z, c, D), Z, D)

    def from_attention(self, P, Z, D):
        """F from an enclosure P (…, n, n) of the attention on the box Z (…, n, d) with
        differences D (…, n, n, d), D[…, i, i] = 0."""
        drift = ccontract(lambda p, x: np.einsum("...ij,...ija->...ia", p, x), P, D, self.n)
        if self.variable == "x":
            drift = drift + Z
        if self.VTf is None:
            return drift * self.lamf
        return ccontract(np.matmul, drift, self.VTf, self.d)

    def jacobian(self, Z: FB, c: FB) -> FB:
        """DF over the real box Z (…, n, d) for score factors c (…), shape (…, N, N),
        N = n·d. Block (i, m):
        λ[P_im I + c P_im (z_m − z̄_i) z_iᵀB + δ_im c Σ_k P_ik (z_k − z̄_i) z_kᵀBᵀ] − δ_im λI (z),
        with z_m − z̄_i = Σ_j P_ij (z_m − z_j)."""
        n, d = self.n, self.d
        batch = Z.shape[:-2]
        Dz = pairwise(Z)  # Dz[…, j, m] ∋ z_m − z_j
        P = self.attention(Z, c, Dz)
        cb = c.reshape(batch + (1, 1)) if c.shape != () else c
        ziB = bilinear(np.matmul, Z, self.Bf, d) * cb
        zkBT = bilinear(lambda z, b: z @ b.T, Z, self.Bf, d) * cb
        # dev[…, i, m] ∋ z_m − z̄_i = Σ_j P_ij (z_m − z_j)
        dev = bilinear(lambda p, x: np.einsum("...ij,...jma->...ima", p, x), P, Dz, n)
        X = P[..., None] * dev  # X[…, i, m, a] = P_im (z_m − z̄_i)_a
        J4 = X[..., None] * ziB[..., :, None, None, :]  # (…, i, m, a, b)
        eye = np.eye(d)
        J4 = J4 + P[..., None, None] * eye
        diag = bilinear(lambda x, z: np.einsum("...ika,...kb->...iab", x, z), X, zkBT, n)
        if self.variable == "z":
            diag = diag - eye
        k = np.arange(n)
        J4[..., k, k, :, :] = J4[..., k, k, :, :] + diag
        if self.VTf is None:
            J4 = J4 * self.lamf
        else:  # V·block
            J4 = bilinear(lambda vt, j: np.einsum("ca,...imcb->...imab", vt, j), self.VTf, J4, d)
        nb = len(batch)
        axes = tuple(range(nb)) + (nb, nb + 2, nb + 1, nb + 3)  # (…, i, a, m, b)
        return J4.transpose(*axes).reshape(batch + (n * d, n * d))

    # -- Taylor coefficients at a point (Lemmas C1, C1f, C15) ----------------------------------
    def jets(self, Z0: np.ndarray, t0: Fraction, order: int, h: Fraction | None = None,
             tol: float | None = None) -> "Jets":
        """Taylor coefficients Z_0 … Z_order at τ = 0 of the solution through the point
        Z0 (object array of exact :class:`~.balls.Ball`, n×d) at time t0.

        Orders 0 … k₁ are exact integer balls (recurrences of Lemma I2: Cauchy products,
        exp, quotient; midpoints summed exactly, radius terms in binary64 with every
        rounding counted, Lemma C1f, or in integers beyond binary64's range). With h and
        ``tol`` given, the binary64 continuation (Lemma C15) computes h^k·Z_k for k > k₁ in
        the variable s = τ/h, k₁ being the first order (after max|Z_k|h^k ≤ HANDOVER·tol
        for two orders in a row) at which the continuation's own radius Σ_k rad(h^k Z_k)
        is ≤ tol; else every order is exact. Without h and tol every order is exact.
        """
        try:
            return with_radii(lambda R: self._jets(Z0, t0, order, R, h, tol))
        except _FarOverflow:  # a majorant beyond binary64: the plain recurrences
            return with_radii(lambda R: self._jets(Z0, t0, order, R, h, tol, False))

    def _jets(self, Z0: np.ndarray, t0: Fraction, order: int, R: ExactRadii,
              h: Fraction | None = None, tol: float | None = None,
              majorant: bool = True) -> "Jets":
        """:meth:`jets` with the radius arithmetic R (ExactRadii or FloatRadii); with
        ``majorant``, far columns' exponentials are bounded by their majorant series."""
        n, d, K = self.n, self.d, order
        P_ = scale()
        lamq = self.lam
        lamb = const(lamq) if lamq is not None else None
        c0 = (const(t0) * const(2 * lamq)).exp() if self.variable == "z" else one()
        cs = [c0]  # c(t0 + τ) = c0 Σ (2λτ)^k / k!
        for k in range(1, K + 1):
            cs.append(cs[-1] * const(2 * lamq / k) if self.variable == "z" else Ball(0, 0))
        # The continuation is possible only where binary64 can hold what it must add:
        # 2⁻⁹⁷⁰ above the radii's absolute floor, and scales whose 2^P is a float.
        stop = h is not None and tol is not None and tol > 2.0 ** -960 and P_ <= 960
        hf = float(h) if stop else 0.0

        def stack(shape: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            # midpoints (integers), |midpoint| bounds, radius bounds
            return (np.zeros((K + 1,) + shape, dtype=object), R.zeros((K + 1,) + shape),
                    R.zeros((K + 1,) + shape))

        def ints(X: np.ndarray, attr: str) -> np.ndarray:
            return np.array([[getattr(x, attr) for x in row] for row in X], dtype=object)

        mm, conv = R.ball_dot, R.ball_conv  # (mid, |mid|, radius) per factor

        Bb = np.array([[const(x) for x in row] for row in self.Bq], dtype=object)
        Bm, Br = ints(Bb, "m"), R.of_ints(ints(Bb, "r"))
        Ba = R.mag(Bm)
        if self.Vq is not None:
            VT = np.array([[const(self.Vq[j][i]) for j in range(d)] for i in range(d)],
                          dtype=object)
            VTm, VTr = ints(VT, "m"), R.of_ints(ints(VT, "r"))
            VTa = R.mag(VTm)
        csm = np.array([c.m for c in cs], dtype=object).reshape(K + 1, 1, 1)
        csa = R.mag(csm)
        csr = R.of_ints(np.array([c.r for c in cs], dtype=object).reshape(K + 1, 1, 1))
        # Row shifts l_i: a column of largest score (any choice is exact, it cancels).
        Zf = np.array([[x.mid_float() for x in row] for row in Z0])
        Bf = np.array([[float(x) for x in row] for row in self.Bq])
        with np.errstate(all="ignore"):
            Sf = Zf @ Bf @ Zf.T
        lead = np.array([int(j) for j in np.argmax(np.nan_to_num(Sf, nan=0.0), axis=1)])
        rows = np.arange(n)
        st = {name: stack(shape) for name, shape in
              (("Z", (n, d)), ("G", (n, d)), ("S", (n, n)), ("U", (n, n)), ("E", (n, n)),
               ("R", (n, 1)), ("P", (n, n)))}
        Zm, Za, Zr = st["Z"]
        Gm, Ga, Gr = st["G"]
        Sm, Sa, Sr = st["S"]
        Um, Ua, Ur = st["U"]
        Em, Ea, Er = st["E"]
        Rm, Ra, Rr = st["R"]
        Pm, Pa, Pr = st["P"]
        Zm[0] = ints(Z0, "m")
        Za[0], Zr[0] = R.mag(Zm[0]), R.of_ints(ints(Z0, "r"))
        k1, small, k, tail = K, 0, 0, None
        cen: dict = {}  # shift column l ↦ (z_j − z_l)_0 as (mid, |mid|, radius), its rows
        threshold = tol * HANDOVER if stop else 0.0
        while k < K:  # order k: the series' coefficients k, and Z_{k+1}
            Gm[k], Gr[k] = mm(Zm[k], Za[k], Zr[k], Bm, Ba, Br)
            Ga[k] = R.mag(Gm[k])
            if k == 0:
                # z_j − z_l per shift column l (row l exactly 0, whatever the box: C15),
                # for the scores' direct differences and the centred terms of C15
                for l in sorted(set(lead.tolist())):
                    Dm = Zm[0] - Zm[0][l]
                    Dr = R.add(Zr[0], Zr[0][l])
                    Dr[l] = R.zeros((d,))
                    cen[l] = (Dm, R.mag(Dm), Dr, np.flatnonzero(lead == l))
                # direct differences z_iᵀB(z_j − z_{l_i}): accurate in absolute terms
                for l, (Dm, Da, Dr, rws) in cen.items():
                    sm, sr = mm(Gm[0][rws], Ga[0][rws], Gr[0][rws], Dm.T, Da.T, Dr.T)
                    Sm[0][rws], Sr[0][rws] = sm, sr
            else:
                def flat(X):  # coefficients 0 … k − 1 side by side: (n, k·d)
                    return X[:k].transpose(1, 0, 2).reshape(n, k * d)

                def back(X):  # coefficients k … 1 stacked: (k·d, n)
                    return X[k:0:-1].transpose(0, 2, 1).reshape(k * d, n)
                sm, sr = mm(flat(Gm), flat(Ga), flat(Gr), back(Zm), back(Za), back(Zr))
                Sm[k] = sm - sm[rows, lead].reshape(n, 1)  # scores s_ij but G_k z_jᵀ
                Sr[k] = R.add(sr, sr[rows, lead].reshape(n, 1))
                # the term G_k (z_j − z_l)ᵀ in the centred form (Lemma C15, centred terms): as
                # G_k z_j − G_k z_l its radius carried rad G_k·|z_j| into every score
                for l, (Dm, Da, Dr, rws) in cen.items():
                    tm, tr = mm(Gm[k][rws], Ga[k][rws], Gr[k][rws], Dm.T, Da.T, Dr.T)
                    Sm[k][rws] = Sm[k][rws] + tm
                    Sr[k][rws] = R.add(Sr[k][rws], tr)
                # the shift column is s_il − s_il ≡ 0: exactly 0 (the ball difference has
                # radius 2·rad, which the exp recurrence multiplied by the score scale at
                # every order, Lemma C15)
                Sm[k][rows, lead] = 0
                Sr[k][rows, lead] = R.zeros((n,))
            Sa[k] = R.mag(Sm[k])
            Um[k], Ur[k] = conv(csm[:k + 1], csa[:k + 1], csr[:k + 1],
                                Sm[k::-1], Sa[k::-1], Sr[k::-1])
            Ua[k] = R.mag(Um[k])
            if k == 0:
                u0 = R.to_ints(Ur[0])
                e0 = [Ball(Um[0][idx], u0[idx]).exp() for idx in np.ndindex(n, n)]
                Em[0] = np.array([b.m for b in e0], dtype=object).reshape(n, n)
                Er[0] = R.of_ints(np.array([b.r for b in e0], dtype=object).reshape(n, n))
                far = _far_columns(Um[0], u0, lead, P_) if majorant else None
                if far is not None:
                    Fm = np.zeros((K + 1, n, n))  # majorant of |E_k|·2^P on far entries
                    Ubar = np.zeros((K + 1, n, n))
                    Fm[0] = _far_start(Um[0], u0, far, P_)
            else:
                w = np.arange(1, k + 1, dtype=object).reshape(k, 1, 1)
                em, er = conv(Um[1:k + 1] * w, R.mul_int(Ua[1:k + 1], w),
                              R.mul_int(Ur[1:k + 1], w), Em[k - 1::-1], Ea[k - 1::-1],
                              Er[k - 1::-1])
                Em[k], Er[k] = em // k, R.div_up(er, k)
            if far is not None:
                # Far columns (e^{U_0} below one unit of the scale): the fixed-point ball of
                # E_0 is (0, 1 unit), and the exp recurrence would multiply that unit by
                # the score's rate at every order, although |E_k| ≤ e^{U_0}·M_k, far below
                # a unit (Lemma C15, the majorant of far columns)
                if k > 0:
                    try:
                        ub = _int_balls(Um[k], Ur[k], P_, R)
                    except OverflowError:  # a coefficient beyond binary64: no majorant
                        raise _FarOverflow from None
                    Ubar[k] = up(np.abs(ub.m) + ub.r, 1)
                    wk = np.arange(1, k + 1, dtype=np.float64).reshape(k, 1, 1)
                    Fm[k] = up((wk * Ubar[1:k + 1] * Fm[k - 1::-1]).sum(axis=0) / k, k + 3)
                if not np.all(np.isfinite(Fm[k][far])):
                    raise _FarOverflow
                units = np.zeros((n, n), dtype=object)
                units[far] = [int(math.floor(v)) + 1 for v in Fm[k][far]]  # > F_k
                Em[k] = np.where(far, 0, Em[k])
                Er[k] = np.where(far, R.of_ints(units), Er[k])
            Ea[k] = R.mag(Em[k])
            Rm[k] = Em[k].sum(axis=1).reshape(n, 1)
            Rr[k] = R.sum(Er[k], 1).reshape(n, 1)
            Ra[k] = R.mag(Rm[k])
            if k == 0:
                r0 = R.to_ints(Rr[0])
                inv = [Ball(Rm[0][i, 0], r0[i, 0]).recip() for i in range(n)]
                Im = np.array([b.m for b in inv], dtype=object).reshape(1, n, 1)
                Ia = R.mag(Im)
                Ir = R.of_ints(np.array([b.r for b in inv], dtype=object).reshape(1, n, 1))
                Pm[0], Pr[0] = conv(Em[0:1], Ea[0:1], Er[0:1], Im, Ia, Ir)
            else:
                am, ar = conv(Rm[1:k + 1], Ra[1:k + 1], Rr[1:k + 1],
                              Pm[k - 1::-1], Pa[k - 1::-1], Pr[k - 1::-1])
                dm = (Em[k] - am)[None]
                Pm[k], Pr[k] = conv(dm, R.mag(dm), R.add(Er[k], ar)[None], Im, Ia, Ir)
            Pa[k] = R.mag(Pm[k])

            # W_i = Σ_m Σ_j P_m,ij z_{k−m},j (− z_k,i in z), the term m = k in the centred
            # form Σ_j P_k,ij (z_j − c_i)_0 for points c_i ≈ Σ_j P_0,ij z_j: equal because
            # Σ_j P_ij ≡ 1 (Lemma C15, centred terms), and P_k's radius is multiplied by |z_j − c_i|
            # instead of |z_j|
            if k == 0:
                cm = Pm[0].dot(Zm[0]) >> P_  # exact integers: any centre is valid
                Cm = Zm[0][:, None, :] - cm[None, :, :]  # (j, i, a): z_j − c_i
                Ca = R.mag(Cm)
                Cr = R.add(R.zeros((n, n, d)), Zr[0][:, None, :])
            pt = tuple(X[k].T[:, :, None] for X in (Pm, Pa, Pr))  # (j, i, 1)
            Wm, Wr = conv(*pt, Cm, Ca, Cr)
            if k > 0:
                def pflat(X):  # P coefficients 0 … k − 1 side by side: (n, k·n)
                    return X[:k].transpose(1, 0, 2).reshape(n, k * n)

                def zback(X):  # Z coefficients k … 1 stacked: (k·n, d)
                    return X[k:0:-1].reshape(k * n, d)
                am, ar = mm(pflat(Pm), pflat(Pa), pflat(Pr), zback(Zm), zback(Za), zback(Zr))
                Wm, Wr = Wm + am, R.add(Wr, ar)
            else:  # Σ_j P_0,ij z_j = Σ_j P_0,ij (z_j − c_i) + c_i (c_i exact)
                Wm = Wm + cm
            if self.variable == "z":
                Wm, Wr = Wm - Zm[k], R.add(Wr, Zr[k])
            if lamb is None:  # general V (x only): W Vᵀ
                zm, zr = mm(Wm, R.mag(Wm), Wr, VTm, VTa, VTr)
            else:
                lm = np.full((1, 1, 1), lamb.m, dtype=object)
                zm, zr = conv(Wm[None], R.mag(Wm)[None], Wr[None], lm, R.mag(lm),
                              R.of_ints(np.full((1, 1, 1), lamb.r, dtype=object)))
            Zm[k + 1], Zr[k + 1] = zm // (k + 1), R.div_up(zr, k + 1)
            R.check(Zr[k + 1])  # binary64 radii: stop at the first overflow, not at order K
            Za[k + 1] = R.mag(Zm[k + 1])
            k += 1  # Z_0 … Z_k are known exactly
            if not (stop and k >= 2):
                continue
            # Where to hand over to binary64 (a float heuristic, never a matter of rigor):
            # once max|Z_k|h^k has been small for two orders, try the binary64 tail, and
            # keep it only if its own radius is below tol. Near-cancelling terms (tokens
            # close together: W = Σ_j P_ij z_j − z_i ≪ its terms) make it coarser than the
            # coefficients suggest; then resume the exact orders and try again later.
            try:
                est = max(abs(float(x)) for x in Zm[k].flat) * 2.0 ** -P_ * hf ** k
            except OverflowError:  # a midpoint beyond binary64: far from small
                est = float("inf")
            small = small + 1 if est <= threshold else 0
            if small < 2 or k >= K:
                continue
            try:
                tail = self._continue(st, cs, lead, Im, Ir, R, k, K, h)
            except OverflowError:  # a coefficient beyond binary64: every order exact
                tail, stop = None, False
                continue
            err = float(np.max(tail.r.sum(axis=0)))
            if err <= tol:
                k1 = k
                break
            tail, small = None, 0
            threshold *= max(tol / err, 2.0 ** -60) * 2.0 ** -8
        exact = []
        for k in range(k1 + 1):
            rk = R.to_ints(Zr[k])
            a = np.empty((n, d), dtype=object)
            for idx in np.ndindex(n, d):
                a[idx] = Ball(Zm[k][idx], rk[idx])
            exact.append(a)
        return Jets(exact, tail if k1 < K else None, h)

    def _continue(self, st: dict, cs: list, lead: np.ndarray, Im, Ir, R, k1: int, K: int,
                  h: Fraction) -> FB:
        """Orders k₁ + 1 … K in binary64, in the variable s = τ/h (Lemma C15): every series
        X is carried as X̂_j = h^j X_j, which satisfies the same recurrences (they are
        homogeneous in the order), except that Ẑ_{k+1} = h·F̂_k/(k + 1). Returns the
        scaled coefficients Ẑ_{k₁+1} … Ẑ_K, shape (K − k₁, n, d)."""
        n, d = self.n, self.d
        P_ = scale()
        hp = fconst([h ** j for j in range(K + 1)])  # h^j

        def fb(name: str, upto: int) -> FB:
            m, _, r = st[name]
            x = _int_balls(m[:upto + 1], r[:upto + 1], P_, R)
            out = x * hp[:upto + 1].reshape((upto + 1,) + (1,) * (x.m.ndim - 1))
            full = FB(np.zeros((K + 1,) + x.shape[1:]), np.zeros((K + 1,) + x.shape[1:]))
            full[:upto + 1] = out
            return full
        Z, G, S, Uh, E, Rs, Ph = (fb("Z", k1), fb("G", k1 - 1), fb("S", k1 - 1), fb("U", k1 - 1),
                                  fb("E", k1 - 1), fb("R", k1 - 1), fb("P", k1 - 1))
        ch = _int_balls(np.array([c.m for c in cs], dtype=object),
                        np.array([c.r for c in cs], dtype=object), P_, ExactRadii()) * hp  # ĉ_j
        inv = _int_balls(Im.reshape(n, 1), Ir.reshape(n, 1), P_, R)  # 1/R_0
        # The loop below works on raw arrays — (midpoints, |midpoints|, radii) per series,
        # index = order — with fballs' formulas of Lemma C13 (the same balls as FB's
        # operations, without an object per operation: those dominated the cost).
        def trip(x: FB) -> list:
            return [x.m.copy(), np.abs(x.m), x.r.copy()]

        def sl(X: list, s) -> tuple:
            return X[0][s], X[1][s], X[2][s]

        def put(X: list, k: int, m: np.ndarray, r: np.ndarray) -> None:
            X[0][k], X[1][k], X[2][k] = m, np.abs(m), r

        bl, mul = bilinear_parts, mul_parts

        def sub(am, ar, bm, br) -> tuple:
            return add_parts(am, ar, -bm, br)

        Zs, Gs, Ss, Us, Es, Rs_, Ps = (trip(x) for x in (Z, G, S, Uh, E, Rs, Ph))
        cs_ = (ch.m, np.abs(ch.m), ch.r)
        Bt = (self.Bf.m, np.abs(self.Bf.m), self.Bf.r)
        VTt = None if self.VTf is None else (self.VTf.m, np.abs(self.VTf.m), self.VTf.r)
        lam = self.lamf
        rows = np.arange(n)

        def side(x):  # (k + 1, n, e) → (n, (k + 1)·e): the orders of row i side by side
            return x.transpose(1, 0, 2).reshape(n, -1)

        def conv(x, y):  # Σ_m x_m y_m, entrywise
            return np.einsum("mij,mij->ij", x, y) if x.shape == y.shape else \
                (x * y).sum(axis=0)

        def tdot(c, x):  # Σ_m c_m x_m
            return (c @ x.reshape(c.shape[0], -1)).reshape(x.shape[1:])
        inv_k = fconst([Fraction(1, k) for k in range(1, K + 1)])  # 1/k at index k − 1
        h_k = fconst([h / (k + 1) for k in range(K)])  # h/(k + 1) at index k
        # The centred terms of Lemma C15: (z_j − z_l)_0 per shift column l (row l exactly
        # 0) for the scores, and (z_j − c_i)_0 for the drift, c_i ≈ Σ_j P_0,ij z_j any
        # binary64 point (Σ_j P_ij ≡ 1), stored as (j, i, a)
        cen = {}
        for l in sorted(set(lead.tolist())):
            dm, dr = sub(Zs[0][0], Zs[2][0], Zs[0][0][l], Zs[2][0][l])
            dm[l], dr[l] = 0.0, 0.0
            cen[l] = ((dm.T, np.abs(dm).T, dr.T), np.flatnonzero(lead == l))
        ci = Ps[0][0] @ Zs[0][0]
        cwm, cwr = sub(Zs[0][0][:, None, :], Zs[2][0][:, None, :], ci[None, :, :], 0.0)
        cw = (cwm, np.abs(cwm), cwr)

        def centred_scores(k: int):
            """Σ_a G_k[i, a] (z_j − z_l)_0[a], rows grouped by their shift column l."""
            om, orr = np.zeros((n, n)), np.zeros((n, n))
            for dl, rws in cen.values():
                xr = (Gs[0][k][rws], Gs[1][k][rws], Gs[2][k][rws])
                om[rws], orr[rws] = bl(np.matmul, xr, dl, d)
            return om, orr
        for k in range(k1, K):
            down, down1 = slice(k, None, -1), slice(k, 0, -1)  # orders k … 0, k … 1
            put(Gs, k, *bl(np.matmul, sl(Zs, k), Bt, d))
            # s_ij = Σ_m Σ_a G_m[i, a] Z_{k−m}[j, a], then shifted by the row's leader;
            # the term m = k as G_k (z_j − z_l)_0 (the centred form of Lemma C15)
            sm, sr = bl(lambda g, z: side(g) @ side(z).T, sl(Gs, slice(0, k)),
                        sl(Zs, down1), k * d)
            sm, sr = sub(sm, sr, sm[rows, lead][:, None], sr[rows, lead][:, None])
            sm, sr = add_parts(sm, sr, *centred_scores(k))
            sm[rows, lead], sr[rows, lead] = 0.0, 0.0  # s_il − s_il ≡ 0 (Lemma C15)
            put(Ss, k, sm, sr)
            put(Us, k, *bl(tdot, (cs_[0][:k + 1], cs_[1][:k + 1], cs_[2][:k + 1]),
                           sl(Ss, down), k + 1))
            # E_k = (1/k) Σ_{m=1}^{k} m U_m E_{k−m}
            wm, wr = mul(Us[0][1:k + 1], Us[2][1:k + 1],
                         np.arange(1, k + 1, dtype=np.float64).reshape(k, 1, 1), 0.0)
            em, er = bl(conv, (wm, np.abs(wm), wr), sl(Es, slice(k - 1, None, -1)), k)
            put(Es, k, *mul(em, er, inv_k.m[k - 1], inv_k.r[k - 1]))
            # R_k = Σ_j E_k[i, j]
            put(Rs_, k, *sum_parts(Es[0][k], Es[1][k], Es[2][k], axis=1, keepdims=True))
            # P_k = (E_k − Σ_{m≥1} R_m P_{k−m}) / R_0
            am, ar = bl(conv, sl(Rs_, slice(1, k + 1)), sl(Ps, slice(k - 1, None, -1)), k)
            dm, dr = sub(Es[0][k], Es[2][k], am, ar)
            put(Ps, k, *mul(dm, dr, inv.m, inv.r))
            # W_ia = Σ_m Σ_j P_m[i, j] Z_{k−m}[j, a]  (− Z_k[i, a] in z)
            Wm, Wr = bl(lambda p, z: side(p) @ z.reshape(-1, d), sl(Ps, slice(0, k)),
                        sl(Zs, down1), k * n)
            Wm, Wr = add_parts(Wm, Wr, *bl(conv, tuple(x[k].T[:, :, None] for x in Ps), cw,
                                           n))  # Σ_j P_k,ij (z_j − c_i)_0
            if self.variable == "z":
                Wm, Wr = sub(Wm, Wr, Zs[0][k], Zs[2][k])
            if VTt is None:
                Wm, Wr = mul(Wm, Wr, lam.m, lam.r)
            else:
                Wm, Wr = bl(np.matmul, (Wm, np.abs(Wm), Wr), VTt, d)
            put(Zs, k + 1, *mul(Wm, Wr, h_k.m[k], h_k.r[k]))  # Ẑ_{k+1} = h·F̂_k/(k + 1)
        return FB(Zs[0][k1 + 1:], Zs[2][k1 + 1:])


@dataclass
class Jets:
    """Taylor coefficients at a point: ``exact[k]`` (Ball arrays, n×d) for k ≤ k₁, and
    ``tail`` (binary64 balls h^k·Z_k for k₁ < k ≤ K, or None) in the variable s = τ/h."""

    exact: list
    tail: FB | None
    h: Fraction | None

    @property
    def order(self) -> int:
        return len(self.exact) - 1 + (0 if self.tail is None else self.tail.shape[0])

    def all_exact(self) -> list:
        if self.tail is not None:
            raise ValueError("the binary64 tail has no exact coefficients")
        return self.exact

    def scaled(self, h: Fraction) -> FB:
        """Binary64 balls of h^k Z_k for every k, shape (K + 1, n, d)."""
        hp = fconst([h ** j for j in range(len(self.exact))])
        head = from_balls(np.stack(self.exact)) * hp.reshape(-1, 1, 1)
        if self.tail is None:
            return head
        return FB(np.concatenate([head.m, self.tail.m]), np.concatenate([head.r, self.tail.r]))
