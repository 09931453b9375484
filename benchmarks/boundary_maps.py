"""Boundary maps: where each theorem's conclusion is certified, refuted or left undecided,
inside and outside its hypotheses, under a deterministic budget.

Every row sweeps ``--samples`` instances with ``certified.studies.explore.sweep`` under the
same budget: ``t_max`` (the latest time a tail lemma is tried) and ``max_steps`` (validated
steps per integration). Neither depends on the machine's load or speed, so every verdict,
the undecided ones included, reproduces; no wall-clock cap is used.

Writes one JSON-lines file per row to docs/results/boundary/ (resumable: a rerun with
the same budget skips the instances done), the figure docs/figures/boundary_maps.png (one
panel per row: certified / refuted / undecided shares with Wilson 95% intervals) and, with
--markdown, the table for docs/benchmarks.md.

Usage: python benchmarks/boundary_maps.py [--samples 200] [--t-max 8] [--max-steps 400]
       [--workers 2] [--rows ID,ID] [--markdown] [--table-only]

The published maps were run row by row with fewer samples on the slow rows;
``--table-only --markdown`` then summarises every row file, counting only its longest
prefix of instance indices 0 … m − 1 (an interrupted sweep's file lacks the slow
instances that were in flight, and dropping only those would bias the shares).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(__file__))

from mdheader import header  # noqa: E402

from certified.studies.explore import family_instance, strategy_instances, sweep  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "..", "docs", "results", "boundary")
FIGURE = os.path.join(HERE, "..", "docs", "figures", "boundary_maps.png")

#: id: (label, theorem, source). A source is ("family", name, n, d) or
#: ("strategy", theorem, violation or None[, options of the strategy]).
ROWS = {
    # the paper's Section 12.1 experiment: QᵀK random, so (almost surely) not symmetric,
    # i.e. outside 3.1's and 5.2's hypotheses, where the paper reports the pattern persists
    "12_1_thm3_1": ("Section 12.1, V = I, QᵀK random (3.1's conclusion)", "3.1",
                    ("family", "section-12.1", 3, 2)),
    "12_1_thm5_2": ("Section 12.1, V = diag(1, −1/2) (5.2's conclusion)", "5.2",
                    ("family", "section-12.1-paranormal", 3, 2)),
    "3_1_inside": ("3.1 inside its hypotheses (strategy)", "3.1", ("strategy", "3.1", None)),
    "5_2_inside": ("5.2 inside its hypotheses (strategy)", "5.2", ("strategy", "5.2", None)),
    "4_2_inside": ("4.2 inside Definition 4.1, n 2–4, d 2–3, entries up to 3", "4.2",
                   ("strategy", "4.2", None)),
    # Section 12.1's size (n = 3, d = 2) inside Definition 4.1, at a scale where the scores
    # are O(10) at t = 0: the row above (entries up to 3, d up to 3) has scores up to 425
    # there, and its validated steps are short from the start
    "4_2_inside_n3d2": ("4.2 inside Definition 4.1, n = 3, d = 2, entries in [−1, 1]", "4.2",
                        ("strategy", "4.2", None,
                         {"n": 3, "d": 2, "max_abs": 1, "max_denominator": 2})),
    "bool_d2": ("2.1's Boolean two-leader form, V = Q = K = I, d = 2, n = 5", "2.1",
                ("family", "attention-boolean", 5, 2)),
    "bool_d3": ("2.1's Boolean two-leader form, V = Q = K = I, d = 3, n = 5", "2.1",
                ("family", "attention-boolean", 5, 3)),
    "4_2_leading_negative": ("4.2 outside: λ₁ negative", "4.2",
                             ("strategy", "4.2", "leading_negative")),
    "4_2_leading_complex": ("4.2 outside: λ₁ complex", "4.2",
                            ("strategy", "4.2", "leading_complex")),
    "4_2_leading_tied": ("4.2 outside: λ₁ tied in modulus", "4.2",
                         ("strategy", "4.2", "leading_tied")),
    "4_2_form_nonpositive": ("4.2 outside: ⟨Qφ₁, Kφ₁⟩ ≤ 0", "4.2",
                             ("strategy", "4.2", "form_nonpositive")),
}


def instances(source: tuple, samples: int) -> list:
    if source[0] == "family":
        _, name, n, d = source
        return [family_instance(name, i, n=n, d=d, seed=0) for i in range(samples)]
    _, theorem, violation, *options = source  # options: the strategy's n, d, max_abs, …
    return strategy_instances(theorem, samples, violate=violation, seed=0,
                              **(options[0] if options else {}))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial share k/n (95% for z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def why_undecided(reason: str) -> str:
    """A coarse class of an undecided row's reason (for the table)."""
    if "step budget" in reason:
        return "step budget"
    if "no tail lemma applies" in reason or "not defined" in reason:
        return "no lemma applies"
    if "could not be verified" in reason:
        return "lemma not verified by t_max"
    if "needs V Hurwitz" in reason:
        return "two tokens, V not Hurwitz (S3)"
    if "the bound A on the scores" in reason:
        return "two tokens, S3's score bound > 4·10⁴"
    return "other"


