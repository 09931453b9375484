"""Whole runs with the defect step (Lemma I10, the default; Lemma I6 as its fallback)
against the Picard step alone (``step="picard"``), and against ``mpmath.odefun``.

(8, 3) of bench_integrator.py (V = Q = K = I, default_rng(0), [-1, 1]^3), T = 3, 30 digits,
in one process: steps (defect / fallback), seconds and final radius of each step method,
and mpmath.odefun (not rigorous) at the same digits to the same T, its values checked
inside the enclosure. ``--markdown`` prints the table with its header.
``--n20``: (20, 2), V = Q = K = I, default_rng(0) tokens uniform in [-5, 5]^2 (rounded to
1/1000), to T = 4.6 within ``--budget`` seconds: steps and how far it got.

Run: ``python benchmarks/bench_defect_run.py [--T 3] [--no-odefun] [--no-picard] [--markdown]
[--n20 --budget 2400]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction

import mpmath
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_integrator import instance, odefun_values  # noqa: E402

from certified import Instance
from certified.enclose.driver import enclose_trajectory


def report(tr, wall):
    m = [getattr(s, "method", "picard") for s in tr.steps]
    box = tr.final_box()
    rad = float(tr.backend.max_rad(box)) if box is not None else float("nan")
    print(f"certified until {float(tr.certified_until)}, steps {len(m)} "
          f"(defect {m.count('defect')}, I6 fallback {m.count('picard')}), wall {wall:.1f} s, "
          f"final radius {rad:.2e}, bits {tr.bits}", flush=True)
    for a in tr.attempts:
        print("  ", a[:400], flush=True)
    return box


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--T", default="3")
    ap.add_argument("--no-odefun", action="store_true")
    ap.add_argument("--no-picard", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--n20", action="store_true")
    ap.add_argument("--budget", type=float, default=2400.0)
    args = ap.parse_args()
    if args.n20:
        rng = np.random.default_rng(0)
        X0 = [[Fraction(int(round(v * 1000)), 1000) for v in row]
              for row in rng.uniform(-5, 5, (20, 2))]
        eye = [[1, 0], [0, 1]]
        inst = Instance.create(V=eye, Q=eye, K=eye, X0=X0)
        T = Fraction(46, 10)
        t0 = time.perf_counter()
        tr = enclose_trajectory(inst, T, digits=30, step="defect", max_bits=None,
                                max_seconds=args.budget)
        print("(20, 2) [-5,5]^2, T = 4.6, 30 digits, step='defect':")
        report(tr, time.perf_counter() - t0)
        ts = [(float(s.t0), float(s.h), getattr(s, "method", "picard")) for s in tr.steps]
        for a, b in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]:
            print(f"  steps in [{a},{b}): {sum(a <= x < b for x, _, _ in ts)}")
        return
    inst = instance(8, 3)
    T = Fraction(args.T)
    rows = []
    runs = {}
    for step in ("defect",) + (() if args.no_picard else ("picard",)):
        t0 = time.perf_counter()
        tr = enclose_trajectory(inst, T, digits=30, step=step, max_bits=None)
        wall = time.perf_counter() - t0
        print(f"(8, 3) V = I, T = {T}, 30 digits, step={step!r}:")
        box = report(tr, wall)
        m = [getattr(s, "method", "picard") for s in tr.steps]
        rad = float(tr.backend.max_rad(box))
        runs[step] = (tr, wall, box)
        rows.append(f"| {step} | {float(tr.certified_until):g} | {len(m)} | "
                    f"{m.count('defect')} / {m.count('picard')} | {wall:.1f} | {rad:.1e} |")
    tr, wall, box = runs["defect"]
    if "picard" in runs:
        rows.append(f"| picard / defect | | | | **{runs['picard'][1] / wall:.1f}×** | |")
    if not args.no_odefun:
        y, w_ode = odefun_values(inst, T, 30)
        bk = tr.backend
        inside = True
        worst = 0.0
        for v, yv in zip(box.reshape(-1), y):
            lo, hi = bk.bounds(v)
            with mpmath.workdps(60):
                lo_m, hi_m = mpmath.mpf(lo.numerator) / lo.denominator, \
                    mpmath.mpf(hi.numerator) / hi.denominator
                inside &= bool(lo_m - mpmath.mpf(10) ** -28 <= yv <= hi_m + mpmath.mpf(10) ** -28)
                worst = max(worst, float(abs(yv - (lo_m + hi_m) / 2)))
        print(f"mpmath.odefun (not rigorous), 30 digits, T = {T}: {w_ode:.1f} s; ratio "
              f"odefun/certified {w_ode / wall:.2f}x; max |odefun − midpoint| {worst:.1e}; "
              f"odefun within enclosure ± 1e-28: {inside}", flush=True)
        rows.append(f"| `mpmath.odefun` (not rigorous) | {float(T):g} | | | {w_ode:.1f} | "
                    f"off by {worst:.1e} |")
        rows.append(f"| odefun / defect | | | | **{w_ode / wall:.1f}×** | |")
    if args.markdown:
        from mdheader import header
        print(header())
        print(f"(8, 3), V = Q = K = I, tokens of bench_integrator (seed 0), T = {T}, 30 digits, "
              "one process.\n")
        print("| step | certified until | steps | defect / Picard | wall (s) | max radius |\n"
              "|---|---|---:|---|---:|---|")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
