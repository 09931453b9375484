"""The paper's own figure setting: a certified verdict within a minute?

The setting of the paper's figures: n = 20 tokens uniform in [-5, 5]^2 (numpy
default_rng(seed), rounded to the 1/1000 grid and read as exact decimals), Q = K = I, for
each of the paper's three value matrices:

* V = I, Theorem 3.1;
* the authors' 2x2 (``examples/thm4_2_authors_2x2.json``), Theorem 4.2;
* V = diag(1, -1/2), Theorem 5.2.

Each instance runs ``verify --digits 30 --refine-t 0 --max-seconds CAP`` (the API call
below) in this process, one after the other. Reported per instance: the verdict, the
lemma and its T, the validated steps, and the wall time. The cap is the outer safety cap
of the command: a verdict never depends on it, an instance that reaches it says
``undecided`` ("wall-clock cap").

Usage: python benchmarks/bench_figure_setting.py [--seeds 10] [--cap 60] [--only 3.1,4.2,5.2]
[--markdown]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction

import numpy as np

from certified import Instance, api

HERE = os.path.dirname(os.path.abspath(__file__))
AUTHORS = Instance.load(os.path.join(HERE, "..", "examples", "thm4_2_authors_2x2.json")).V
I2 = [[1, 0], [0, 1]]
SETTINGS = {
    "3.1": ("V = I", I2),
    "4.2": ("authors' 2x2", [list(r) for r in AUTHORS]),
    "5.2": ("diag(1, -1/2)", [[1, 0], [0, Fraction(-1, 2)]]),
}


def instance(theorem: str, seed: int) -> Instance:
    """Tokens uniform in [-5, 5]^2 on the 1/1000 grid (default_rng(seed)), Q = K = I."""
    X = np.round(np.random.default_rng(seed).uniform(-5, 5, (20, 2)), 3)
    name, V = SETTINGS[theorem]
    return Instance.create(V=V, Q=I2, K=I2, X0=[[f"{v:.3f}" for v in row] for row in X],
                           name=f"figure setting, {name}, seed {seed}")


def verify_row(inst: Instance, theorem: str, cap: float) -> dict:
    """``verify --digits 30 --refine-t 0 --max-seconds CAP`` on one instance, read back:
    verdict, lemma, T (the lemma's, or how far the integration was certified), validated
    steps, wall time and the certificate's reason."""
    wall = time.perf_counter()
    res = api.verify(inst, theorem=theorem, digits=30, refine_t=0, max_seconds=cap)
    wall = time.perf_counter() - wall
    cert = res.certificate
    integ = cert.get("integration") or {}
    tail = cert.get("tail_lemma")
    lemma = tail.get("lemma") if isinstance(tail, dict) else None
    T = tail.get("T") if isinstance(tail, dict) else integ.get("certified_until")
    return dict(verdict=cert["verdict"], lemma=lemma or "",
                T=float(Fraction(T)) if T is not None else None,
                steps=len(integ.get("steps") or []), wall=wall, reason=cert.get("reason") or "")


def run(theorem: str, seed: int, cap: float) -> dict:
    return dict(verify_row(instance(theorem, seed), theorem, cap), theorem=theorem, seed=seed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--cap", type=float, default=60.0, help="--max-seconds of each verify")
    ap.add_argument("--only", default="3.1,4.2,5.2", help="theorems, comma-separated")
    ap.add_argument("--markdown", action="store_true", help="with the benchmarks-page header")
    args = ap.parse_args()
    if args.markdown:
        sys.path.insert(0, HERE)
        from mdheader import header
        print(header())
    print(f"| V (theorem) | seed | verdict | lemma | T | steps | wall (s), cap {args.cap:g} s |")
    print("|---|---|---|---|---|---|---|")
    done = total = 0
    for theorem in args.only.split(","):
        for seed in range(args.seeds):
            r = run(theorem, seed, args.cap)
            total += 1
            decided = r["verdict"] in ("certified", "refuted")
            done += decided
            T = "" if r["T"] is None else f"{r['T']:.3f}"
            print(f"| {SETTINGS[theorem][0]} ({theorem}) | {seed} | {r['verdict']} | "
                  f"{r['lemma']} | {T} | {r['steps']} | {r['wall']:.1f} |", flush=True)
    print(f"\n{done} of {total} decided within {args.cap:g} s.")


if __name__ == "__main__":
    main()
