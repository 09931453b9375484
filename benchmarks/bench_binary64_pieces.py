"""One defect step three ways, side by side: the pieces and the disk cover in Arb, the
pieces in binary64 balls, and both in binary64 (Lemma I12).

The state: the paper's figure setting (n = 20 tokens uniform in [-5, 5]^2 on the 1/1000
grid, Q = K = I, V = I, seed 0 or ``--seed``), integrated in float64 by RK4 to t and made exact; one
validated step of ``defect_step`` from it (order 49, 140 bits, tolerance 1e-33), after
one warm-up step that sets the disk radius ρ the way a run does. Reported per variant:
the step h, ρ, the pieces, the seconds of the step and of its parts (jets, disk and
circle, tubes and Jacobians, linear part).

Usage: python benchmarks/bench_binary64_pieces.py [--times 3/2 2 3] [--seed 0] [--markdown]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_figure_setting as bfs  # noqa: E402
import bench_step_candidates as bsc  # noqa: E402

from certified.enclose import defect_pieces as dp  # noqa: E402
from certified.enclose import defect_step as ds  # noqa: E402
from certified.enclose import float_cover as fc  # noqa: E402
from certified.enclose.arith import get_backend  # noqa: E402
from certified.enclose.field import AttentionField  # noqa: E402
from certified.enclose.lohner_set import LohnerSet  # noqa: E402

VARIANTS = ("Arb pieces, Arb cover", "binary64 pieces, Arb cover", "binary64 pieces and cover")


def one_step(t0: Fraction, variant: str, seed: int = 0) -> dict:
    """One measured step (after a warm-up that fixes ρ) in the given variant."""
    inst = bfs.instance("3.1", seed)
    z = bsc.float_state(inst, float(t0))
    bk = get_backend("flint")
    real_pieces, real_supported = dp.pieces, fc.supported
    if variant.startswith("Arb pieces"):
        dp.pieces = lambda *a, **k: real_pieces(*a, binary64=False)
    if "Arb cover" in variant:
        fc.supported = lambda field: False
    try:
        with bk.workprec(bsc.BITS):
            field = AttentionField(inst, bk, "z")
            S = LohnerSet.from_exact(bsc.exact_state(z), bk)
            st = ds.DefectStepper()
            for _ in range(8):  # warm-up: the run's ρ search (a choice, not timed)
                try:
                    ds.defect_step(field, S, t0, Fraction(1), bsc.ORDER, bsc.TOL, st)
                    break
                except ds.DefectRejected:
                    continue
            st.stats.clear()
            wall = time.perf_counter()
            res = ds.defect_step(field, S, t0, Fraction(1), bsc.ORDER, bsc.TOL, st)
            wall = time.perf_counter() - wall
    finally:
        dp.pieces, fc.supported = real_pieces, real_supported
    s = st.stats
    return dict(t=t0, variant=variant, h=float(res.h), rho=float(res.rho), pieces=res.pieces,
                sec=wall, jets=s.get("t_jets", 0.0), cover=s.get("t_cover", 0.0),
                tube=s.get("t_tube", 0.0), var=s.get("t_var", 0.0),
                boxes=s.get("disk_boxes", 0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--times", nargs="+", default=["3/2", "2", "3"])
    ap.add_argument("--seed", type=int, default=0, help="the figure setting's seed")
    ap.add_argument("--markdown", action="store_true", help="with the benchmarks-page header")
    args = ap.parse_args()
    if args.markdown:
        from mdheader import header
        print(header())
    print("| t | variant | h | ρ | pieces | disk boxes | step (s) | jets | disk + circle "
          "| tubes + Jacobians | linear part |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in args.times:
        for v in VARIANTS:
            r = one_step(Fraction(t), v, args.seed)
            print(f"| {t} | {v} | {r['h']:.4f} | {r['rho']:.3f} | {r['pieces']} | "
                  f"{r['boxes']} | {r['sec']:.2f} | {r['jets']:.2f} | {r['cover']:.2f} | "
                  f"{r['tube']:.2f} | {r['var']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
