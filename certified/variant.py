"""The open variants as instance options: feed-forward, multi-head, piecewise weights.

An instance file may carry one optional ``"variant"`` object (an addition to the spec's
instance format; files without it are unchanged):

* ``{"feedforward": {"sigma": "tanh" | "relu", "W": d×d, "form": "x" | "z"}}`` –
  Section 12.2. ``form = "x"`` (default): ẋ_i = W σ(V Σ_j P_ij x_j); ``form = "z"``:
  ż_i = W σ(V Σ_j P_ij (z_j − z_i)) with P from x = e^{tV}z (as transcribed in
  ``theorems.md``).
* ``{"heads": [{"V", "Q", "K"}, …]}`` – multi-head attention: the instance's own V, Q, K
  is head 1 and these are further heads; ẋ_i = Σ_h V_h Σ_j P^h_ij x_j.
* ``{"pieces": [{"from": t, "V", "Q", "K"}, …]}`` – weights that change with time: the
  instance's own weights on [0, t₁), then each piece's from its ``from`` time on (times
  strictly increasing; in discrete time, multiples of Δt).

**Certified enclosures** (``certified simulate``, :func:`certified.flow.enclose_trajectory`)
exist where the vector field is smooth: tanh in the x-form, multi-head, and piecewise
weights (smooth on each piece; the set at a switching time starts the next piece), all
integrated in the original variable x (several V_h have no common rescaling). The
fields here implement the stepper's protocol and are built from
:class:`~certified.field.AttentionField` and :class:`~certified.field.AttentionSeries`
(Lemma V1 in ``proofs_notes/integrator.md``). ReLU is not smooth and the z-form
feed-forward field is not wired to the integrator: those runs are approximate only
(:func:`approx_variant`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np

from .arith.base import Backend
from .errors import InputError
from .numbers import float_matrix
from .field import AttentionField, AttentionSeries

__all__ = ["SIGMAS", "FeedForward", "MultiHead", "Pieces", "parse_variant", "certifiable",
           "MultiHeadField", "FeedForwardField", "approx_variant"]

Matrix = tuple[tuple[Fraction, ...], ...]

#: The feed-forward nonlinearities, for the approximate (float64) runs.
SIGMAS: dict[str, Any] = {"relu": lambda u: np.maximum(u, 0.0), "tanh": np.tanh}


@dataclass(frozen=True)
class FeedForward:
    sigma: str
    W: Matrix
    form: str = "x"

    def to_json(self) -> dict[str, Any]:
        return {"feedforward": {"sigma": self.sigma, "W": _mat_json(self.W), "form": self.form}}


@dataclass(frozen=True)
class Head:
    V: Matrix
    Q: Matrix
    K: Matrix


@dataclass(frozen=True)
class MultiHead:
    heads: tuple[Head, ...]  # the heads beyond the instance's own

    def to_json(self) -> dict[str, Any]:
        return {"heads": [{"V": _mat_json(h.V), "Q": _mat_json(h.Q), "K": _mat_json(h.K)}
                          for h in self.heads]}


@dataclass(frozen=True)
class Pieces:
    starts: tuple[Fraction, ...]
    weights: tuple[Head, ...]

    def to_json(self) -> dict[str, Any]:
        from .numbers import fraction_to_str

        return {"pieces": [{"from": fraction_to_str(t), "V": _mat_json(h.V),
                            "Q": _mat_json(h.Q), "K": _mat_json(h.K)}
                           for t, h in zip(self.starts, self.weights)]}


Variant = FeedForward | MultiHead | Pieces


def _mat_json(m: Matrix) -> list[list[str]]:
    from .numbers import fraction_to_str

    return [[fraction_to_str(x) for x in row] for row in m]


def _dims(m: Matrix) -> tuple[int, int]:
    return (len(m), len(m[0]))


def _head(obj: Any, where: str, d: int, k: int | None) -> Head:
    from .instance import _matrix, _shape

    if not isinstance(obj, Mapping) or set(obj) - {"V", "Q", "K", "from"} or \
            not {"V", "Q", "K"} <= set(obj):
        raise InputError(where, "is not a head", "an object with keys V, Q, K")
    V, Q, K = (_matrix(obj[c], f"{where}.{c}") for c in ("V", "Q", "K"))
    if _dims(V) != (d, d):
        raise InputError(f"{where}.V", f"shape {_shape(V)}", f"a {d}×{d} matrix")
    if len(Q[0]) != d or _dims(K) != _dims(Q):
        raise InputError(f"{where}.Q", f"shapes {_shape(Q)} and {_shape(K)}",
                         f"Q and K of one shape k×{d}")
    return Head(V, Q, K)


def parse_variant(obj: Any, d: int) -> Variant:
    """Validate the ``variant`` object of an instance file (tokens in R^d)."""
    from .instance import _matrix, _shape
    from .numbers import to_fraction

    accepted = "one of {\"feedforward\": …}, {\"heads\": […]}, {\"pieces\": […]}"
    if not isinstance(obj, Mapping) or len(obj) != 1:
        raise InputError("variant", "is not a variant object", accepted)
    (kind, body), = obj.items()
    if kind == "feedforward":
        if not isinstance(body, Mapping) or set(body) - {"sigma", "W", "form"} or \
                "sigma" not in body:
            raise InputError("variant.feedforward", "malformed",
                             "an object with sigma, optional W (default I) and form")
        sigma = body["sigma"]
        if sigma not in ("tanh", "relu"):
            raise InputError("variant.feedforward.sigma", f"{sigma!r}", "'tanh' or 'relu'")
        form = body.get("form", "x")
        if form not in ("x", "z"):
            raise InputError("variant.feedforward.form", f"{form!r}", "'x' or 'z'")
        W = _matrix(body["W"], "variant.feedforward.W") if "W" in body else \
            tuple(tuple(Fraction(int(i == j)) for j in range(d)) for i in range(d))
        if _dims(W) != (d, d):
            raise InputError("variant.feedforward.W", f"shape {_shape(W)}", f"a {d}×{d} matrix")
        return FeedForward(sigma, W, form)
    if kind == "heads":
        if not isinstance(body, list) or not body:
            raise InputError("variant.heads", "is not a non-empty list", "a list of heads")
        return MultiHead(tuple(_head(h, f"variant.heads[{i}]", d, None)
                               for i, h in enumerate(body)))
    if kind == "pieces":
        if not isinstance(body, list) or not body:
            raise InputError("variant.pieces", "is not a non-empty list", "a list of pieces")
        starts, heads = [], []
        for i, p in enumerate(body):
            where = f"variant.pieces[{i}]"
            if not isinstance(p, Mapping) or "from" not in p:
                raise InputError(where, "has no 'from' time", "an object with from, V, Q, K")
            t = to_fraction(p["from"], f"{where}.from")
            if t <= (starts[-1] if starts else 0):
                raise InputError(f"{where}.from", f"{t} is not after the previous piece",
                                 "strictly increasing times > 0")
            starts.append(t)
            heads.append(_head(p, where, d, None))
        return Pieces(tuple(starts), tuple(heads))
    raise InputError("variant", f"unknown kind {kind!r}", accepted)


def certifiable(variant: Variant | None) -> str | None:
    """None if certified enclosures exist for this variant, else why not."""
    if isinstance(variant, FeedForward):
        if variant.sigma != "tanh":
            return "σ = ReLU is not smooth: only approximate runs (Taylor models need C^∞)"
        if variant.form != "x":
            return "the z-form feed-forward field is not wired to the integrator (approximate only)"
    return None


# -- vector fields (the stepper's protocol) ----------------------------------------------
def _head_instance(inst: Any, V: Matrix, Q: Matrix, K: Matrix) -> Any:
    from .instance import Instance

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


# -- approximate path --------------------------------------------------------------------
def approx_variant(inst: Any, t_final: float, *, h: float = 1e-3,
                   times: Sequence[float] | None = None) -> dict[str, Any]:
    """Float64 RK4 of the variant in x (z-form feed-forward: in z), **approximate**.

    Returns ``{"times", "tokens", "variable", "method"}`` with tokens (n, d) arrays.
    """
    from .approx import expm_float, rk4_float, softmax_rows

    var = inst.variant
    V, Q, K = (float_matrix(getattr(inst, k), k) for k in ("V", "Q", "K"))

    def attn_out(X: np.ndarray, Vm: np.ndarray, Qm: np.ndarray, Km: np.ndarray) -> np.ndarray:
        return (softmax_rows((X @ Qm.T) @ (X @ Km.T).T) @ X) @ Vm.T

    variable = "x"
    if isinstance(var, FeedForward):
        sig = SIGMAS[var.sigma]
        Wt = float_matrix(var.W, "variant.feedforward.W").T
        if var.form == "z":
            variable = "z"

            def rhs(Z: np.ndarray, t: float) -> np.ndarray:
                X = Z @ expm_float(t * V).T
                P = softmax_rows((X @ Q.T) @ (X @ K.T).T)
                return sig((P @ Z - Z) @ V.T) @ Wt
        else:
            def rhs(Z: np.ndarray, t: float) -> np.ndarray:
                return sig(attn_out(Z, V, Q, K)) @ Wt
    elif isinstance(var, MultiHead):
        hs = [(V, Q, K)] + [tuple(float_matrix(getattr(x, k), f"variant.heads[{i}].{k}")
                                  for k in ("V", "Q", "K")) for i, x in enumerate(var.heads)]

        def rhs(Z: np.ndarray, t: float) -> np.ndarray:
            return sum(attn_out(Z, *w) for w in hs)
    elif isinstance(var, Pieces):
        starts = [0.0] + [float(s) for s in var.starts]
        ws = [(V, Q, K)] + [tuple(float_matrix(getattr(x, k), f"variant.pieces[{i}].{k}")
                                  for k in ("V", "Q", "K")) for i, x in enumerate(var.weights)]
        piece = [0]  # the weights of the current step: chosen at its start (see below)

        def rhs(Z: np.ndarray, t: float) -> np.ndarray:
            return attn_out(Z, *ws[piece[0]])
    else:
        def rhs(Z: np.ndarray, t: float) -> np.ndarray:
            return attn_out(Z, V, Q, K)

    def choose_piece(t: float) -> None:
        # All four stages use the weights of [t, t + h): switching times on the grid
        # are then handled exactly (a stage at the switch would mix the two pieces).
        piece[0] = max(i for i, s in enumerate(starts) if s <= t + h / 2)

    got = rk4_float(rhs, float_matrix(inst.X0, "X0"), t_final, h=h,
                    times=times if times is not None else [0.0, t_final],
                    step_start=choose_piece if isinstance(var, Pieces) else None)
    out_t = [t for t, _, _ in got]
    out_z = [Z for _, _, Z in got]
    return {"times": out_t, "tokens": out_z, "variable": variable,
            "method": f"float64 RK4, h = {h} (approximate)"}
