"""Benchmark: exact classification of a 128×128 value matrix.

Measures, in one process, ``certified.classify`` on instances whose V is a float32
matrix (every entry an exact binary rational, as in a trained model), against the
baseline ``numpy.linalg.eigvals`` (float64, non-rigorous) on the same matrix, and
reports the ratio. Run: ``python benchmarks/bench_classify.py [--samples N] [--markdown]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from certified import Instance, classify
from certified.exact.spectrum import Spectrum


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true",
                    help="print the table as markdown with a date/commit/machine header")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    d = args.d
    rows = []
    for kind in ("ginibre", "positive (Perron-Frobenius)"):
        for s in range(args.samples):
            if kind == "ginibre":
                V = rng.standard_normal((d, d)).astype(np.float32)
            else:
                V = rng.uniform(0, 1, (d, d)).astype(np.float32)
            Qm = (rng.standard_normal((d, d)) / np.sqrt(d)).astype(np.float32)
            inst = Instance.create(V=V, Q=Qm, K=Qm, X0=np.zeros((1, d), dtype=np.float32))
            t_base, _ = timed(np.linalg.eigvals, V.astype(np.float64))
            t_spec, sp = timed(Spectrum, inst.V)
            t_dom, dom = timed(lambda: sp.dominant)
            t_all, rep = timed(classify, inst)
            rows.append((kind, t_all, t_spec + t_dom, t_base,
                         rep.theorems["4.2"].hypotheses_hold))
    if args.markdown:
        from mdheader import header

        print(header())
        print(f"| V ({d}×{d}, float32 entries), {args.samples} samples | `classify` median (max) "
              "| exact spectrum + dominance | numpy `eigvals` (float64, not rigorous) | ratio "
              "| Def. 4.1 holds |\n|---|---|---|---|---|---|")
        for kind in ("ginibre", "positive (Perron-Frobenius)"):
            sel = [r for r in rows if r[0] == kind]
            med = statistics.median(r[1] for r in sel)
            spec = statistics.median(r[2] for r in sel)
            base = statistics.median(r[3] for r in sel)
            print(f"| {kind} | {med:.2f} s ({max(r[1] for r in sel):.2f} s) | {spec:.2f} s | "
                  f"{base * 1e3:.1f} ms | {med / base:.3g}× | "
                  f"{sum(r[4] for r in sel)}/{len(sel)} |")
        return
    print(f"classify, d = {d}, {args.samples} samples per kind (seconds; ratio = "
          f"classify / numpy.linalg.eigvals, same matrix, same process)")
    for kind in ("ginibre", "positive (Perron-Frobenius)"):
        sel = [r for r in rows if r[0] == kind]
        med = statistics.median(r[1] for r in sel)
        spec = statistics.median(r[2] for r in sel)
        base = statistics.median(r[3] for r in sel)
        print(f"  {kind:30s} classify median {med:.3f} s (max {max(r[1] for r in sel):.3f}); "
              f"exact spectrum+dominance {spec:.3f} s; numpy eigvals {base * 1e3:.1f} ms; "
              f"ratio {med / base:.0f}x; Def. 4.1 holds in {sum(r[4] for r in sel)}/{len(sel)}")


if __name__ == "__main__":
    main()
