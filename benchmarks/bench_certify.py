"""Time to a certified verdict (Lemma T4) for V = I, Q = K = I.

For each (n, d): tokens uniform in [-5, 5]^d (numpy default_rng(0), rounded to 2 decimals,
read as exact decimals), 30 digits, one wall-clock budget. Reported: the verdict, the
first time T at which Lemma T4 held (T_first), the wall-clock to the verdict, and, for
comparison in the same script, T_float: the first check time at which the lemma's
hypotheses hold on a float64 RK4 run (no rigor; what the integrator has to reach), and
how far the validated integration got.

With ``--seeds S``: only (20, 2) on the seeds 0 … S − 1 (the [Steps] target: a verdict
within ``--max-seconds 60``), once with ``refine_t = 0`` (stop at the first success) and
once with the default refinement, each under the same wall-clock cap.

Usage: python benchmarks/bench_certify.py [--budget SECONDS] [--quick] [--seeds S] [--markdown]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np

from certified import Instance
from certified.approx.float64 import approx_trajectory_float
from certified.enclose.arith import get_backend
from certified.tail.t4_leader_follower import leader_follower, leader_map_from_scores
from certified.verdict.certify import certify


def instance(n: int, d: int, scale: float = 5.0, seed: int = 0, decimals: int = 2) -> Instance:
    """n tokens uniform in [-scale, scale]^d (default_rng(seed)) on the 10^-decimals grid,
    read as exact decimals; V = Q = K = I."""
    X = np.round(np.random.default_rng(seed).uniform(-scale, scale, (n, d)), decimals)
    I = [[int(i == j) for j in range(d)] for i in range(d)]
    return Instance.create(V=I, Q=I, K=I, X0=[[f"{v:.{decimals}f}" for v in row] for row in X],
                           name=f"bench n={n} d={d}")


def float_first_T(inst: Instance, t_max: float = 8.0, step: float = 0.125) -> float | None:
    """First multiple of `step` at which Lemma T4's hypotheses hold on a float run
    (point boxes): a lower bound for what any rigorous run needs to reach."""
    bk = get_backend("flint")
    X = np.array(inst.X0, dtype=float)
    n, d = X.shape
    Ts = list(np.arange(step, t_max + 1e-9, step))
    tr = approx_trajectory_float(np.eye(d), np.eye(d), np.eye(d), X, t_max, times=Ts,
                                 variable="z", h=1e-3)
    for T, Z in zip(tr.times, tr.tokens):
        Z = np.asarray(Z, float)
        l = leader_map_from_scores(Z @ Z.T)
        if l is None:
            continue
        boxes = [[(Fraction(v), Fraction(v)) for v in row] for row in Z]
        diffs = {j: [(Fraction(Z[j, c]) - Fraction(Z[l[j], c]),) * 2 for c in range(d)]
                 for j in range(n) if l[j] != j}
        with bk.workprec(128):
            ok, _ = leader_follower(bk, Fraction(1), inst.B, Fraction(T), boxes, diffs, l)
        if ok is not None:
            return float(T)
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--quick", action="store_true", help="only (8, 2), 30 s")
    ap.add_argument("--seeds", type=int, default=0,
                    help="only (20, 2) on this many seeds, refine_t 0 and the default")
    ap.add_argument("--markdown", action="store_true",
                    help="print the table as markdown with a date/commit/machine header")
    args = ap.parse_args()
    cases = [(8, 2), (20, 2), (32, 3)] if not args.quick else [(8, 2)]
    budget = 30.0 if args.quick else args.budget
    if args.markdown:  # the table below is markdown already
        from mdheader import header

        print(header())
    if args.seeds:
        seeds(args.seeds, args.budget)
        return
    print("| (n, d) | verdict | T_first | wall to verdict (s) | T_float (float run) | "
          "certified_until | steps |")
    print("|---|---|---|---|---|---|---|")
    for n, d in cases:
        inst = instance(n, d)
        Tf = float_first_T(inst)
        t0 = time.perf_counter()
        v = certify(inst, "3.1", digits=30, max_seconds=budget, refine_t=0)
        wall = time.perf_counter() - t0
        tr = v.trajectory
        Tfirst = v.timescale["T_first"] if v.timescale else "—"
        print(f"| ({n}, {d}) | {v.verdict} | {Tfirst} | {wall:.1f} | {Tf} | "
              f"{float(tr.certified_until):.4g} | {len(tr.steps)} |", flush=True)


def seeds(count: int, budget: float) -> None:
    """(20, 2) on seeds 0 … count − 1: verdict, T, steps and wall time under the cap."""
    print(f"| seed | T_float | refine_t | verdict | T | steps | wall (s), cap {budget:g} s |")
    print("|---|---|---|---|---|---|---|")
    for seed in range(count):
        inst = instance(20, 2, seed=seed)
        Tf = float_first_T(inst)
        for refine in (0, 3):
            t0 = time.perf_counter()
            v = certify(inst, "3.1", digits=30, max_seconds=budget, refine_t=refine)
            wall = time.perf_counter() - t0
            T = v.timescale["T_used"] if v.timescale and v.verdict != "undecided" else "—"
            T = f"{float(Fraction(T)):.3f}" if T != "—" else T
            print(f"| {seed} | {Tf} | {refine} | {v.verdict} | {T} | "
                  f"{len(v.trajectory.steps)} | {wall:.1f} |", flush=True)


if __name__ == "__main__":
    main()
