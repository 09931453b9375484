"""Benchmark: proved leading-eigenvalue classes of real Ginibre matrices.

Per sample at d = 128 (same process, same samples): numpy's float eigenvalues (the
baseline; a guess, nothing proved) vs the proved class (Gershgorin on a verified
similarity, Arb) — the ratio is the price of rigor. Then the census itself: d = 128 with
--samples samples on --workers processes, wall time against the 10-minute target.

Run: ``python benchmarks/bench_ginibre.py [--samples 10000] [--workers 2] [--markdown]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from certified.practice.ginibre import census, sample
from certified.practice.leading import classify_leading


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--per-sample", type=int, default=50, help="samples for the ratio")
    ap.add_argument("--markdown", action="store_true",
                    help="print the table as markdown with a date/commit/machine header")
    args = ap.parse_args()
    mats = [sample(128, i) for i in range(args.per_sample)]
    t0 = time.perf_counter()
    for A in mats:
        np.linalg.eigvals(A)
    base = (time.perf_counter() - t0) / len(mats)
    t0 = time.perf_counter()
    for A in mats:
        classify_leading(A)
    proved = (time.perf_counter() - t0) / len(mats)
    if not args.markdown:
        print(f"d = 128, one process: numpy eigvals {base * 1e3:.2f} ms/sample, proved class "
              f"{proved * 1e3:.2f} ms/sample, ratio {proved / base:.1f}x")
    res = census([128], samples=args.samples, workers=args.workers, progress=False)
    row = res["dims"][0]
    if args.markdown:
        from mdheader import header

        print(header())
        print("| measurement (d = 128) | value |\n|---|---|")
        print(f"| numpy `eigvals` (float64, not rigorous), one process | "
              f"{base * 1e3:.2f} ms/sample |")
        print(f"| proved class, one process ({args.per_sample} samples) | "
              f"{proved * 1e3:.2f} ms/sample ({proved / base:.1f}×) |")
        print(f"| census, {args.samples} samples, {args.workers} workers | "
              f"{res['wall_seconds']:.1f} s wall |")
        print(f"| fraction with 4.1(i) [95% Wilson] | "
              f"{row['definition_4_1_i']['fraction']:.4f} {row['definition_4_1_i']['wilson95']} |")
        print(f"| samples escalated beyond 53 bits | {len(row['escalated_samples'])} |")
        return
    print(f"census d = 128, {args.samples} samples, {args.workers} workers: "
          f"{res['wall_seconds']:.1f} s wall (target < 600 s); "
          f"fraction 4.1(i) {row['definition_4_1_i']['fraction']:.4f} "
          f"{row['definition_4_1_i']['wilson95']}; escalated {len(row['escalated_samples'])}")


if __name__ == "__main__":
    main()
