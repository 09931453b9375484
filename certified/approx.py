"""Approximate (non-rigorous) trajectories, for exploration, plots and test oracles.

Nothing here is certified, and the result type says so: :class:`ApproxTrajectory` is a
different type from :class:`~certified.flow.Trajectory`, with plain numbers instead of
enclosures. Two paths:

* :func:`approx_trajectory_mp` — the same Taylor recurrences as the rigorous integrator
  (:mod:`certified.field`), run on mpmath midpoints at any precision, fixed step;
* :func:`approx_trajectory_float` — vectorized float64 RK4 with an overflow-safe softmax
  (row maximum subtracted), for large instances (n = 256, d = 128 runs in seconds).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator

import mpmath
import numpy as np

from .arith.base import Backend
from .field import AttentionField
from .instance import Instance
from .numbers import float_matrix

__all__ = ["ApproxJudgement", "ApproxTrajectory", "approx_theorem_4_2",
           "approx_trajectory_mp", "approx_trajectory_float", "softmax_rows", "expm_float",
           "rk4_float"]


@dataclass
class ApproxTrajectory:
    """An approximate trajectory (no error bounds).

    Attributes
    ----------
    times : list of float
    tokens : list of arrays, shape (n, d)
        Approximate tokens (float64, or mpmath mpf objects) in ``variable``.
    attention : list of arrays, shape (n, n)
    variable : str
    method : str
    """

    times: list[float]
    tokens: list[np.ndarray]
    attention: list[np.ndarray]
    variable: str
    method: str


class _MpPoints(Backend):
    """mpmath numbers treated as exact points: **no rigor** (approximate path only)."""

    name = "mpmath-approx"

    @contextmanager
    def workprec(self, bits: int) -> Iterator[None]:
        with mpmath.workprec(bits):
            yield

    def const(self, q: Fraction) -> Any:
        return mpmath.mpf(q.numerator) / q.denominator

    def interval(self, lo: Fraction, hi: Fraction) -> Any:
        return self.const((lo + hi) / 2)

    def exp(self, x: Any) -> Any:
        return mpmath.exp(x)

    def sqrt(self, x: Any) -> Any:
        return mpmath.sqrt(x)

    def bounds(self, x: Any) -> tuple[Fraction, Fraction]:
        q = Fraction(float(x))  # approximate path: used only for heuristics
        return q, q

    def mid_point(self, x: Any) -> Any:
        return x

    def is_finite(self, x: Any) -> bool:
        return bool(mpmath.isfinite(x))

    def contains(self, outer: Any, inner: Any) -> bool:
        return outer == inner

    def contains_interior(self, outer: Any, inner: Any) -> bool:
        return False

    def hull(self, a: Any, b: Any) -> Any:
        return a

    def complex_box(self, re: Any, im: Any) -> Any:
        return mpmath.mpc(re, im)

    def is_complex(self, x: Any) -> bool:
        return isinstance(x, mpmath.mpc)

    def re_im(self, x: Any) -> tuple[Any, Any]:
        return (x.real, x.imag) if isinstance(x, mpmath.mpc) else (x, mpmath.mpf(0))

    def to_float(self, x: Any) -> float:
        return float(x)

    def expm(self, a: np.ndarray) -> np.ndarray:
        m = mpmath.expm(mpmath.matrix(a.tolist()))
        return np.array(m.tolist(), dtype=object)


def approx_trajectory_mp(instance: Instance, t_final: Any, *, times: Iterable | None = None,
                         digits: int = 30, order: int = 20, h: Any = Fraction(1, 64),
                         variable: str = "z") -> ApproxTrajectory:
    """Fixed-step Taylor integration of the rescaled ODE on mpmath midpoints.

    The same recurrences as the rigorous path, without any error bound. The step ``h``
    must divide the requested times (they are reached by whole steps).
    """
    bk = _MpPoints()
    h = Fraction(h)
    tf = Fraction(str(t_final)) if isinstance(t_final, str) else Fraction(t_final)
    wanted = sorted({Fraction(str(t)) if isinstance(t, str) else Fraction(t)
                     for t in (times if times is not None else [0, tf])})
    with mpmath.workdps(digits + 10):
        field = AttentionField(instance, bk, "z")
        Z = bk.array([[x for x in row] for row in instance.X0])
        t = Fraction(0)
        out_t, out_z, out_p = [], [], []

        def record() -> None:
            out_t.append(float(t))
            if variable == "z":
                out_z.append(Z.copy())
            else:
                E = bk.expm(field.V * bk.const(t))
                out_z.append(bk.matmul(Z, E.T.copy()))
            out_p.append(field.attention(Z, t))

        while True:
            if wanted and t == wanted[0]:
                record()
                wanted.pop(0)
            if t >= tf:
                break
            step = min(h, tf - t, (wanted[0] - t) if wanted else h)
            jets = field.jets(Z, t, order)
            hb = bk.const(step)
            acc = jets[-1]
            for c in reversed(jets[:-1]):
                acc = acc * hb + c
            Z = acc
            t += step
    return ApproxTrajectory(out_t, out_z, out_p, variable, f"mpmath Taylor order {order}, "
                            f"h = {h}, {digits} digits (approximate)")


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


@dataclass(frozen=True)
class ApproxJudgement:
    """An *approximate* reading of a theorem's conclusion from a float64 run (no proof).

    Attributes
    ----------
    judgement : {"holds", "breaks", "n/a"}
    detail : str
    method : str
    """

    judgement: str
    detail: str
    method: str

    def to_json(self) -> dict[str, str]:
        return {"judgement": self.judgement, "detail": self.detail, "method": self.method}


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
