"""Where discrete time is proved: the share of drawn instances `verify` certifies at each
step size Δt (and, in parentheses, the share it refutes), for Lemma T10 (V = λI: Theorem 3.1's setting), Lemma T7's discrete form
(Theorem 4.2's good triples, d = 2), Lemma T9's discrete form (Theorem 8.5: V = −I,
QᵀK = I; Lemma T11 refutes it for μΔt > 2) and Lemma T8's discrete form (Theorem 5.2's split
setting), with Lemma T8's step-size bound (λ − 2ν)/ν² per instance. An instance whose
I + ΔtV is singular at some Δt is not counted there (the cell's denominator says so).

Budget: t_max = max(24, 24·Δt) (at least 24 layers); max(200, 400·Δt) for T9 (at least
400 layers), whose step-size condition holds only once the energy is small. A map of where the proofs reach within
that budget; where a conclusion provably fails, only Lemma T11 (Theorem 8.5, μΔt > 2)
says so: beyond T8's condition the verdict is `undecided`.

Rows: T10 on `count` instances drawn inside Theorem 3.1 (derandomized); T8's discrete
form on V = diag(1, 1, g), Q = K = I for several g (one instance each).

Usage: python benchmarks/dt_map.py [--count 12] [--seed 0] [--markdown] [--only PREFIX]
[--dt 1/10 1/5 …]
Writes docs/results/dt_map.jsonl (one row per instance and Δt).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certified import Instance
from certified.errors import InputError
from certified.strategies import STEP_SIZES, inside
from certified.tail.t8_paranormal import paranormal_split, step_size_condition
from certified.verdict.certify import certify

OUT = os.path.join(os.path.dirname(__file__), "..", "docs", "results", "dt_map.jsonl")


def draw(strategy, count: int, seed: int) -> list[Instance]:
    """``count`` instances from a hypothesis strategy, reproducibly (derandomized)."""
    got: list[Instance] = []

    @settings(max_examples=1, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        for i in range(count):
            got.append(data.draw(strategy, label=f"{seed}:{i}"))
    run()
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--only", metavar="PREFIX",
                    help="only the settings whose name starts with PREFIX (their rows in "
                         "the JSON lines are replaced, the others kept)")
    ap.add_argument("--dt", nargs="+", type=Fraction, default=list(STEP_SIZES),
                    metavar="DT", help="the step sizes (columns); default: "
                    + " ".join(str(h) for h in STEP_SIZES))
    args = ap.parse_args()
    if any(h <= 0 for h in args.dt):
        ap.error("--dt: every step size must be positive")
    steps = args.dt
    rows = {"T10 (3.1, V = λI)": (draw(inside("3.1", n=(2, 3)), args.count, args.seed), "3.1"),
            "T7 discrete (4.2, good triples, d = 2)":
                (draw(inside("4.2", n=(2, 3), d=2), args.count, args.seed), "4.2"),
            "T9 discrete (8.5, V = −I, QᵀK = I)":
                (draw(inside("8.5", n=(2, 3), d=2), args.count, args.seed), "8.5")}
    # T8's discrete form on V = diag(1, 1, g), Q = K = I, the tokens of
    # examples/discrete_paranormal.json: one row per g (ν = |g|, bound (1 − 2ν)/ν²)
    X0 = [["1", "0", "1"], ["-1", "1", "2"], ["0", "-1", "-1"], ["1/2", "1/2", "0"]]
    I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    for g in ("1/8", "1/4", "3/8", "-1/4", "1/2"):
        inst = Instance.create(V=[[1, 0, 0], [0, 1, 0], [0, 0, g]], Q=I3, K=I3, X0=X0)
        rows[f"T8 discrete (5.2), V = diag(1, 1, {g})"] = ([inst], "5.2")
    if args.only:
        rows = {k: v for k, v in rows.items() if k.startswith(args.only)}
        if not rows:
            ap.error(f"--only: no setting starts with {args.only!r}")
    kept = []
    if args.only and os.path.exists(OUT):
        kept = [line for line in open(OUT) if json.loads(line)["setting"] not in rows]
    if args.markdown:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from mdheader import header

        print(header())
    print("| setting | " + " | ".join(f"Δt = {h}" for h in steps) +
          " | T8's bound (λ − 2ν)/ν² over the draws |")
    print("|---|" + "---|" * len(steps) + "---|")
    with open(OUT, "w") as fh:
        fh.writelines(kept)
        for name, (insts, thm) in rows.items():
            cells, bounds = [], []
            if thm == "5.2":
                for inst in insts:
                    sp, _ = paranormal_split(inst.V, inst.B)
                    bounds.append(None if sp is None or not sp.nu else
                                  (sp.lam - 2 * sp.nu) / sp.nu ** 2)
            for h in steps:
                ok = tried = refuted = 0
                for i, inst in enumerate(insts):
                    try:
                        di = Instance.from_json(dict(inst.to_json(), time={"discrete": str(h)}))
                    except InputError:  # I + ΔtV singular: no rescaled form (Remark 3.4)
                        fh.write(json.dumps({"setting": name, "index": i, "dt": str(h),
                                             "verdict": "I + dt V singular",
                                             "instance": inst.to_json()}) + "\n")
                        continue
                    # T9's condition waits for a small energy: E ~ 1/(ck) needs 10²–10³
                    # layers (more as μΔt nears 2: its factor 1 + 1/ε grows)
                    tmax = max(200, 400 * h) if thm == "8.5" else max(24, 24 * h)
                    v = certify(di, thm, digits=12, t_max=tmax, refine_t=0)
                    ok += v.verdict == "certified"
                    refuted += v.verdict == "refuted"
                    tried += 1
                    inside_cond = None
                    if thm == "5.2":
                        sp, _ = paranormal_split(inst.V, inst.B)
                        inside_cond = sp is not None and step_size_condition(sp, h)
                    fh.write(json.dumps({"setting": name, "index": i, "dt": str(h),
                                         "verdict": str(v.verdict.value),
                                         "inside_T8_condition": inside_cond,
                                         "instance": inst.to_json()}) + "\n")
                cells.append(f"{ok}/{tried}" + (f" (refuted {refuted}/{tried})" if refuted else ""))
            finite = [b for b in bounds if b is not None]
            rng = "—" if thm != "5.2" else (
                f"{float(min(finite)):.3g} … {float(max(finite)):.3g}"
                + (f" (∞ for {len(bounds) - len(finite)} with ν = 0)"
                   if len(finite) < len(bounds) else "") if finite else "∞ (ν = 0)")
            print(f"| {name} | " + " | ".join(cells) + f" | {rng} |", flush=True)


if __name__ == "__main__":
    main()
