"""Approximate trajectories on mpmath midpoints (no error bounds).

:func:`approx_trajectory_mp` runs the same Taylor recurrences as the rigorous
integrator (:mod:`certified.enclose.field`) on mpmath numbers treated as points, at
any precision, with a fixed step. Nothing here is certified, and the result type
(:class:`~certified.approx.results.ApproxTrajectory`) says so.
"""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Iterable, Iterator

import mpmath
import numpy as np

from certified.approx.results import ApproxTrajectory
from certified.enclose.arith.base import Arithmetic
from certified.enclose.field import AttentionField
from certified.exact.instance import Instance


class _MpPoints(Arithmetic):
    """mpmath numbers treated as points: **no rigor** (an :class:`Arithmetic`, not a
    :class:`~certified.enclose.arith.base.Backend`: it has no bounds and no containment)."""

    name = "mpmath-approx"

    @contextmanager
    def workprec(self, bits: int) -> Iterator[None]:
        with mpmath.workprec(bits):
            yield

    def const(self, q: Fraction) -> Any:
        return mpmath.mpf(q.numerator) / q.denominator


    def exp(self, x: Any) -> Any:
        return mpmath.exp(x)



    def mid_point(self, x: Any) -> Any:
        return x





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
