"""Benchmark: producing a certificate (`certify`, Arb) vs re-checking it (`certified.checker`,
Python integers + mpmath), in one process, on the shipped examples and on the (8, 3)
instance of bench_integrator.py.

Reports per case: verdict, replayed steps, production wall time, checking wall time with
each number of worker processes asked for (``--workers 1 2``: the sequential replay and
the chunked one of Lemma C12), their ratios to production, certificate size, and whether
it checked valid.

Run: ``python benchmarks/bench_checker.py [--quick | --only-83 | --only NAME …]
[--budget 120 | --t-max 1/2] [--workers 1 2] [--markdown]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))

from bench_defaults import theorem_of as bench_defaults_theorem  # noqa: E402
from bench_integrator import instance as integrator_instance  # noqa: E402

from certified import Instance
from certified.checker import check_file  # noqa: E402
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify

#: Every shipped example `verify` accepts, with the theorem its name gives (else auto), as
#: bench_defaults.py runs them (the variant_* examples are refused by verify: no theorem
#: covers them).
EXAMPLES = sorted((p.stem, bench_defaults_theorem(p.stem))
                  for p in Path("examples").glob("*.json") if not p.stem.startswith("variant_"))
#: The cases of --only beyond the shipped examples: none (kept for the command line).
ONLY: dict[str, str] = {}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="first two examples, 15 digits")
    ap.add_argument("--budget", type=float, default=600.0,
                    help="outer wall-clock cap per production (seconds)")
    ap.add_argument("--skip-83", action="store_true")
    ap.add_argument("--only-83", action="store_true",
                    help="only the (8, 3) instance of bench_integrator.py")
    ap.add_argument("--workers", type=int, nargs="+", default=[1],
                    help="check once per value, with that many processes")
    ap.add_argument("--only", nargs="+", metavar="NAME",
                    help="these examples only (file names without .json; theorem 'auto' "
                         "unless listed above)")
    ap.add_argument("--t-max", type=Fraction, default=None,
                    help="integrate to this t (a rational) with no wall-clock budget, so "
                         "that production and check cover the same deterministic run")
    ap.add_argument("--markdown", action="store_true",
                    help="print the table as markdown with a date/commit/machine header")
    args = ap.parse_args()
    digits = 15 if args.quick else 30
    if args.markdown:  # the table below is markdown already
        from mdheader import header

        print(header())
    chosen = EXAMPLES[:2] if args.quick else EXAMPLES
    if args.only:
        known = dict(EXAMPLES) | ONLY
        chosen = [(name, known.get(name, "auto")) for name in args.only]
    cases = [] if args.only_83 else [
        (name, thm, Instance.load(f"examples/{name}.json")) for name, thm in chosen]
    if not args.quick and not args.skip_83 and not args.only:
        cases.append(("(8,3) V=Q=K=I, T<=3", "3.1", integrator_instance(8, 3)))
    cols = "".join(f" check, {w} proc. (s) | check/produce |" for w in args.workers)
    print(f"| case | verdict | steps | produce (s) |{cols} size (MB) | valid |\n"
          f"|---|---|---|---|{'---|---|' * len(args.workers)}---|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, thm, inst in cases:
            t0 = time.perf_counter()
            tmax = 3 if name.startswith("(8,3)") else 8
            if args.t_max is not None:
                tmax = args.t_max
            # the defaults (t_max 8, refine_t 3: deterministic budgets); --budget is only
            # an outer wall-clock cap, which no row should reach
            v = certify(inst, thm, digits=digits, t_max=tmax,
                        max_seconds=None if args.t_max is not None else args.budget)
            cert = to_certificate(v)
            produce = time.perf_counter() - t0
            path = os.path.join(tmp, "cert.json")
            with open(path, "w") as fh:
                json.dump(cert, fh)
            size = os.path.getsize(path) / 1e6
            row, valid = "", []
            for w in args.workers:
                t0 = time.perf_counter()
                rep = check_file(path, workers=w)
                check = time.perf_counter() - t0
                row += f" {check:.1f} | {check / produce:.2f} |"
                valid.append("yes" if rep.valid else "NO: " + rep.message[:80])
            print(f"| {name} | {v.verdict} | {rep.steps_checked} | {produce:.1f} |{row} "
                  f"{size:.2f} | {', '.join(valid)} |", flush=True)


if __name__ == "__main__":
    main()
