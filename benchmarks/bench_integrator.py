"""Benchmark: certified enclosures for V = I, Q = K = I, tokens uniform in [-1, 1]^d.

Reports wall time, steps and final maximal radius to T = 3 for (n, d) in
{(2, 2), (8, 3), (32, 4)} at 30 and 100 digits (each run capped by --budget seconds:
then ``certified_until`` says how far it got), and, in the same process, two ratios on
(2, 2): flint vs mpmath backends, and certified flint vs ``mpmath.odefun`` (not rigorous)
at the same digits to the same time.

Run: ``python benchmarks/bench_integrator.py [--budget 120] [--quick] [--markdown]``
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import mpmath
import numpy as np

from certified import Instance
from certified.enclose.driver import enclose_trajectory


def instance(n: int, d: int, seed: int = 0) -> Instance:
    rng = np.random.default_rng(seed)
    X0 = [[Fraction(int(round(v * 1000)), 1000) for v in row]
          for row in rng.uniform(-1, 1, (n, d))]
    eye = [[int(i == j) for j in range(d)] for i in range(d)]
    return Instance.create(V=eye, Q=eye, K=eye, X0=X0)


def run(inst: Instance, T, digits: int, backend: str = "flint", budget: float | None = None):
    t0 = time.perf_counter()
    tr = enclose_trajectory(inst, T, digits=digits, backend=backend, max_seconds=budget,
                            max_bits=None)
    wall = time.perf_counter() - t0
    return tr, wall


def odefun_values(inst: Instance, T, digits: int):
    """mpmath.odefun (Taylor, not rigorous) on the z-ODE with V = Q = K = I at ``digits``
    digits: the state at T (a Fraction or a float) and the seconds it took."""
    X0 = [[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in inst.X0]
    n, d = inst.n, inst.d

    def f(t, y):
        Z = [y[i * d:(i + 1) * d] for i in range(n)]
        e2t = mpmath.exp(2 * t)
        out = []
        for i in range(n):
            s = [e2t * mpmath.fsum(Z[i][c] * Z[j][c] for c in range(d)) for j in range(n)]
            m = max(s)
            w = [mpmath.exp(x - m) for x in s]
            tot = mpmath.fsum(w)
            for c in range(d):
                out.append(mpmath.fsum(w[j] / tot * (Z[j][c] - Z[i][c]) for j in range(n)))
        return out

    with mpmath.workdps(digits):
        t0 = time.perf_counter()
        sol = mpmath.odefun(f, 0, [x for row in X0 for x in row])
        tq = mpmath.mpf(T.numerator) / T.denominator if isinstance(T, Fraction) else mpmath.mpf(T)
        y = sol(tq)
        return y, time.perf_counter() - t0


def odefun_two_tokens(inst: Instance, T: float, digits: int) -> float:
    """Seconds of :func:`odefun_values` (the timing side of the comparison)."""
    return odefun_values(inst, T, digits)[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--quick", action="store_true", help="only the ratios and (2, 2)")
    ap.add_argument("--markdown", action="store_true",
                    help="print the table as markdown with a date/commit/machine header")
    args = ap.parse_args()
    md = args.markdown
    if md:
        from mdheader import header

        print(header())
        print(f"V = I, Q = K = I, tokens uniform in [−1, 1]^d (seed 0), target T = 3, each run "
              f"capped at {args.budget:g} s of wall time; flint backend.\n\n"
              "| (n, d) | digits | certified until | wall | steps | max radius at "
              "`certified_until` |\n|---|---|---|---|---|---|")
    else:
        print("V = I, Q = K = I, tokens uniform in [-1,1]^d (seed 0), T = 3")
        print(f"{'(n,d)':>8} {'digits':>6} {'certified until':>16} {'wall s':>8} {'steps':>6} "
              f"{'max radius at certified_until':>30}")
    configs = [(2, 2)] if args.quick else [(2, 2), (8, 3), (32, 4)]
    for n, d in configs:
        for digits in (30, 100):
            tr, wall = run(instance(n, d), 3, digits, budget=args.budget)
            box = tr.final_box()
            rad = float(tr.backend.max_rad(box)) if box is not None else float("nan")
            if md:
                print(f"| ({n}, {d}) | {digits} | {float(tr.certified_until):.4g} | "
                      f"{wall:.1f} s | {len(tr.steps)} | {rad:.1e} |", flush=True)
                continue
            print(f"{str((n, d)):>8} {digits:>6} {float(tr.certified_until):>16.4f} "
                  f"{wall:>8.1f} {len(tr.steps):>6} {rad:>30.2e}", flush=True)

    inst = instance(2, 2)
    T = Fraction(1, 4)
    run(inst, T, 30, "flint")  # warm-up (imports, caches): not timed
    run(inst, T, 30, "mpmath")
    _, w_flint = run(inst, T, 30, "flint")
    _, w_mp = run(inst, T, 30, "mpmath")
    if md:
        print()
    print(f"backends, (2,2), T = 1/4, 30 digits: flint {w_flint:.2f} s, mpmath {w_mp:.2f} s, "
          f"ratio {w_mp / w_flint:.1f}x")
    T2 = 1
    _, w_cert = run(inst, T2, 30, "flint")
    w_ode = odefun_two_tokens(inst, T2, 30)
    print(f"certified flint vs mpmath.odefun (not rigorous), (2,2), T = {T2}, 30 digits: "
          f"{w_cert:.2f} s vs {w_ode:.2f} s, ratio odefun/certified {w_ode / w_cert:.1f}x")


if __name__ == "__main__":
    main()
