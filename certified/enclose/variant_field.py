"""Certified vector fields of the open variants (Lemma V1, ``proofs_notes/integrator.md``).

Multi-head attention, the tanh feed-forward variant in the x-form and piecewise
weights, built from :class:`~certified.enclose.field.AttentionField` and
:class:`~certified.enclose.field.AttentionSeries`, with the stepper's protocol. The
options themselves are parsed by :mod:`certified.exact.variant_spec`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from certified.enclose.arith.base import Backend
from certified.enclose.field import AttentionField, AttentionSeries
from certified.errors import InputError
from certified.exact.instance import Instance
from certified.exact.variant_spec import (
    FeedForward,
    Matrix,
    MultiHead,
    Pieces,
    certifiable,
)

__all__ = ["FeedForwardField", "MultiHeadField", "variant_field"]


# -- vector fields (the stepper's protocol) ----------------------------------------------
def _head_instance(inst: Any, V: Matrix, Q: Matrix, K: Matrix) -> Any:

    return Instance(V, Q, K, inst.X0, inst.time, inst.name, None)


class MultiHeadField:
    """ẋ_i = Σ_h V_h Σ_j P^h_ij x_j in the original variable (autonomous).

    Every method is the sum over heads of :class:`AttentionField`'s (an interval
    extension of a sum is the sum of interval extensions); jets add the heads' drift
    series order by order (Lemma V1).
    """

    variable = "x"

    def __init__(self, heads: Sequence[AttentionField]) -> None:
        self.heads = list(heads)
        self.backend: Backend = heads[0].backend
        self.n, self.d = heads[0].n, heads[0].d
        self.V = heads[0].V

    def leaders(self, Y: np.ndarray, t: object) -> list[list[int]]:
        return [f.leaders(Y, t) for f in self.heads]

    def attention(self, Y: np.ndarray, t: object, leaders: Any = None,
                  clip: bool = False) -> np.ndarray:
        """The first head's P (the instance's own weights)."""
        return self.heads[0].attention(Y, t, clip=clip)

    def velocity(self, Y: np.ndarray, t: object, leaders: list[list[int]] | None = None
                 ) -> np.ndarray:
        leaders = leaders or self.leaders(Y, t)
        out = self.heads[0].velocity(Y, t, leaders[0])
        for f, lh in zip(self.heads[1:], leaders[1:]):
            out = out + f.velocity(Y, t, lh)
        return out

    def jacobian(self, Y: np.ndarray, t: object, leaders: Any = None) -> np.ndarray:
        out = self.heads[0].jacobian(Y, t)
        for f in self.heads[1:]:
            out = out + f.jacobian(Y, t)
        return out

    def jets(self, Z0: np.ndarray, t: object, order: int,
             leaders: list[list[int]] | None = None) -> list[np.ndarray]:
        bk = self.backend
        leaders = leaders or self.leaders(Z0, t)
        Z = [Z0]
        series = [AttentionSeries(f, Z, t, order, lh) for f, lh in zip(self.heads, leaders)]
        for k in range(order):
            acc = None
            for f, s in zip(self.heads, series):
                term = bk.matmul(s.advance(k), f.VT)
                acc = term if acc is None else acc + term
            Z.append(acc / (k + 1))
        return Z


def _tanh(bk: Backend, u: np.ndarray) -> np.ndarray:
    """tanh u = 1 − 2/(e^{2u} + 1), entrywise (real or complex boxes; an exact identity)."""
    one, two = bk.const(Fraction(1)), bk.const(Fraction(2))
    return one - two / (bk.exp_array(u * two) + one)


class FeedForwardField:
    """ẋ_i = W tanh(V Σ_j P_ij x_j) in the original variable (Section 12.2, x-form).

    u = V Σ_j P_ij x_j is the attention field's velocity; tanh enters by the recurrence
    of y = tanh u, y' = (1 − y²)u' (Lemma V1); the Jacobian is W diag(1 − tanh²u_i) ∂u_i.
    """

    variable = "x"

    def __init__(self, head: AttentionField, W: Matrix) -> None:
        self.head = head
        self.backend = head.backend
        self.n, self.d = head.n, head.d
        self.V = head.V
        self.WT = self.backend.array([[x for x in row] for row in W]).T.copy()

    def leaders(self, Y: np.ndarray, t: object) -> list[int]:
        return self.head.leaders(Y, t)

    def attention(self, Y: np.ndarray, t: object, leaders: Any = None,
                  clip: bool = False) -> np.ndarray:
        return self.head.attention(Y, t, clip=clip)

    def velocity(self, Y: np.ndarray, t: object, leaders: list[int] | None = None
                 ) -> np.ndarray:
        u = self.head.velocity(Y, t, leaders)
        return self.backend.matmul(_tanh(self.backend, u), self.WT)

    def jacobian(self, Y: np.ndarray, t: object, leaders: Any = None) -> np.ndarray:
        bk = self.backend
        n, d = self.n, self.d
        Ju = self.head.jacobian(Y, t)  # (N, N): ∂u_i/∂x_m by blocks
        th = _tanh(bk, self.head.velocity(Y, t)).reshape(n * d)
        one = bk.const(Fraction(1))
        D = bk.zeros((n * d, n * d))
        for i in range(n):  # block diagonal W diag(1 − tanh²u_i)
            blk = self.WT.T * (one - th[i * d:(i + 1) * d] * th[i * d:(i + 1) * d]).reshape(1, d)
            D[i * d:(i + 1) * d, i * d:(i + 1) * d] = blk
        return bk.matmul(D, Ju)

    def jets(self, Z0: np.ndarray, t: object, order: int, leaders: list[int] | None = None
             ) -> list[np.ndarray]:
        bk = self.backend
        leaders = leaders or self.leaders(Z0, t)
        Z = [Z0]
        ser = AttentionSeries(self.head, Z, t, order, leaders)
        u: list[np.ndarray] = []
        y: list[np.ndarray] = []  # tanh u
        s: list[np.ndarray] = []  # 1 − y²
        one = bk.const(Fraction(1))
        for k in range(order):
            u.append(bk.matmul(ser.advance(k), self.head.VT))
            if k == 0:
                y.append(_tanh(bk, u[0]))
            else:  # y_k = (1/k) Σ_{m=1}^{k} m u_m s_{k−m}
                acc = u[1] * s[k - 1]
                for m in range(2, k + 1):
                    acc = acc + u[m] * s[k - m] * m
                y.append(acc / k)
            sq = y[0] * y[k]
            for a in range(1, k + 1):
                sq = sq + y[a] * y[k - a]
            s.append((one - sq) if k == 0 else (sq * (-1)))
            Z.append(bk.matmul(y[k], self.WT) / (k + 1))
        return Z


def variant_field(inst: Any, bk: Backend, weights: Any = None) -> Any:
    """The certified field of ``inst``'s variant (or of one piece's weights)."""
    var = inst.variant
    if isinstance(var, Pieces):
        V, Q, K = weights if weights is not None else (inst.V, inst.Q, inst.K)
        return AttentionField(_head_instance(inst, V, Q, K), bk, "x")
    base = AttentionField(inst, bk, "x")
    if isinstance(var, MultiHead):
        return MultiHeadField([base] + [AttentionField(_head_instance(inst, h.V, h.Q, h.K),
                                                       bk, "x") for h in var.heads])
    if isinstance(var, FeedForward):
        why = certifiable(var)
        if why is not None:
            raise InputError("variant.feedforward", why, "sigma 'tanh' with form 'x'")
        return FeedForwardField(base, var.W)
    return base
