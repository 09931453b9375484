"""Approximate float64 paths (no error bounds): RK4, an overflow-safe softmax, the
matrix exponential, Theorem 4.2's coordinate by simulation, and the open variants.

Nothing here is certified; results are typed as approximate
(:mod:`certified.approx.results`). The float64 conversion of exact inputs refuses
entries beyond float64's range with a one-line error naming the matrix.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import numpy as np

from certified.approx.results import ApproxJudgement, ApproxTrajectory
from certified.exact.instance import Instance
from certified.exact.rationals import float_matrix
from certified.exact.variant_spec import FeedForward, MultiHead, Pieces

__all__ = ["SIGMAS", "approx_theorem_4_2", "approx_trajectory_float", "approx_variant",
           "expm_float", "rk4_float", "softmax_rows"]

#: The feed-forward nonlinearities, for the approximate (float64) runs.
SIGMAS: dict[str, Any] = {"relu": lambda u: np.maximum(u, 0.0), "tanh": np.tanh}


def softmax_rows(S: np.ndarray) -> np.ndarray:
    """Row softmax with the row maximum subtracted (no overflow for any finite S)."""
    S = S - S.max(axis=-1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=-1, keepdims=True)


def expm_float(A: np.ndarray) -> np.ndarray:
    """Matrix exponential in float64 (scaling and squaring, 18 Taylor terms)."""
    norm = np.linalg.norm(A, 1)
    s = max(0, int(np.ceil(np.log2(norm))) + 1) if norm > 0 else 0
    M = A / 2.0 ** s
    out = np.eye(A.shape[0])
    term = np.eye(A.shape[0])
    for k in range(1, 19):
        term = term @ M / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def rk4_float(rhs: Callable[[np.ndarray, float], np.ndarray], Z0: Any, t_final: float, *,
              h: float, times: Iterable[float],
              step_start: Callable[[float], None] | None = None
              ) -> list[tuple[float, float, np.ndarray]]:
    """Classical fixed-step float64 RK4 for Ż = rhs(Z, t) on [0, t_final] (approximate).

    Returns ``(t_requested, t_grid, Z)`` for every requested time, taken at the nearest
    grid point k·h (within h/2). ``step_start(t)`` runs before each step, so a caller can
    fix what holds on [t, t + h) (e.g. piecewise weights switching on the grid).
    """
    Z = np.asarray(Z0, dtype=float).copy()
    wanted = sorted(set(times))
    steps = int(round(t_final / h))
    out = []
    for k in range(steps + 1):
        t = k * h
        while wanted and abs(wanted[0] - t) <= h / 2:
            out.append((wanted.pop(0), t, Z.copy()))
        if k == steps:
            break
        if step_start is not None:
            step_start(t)
        k1 = rhs(Z, t)
        k2 = rhs(Z + h / 2 * k1, t + h / 2)
        k3 = rhs(Z + h / 2 * k2, t + h / 2)
        k4 = rhs(Z + h * k3, t + h)
        Z = Z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return out


def approx_trajectory_float(V: Any, Q: Any, K: Any, X0: Any, t_final: float, *,
                            times: Iterable[float] | None = None, h: float = 1e-3,
                            variable: str = "z") -> ApproxTrajectory:
    """Vectorized float64 RK4 for the rescaled dynamics (approximate, any size).

    Parameters
    ----------
    V : array (d, d); Q, K : arrays (k, d); X0 : array (n, d)
    t_final : float
    times : floats, optional
        Output times (rounded to the step grid).
    h : float
        Step size.
    variable : {"z", "x"}
    """
    V = np.asarray(V, dtype=float)
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    VT = V.T

    def attention(Zc: np.ndarray, t: float) -> np.ndarray:
        X = Zc @ expm_float(t * V).T  # tokens x = e^{tV} z, one per row
        return softmax_rows((X @ Q.T) @ (X @ K.T).T)

    def rhs(Zc: np.ndarray, t: float) -> np.ndarray:
        return (attention(Zc, t) @ Zc - Zc) @ VT

    out_t, out_z, out_p = [], [], []
    for t_out, t, Z in rk4_float(rhs, X0, t_final, h=h,
                                 times=times if times is not None else [0.0, t_final]):
        out_t.append(t_out)
        out_z.append(Z if variable == "z" else Z @ expm_float(t * V).T)
        out_p.append(attention(Z, t))
    return ApproxTrajectory(out_t, out_z, out_p, variable, f"float64 RK4, h = {h} (approximate)")


def approx_theorem_4_2(instance: Instance, *, t_end: float = 6.0, h: float = 1e-3,
                       tol: float = 1e-4) -> ApproxJudgement:
    """Theorem 4.2's conclusion read off a float64 RK4 run in z (approximate).

    φ₁* is the left eigenvector of the eigenvalue of largest modulus (the one with the
    largest real part among ties); for a complex pair the reading is convergence of the
    coordinates in its real invariant plane to at most three points. The conclusion
    reads as holding when every φ₁*(z_i) moved by less than ``tol`` (relative) between
    t_end − 1 and t_end and the values at t_end form at most three groups (within
    ``tol``), one of them at 0 when there are three; otherwise it breaks. Not a proof:
    a slow drift or a late split is invisible at finite t_end.
    """
    method = f"float64 RK4 in z, h = {h}, φ₁*(z) at t = {t_end - 1:g} and {t_end:g} (approximate)"
    V = float_matrix(instance.V, "V")
    w, vl = np.linalg.eig(V.T)
    mod = np.abs(w)
    top = [k for k in range(len(w)) if mod[k] >= mod.max() * (1 - 1e-9)]
    k = max(top, key=lambda j: w[j].real)
    complex_pair = abs(w[k].imag) > 1e-9 * max(1.0, mod[k])
    # A complex pair has no real φ₁*: read its real invariant plane (Re, Im of the left
    # eigenvector) instead, and ask for convergence to at most three points there.
    phi = np.stack([vl[:, k].real, vl[:, k].imag], axis=1) if complex_pair else \
        vl[:, k].real.reshape(-1, 1)
    Q = float_matrix(instance.Q, "Q")
    K = float_matrix(instance.K, "K")
    X0 = float_matrix(instance.X0, "X0")
    with np.errstate(all="ignore"):
        tr = approx_trajectory_float(V, Q, K, X0, t_end, times=[t_end - 1, t_end], h=h)
        a, b = (Z @ phi for Z in tr.tokens)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return ApproxJudgement("n/a", "float64 overflow", method)
    scale = 1.0 + float(np.max(np.abs(b)))
    if complex_pair:
        moved = float(np.max(np.abs(b - a)))
        if moved > tol * scale:
            return ApproxJudgement("breaks", f"complex dominant pair {w[k]:.4g}: the tokens' "
                                   f"coordinates in its plane still move by {moved:.3g}", method)
        pts: list[np.ndarray] = []
        for p in b:
            if all(np.max(np.abs(p - q)) > tol * scale for q in pts):
                pts.append(p)
        return ApproxJudgement("holds" if len(pts) <= 3 else "breaks",
                               f"complex dominant pair {w[k]:.4g}: {len(pts)} limit point(s) "
                               "in its plane (read: at most three)", method)
    b, a = b[:, 0], a[:, 0]
    moved = float(np.max(np.abs(b - a)))
    if moved > tol * scale:
        return ApproxJudgement("breaks", f"φ₁*(z_i) still moves by {moved:.3g} over the last "
                               f"time unit (λ₁ ≈ {w[k].real:.4g})", method)
    vals = np.sort(b)
    groups = [[vals[0]]]
    for x in vals[1:]:
        if x - groups[-1][-1] <= tol * scale:
            groups[-1].append(x)
        else:
            groups.append([x])
    centres = [float(np.mean(g)) for g in groups]
    if len(centres) <= 2 or (len(centres) == 3 and abs(centres[1]) <= tol * scale):
        return ApproxJudgement("holds", f"{len(centres)} limit value(s) {np.round(centres, 5).tolist()}",
                               method)
    return ApproxJudgement("breaks", f"{len(centres)} limit values "
                           f"{np.round(centres, 5).tolist()}", method)


def approx_variant(inst: Any, t_final: float, *, h: float = 1e-3,
                   times: Sequence[float] | None = None) -> dict[str, Any]:
    """Float64 RK4 of the variant in x (z-form feed-forward: in z), **approximate**.

    Returns ``{"times", "tokens", "variable", "method"}`` with tokens (n, d) arrays.
    """
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

