"""Reconcile the (8, 3) step counts: certify 3.1 (bench_checker --only-83) vs a plain
enclose_trajectory to T = 3 (as `simulate --t-final 3 --variable z`). Prints per-run steps,
bits attempts, the stopping time, and steps per unit time interval."""
import sys
import time
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_integrator import instance
from certified.enclose.driver import enclose_trajectory  # noqa: E402
from certified.verdict.certify import certify

inst = instance(8, 3)
t0 = time.perf_counter()
v = certify(inst, "3.1", digits=30, max_seconds=None, t_max=3)
w = time.perf_counter() - t0
print("certify 3.1:", getattr(v, "status", None), "wall", round(w, 1), flush=True)
for k in ("t_certified", "T", "certified_until", "steps"):
    print(k, getattr(v, k, None))
print(repr(v)[:1500], flush=True)
t0 = time.perf_counter()
tr = enclose_trajectory(inst, 3, times=[1, 2, 3], digits=30, max_bits=None)
w = time.perf_counter() - t0
ts = [float(s.t0) for s in tr.steps]
print("enclose_trajectory T=3: steps", len(tr.steps), "wall", round(w, 1), "until",
      float(tr.certified_until), "bits", tr.bits, "attempts", tr.attempts, flush=True)
for a, b in [(0, 1), (1, 2), (2, 2.5), (2.5, 3)]:
    print(f"steps in [{a},{b}):", sum(a <= x < b for x in ts))
print("final radius", float(tr.backend.max_rad(tr.final_box())))
