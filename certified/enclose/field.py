"""The attention vector fields, their Taylor jets and Jacobians, and the discrete maps.

Continuous time, tokens as the rows of an n×d matrix, B = QᵀK:

* original variable x:   ẋ_i = V Σ_j P_ij x_j,          P = softmax_j(x_iᵀ B x_j);
* rescaled variable z:   ż_i = V Σ_j P_ij (z_j − z_i),   P = softmax_j(z_iᵀ B(t) z_j),
  B(t) = e^{tVᵀ} B e^{tV} (so that the scores are those of x = e^{tV} z).

Discrete time (Remarks 1.1 and 3.4), one layer = one Euler step of size Δt:
x⁺ = x + Δt P(x) X Vᵀ, and z⁺ = z + Δt R⁻¹V Σ_j P_ij (z_j − z_i) with R = I + ΔtV.

Taylor coefficients are computed by the automatic-differentiation recurrences of
Moore / Jorba–Zou (Cauchy products, exp, quotient) in interval arithmetic; every
constant enters exactly. The softmax is evaluated with a per-row shift by a leader
column l_i: P_ij = e^{U_ij} / Σ_k e^{U_ik} with U_ij = z_iᵀ B (z_j − z_{l_i}), a score
*difference* computed directly. The shift cancels exactly, so any choice of l_i is
correct; choosing the row's largest score keeps every e^{U} ≤ 1 in practice
(``proofs_notes/integrator.md``, Lemma I1).

Every function here is an interval extension: evaluated on intervals (a box of states,
an interval of times) it returns intervals containing the exact values for every point
of the inputs (the backend's containment contract, :mod:`certified.enclose.arith.base`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from certified.enclose.arith.base import Backend
from certified.enclose.deadline import check as check_deadline
from certified.exact.instance import Instance
from certified.exact.linalg import Matrix, from_fmpq_mat, to_fmpq_mat

__all__ = ["AttentionField", "AttentionSeries"]


#: ``diffs(k)`` -> the rows z_j − z_k (an (n, d) object array), see ``velocity``.
Diffs = Callable[[int], np.ndarray]


def _box_diffs(Z: np.ndarray) -> Diffs:
    """Differences of independent boxes: rows Z[j] − Z[k]."""
    return lambda k: Z - Z[k]


def _cached(diffs: Diffs) -> Diffs:
    """``diffs`` evaluated once per k (velocity asks for each k up to n + 1 times)."""
    memo: dict[int, np.ndarray] = {}

    def get(k: int) -> np.ndarray:
        if k not in memo:
            memo[k] = diffs(k)
        return memo[k]
    return get


def _exact_array(backend: Backend, m: Matrix) -> np.ndarray:
    return backend.array([[x for x in row] for row in m])


def leader_groups(leaders: Sequence[int]) -> dict[int, list[int]]:
    """Rows grouped by their softmax shift column: leader c ↦ the rows i with l_i = c."""
    groups: dict[int, list[int]] = {}
    for i, c in enumerate(leaders):
        groups.setdefault(c, []).append(i)
    return groups


class AttentionSeries:
    """Taylor coefficients of the attention drift of one field, one order at a time.

    The recurrences of :meth:`AttentionField.jets` (Moore / Jorba–Zou: Cauchy products,
    exp, quotient; Lemma I2) as an incremental object: after the caller has appended the
    state coefficient ``Z[k]`` to the shared list ``Z``, :meth:`advance` returns the
    coefficient k of W_i = Σ_j P_ij z_j (original variable) or Σ_j P_ij (z_j − z_i)
    (rescaled). The caller multiplies by Vᵀ and integrates; composite vector fields
    (several heads, a nonlinearity after the attention) combine several series.

    Attributes ``G``, ``U``, ``E``, ``Zs``, ``P`` are the coefficient lists of the
    intermediate series (z_iᵀB(t), shifted scores, their exponentials, row sums, and P only
    with ``with_P``), shared with the tangent recurrences of :meth:`AttentionField._jets`.
    """

    def __init__(self, field: "AttentionField", Z: list[np.ndarray], t: object, order: int,
                 leaders: Sequence[int], with_P: bool = False) -> None:
        self.field, self.Z = field, Z
        self.with_P = with_P  # also the coefficients of P (the tangent recurrences use them)
        self.groups = leader_groups(leaders)
        self.lead = np.asarray(leaders)
        self.Bk = field.B_jets(t, order) if field.variable == "z" else []
        self.G: list[np.ndarray] = []
        self.U: list[np.ndarray] = []
        self.E: list[np.ndarray] = []
        self.Zs: list[np.ndarray] = []
        self.P: list[np.ndarray] = []
        self._natives: dict[tuple[int, bool], list] = {}
        # z_j − z_l at order 0, per shift column l (the l-th row exactly 0), in the
        # backend's native form: the centred form of the scores' term G_k Z_0ᵀ (Lemma I2)
        self._D0n: dict[int, object] = {}
        # The same coefficients stacked by order (advance(k) needs k < order), so that the
        # exp and quotient convolutions are one product of a slice and a reversed slice.
        n = field.n
        shapes = {"mU": (n, n), "E": (n, n), "Zs": (n, 1), "Wc": (n, field.d)}
        if with_P:
            shapes["P"] = (n, n)
        self._stacks = {key: np.empty((order + 1,) + shape, dtype=object)
                        for key, shape in shapes.items()}

    def _native(self, series: list[np.ndarray], transpose: bool = False) -> list:
        """The backend-native forms of a coefficient list, converted once each (cached
        by the list's identity: the lists only ever grow)."""
        key = (id(series), transpose)
        nat = self._natives.setdefault(key, [])
        bk = self.field.backend
        for a in series[len(nat):]:
            nat.append(bk.native(a.T.copy() if transpose else a))
        return nat

    def _cauchy(self, left: list[np.ndarray], right: list[np.ndarray], k: int,
                transpose_right: bool = False, skip_last: bool = False) -> np.ndarray:
        """Σ_{a=0}^{k} left[a] @ right[k − a] (right[·]ᵀ with ``transpose_right``); the
        sum stops at a = k − 1 with ``skip_last`` (k ≥ 1)."""
        L = self._native(left)
        R = self._native(right, transpose_right)
        top = k if skip_last else k + 1
        return self.field.backend.matmul_sum(L[:top], R[k + 1 - top:k + 1][::-1])

    def advance(self, k: int) -> np.ndarray:
        """Coefficient k of the drift W (shape (n, d)); needs ``Z[0..k]``."""
        check_deadline()  # the outer wall-clock cap, once per order
        f, bk, Z = self.field, self.field.backend, self.Z
        n = f.n
        G, U, E, Zs, P = self.G, self.U, self.E, self.Zs, self.P
        if f.variable == "x":  # B is constant: only the a = k term survives
            G.append(bk.matmul(Z[k], f.B))
        else:
            G.append(self._cauchy(Z, self.Bk, k))
        rows = np.arange(n)
        if k == 0:
            # Order 0 by direct score differences z_iᵀB(z_j − z_l): exp needs them
            # accurate in absolute terms (they are multiplied by e^{2t}).
            Uk = bk.zeros((n, n))
            for c, rws in self.groups.items():
                Dc = Z[0] - Z[0][c]
                Dc[c] = bk.zeros((self.field.d,))  # z_c − z_c ≡ 0 on any box (Lemma I2)
                self._D0n[c] = bk.native(Dc.T.copy())  # converted once a step
                Uk[rws] = bk.matmul_sum([bk.native(G[0][rws])], [self._D0n[c]])
        else:
            # Σ_{m<k} G_m Z_{k−m}ᵀ: all scores but the term G_k Z_0ᵀ, shifted by the
            # leader's column; that term in the centred form G_k (z_j − z_l)_0 (Lemma I2):
            # as G_k z_j − G_k z_l it carried rad G_k·|z_j| (≈ e^{2t}|B|·|z|·rad Z_k) into
            # every score, and the radii grew ≈ 300× an order at t = 2 on the figure setting
            Mk = self._cauchy(G, Z, k, True, skip_last=True)
            Uk = Mk - Mk[rows, self.lead].reshape(n, 1)
            for c, rws in self.groups.items():
                Uk[rws] = Uk[rws] + bk.matmul_sum([bk.native(G[k][rws])], [self._D0n[c]])
        # U_il ≡ 0 for the row's own shift column: exactly 0, not the ball x − x of
        # radius 2·rad x, which fed the whole score scale into E_il ≈ 1 at every order
        # (the jets' radii grew like (score scale)^k/k!, Lemma I2)
        Uk[rows, self.lead] = bk.const(Fraction(0))
        U.append(Uk)
        st = self._stacks
        st["mU"][k] = Uk * k
        if k == 0:
            E.append(bk.exp_array(Uk))
        else:  # E_k = (1/k) Σ_{m=1}^{k} m U_m E_{k−m}
            E.append((st["mU"][1:k + 1] * st["E"][k - 1::-1]).sum(axis=0) / k)
        st["E"][k] = E[k]
        Zs.append(E[k].sum(axis=1).reshape(n, 1))
        st["Zs"][k] = Zs[k]
        if self.with_P:  # P = E/Zs, for the tangent recurrences: Σ_m Zs_m P_{k−m} = E_k
            Pk = E[0] / Zs[0] if k == 0 else \
                (E[k] - (st["Zs"][1:k + 1] * st["P"][k - 1::-1]).sum(axis=0)) / Zs[0]
            P.append(Pk)
            st["P"][k] = Pk
        # The drift W_i = Σ_j P_ij z_j (− z_i) through its centred numerator (Lemma I2,
        # centred forms): W_i = Wc_i + c_i, Wc_i = Σ_j P_ij (z_j − c_i) = N_i / Zs_i with
        # N_i = Σ_j E_ij (z_j − c_i), c_i ≈ Σ_j P_ij,0 z_j any point (Σ_j P_ij ≡ 1). The
        # numerator's term E_k Z_0 is Σ_j E_ij,k (z_j − c_i)_0: it multiplies E_k's radius
        # by |z_j − c_i| instead of |z_j| (in clusters far from 0 the radii grew ≈ 300× an
        # order without it), and the quotient recurrence on the (n, d) drift replaces the
        # (n, n) one of P (jets 30% faster at n = 20, and narrower).
        if k == 0:
            self._c = bk.mid_array(bk.matmul(E[0], Z[0]) / Zs[0])  # exact points
            self._C0 = Z[0][None, :, :] - self._c[:, None, :]  # (i, j, a): z_j − c_i
        Nk = self._cauchy(E, Z, k, skip_last=True) if k > 0 else bk.zeros((n, f.d))
        Nk = Nk + (E[k][:, :, None] * self._C0).sum(axis=1)
        if k == 0:
            Wc = Nk / Zs[0]
        else:  # Σ_m Zs_m Wc_{k−m} = N_k
            Wc = (Nk - (st["Zs"][1:k + 1] * st["Wc"][k - 1::-1]).sum(axis=0)) / Zs[0]
        st["Wc"][k] = Wc
        W = Wc + self._c if k == 0 else Wc
        return W - Z[k] if f.variable == "z" else W


class AttentionField:
    """The vector field of one instance in one variable, for one backend.

    Parameters
    ----------
    instance : Instance
        V, Q, K (only B = QᵀK is used).
    backend : Backend
        The interval arithmetic.
    variable : {"z", "x"}
        Rescaled or original dynamics.

    Notes
    -----
    Arrays are numpy object arrays of backend intervals: tokens have shape (n, d), the
    flattened state has shape (n·d,) in token-major order (index i·d + c).
    """

    def __init__(self, instance: Instance, backend: Backend, variable: str = "z") -> None:
        if variable not in ("z", "x"):
            raise ValueError("variable must be 'z' or 'x'")
        self.instance = instance
        self.backend = backend
        self.variable = variable
        self.n, self.d = instance.n, instance.d
        self.V = _exact_array(backend, instance.V)
        self.VT = self.V.T.copy()
        self.B = _exact_array(backend, instance.B)
        self._scalar_V = instance.scalar_V
        self._bjet_cache: dict = {}
        #: Evaluate the softmax entrywise as 1/Σ_k e^{s_ik − s_ij} in `velocity` (n³ work,
        #: much tighter on wide and complex boxes); see proofs_notes/integrator.md.
        self.tight_softmax = True
        #: ``velocity`` accepts structured token differences (``diffs``, Lemma I6).
        self.supports_diffs = True

    # -- the time-dependent bilinear form ----------------------------------------------
    def B_jets(self, t: object, order: int) -> list[np.ndarray]:
        """Taylor coefficients in τ of the score matrix at time t + τ.

        For x this is [B, 0, 0, …]. For z, B(t + τ) = e^{τVᵀ} B(t) e^{τV}, whose
        coefficients are B_k = Σ_{a+b=k} (Vᵀ)^a B(t) V^b / (a! b!); ``t`` may be an
        interval (then every coefficient is enclosed for all times in it).
        """
        bk = self.backend
        if self.variable == "x":
            zero = bk.zeros((self.d, self.d))
            return [self.B] + [zero] * order
        # keyed by the precision too: a retry at more bits must not reuse coarser balls
        key = (t, order, self.backend.precision()) if isinstance(t, (int, Fraction)) else None
        if key is not None and key in self._bjet_cache:
            return self._bjet_cache[key]
        lam = self._scalar_V
        if lam is not None:
            # V = λI: B(t + τ) = e^{2λ(t+τ)} B, so B_k = (2λ)^k/k! · e^{2λt} B exactly.
            base = self.B * bk.exp(bk.const(2 * lam) * self._time(t))
            out = [base]
            for k in range(1, order + 1):
                out.append(out[-1] * bk.const(2 * lam / k))
        else:
            E = bk.expm(self.V * self._time(t))
            Bt = bk.matmul(bk.matmul(E.T.copy(), self.B), E)
            left = [Bt]  # (Vᵀ)^a B(t) / a!
            right = [bk.identity(self.d)]  # V^b / b!
            for a in range(1, order + 1):
                left.append(bk.matmul(self.VT, left[-1]) * bk.const(Fraction(1, a)))
                right.append(bk.matmul(right[-1], self.V) * bk.const(Fraction(1, a)))
            out = [bk.matmul(np.concatenate(left[:k + 1], axis=1),
                             np.concatenate([right[k - a] for a in range(k + 1)], axis=0))
                   for k in range(order + 1)]
        if key is not None:
            if len(self._bjet_cache) > 64:
                self._bjet_cache.clear()
            self._bjet_cache[key] = out
        return out

    def _score_form(self, t: object) -> tuple[np.ndarray, object]:
        """(M, c) with scores z_iᵀ M z_j · c at time t (c None means 1).

        For V = λI the time dependence is the scalar c = e^{2λt}: keeping it as one
        factor (instead of inside every entry of B(t)) avoids the dependency effect of
        interval dot products when t is an interval or a complex box.
        """
        if self.variable == "x":
            return self.B, None
        if self._scalar_V is not None:
            return self.B, self.backend.exp(self.backend.const(2 * self._scalar_V) * self._time(t))
        return self.B_jets(t, 0)[0], None

    def _time(self, t: object) -> object:
        """A time as an interval of the backend (exact rationals are enclosed)."""
        if isinstance(t, (int, Fraction)):
            return self.backend.const(Fraction(t))
        return t

    def leaders(self, Z: np.ndarray, t: object) -> list[int]:
        """For each row, a column of (approximately) largest score: the softmax shift.

        Only a numerical choice: correctness does not depend on it (Lemma I1).
        """
        bk = self.backend
        Zm = bk.mid_array(Z)
        t = self._time(t)
        Bt = self.B_jets(bk.mid_point(t), 0)[0]
        return self.leaders_from(Zm, Bt)

    # -- Taylor jets ---------------------------------------------------------------------
    def jets(self, Z0: np.ndarray, t: object, order: int,
             leaders: Sequence[int] | None = None) -> list[np.ndarray]:
        """Taylor coefficients Z_0 … Z_order of the solution through Z0 at time t.

        Parameters
        ----------
        Z0 : object array, shape (n, d)
            Intervals of the state (a point or a box).
        t : Fraction or interval
            Base time (an interval gives coefficients valid for every time in it).
        order : int
            Highest coefficient returned.
        leaders : list of int, optional
            The softmax shift columns; computed from midpoints if omitted.

        Returns
        -------
        list of object arrays, shape (n, d)
            ``Z[k]`` encloses (1/k!) dᵏz/dtᵏ at the base time, for every state in Z0 and
            time in t (Lemma I2).
        """
        return self._jets(Z0, t, order, leaders, tangents=False)[0]

    def jets_with_tangents(self, Z0: np.ndarray, t: object, order: int,
                           leaders: Sequence[int] | None = None
                           ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Taylor coefficients and their derivatives with respect to the initial state.

        Returns
        -------
        Z : list of object arrays, shape (n, d)
            As :meth:`jets`.
        dZ : list of object arrays, shape (N, n, d)
            ``dZ[k][q]`` encloses ∂Z_k/∂y_q (y = Z0 flattened, N = n·d) for every state
            in the box Z0 (forward-mode differentiation of the same recurrences, Lemma I3).
        """
        return self._jets(Z0, t, order, leaders, tangents=True)

    def _jets(self, Z0: np.ndarray, t: object, order: int, leaders: Sequence[int] | None,
              tangents: bool) -> tuple[list[np.ndarray], list[np.ndarray]]:
        bk = self.backend
        n, d = self.n, self.d
        N = n * d
        if leaders is None:
            leaders = self.leaders(Z0, t)
        groups = leader_groups(leaders)
        Bk = self.B_jets(t, order) if self.variable == "z" else []

        def lmul(A: np.ndarray, M: np.ndarray) -> np.ndarray:
            """(N, p, q) @ (q, r) -> (N, p, r)."""
            Nn, p, q = A.shape
            return bk.matmul(A.reshape(Nn * p, q), M).reshape(Nn, p, M.shape[1])

        def rmul(M: np.ndarray, A: np.ndarray) -> np.ndarray:
            """(p, q) @ (N, q, r) -> (N, p, r)."""
            Nn, q, r = A.shape
            flat = A.transpose(1, 0, 2).reshape(q, Nn * r)
            return bk.matmul(M, flat).reshape(M.shape[0], Nn, r).transpose(1, 0, 2)

        Z = [Z0]
        dZ: list[np.ndarray] = []
        if tangents:
            seed = bk.zeros((N, n, d))
            one = bk.const(Fraction(1))
            for q in range(N):
                seed[q, q // d, q % d] = one
            dZ.append(seed)
        ser = AttentionSeries(self, Z, t, order, leaders, with_P=tangents)
        G, D, U, E, Zs, P = ser.G, [], ser.U, ser.E, ser.Zs, ser.P
        dG, dD, dU, dE, dZs, dP = [], [], [], [], [], []
        for k in range(order):
            Z.append(bk.matmul(ser.advance(k), self.VT) / (k + 1))
            if not tangents:
                continue
            Pk = P[k]
            # Forward-mode derivatives of the same recurrences (product rule).
            if self.variable == "x":
                dG.append(lmul(dZ[k], self.B))
            else:
                dG.append(sum((lmul(dZ[a], Bk[k - a]) for a in range(k + 1)),
                              bk.zeros((N, n, d))))
            D.append({c: Z[k] - Z[k][c] for c in groups})
            dD.append({c: dZ[k] - dZ[k][:, c:c + 1, :] for c in groups})
            dUk = bk.zeros((N, n, n))
            for c, rws in groups.items():
                dUk[:, rws] = sum(
                    (lmul(dG[m][:, rws], D[k - m][c].T.copy())
                     + rmul(G[m][rws], dD[k - m][c].transpose(0, 2, 1).copy())
                     for m in range(k + 1)), bk.zeros((N, len(rws), n)))
            dU.append(dUk)
            if k == 0:
                dE.append(dUk * E[0])
            else:
                dE.append(sum(((dU[m] * E[k - m] + U[m] * dE[k - m]) * m
                               for m in range(1, k + 1)), bk.zeros((N, n, n))) / k)
            dZs.append(dE[k].sum(axis=2).reshape(N, n, 1))
            num = dE[k] - sum((dZs[m] * P[k - m] + Zs[m] * dP[k - m]
                               for m in range(1, k + 1)), bk.zeros((N, n, n)))
            dP.append((num - dZs[0] * Pk) / Zs[0])
            dW = sum((lmul(dP[a], Z[k - a]) + rmul(P[a], dZ[k - a]) for a in range(k + 1)),
                     bk.zeros((N, n, d)))
            if self.variable == "z":
                dW = dW - dZ[k]
            dZ.append(lmul(dW, self.VT) / (k + 1))
        return Z, dZ

    # -- values ------------------------------------------------------------------------
    def _shifted_scores(self, Z: np.ndarray, Bm: np.ndarray, scale: object,
                        leaders: Sequence[int], diffs: Diffs | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
        """(U, G): U_ij = (z_iᵀ Bm (z_j − z_{l_i}))·scale by direct differences (I1),
        and G = Z·Bm (rows z_iᵀBm), shapes (n, n) and (n, d)."""
        bk = self.backend
        diffs = diffs if diffs is not None else _box_diffs(Z)
        G = bk.matmul(Z, Bm)
        U = bk.zeros((self.n, self.n))
        for c, rows in leader_groups(leaders).items():  # one product per leader, not per row
            U[rows] = bk.matmul(G[rows], diffs(c).T.copy())
        if scale is not None:
            U = U * scale
        return U, G

    def _softmax(self, U: np.ndarray) -> np.ndarray:
        """Row softmax of shifted scores U (the shift cancels, Lemma I1)."""
        E = self.backend.exp_array(U)
        return E / E.sum(axis=1).reshape(self.n, 1)

    def attention(self, Z: np.ndarray, t: object,
                  leaders: Sequence[int] | None = None, clip: bool = False) -> np.ndarray:
        """Enclosure of P (n×n) for every state in Z at every time in t.

        ``clip=True`` (for reports, real boxes only) intersects every entry with [0, 1],
        where softmax weights lie: never wider, and an overflowed (non-finite) entry becomes
        [0, 1] instead of a NaN that nothing could report (a token of size 1e400 gives one).
        The validated computations (Jacobian, discrete map) keep the plain enclosure, which
        is what the independent checker recomputes.
        """
        if leaders is None:
            leaders = self.leaders(Z, t)
        Bm, scale = self._score_form(t)
        P = self._softmax(self._shifted_scores(Z, Bm, scale, leaders)[0])
        if not clip:
            return P
        bk = self.backend
        out = np.empty(P.shape, dtype=object)
        for idx, v in np.ndenumerate(P):
            out[idx] = bk.unit_clip(v)
        return out

    def velocity(self, Z: np.ndarray, t: object, leaders: Sequence[int] | None = None,
                 diffs: Diffs | None = None) -> np.ndarray:
        """ż (or ẋ) over the box, shape (n, d), in the centred form V Σ_j P_ij (z_j − z_i).

        The centred form multiplies the spread of P by |z_j − z_i| instead of |z_j|,
        which keeps interval evaluations over wide (complex) boxes tight (Lemma I2).

        ``diffs(k)``, if given, returns an enclosure (n, d) of the rows z_j − z_k valid
        for every state the caller means (the default is Z − Z[k] on the box Z). The
        a-priori enclosure passes the differences of its affine candidate
        c + σa + w, σ shared by all tokens, which are much tighter than differences of
        independent boxes (Lemma I6).
        """
        bk = self.backend
        if leaders is None:
            leaders = self.leaders(Z, t)
        diffs = _cached(diffs if diffs is not None else _box_diffs(Z))
        Bm, scale = self._score_form(t)
        Uall, G = self._shifted_scores(Z, Bm, scale, leaders, diffs)
        Pall = self._softmax(Uall)
        out = np.empty(Z.shape, dtype=object)
        one = bk.const(Fraction(1))
        zero = bk.const(Fraction(0))
        n, d = self.n, self.d
        if self.tight_softmax:
            # Wall[i, j, k] = z_iᵀBm(z_k − z_j) for every (i, j) at once: one matrix
            # product instead of one per near column (those were 60% of a defect step's
            # circle evaluation on (8, 3)); each entry is the same dot product.
            Dall = np.stack([diffs(j) for j in range(n)]).reshape(n * n, d)
            Wall = bk.matmul(G, Dall.T.copy()).reshape(n, n, n)
        for i, c in enumerate(leaders):
            Di = diffs(i).copy()  # rows z_j − z_i
            Di[i] = zero  # exactly 0, whatever the enclosure of the difference says
            U, P = Uall[i], Pall[i].copy()
            if self.tight_softmax:
                # For columns whose score is near the row maximum, P_ij = 1/Σ_k e^{s_ik − s_ij}
                # (one reciprocal, no shared numerator/denominator): much tighter on wide
                # or complex boxes. Far columns keep E_ij/Z (a tiny numerator is tight).
                for j in range(self.n):
                    if j == c or bk.to_float(bk.re_im(U[j])[0]) > -4:
                        W = Wall[i, j].copy()
                        if scale is not None:
                            W = W * scale
                        W[j] = bk.const(Fraction(0))
                        P[j] = one / bk.exp_array(W).sum()
            drift = bk.matmul(P.reshape(1, -1), Di)[0]
            if self.variable == "x":
                drift = drift + Z[i]
            out[i] = bk.matmul(drift.reshape(1, -1), self.VT)[0]
        return out

    def jacobian(self, Z: np.ndarray, t: object,
                 leaders: Sequence[int] | None = None) -> np.ndarray:
        """Enclosure of the Jacobian of the vector field over the box Z, shape (N, N).

        With s_ij = z_iᵀ B z_j and z̄_i = Σ_j P_ij z_j, the block (i, m) is
        V [P_im I + P_im (z_m − z̄_i) z_iᵀ B + δ_im Σ_k P_ik (z_k − z̄_i) z_kᵀ Bᵀ]
        (minus δ_im V for the rescaled variable); Lemma I3.
        """
        bk = self.backend
        n, d = self.n, self.d
        Bt = self.B_jets(t, 0)[0]
        BtT = Bt.T.copy()
        P = self.attention(Z, t, leaders)
        zbar = bk.matmul(P, Z)
        ziB = bk.matmul(Z, Bt)  # rows z_iᵀ B
        zkBT = bk.matmul(Z, BtT)  # rows z_kᵀ Bᵀ
        # Every block at once with object-array broadcasting and one product by V (one
        # small product per block was 80% of a Jacobian's time at n = 20).
        PD = (Z[None, :, :] - zbar[:, None, :]) * P[:, :, None]  # (n, n, d): P_im (z_m − z̄_i)
        blk = PD[:, :, :, None] * ziB[:, None, None, :]  # (n, n, d, d): P_im (z_m − z̄_i) z_iᵀB
        diag = (PD[:, :, :, None] * zkBT[None, :, None, :]).sum(axis=1)  # (n, d, d)
        one = bk.const(Fraction(1))
        for i in range(n):
            for a in range(d):
                blk[i, :, a, a] = blk[i, :, a, a] + P[i, :]
            blk[i, i] = blk[i, i] + diag[i]
            if self.variable == "z":
                for a in range(d):
                    blk[i, i, a, a] = blk[i, i, a, a] - one
        # (V·blk_im)[a, b] = Σ_c V[a, c] blk[i, m, c, b], for all (i, m) in one product
        X = blk.transpose(2, 0, 1, 3).reshape(d, n * n * d)
        Y = bk.matmul(self.V, X).reshape(d, n, n, d)
        return Y.transpose(1, 0, 2, 3).reshape(n * d, n * d).copy()

    # -- discrete maps -------------------------------------------------------------------
    def euler_map(self, X: np.ndarray, dt: Fraction) -> np.ndarray:
        """Remark 1.1: x⁺ = x + Δt P(x) X Vᵀ (original variable, autonomous)."""
        if self.variable != "x":
            raise ValueError("euler_map is the original-variable map")
        bk = self.backend
        P = self.attention(X, Fraction(0))
        return X + bk.matmul(bk.matmul(P, X), self.VT) * bk.const(dt)

    def euler_map_jacobian(self, X: np.ndarray, dt: Fraction) -> np.ndarray:
        """I + Δt·DF(X) over the box X."""
        bk = self.backend
        N = self.n * self.d
        return bk.identity(N) + self.jacobian(X, Fraction(0)) * bk.const(dt)

    def rescaled_euler_map(self, Zk: np.ndarray, layer: int, dt: Fraction) -> np.ndarray:
        """Remark 3.4: z⁺_i = z_i + Δt Σ_j P_ij R⁻¹V (z_j − z_i), P at x = R^k z."""
        bk = self.backend
        d = self.d
        R = [[(1 if i == j else 0) + dt * self.instance.V[i][j] for j in range(d)]
             for i in range(d)]
        Rq = to_fmpq_mat([[Fraction(x) for x in row] for row in R])
        Rk = Rq ** layer
        Bkk = bk.array(from_fmpq_mat(Rk.transpose() * to_fmpq_mat(self.instance.B) * Rk))
        M = bk.array(from_fmpq_mat(Rq.inv() * to_fmpq_mat(self.instance.V)))
        leaders = self.leaders_from(Zk, Bkk)
        P = self._softmax(self._shifted_scores(Zk, Bkk, None, leaders)[0])
        drift = bk.matmul(P, Zk) - Zk
        return Zk + bk.matmul(drift, M.T.copy()) * bk.const(dt)

    def leaders_from(self, Z: np.ndarray, Bmat: np.ndarray) -> list[int]:
        """Row-wise argmax of the midpoint scores z_iᵀ B z_j (a heuristic, Lemma I1)."""
        bk = self.backend
        Zm = bk.mid_array(Z)
        try:
            Sf = bk.float_array(bk.matmul(bk.matmul(Zm, bk.mid_array(Bmat)), Zm.T.copy()))
        except (OverflowError, ValueError, ArithmeticError):
            return list(range(self.n))
        if not np.all(np.isfinite(Sf)):
            return list(range(self.n))
        return [int(j) for j in np.argmax(Sf, axis=1)]
