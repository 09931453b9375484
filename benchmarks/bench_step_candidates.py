"""Issue 24, item 1: admissible step h of the candidate validated steps, side by side.

States: the (8, 3) instance of bench_integrator.py (V = Q = K = I, default_rng(0) tokens in
[-1, 1]^3 rounded to 1/1000) at t = 0, 1, 2, and examples/authors_setting_n20.json at
t = 0, 1; states at t > 0 from a float64 RK4 run (dt = 1/2048), rounded to exact dyadics
(the step starts from that exact point). 30 digits: Taylor order 49, 140 bits, target
per-step error tol = 1e-33. For each state:

* I6   — today's step (`stepper.taylor_step`): the largest ρ = 2^-k whose complex Picard
         inclusion holds, and the h it gives (remainder rule and wrapping control);
* A    — the defect step (`certified.enclose.defect_step`, Lemma I10), validated: ρ, h, pieces;
* C    — the same defect bound and real Gronwall bootstrap for the centre alone (no set,
         no linear part S): h and cost;
* D    — *estimate only* (not implemented, nothing validated): the notes' step rule
         h = min(0.5/‖DF(c)‖∞, 0.24·R̂), R̂ = min_k |Z_k(c)|^(-1/k).

Costs are seconds of one step on this machine (same process, one state after the other):
read them as ratios. Run: ``python benchmarks/bench_step_candidates.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_integrator import instance as integrator_instance  # noqa: E402

from certified import Instance
from certified.enclose.arith import get_backend
from certified.enclose.defect_step import DefectRejected, DefectStepper, _radius_estimate, defect_step
from certified.enclose.field import AttentionField
from certified.enclose.lohner_set import LohnerSet
from certified.enclose.stepper import StepRejected, taylor_step

ORDER, BITS, TOL = 49, 140, Fraction(1, 10 ** 33)


def float_state(inst: Instance, t_end: float, dt: float = 1 / 2048) -> np.ndarray:
    """RK4 in float64 of the z-ODE with V = λI (both instances here have V = I)."""
    V = np.array([[float(x) for x in row] for row in inst.V])
    lam = V[0, 0]
    assert np.allclose(V, lam * np.eye(inst.d))
    B = np.array([[float(x) for x in row] for row in inst.B])
    z = np.array([[float(x) for x in row] for row in inst.X0])

    def f(t, z):
        s = np.exp(2 * lam * t) * (z @ B @ z.T)
        s -= s.max(axis=1, keepdims=True)
        P = np.exp(s)
        P /= P.sum(axis=1, keepdims=True)
        return lam * (P @ z - z)

    t = 0.0
    steps = int(round(t_end / dt))
    for _ in range(steps):
        k1 = f(t, z)
        k2 = f(t + dt / 2, z + dt / 2 * k1)
        k3 = f(t + dt / 2, z + dt / 2 * k2)
        k4 = f(t + dt, z + dt * k3)
        z = z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
    return z


def exact_state(z: np.ndarray) -> list[Fraction]:
    return [Fraction(int(round(x * 2 ** 40)), 2 ** 40) for x in z.reshape(-1)]


def measure(inst: Instance, t0: Fraction, z: np.ndarray) -> dict:
    bk = get_backend("flint")
    out: dict = {}
    with bk.workprec(BITS):
        field = AttentionField(inst, bk, "z")
        S = LohnerSet.from_exact(exact_state(z), bk)
        c = S.c.reshape(inst.n, inst.d)
        # D (estimate): the step rule of the notes, from the point data
        lead = field.leaders(c, t0)
        Z = field.jets(c, t0, ORDER, lead)
        Rhat = _radius_estimate(bk, Z)
        J = field.jacobian(c, t0)
        nrm = max(sum(abs(bk.to_float(v)) for v in row) for row in J)
        out["D"] = dict(h=min(0.5 / nrm, 0.24 * Rhat), normDF=nrm, Rhat=Rhat)
        # I6: today's step, largest dyadic ρ that passes
        for k in range(1, 12):
            rho = Fraction(1, 2 ** k)
            w = time.perf_counter()
            try:
                res = taylor_step(field, S, t0, Fraction(1, 4), ORDER, rho, TOL)
            except StepRejected:
                continue
            out["I6"] = dict(rho=rho, h=res.h, sec=time.perf_counter() - w,
                             rad=float(bk.max_rad(res.output_set.box(bk))))
            break
        # A: the defect step (validated, with the set's linear part)
        st = DefectStepper()
        w = time.perf_counter()
        try:
            res = defect_step(field, S, t0, Fraction(1), ORDER, TOL, st)
            out["A"] = dict(rho=res.rho, h=res.h, pieces=res.pieces,
                            sec=time.perf_counter() - w, M=res.circle_max,
                            E=float(res.error), rad=float(bk.max_rad(res.output_set.box(bk))),
                            stats=dict(st.stats))
        except DefectRejected as exc:
            out["A"] = dict(failed=str(exc), sec=time.perf_counter() - w, stats=dict(st.stats))
        # C: the centre alone (no set, no S), same defect bound and bootstrap
        st = DefectStepper()
        w = time.perf_counter()
        try:
            h, rho, E = defect_step(field, S, t0, Fraction(1), ORDER, TOL, st, point_only=True)
            out["C"] = dict(rho=rho, h=h, E=float(E), sec=time.perf_counter() - w)
        except DefectRejected as exc:
            out["C"] = dict(failed=str(exc), sec=time.perf_counter() - w)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="(8, 3) at t = 0 only")
    ap.add_argument("--skip-n20", action="store_true")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"order {ORDER}, {BITS} bits, tol 1e-33")
    cases = [("(8,3)", integrator_instance(8, 3), [0, 1, 2])]
    if not args.skip_n20 and not args.quick:
        cases.append(("n20", Instance.load(os.path.join(here, "..", "examples",
                                                         "authors_setting_n20.json")), [0, 1]))
    if args.quick:
        cases = [("(8,3)", integrator_instance(8, 3), [0])]
    print("| state | t | I6 ρ | I6 h | I6 s/step | A ρ | A h | A pieces | A s/step "
          "(jets/cover/tube/S) | C h | C s/step | D h (estimate) | ‖DF(c)‖∞ | R̂ |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, inst, times in cases:
        for t in times:
            z = float_state(inst, float(t))
            m = measure(inst, Fraction(t), z)
            i6, a, c, dd = m.get("I6"), m["A"], m["C"], m["D"]
            i6s = (f"1/{int(1 / i6['rho'])} | {float(i6['h']):.4f} | {i6['sec']:.2f}"
                   if i6 else "— | — | —")
            if "failed" in a:
                As = f"— | failed ({a['failed'][:30]}) | — | {a['sec']:.2f}"
            else:
                st = a["stats"]
                As = (f"{float(a['rho']):.3f} | {float(a['h']):.4f} | {a['pieces']} | "
                      f"{a['sec']:.2f} ({st.get('t_jets', 0):.2f}/{st.get('t_cover', 0):.2f}/"
                      f"{st.get('t_tube', 0):.2f}/{st.get('t_var', 0):.2f})")
            Cs = (f"{float(c['h']):.4f} | {c['sec']:.2f}" if "failed" not in c
                  else f"failed | {c['sec']:.2f}")
            print(f"| {name} | {t} | {i6s} | {As} | {Cs} | {dd['h']:.4f} | "
                  f"{dd['normDF']:.2f} | {dd['Rhat']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
