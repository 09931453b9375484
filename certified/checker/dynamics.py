"""The attention vector field for V = λI, re-implemented for the checker.

Rescaled variable z (``variable="z"``): ż_i = λ Σ_j P_ij (z_j − z_i) with
P_ij = softmax_j(c(t)·z_iᵀBz_j), c(t) = e^{2λt}. Original variable x: ẋ_i = λ Σ_j P_ij x_j,
c ≡ 1. Everything is written for numpy object arrays of :class:`~.balls.Ball` (or
:class:`~.balls.CBall` for complex boxes); every function is an interval extension
(Lemma C2 of ``proofs_notes/checker.md``). Independent of :mod:`certified.field`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .balls import Ball, BallArray, const, one

__all__ = ["Field"]


def _zeros(shape: tuple) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    out.fill(Ball(0, 0))
    return out


def _re_mid(x: object) -> float:
    """Midpoint of the real part, as a float (a heuristic only)."""
    return (x.re if hasattr(x, "re") else x).mid_float()


class Field:
    """F(y, t) for V = λI and a rational B.

    Parameters
    ----------
    lam : Fraction
    B : list of list of Fraction, d×d
    variable : {"z", "x"}
    """

    def __init__(self, lam: Fraction, B: list[list[Fraction]], n: int, variable: str) -> None:
        self.lam, self.n, self.d, self.variable = lam, n, len(B), variable
        self.lamb = const(lam)
        self.B = np.array([[const(x) for x in row] for row in B], dtype=object)
        self.BT = self.B.T.copy()

    def score_factor(self, t: object) -> object:
        """c(t) = e^{2λt} (z) or 1 (x), for a ball or complex ball t."""
        if self.variable == "x":
            return one()
        return (t * const(2 * self.lam)).exp()

    def attention(self, Z: np.ndarray, c: object) -> np.ndarray:
        """P over the box Z (n×d) for the score factor c (a ball or complex ball).

        With l_i a column of (approximately) largest score and U_ij = c·z_iᵀB(z_j − z_{l_i}),
        columns near the maximum use P_ij = 1 / Σ_k exp(c·z_iᵀB(z_k − z_j)) (one reciprocal,
        no shared numerator: tight on wide and complex boxes), the others
        P_ij = e^{U_ij} / Σ_k e^{U_ik} (a tiny numerator is tight). Both are exact
        identities, so the choice only affects widths (Lemma C2).
        """
        n = self.n
        G = Z.dot(self.B)  # rows z_iᵀB
        P = np.empty((n, n), dtype=object)
        for i in range(n):
            raw = [(Z - Z[j]).dot(G[i]) * c for j in range(n)]  # raw[j][k] = c·s_i(k − j)
            re = [_re_mid(x) for x in raw[0]]
            lead = int(np.argmax(re))
            U = raw[lead]  # U[j] = c·z_iᵀB(z_j − z_lead) = −raw[j][lead]
            E = [u.exp() for u in U]
            Zsum = sum(E[1:], E[0])
            inv_sum = None
            for j in range(n):
                if j == lead or _re_mid(U[j]) > -4:
                    tot = one()
                    for k in range(n):
                        if k != j:
                            tot = raw[j][k].exp() + tot
                    P[i, j] = one() / tot if not isinstance(tot, Ball) else tot.recip()
                else:
                    if inv_sum is None:
                        inv_sum = one() / Zsum if not isinstance(Zsum, Ball) else Zsum.recip()
                    P[i, j] = E[j] * inv_sum
        return P

    def velocity(self, Z: np.ndarray, c: object) -> np.ndarray:
        """F over the box Z, shape (n, d), centred form λ Σ_j P_ij (z_j − z_i)
        (+ λz_i for x)."""
        P = self.attention(Z, c)
        out = np.empty(Z.shape, dtype=object)
        for i in range(self.n):
            Di = Z - Z[i]
            Di[i] = [Ball(0, 0)] * self.d  # z_i − z_i = 0 exactly, not a ball of radius 2r
            drift = P[i].dot(Di)
            if self.variable == "x":
                drift = drift + Z[i]
            out[i] = drift * self.lamb
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
                J[i * d:(i + 1) * d, m * d:(m + 1) * d] = blk * self.lamb
        return J

    def jets(self, Z0: np.ndarray, t0: Fraction, order: int) -> list[np.ndarray]:
        """Taylor coefficients Z_0 … Z_order at τ = 0 of the solution through the point
        (or box) Z0 at time t0 (recurrences of Lemma C3: Cauchy products, exp, quotient),
        each convolution summed exactly in integers and rounded once (:class:`BallArray`).
        """
        n = self.n
        c0 = self.score_factor(const(t0))
        cs = [c0]  # c(t0 + τ) = c0 Σ (2λτ)^k / k!
        for k in range(1, order + 1):
            cs.append(cs[-1] * const(2 * self.lam / k) if self.variable == "z" else Ball(0, 0))
        csA = [BallArray.of(np.array(c, dtype=object)) for c in cs]  # 0-d
        lamA = BallArray.of(np.array(self.lamb, dtype=object))
        B = BallArray.of(self.B)
        # Row shifts l_i: a column of largest score (any choice is exact, it cancels).
        Zf = np.array([[x.mid_float() for x in row] for row in Z0])
        Bf = np.array([[x.mid_float() for x in row] for row in self.B])
        with np.errstate(all="ignore"):
            Sf = Zf @ Bf @ Zf.T
        lead = np.array([int(j) for j in np.argmax(np.nan_to_num(Sf, nan=0.0), axis=1)])
        rows = np.arange(n)
        Z = [BallArray.of(Z0)]
        G: list[BallArray] = []
        Sd: list[BallArray] = []
        U: list[BallArray] = []
        E: list[BallArray] = []
        R: list[BallArray] = []
        P: list[BallArray] = []
        inv0 = None
        for k in range(order):
            G.append(Z[k] @ B)
            if k == 0:
                # direct differences z_iᵀB(z_j − z_{l_i}): accurate in absolute terms
                parts = [(Z[0] - Z[0][int(lead[i])].reshape(1, -1)) @ G[0][i].reshape(-1, 1)
                         for i in range(n)]
                Sd.append(BallArray(np.concatenate([p.m.T for p in parts]),
                                    np.concatenate([p.r.T for p in parts])))
            else:
                Sk = BallArray.matmul_sum(G[:k + 1], [z.T for z in Z[k::-1]])
                Sd.append(Sk - Sk[rows, lead].reshape(n, 1))
            U.append(BallArray.dot_sum([Sd[k - m] for m in range(k + 1)], csA[:k + 1]))
            if k == 0:
                E.append(BallArray.of(np.vectorize(Ball.exp, otypes=[object])(U[0].balls())))
            else:
                E.append(BallArray.dot_sum([U[m].times_int(m) for m in range(1, k + 1)],
                                           [E[k - m] for m in range(1, k + 1)]).div_int(k))
            R.append(E[k].sum_rows())
            if k == 0:
                inv0 = BallArray.of(np.vectorize(Ball.recip, otypes=[object])(R[0].balls()))
                P.append(E[0] * inv0)
            else:
                acc = BallArray.dot_sum([R[m] for m in range(1, k + 1)],
                                        [P[k - m] for m in range(1, k + 1)])
                P.append((E[k] - acc) * inv0)
            W = BallArray.matmul_sum(P[:k + 1], Z[k::-1])
            if self.variable == "z":
                W = W - Z[k]
            Z.append((W * lamA).div_int(k + 1))
        return [z.balls() for z in Z]
