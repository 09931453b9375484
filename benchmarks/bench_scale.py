"""How the cost of a certified verdict grows with the number of tokens n and the dimension d.

For each (n, d): n tokens uniform in [-2, 2]^d (numpy default_rng(seed), rounded to the
1/1000 grid and read as exact decimals), V = Q = K = I, Theorem 3.1, run as
``verify --digits 30 --refine-t 0 --max-seconds CAP`` (the API call below), one instance
after the other in this process. Reported: the verdict, the lemma's T (or how far the
integration was certified when undecided), the validated steps, the wall time and the
time per step, and T_float: the first multiple of 1/8 at which Lemma T4's hypotheses hold
on a float64 run (not a proof; what the integration has to reach).

The cap is the outer safety cap of the command: an instance that reaches it says
``undecided`` ("wall-clock cap") and its row shows how far it got.

Usage: python benchmarks/bench_scale.py [--n 8 16 32 64] [--d 2 4 8] [--cap 600] [--seed 0]
[--markdown]
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# sibling scripts: the tokens, the float estimate of T, and the verify call read back
from bench_certify import float_first_T, instance  # noqa: E402
from bench_figure_setting import verify_row  # noqa: E402


def run(n: int, d: int, seed: int, cap: float) -> dict:
    """One (n, d): tokens uniform in [-2, 2]^d on the 1/1000 grid, V = Q = K = I."""
    inst = instance(n, d, scale=2.0, seed=seed, decimals=3)
    r = dict(verify_row(inst, "3.1", cap), t_float=float_first_T(inst))
    return dict(r, per_step=r["wall"] / r["steps"] if r["steps"] else None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="+", default=[8, 16, 32, 64])
    ap.add_argument("--d", type=int, nargs="+", default=[2, 4, 8])
    ap.add_argument("--cap", type=float, default=600.0, help="--max-seconds of each verify")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true", help="with the benchmarks-page header")
    args = ap.parse_args()
    if args.markdown:
        from mdheader import header
        print(header())
    print(f"| n | d | verdict | lemma | T (certified until, if undecided) | T_float | steps | "
          f"wall (s), cap {args.cap:g} s | s / step |")
    print("|---:|---:|---|---|---|---|---:|---:|---:|")
    for d in args.d:
        for n in args.n:
            r = run(n, d, args.seed, args.cap)
            T = "—" if r["T"] is None else f"{r['T']:.3f}"
            if r["verdict"] == "undecided" and r["reason"]:
                # the reason's own words, cut before its first number (a fraction cut
                # part-way would read as another time)
                T += f" ({r['reason'].split(':')[0].strip()})"
            tf = "—" if r["t_float"] is None else f"{r['t_float']:g}"
            ps = "—" if r["per_step"] is None else f"{r['per_step']:.2f}"
            print(f"| {n} | {d} | {r['verdict']} | {r['lemma']} | {T} | {tf} | {r['steps']} | "
                  f"{r['wall']:.1f} | {ps} |", flush=True)


if __name__ == "__main__":
    main()
