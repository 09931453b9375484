"""Wall-clock to the first verdict (refine_t=0) on the shipped examples, 30 digits.

Usage: python benchmarks/bench_examples.py [--markdown] [--only NAME ...]
"""

import argparse
import os
import sys
import time

from certified import Instance
from certified.verdict.certify import certify

CASES = [("thm2_1_one_dimensional", "2.1"), ("thm3_1_identity", "3.1"),
         ("indefinite_B", "3.1"), ("four_clusters_d2", "2.1"), ("thm8_5_contracting", "8.5"),
         ("thm4_2_authors_2x2", "4.2"), ("thm4_2_complex_subdominant", "4.2"),
         ("thm5_2_one_dimensional_F", "5.2"), ("thm5_2_two_clusters_in_F", "5.2"),
         ("discrete_layers", "3.1"), ("discrete_layers_dt_1_5", "3.1"),
         ("discrete_paranormal", "5.2"), ("thm5_2_third_party", "5.2"),
         ("remark_7_9", "3.1"), ("thm5_2_cross_terms", "5.2"),
         ("discrete_good_triple", "4.2"), ("discrete_contracting", "8.5"),
         ("discrete_contracting_dt_3_2", "8.5"), ("thm5_2_jordan_block", "5.2"),
         ("thm4_2_two_tokens_tied", "4.2"), ("thm4_2_two_tokens_complex", "4.2"),
         ("thm4_2_two_tokens_negative", "4.2"), ("thm5_2_rotating_G", "5.2"),
         ("thm8_5_five_tokens", "8.5")]
#: examples whose lemma needs a later time than the common t_max = 4
T_MAX = {"discrete_paranormal": 8, "discrete_good_triple": 8, "discrete_contracting": 30,
         "discrete_contracting_dt_3_2": 300}
#: examples that need more than the common 240 s cap (a G-part growing like e^{0.92t})
CAP = {"thm5_2_rotating_G": 900}

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--markdown", action="store_true",
                help="print the table as markdown with a date/commit/machine header")
ap.add_argument("--only", nargs="+", metavar="NAME", help="these examples only")
args = ap.parse_args()
if args.only:
    unknown = sorted(set(args.only) - {name for name, _ in CASES})
    if unknown:
        ap.error(f"--only: unknown {', '.join(unknown)}")
    CASES = [(name, thm) for name, thm in CASES if name in args.only]
if args.markdown:  # the table below is markdown already
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from mdheader import header

    print(header())
print("| example | theorem | verdict | T_first | wall (s) |")
print("|---|---|---|---|---|")
for name, thm in CASES:
    t0 = time.perf_counter()
    # 240 s: the V ≠ λI examples integrate in x (Lemmas T7, T8) and need 100–210 s.
    v = certify(Instance.load(f"examples/{name}.json"), thm, digits=30,
                max_seconds=CAP.get(name, 240),
                refine_t=0, t_max=T_MAX.get(name, 4))
    wall = time.perf_counter() - t0
    T = v.timescale.get("T_first", v.timescale.get("T")) if v.timescale else \
        "0 (exact, Lemma " + v.tail.lemma + ")" if v.tail is not None and \
        getattr(v.tail, "lemma", "") in ("S0", "S1", "S2", "S3") else "—"
    print(f"| {name} | {thm} | {v.verdict} | {T} | {wall:.1f} |", flush=True)
