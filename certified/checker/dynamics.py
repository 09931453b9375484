"""The attention vector field, re-implemented for the checker.

V = λI, rescaled variable z (``variable="z"``): ż_i = λ Σ_j P_ij (z_j − z_i) with
P_ij = softmax_j(c(t)·z_iᵀBz_j), c(t) = e^{2λt}. Original variable x: ẋ_i = V Σ_j P_ij x_j,
c ≡ 1, for V = λI or any rational matrix V (``V=``; only in x, where no e^{tV} enters).
Everything is written for numpy object arrays of :class:`~.balls.Ball` (or
:class:`~.balls.CBall` for complex boxes); every function is an interval extension
(Lemma C2 of ``proofs_notes/checker.md``). Independent of :mod:`certified.field`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .balls import Ball, ExactRadii, const, one, with_radii

__all__ = ["Field"]


def _zeros(shape: tuple) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    out.fill(Ball(0, 0))
    return out


def _re_mid(x: object) -> float:
    """Midpoint of the real part, as a float (a heuristic only)."""
    return (x.re if hasattr(x, "re") else x).mid_float()


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
        self.lamb = const(lam) if lam is not None else None
        self.VT = None if V is None else np.array([[const(V[j][i]) for j in range(len(V))]
                                                   for i in range(len(V))], dtype=object)
        self.B = np.array([[const(x) for x in row] for row in B], dtype=object)
        self.BT = self.B.T.copy()

    def score_factor(self, t: object) -> object:
        """c(t) = e^{2λt} (z) or 1 (x), for a ball or complex ball t."""
        if self.variable == "x":
            return one()
        return (t * const(2 * self.lam)).exp()

    def attention(self, Z: np.ndarray, c: object, diffs=None) -> np.ndarray:
        """P over the box Z (n×d) for the score factor c (a ball or complex ball).

        ``diffs(k)``, if given, encloses the rows z_j − z_k for every state meant (the
        default is Z − Z[k]); the Picard test passes the tighter differences of its
        affine candidate (Lemma C3).

        With l_i a column of (approximately) largest score and U_ij = c·z_iᵀB(z_j − z_{l_i}),
        columns near the maximum use P_ij = 1 / Σ_k exp(c·z_iᵀB(z_k − z_j)) (one reciprocal,
        no shared numerator: tight on wide and complex boxes), the others
        P_ij = e^{U_ij} / Σ_k e^{U_ik} (a tiny numerator is tight). Both are exact
        identities, so the choice only affects widths (Lemma C2).
        """
        n = self.n
        diffs = diffs if diffs is not None else (lambda k: Z - Z[k])
        G = Z.dot(self.B)  # rows z_iᵀB
        P = np.empty((n, n), dtype=object)
        Dj = [diffs(j) for j in range(n)]
        for i in range(n):
            raw = [Dj[j].dot(G[i]) * c for j in range(n)]  # raw[j][k] = c·s_i(k − j)
            re = [_re_mid(x) for x in raw[0]]
            lead = int(np.argmax(re))
            U = raw[lead]  # U[j] = c·z_iᵀB(z_j − z_lead) = −raw[j][lead]
            # raw[k][j] is −raw[j][k] state by state, so e^{raw[k][j]} is enclosed by the
            # reciprocal of e^{raw[j][k]}: one exp per pair (the larger side, ≥ 1 on the
            # midpoint, whose reciprocal is accurate; Lemma C2).
            ex: dict = {}

            def e(j: int, k: int) -> object:
                if (j, k) not in ex:
                    w = raw[j][k]
                    if _re_mid(w) >= 0:
                        ex[j, k], ex[k, j] = w.exp_pair()
                    else:
                        ex[k, j], ex[j, k] = (-w).exp_pair()
                return ex[j, k]
            E = [U[k].exp() if k == lead else e(lead, k) for k in range(n)]
            Zsum = sum(E[1:], E[0])
            inv_sum = None
            for j in range(n):
                if j == lead or _re_mid(U[j]) > -4:
                    tot = one()
                    for k in range(n):
                        if k != j:
                            tot = e(j, k) + tot
                    P[i, j] = one() / tot if not isinstance(tot, Ball) else tot.recip()
                else:
                    if inv_sum is None:
                        inv_sum = one() / Zsum if not isinstance(Zsum, Ball) else Zsum.recip()
                    P[i, j] = E[j] * inv_sum
        return P

    def velocity(self, Z: np.ndarray, c: object, diffs=None) -> np.ndarray:
        """F over the box Z, shape (n, d), centred form λ Σ_j P_ij (z_j − z_i)
        (+ λz_i for x); ``diffs`` as in :meth:`attention`."""
        diffs = diffs if diffs is not None else (lambda k: Z - Z[k])
        Dk = [diffs(k) for k in range(self.n)]  # once: attention needs them all too
        P = self.attention(Z, c, Dk.__getitem__)
        out = np.empty(Z.shape, dtype=object)
        for i in range(self.n):
            Di = Dk[i].copy()
            Di[i] = [Ball(0, 0)] * self.d  # z_i − z_i = 0 exactly, not a ball of radius 2r
            drift = P[i].dot(Di)
            if self.variable == "x":
                drift = drift + Z[i]
            out[i] = drift * self.lamb if self.VT is None else drift.dot(self.VT)
        return out

    def jacobian(self, Z: np.ndarray, c: Ball) -> np.ndarray:
        """DF over the real box Z, shape (N, N), N = n·d. Block (i, m):
        λ[P_im I + c P_im (z_m − z̄_i) z_iᵀB + δ_im c Σ_k P_ik (z_k − z̄_i) z_kᵀBᵀ] − δ_im λI (z),
        with z_m − z̄_i = Σ_j P_ij (z_m − z_j)."""
        n, d = self.n, self.d
        P = self.attention(Z, c)
        ziB = Z.dot(self.B) * c
        zkBT = Z.dot(self.BT) * c
        eye = _zeros((d, d))
        for a in range(d):
            eye[a, a] = one()
        J = _zeros((n * d, n * d))
        for i in range(n):
            dev = [P[i].dot(Z[m] - Z) for m in range(n)]  # z_m − z̄_i, shape (d,)
            diag = _zeros((d, d))
            for k in range(n):
                diag = diag + np.outer(dev[k], zkBT[k]) * P[i, k]
            for m in range(n):
                blk = eye * P[i, m] + np.outer(dev[m], ziB[i]) * P[i, m]
                if m == i:
                    blk = blk + diag
                    if self.variable == "z":
                        blk = blk - eye
                J[i * d:(i + 1) * d, m * d:(m + 1) * d] = (
                    blk * self.lamb if self.VT is None else self.VT.T.dot(blk))
        return J

    def jets(self, Z0: np.ndarray, t0: Fraction, order: int) -> list[np.ndarray]:
        """Taylor coefficients Z_0 … Z_order at τ = 0 of the solution through the point
        (or box) Z0 at time t0 (recurrences of Lemma C3: Cauchy products, exp, quotient).

        Each series is a preallocated stack of integer midpoints, radius bounds and
        bounds of |midpoint| (index = order), so every convolution Σ_m a_m b_{k−m} is one
        numpy product of a slice and a reversed slice: the midpoints summed exactly in
        integers and rounded once (Lemma C1), the radius terms in binary64 with every
        rounding accounted for (Lemma C1f) — or in integers (exact) when the scale or a
        bound leaves binary64's range.
        """
        return with_radii(lambda R: self._jets(Z0, t0, order, R))

    def _jets(self, Z0: np.ndarray, t0: Fraction, order: int, R: ExactRadii
              ) -> list[np.ndarray]:
        """:meth:`jets` with the radius arithmetic R (ExactRadii or FloatRadii)."""
        n, d, K = self.n, self.d, order
        c0 = self.score_factor(const(t0))
        cs = [c0]  # c(t0 + τ) = c0 Σ (2λτ)^k / k!
        for k in range(1, K + 1):
            cs.append(cs[-1] * const(2 * self.lam / k) if self.variable == "z" else Ball(0, 0))
        lam = self.lamb

        def stack(shape: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            # midpoints (integers), |midpoint| bounds, radius bounds
            return (np.zeros((K + 1,) + shape, dtype=object), R.zeros((K + 1,) + shape),
                    R.zeros((K + 1,) + shape))

        def ints(X: np.ndarray, attr: str) -> np.ndarray:
            return np.array([[getattr(x, attr) for x in row] for row in X], dtype=object)

        mm, conv = R.ball_dot, R.ball_conv  # (mid, |mid|, radius) per factor

        Bm, Br = ints(self.B, "m"), R.of_ints(ints(self.B, "r"))
        Ba = R.mag(Bm)
        if self.VT is not None:
            VTm, VTr = ints(self.VT, "m"), R.of_ints(ints(self.VT, "r"))
            VTa = R.mag(VTm)
        csm = np.array([c.m for c in cs], dtype=object).reshape(K + 1, 1, 1)
        csa = R.mag(csm)
        csr = R.of_ints(np.array([c.r for c in cs], dtype=object).reshape(K + 1, 1, 1))
        # Row shifts l_i: a column of largest score (any choice is exact, it cancels).
        Zf = np.array([[x.mid_float() for x in row] for row in Z0])
        Bf = np.array([[x.mid_float() for x in row] for row in self.B])
        with np.errstate(all="ignore"):
            Sf = Zf @ Bf @ Zf.T
        lead = np.array([int(j) for j in np.argmax(np.nan_to_num(Sf, nan=0.0), axis=1)])
        rows = np.arange(n)
        Zm, Za, Zr = stack((n, d))
        Gm, Ga, Gr = stack((n, d))
        Sm, Sa, Sr = stack((n, n))
        Um, Ua, Ur = stack((n, n))
        Em, Ea, Er = stack((n, n))
        Rm, Ra, Rr = stack((n, 1))
        Pm, Pa, Pr = stack((n, n))
        Zm[0] = ints(Z0, "m")
        Za[0], Zr[0] = R.mag(Zm[0]), R.of_ints(ints(Z0, "r"))
        for k in range(K):
            Gm[k], Gr[k] = mm(Zm[k], Za[k], Zr[k], Bm, Ba, Br)
            Ga[k] = R.mag(Gm[k])
            if k == 0:
                # direct differences z_iᵀB(z_j − z_{l_i}): accurate in absolute terms
                for i in range(n):
                    Dm = Zm[0] - Zm[0][lead[i]]
                    Dr = R.add(Zr[0], Zr[0][lead[i]])
                    sm, sr = mm(Dm, R.mag(Dm), Dr, Gm[0][i].reshape(d, 1),
                                Ga[0][i].reshape(d, 1), Gr[0][i].reshape(d, 1))
                    Sm[0][i], Sr[0][i] = sm[:, 0], sr[:, 0]
            else:
                def flat(X):  # coefficients 0 … k side by side: (n, (k + 1)·d)
                    return X[:k + 1].transpose(1, 0, 2).reshape(n, (k + 1) * d)

                def back(X):  # coefficients k … 0 stacked: ((k + 1)·d, n)
                    return X[k::-1].transpose(0, 2, 1).reshape((k + 1) * d, n)
                sm, sr = mm(flat(Gm), flat(Ga), flat(Gr), back(Zm), back(Za), back(Zr))
                Sm[k] = sm - sm[rows, lead].reshape(n, 1)  # all scores s_ij, coefficient k
                Sr[k] = R.add(sr, sr[rows, lead].reshape(n, 1))
            Sa[k] = R.mag(Sm[k])
            Um[k], Ur[k] = conv(csm[:k + 1], csa[:k + 1], csr[:k + 1],
                                Sm[k::-1], Sa[k::-1], Sr[k::-1])
            Ua[k] = R.mag(Um[k])
            if k == 0:
                u0 = R.to_ints(Ur[0])
                e0 = [Ball(Um[0][idx], u0[idx]).exp() for idx in np.ndindex(n, n)]
                Em[0] = np.array([b.m for b in e0], dtype=object).reshape(n, n)
                Er[0] = R.of_ints(np.array([b.r for b in e0], dtype=object).reshape(n, n))
            else:
                w = np.arange(1, k + 1, dtype=object).reshape(k, 1, 1)
                em, er = conv(Um[1:k + 1] * w, R.mul_int(Ua[1:k + 1], w),
                              R.mul_int(Ur[1:k + 1], w), Em[k - 1::-1], Ea[k - 1::-1],
                              Er[k - 1::-1])
                Em[k], Er[k] = em // k, R.div_up(er, k)
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

            def pflat(X):  # P coefficients 0 … k side by side: (n, (k + 1)·n)
                return X[:k + 1].transpose(1, 0, 2).reshape(n, (k + 1) * n)

            def zback(X):  # Z coefficients k … 0 stacked: ((k + 1)·n, d)
                return X[k::-1].reshape((k + 1) * n, d)
            Wm, Wr = mm(pflat(Pm), pflat(Pa), pflat(Pr), zback(Zm), zback(Za), zback(Zr))
            if self.variable == "z":
                Wm, Wr = Wm - Zm[k], R.add(Wr, Zr[k])
            if lam is None:  # general V (x only): W Vᵀ
                zm, zr = mm(Wm, R.mag(Wm), Wr, VTm, VTa, VTr)
            else:
                lm = np.full((1, 1, 1), lam.m, dtype=object)
                zm, zr = conv(Wm[None], R.mag(Wm)[None], Wr[None], lm, R.mag(lm),
                              R.of_ints(np.full((1, 1, 1), lam.r, dtype=object)))
            Zm[k + 1], Zr[k + 1] = zm // (k + 1), R.div_up(zr, k + 1)
            Za[k + 1] = R.mag(Zm[k + 1])
        out = []
        for k in range(K + 1):
            rk = R.to_ints(Zr[k])
            a = np.empty((n, d), dtype=object)
            for idx in np.ndindex(n, d):
                a[idx] = Ball(Zm[k][idx], rk[idx])
            out.append(a)
        return out
