"""(8, 3) of bench_integrator.py to T with step="picard" (I6) or step="defect" (I10), final
box stored in benchmarks/out/; ``--compare T`` checks that the two boxes intersect (used for
the I6-vs-I10 agreement in proofs_notes/integrator.md, I10).

Usage: python benchmarks/compare_final_boxes.py {picard|defect} T
       python benchmarks/compare_final_boxes.py --compare T
"""
import json
import os
import sys
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_integrator import instance  # noqa: E402
from certified.enclose.driver import enclose_trajectory  # noqa: E402


def path(meth: str, T: str) -> str:
    return os.path.join(HERE, "out", f"box_{meth}_{T.replace('/', '_')}.json")


if sys.argv[1] == "--compare":
    T = sys.argv[2]
    a, b = (json.load(open(path(m, T))) for m in ("defect", "picard"))
    ok, gap = True, 0.0
    for (l1, h1), (l2, h2) in zip(a["bounds"], b["bounds"]):
        l1, h1, l2, h2 = map(Fraction, (l1, h1, l2, h2))
        ok &= max(l1, l2) <= min(h1, h2)
        gap = max(gap, abs(float((l1 + h1) / 2 - (l2 + h2) / 2)))
    print(f"boxes intersect: {ok}; max midpoint difference {gap:.1e}; steps "
          f"defect {a['steps']}, picard {b['steps']}")
    sys.exit(0)
meth, T = sys.argv[1], sys.argv[2]
w = time.perf_counter()
tr = enclose_trajectory(instance(8, 3), T, digits=30, step=meth, max_bits=None)
w = time.perf_counter() - w
bk = tr.backend
box = tr.final_box().reshape(-1)
json.dump({"method": meth, "until": str(tr.certified_until), "steps": len(tr.steps), "wall": w,
           "bounds": [[str(x) for x in bk.bounds(v)] for v in box], "attempts": tr.attempts},
          open(path(meth, T), "w"))
print(meth, T, len(tr.steps), w, float(bk.max_rad(tr.final_box())))