def summarise(rows: list[dict]) -> dict:
    c = Counter(r["verdict"] for r in rows)
    n = len(rows)
    decided = c["certified"] + c["refuted"]
    lemmas = Counter(r["reason"].split(" holds")[0].split(" refutes")[0][:24]
                     for r in rows if r["verdict"] != "undecided")
    approx = Counter(r["approx"]["judgement"] for r in rows if r.get("approx"))
    return {"approx": approx, "n": n, "certified": c["certified"], "refuted": c["refuted"],
            "undecided": c["undecided"], "decided_share": decided / n if n else 0.0,
            "decided_wilson": wilson(decided, n),
            "why_undecided": Counter(why_undecided(r["reason"]) for r in rows
                                     if r["verdict"] == "undecided"),
            "lemmas": lemmas}


def figure(results: dict[str, dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = list(results)
    cols = 3
    rows = math.ceil(len(ids) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.6 * rows), squeeze=False)
    colours = {"certified": "#2a7f3f", "refuted": "#b03a2e", "undecided": "#9e9e9e"}
    for ax, rid in zip(axes.flat, ids):
        s = results[rid]
        n = s["n"]
        for x, key in enumerate(("certified", "refuted", "undecided")):
            k = s[key]
            lo, hi = wilson(k, n)
            ax.bar(x, k / n, color=colours[key])
            ax.errorbar(x, k / n, yerr=[[max(0.0, k / n - lo)], [max(0.0, hi - k / n)]],
                        color="black",
                        capsize=4, lw=1)
            ax.text(x, hi + 0.03, str(k), ha="center", fontsize=8)
        ax.set_xticks(range(3), ["certified", "refuted", "undecided"], fontsize=8)
        ax.set_ylim(0, 1.15)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1])
        ax.set_title(f"{ROWS[rid][0]} (n = {n})", fontsize=7.5)
        ax.tick_params(axis="y", labelsize=7)
    for ax in list(axes.flat)[len(ids):]:
        ax.axis("off")
    fig.suptitle("Boundary maps: shares of n instances per row, Wilson 95% intervals",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(FIGURE, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--t-max", default="8")
    ap.add_argument("--max-steps", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--table-only", action="store_true",
                    help="summarise the rows already in docs/results/boundary (no sweeping)")
    args = ap.parse_args()
    ids = [r for r in args.rows.split(",") if r]
    unknown = [r for r in ids if r not in ROWS]
    if unknown:
        ap.error(f"--rows: unknown {', '.join(unknown)}; known: {', '.join(ROWS)}")
    os.makedirs(RESULTS, exist_ok=True)
    budget = {"t_max": args.t_max, "max_steps": args.max_steps}
    results = {}
    for rid in ids:
        label, theorem, source = ROWS[rid]
        out = os.path.join(RESULTS, f"{rid}.jsonl")
        meta = out[:-len(".jsonl")] + ".budget.json"
        stored = None
        if os.path.exists(out) and os.path.exists(meta):
            with open(meta, encoding="utf-8") as fh:
                stored = json.load(fh)
            if stored != budget and not args.table_only:
                sys.exit(f"{out} was computed with another budget ({meta}); move it away")
        if args.table_only:
            if not os.path.exists(out):
                continue
            with open(out, encoding="utf-8") as fh:
                rows = [json.loads(line) for line in fh if line.strip()]
            # Only the longest prefix 0 … m − 1 of indices: a row file of an interrupted
            # sweep lacks the slow instances that were in flight, and dropping just those
            # would bias the shares towards the fast (decided) ones.
            have = {r["index"] for r in rows}
            m = next(i for i in range(len(have) + 1) if i not in have)
            rows = [r for r in rows if r["index"] < m]
            if rows:
                results[rid] = {**summarise(rows), "budget": stored or budget}
            continue
        with open(meta, "w", encoding="utf-8") as fh:
            json.dump(budget, fh)
        print(f"{rid}: {label}", file=sys.stderr, flush=True)
        rows = sweep(instances(source, args.samples), theorem, out, t_max=args.t_max,
                     max_steps=args.max_steps, workers=args.workers, progress=True)
        results[rid] = {**summarise(rows), "budget": budget}
    ids = [rid for rid in ids if rid in results]
    figure(results)
    if args.markdown:
        print(header())
        print("Budget per instance: t_max (the latest T a lemma is tried) and max_steps "
              "(validated steps per integration), per row (deterministic; no wall-clock "
              "cap). Rows: `docs/results/boundary/*.jsonl`; figure: "
              "`docs/figures/boundary_maps.png`.\n")
        print("| row | theorem | budget: t_max, steps | n | certified | refuted | undecided | "
              "decided share (Wilson 95%) | undecided because | float64 reading (4.2 rows; "
              "not a proof): holds / breaks |")
        print("|---|---|---|---:|---:|---:|---:|---|---|---|")
        for rid in ids:
            s = results[rid]
            lo, hi = s["decided_wilson"]
            why = ", ".join(f"{k}: {v}" for k, v in s["why_undecided"].most_common()) or "—"
            b = s["budget"]
            print(f"| {ROWS[rid][0]} | {ROWS[rid][1]} | {b['t_max']}, {b['max_steps']} | "
                  f"{s['n']} | {s['certified']} | "
                  f"{s['refuted']} | {s['undecided']} | {s['decided_share']:.2f} "
                  f"[{lo:.2f}, {hi:.2f}] | {why} | "
                  + (f"{s['approx']['holds']} / {s['approx']['breaks']}" if s["approx"]
                     else "—") + " |")
    else:
        print(json.dumps({k: {**v, "why_undecided": dict(v["why_undecided"]),
                              "approx": dict(v["approx"]),
                              "lemmas": dict(v["lemmas"])} for k, v in results.items()},
                         indent=1))


if __name__ == "__main__":
    main()
