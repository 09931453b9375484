"""Independent oracles shared by the tail tests: exact rationals to mpf, the shipped
examples at a step size, the layer map of Remark 1.1 (mpmath's softmax) and a float64 RK4
of the continuous dynamics (numpy). No interval arithmetic and no code of the library."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np

from certified import Instance

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def mp(q) -> mpmath.mpf:
    """An exact number (int, Fraction or its text) as an mpf at the current precision."""
    q = Fraction(str(q))
    return mpmath.mpf(q.numerator) / q.denominator


def example_at(name: str, dt: str) -> Instance:
    """``examples/NAME.json`` in discrete time with step ``dt``."""
    d = json.loads((EXAMPLES / f"{name}.json").read_text())
    d["time"] = {"discrete": dt}
    return Instance.from_json(d)


def layer(X: list, V: list, B: list, dt) -> list:
    """One layer x_i⁺ = x_i + Δt·V Σ_j P_ij x_j, P the row-softmax of x_iᵀBx_j; X is n
    lists of d mpf, V and B d×d mpf, evaluated at the caller's precision."""
    n, d = len(X), len(B)
    out = []
    for i in range(n):
        s = [sum(X[i][a] * B[a][b] * X[j][b] for a in range(d) for b in range(d))
             for j in range(n)]
        top = max(s)
        w = [mpmath.exp(v - top) for v in s]
        tot = sum(w)
        avg = [sum(w[j] * X[j][c] for j in range(n)) / tot for c in range(d)]
        out.append([X[i][a] + dt * sum(V[a][b] * avg[b] for b in range(d))
                    for a in range(d)])
    return out


def iterate(inst: Instance, dt, layers: int) -> tuple[list, list, list, mpmath.mpf]:
    """(X, V, B, h): the instance's tokens after ``layers`` layers of step ``dt``, and its
    V, B and Δt as mpf, all at the caller's precision."""
    B = [[mp(x) for x in row] for row in inst.B]
    V = [[mp(x) for x in row] for row in inst.V]
    h = mp(dt)
    X = [[mp(x) for x in row] for row in inst.X0]
    for _ in range(layers):
        X = layer(X, V, B, h)
    return X, V, B, h


def assert_in_boxes(X: list, boxes: list) -> None:
    """Each stored box [lo, hi] (exact text) contains the oracle's value."""
    for i, row in enumerate(boxes):
        for col, (lo, hi) in enumerate(row):
            assert mp(lo) <= X[i][col] <= mp(hi), (i, col)


def rk4_x(X: np.ndarray, V: np.ndarray, B: np.ndarray, T: float, h: float) -> np.ndarray:
    """Float64 RK4 with step h of ẋ_i = Σ_j P_ij V x_j, P the row-softmax of x_iᵀBx_j, from
    the n×d state X at t = 0 to t = T (the last step lands within 10⁻¹² of T)."""
    def f(x: np.ndarray) -> np.ndarray:
        S = x @ B @ x.T
        S -= S.max(axis=1, keepdims=True)
        P = np.exp(S)
        return (P / P.sum(axis=1, keepdims=True)) @ x @ V.T

    t = 0.0
    while t < T - 1e-12:
        k1 = f(X)
        k2 = f(X + h / 2 * k1)
        k3 = f(X + h / 2 * k2)
        k4 = f(X + h * k3)
        X, t = X + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4), t + h
    return X
