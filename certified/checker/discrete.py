"""The layer map of discrete time, iterated in the checker's exact balls (Lemma C21).

A discrete-time certificate (Lemma T10) stores no step data: the layer map of Remark 1.1,
x⁺ = x + Δt·P(x)·X·Vᵀ, has no truncation, so the checker iterates it itself from the
exact X0 in :class:`~.balls.Ball` arithmetic (fixed point at the check's scale, exp by
mpmath's directed rounding) and compares the certificate's boxes at the layer K with its
own enclosure of z^[K] = (1 + λΔt)^{−K} x^[K]. Plain interval iteration: each layer's
enclosure contains the map's image of the previous one by inclusion isotonicity, whatever
the wrapping; only the widths depend on the scale (proof in ``proofs_notes/checker.md``,
Lemma C21). Nothing here is imported from the producer.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .balls import Ball, const
from .errors import CheckFailure

__all__ = ["check_boxes_at_layer", "iterate_layers", "layer_map", "z_boxes"]


def _row_max_column(row: list[Ball]) -> int:
    """Any column serves as the softmax shift (the quotient does not depend on it); the
    largest midpoint keeps the exponentials ≤ e^{width}."""
    return max(range(len(row)), key=lambda j: row[j].mid_float())


def layer_map(X: np.ndarray, V: list[list[Fraction]], B: list[list[Fraction]],
              dt: Fraction) -> np.ndarray:
    """One layer x⁺_i = x_i + Δt Σ_j P_ij (V x_j) on a box X (n, d) of Balls, with
    P_ij = e^{U_ij}/Σ_k e^{U_ik}, U_ij = x_iᵀB(x_j − x_{l_i}) (any shift l_i: I1)."""
    n, d = X.shape
    Bb = [[const(B[a][c]) for c in range(d)] for a in range(d)]
    Vb = [[const(V[a][c]) for c in range(d)] for a in range(d)]
    h = const(dt)
    G = [[sum((X[i, a] * Bb[a][c] for a in range(1, d)), X[i, 0] * Bb[0][c])
          for c in range(d)] for i in range(n)]  # rows x_iᵀB
    out = np.empty((n, d), dtype=object)
    VX = [[sum((Vb[a][c] * X[j, c] for c in range(1, d)), Vb[a][0] * X[j, 0])
           for a in range(d)] for j in range(n)]  # V x_j
    for i in range(n):
        scores = [sum((G[i][c] * X[j, c] for c in range(1, d)), G[i][0] * X[j, 0])
                  for j in range(n)]
        lead = _row_max_column(scores)
        U = [sum((G[i][c] * (X[j, c] - X[lead, c]) for c in range(1, d)),
                 G[i][0] * (X[j, 0] - X[lead, 0])) for j in range(n)]
        E = [u.exp() for u in U]
        Z = E[0]
        for e in E[1:]:
            Z = Z + e
        for a in range(d):
            acc = E[0] * VX[0][a]
            for j in range(1, n):
                acc = acc + E[j] * VX[j][a]
            out[i, a] = X[i, a] + h * (acc / Z)
    return out


def iterate_layers(X0: list[list[Fraction]], V: list[list[Fraction]],
                   B: list[list[Fraction]], dt: Fraction, layers: int) -> np.ndarray:
    """Balls containing x^[layers] (n, d), from the exact X0."""
    X = np.array([[const(v) for v in row] for row in X0], dtype=object)
    for _ in range(layers):
        X = layer_map(X, V, B, dt)
    return X


def z_boxes(X: np.ndarray, lam: Fraction, dt: Fraction, K: int
            ) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """(z^[K] boxes, l ↦ (z_j − z_l) rows) for V = λI: z = (1 + λΔt)^{−K}·x, exact factor
    (a ball of the rational). Differences from the x-boxes before scaling."""
    n, d = X.shape
    s = const(Fraction(1) / (1 + lam * dt) ** K)
    Z = np.array([[X[i, c] * s for c in range(d)] for i in range(n)], dtype=object)

    def diff(j: int, l: int) -> list[Ball]:
        return [(X[j, c] - X[l, c]) * s for c in range(d)]
    return Z, diff  # type: ignore[return-value]


def check_boxes_at_layer(lf: dict, X: np.ndarray, lam: Fraction, dt: Fraction, K: int) -> None:
    """The certificate's boxes and follower differences at the layer K contain the
    checker's own enclosures (Lemma C21)."""
    leader, boxes, diffs = lf["leader"], lf["boxes"], lf["diffs"]
    Z, diff = z_boxes(X, lam, dt, K)
    n, d = Z.shape
    for i in range(n):
        for c in range(d):
            lo, hi = boxes[i][c]
            if not (lo <= Z[i, c].lo_q() and Z[i, c].hi_q() <= hi):
                raise CheckFailure(f"tail_lemma.boxes_at_T[{i}][{c}]",
                                   f"an interval containing the iterated {Z[i, c]!r}",
                                   f"[{float(lo)!r}, {float(hi)!r}]")
    for j in sorted(diffs):
        own = diff(j, leader[j])
        for c in range(d):
            lo, hi = diffs[j][c]
            if not (lo <= own[c].lo_q() and own[c].hi_q() <= hi):
                raise CheckFailure(f"tail_lemma.differences_at_T[{j}][{c}]",
                                   f"an interval containing the iterated {own[c]!r}",
                                   f"[{float(lo)!r}, {float(hi)!r}]")
