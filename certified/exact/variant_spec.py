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

This module holds the parsed options only (exact matrices, no numerics). **Certified
enclosures** (``certified simulate``, :func:`certified.enclose.driver.enclose_trajectory`)
exist where the vector field is smooth: tanh in the x-form, multi-head, and piecewise
weights (smooth on each piece; the set at a switching time starts the next piece), all
integrated in the original variable x (several V_h have no common rescaling). The
fields here implement the stepper's protocol and are built from
:class:`~certified.enclose.field.AttentionField` and :class:`~certified.enclose.field.AttentionSeries`
(Lemma V1 in ``proofs_notes/integrator.md``). ReLU is not smooth and the z-form
feed-forward field is not wired to the integrator: those runs are approximate only
(:func:`certified.approx.float64.approx_variant`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from certified.errors import InputError
from certified.exact.rationals import (
    fraction_to_str,
    parse_matrix,
    shape_str,
    to_fraction,
)

__all__ = ["FeedForward", "Head", "MultiHead", "Pieces", "Variant", "certifiable",
           "parse_variant"]

Matrix = tuple[tuple[Fraction, ...], ...]




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

        return {"pieces": [{"from": fraction_to_str(t), "V": _mat_json(h.V),
                            "Q": _mat_json(h.Q), "K": _mat_json(h.K)}
                           for t, h in zip(self.starts, self.weights)]}


Variant = FeedForward | MultiHead | Pieces


def _mat_json(m: Matrix) -> list[list[str]]:

    return [[fraction_to_str(x) for x in row] for row in m]


def _dims(m: Matrix) -> tuple[int, int]:
    return (len(m), len(m[0]))


def _head(obj: Any, where: str, d: int, k: int | None) -> Head:

    if not isinstance(obj, Mapping) or set(obj) - {"V", "Q", "K", "from"} or \
            not {"V", "Q", "K"} <= set(obj):
        raise InputError(where, "is not a head", "an object with keys V, Q, K")
    V, Q, K = (parse_matrix(obj[c], f"{where}.{c}") for c in ("V", "Q", "K"))
    if _dims(V) != (d, d):
        raise InputError(f"{where}.V", f"shape {shape_str(V)}", f"a {d}×{d} matrix")
    if len(Q[0]) != d or _dims(K) != _dims(Q):
        raise InputError(f"{where}.Q", f"shapes {shape_str(Q)} and {shape_str(K)}",
                         f"Q and K of one shape k×{d}")
    return Head(V, Q, K)


def parse_variant(obj: Any, d: int) -> Variant:
    """Validate the ``variant`` object of an instance file (tokens in R^d)."""

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
        W = parse_matrix(body["W"], "variant.feedforward.W") if "W" in body else \
            tuple(tuple(Fraction(int(i == j)) for j in range(d)) for i in range(d))
        if _dims(W) != (d, d):
            raise InputError("variant.feedforward.W", f"shape {shape_str(W)}", f"a {d}×{d} matrix")
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
