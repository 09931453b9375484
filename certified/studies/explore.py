"""Boundary maps: certify many sampled instances and count the verdicts.

Two kinds of sources:

* **families** — numpy-seeded random instances, one per index (reproducible one by one,
  whatever the number of processes): ``section-12.1`` (V = I, Q = I, K with entries
  uniform in [−1, 1], the paper's Section 12.1 experiment; theorem 3.1) and
  ``section-12.1-paranormal`` (the same K with V = I except V[d, d] = −1/2; theorem 5.2);
  ``attention-boolean`` (V = Q = K = I in d ≥ 2, judged by Theorem 2.1's Boolean form:
  does P* keep rank ≤ 2 beyond d = 1, as the authors conjecture?);
  tokens uniform in [−s, s]^d (``spread`` s, default 3; the paper's figures use 5); every
  float rounded to a rational with denominator 100;
* **strategies** — :mod:`certified.studies.strategies` (``inside`` or ``violating``), drawn by
  hypothesis under a fixed seed (hypothesis favours small, simple examples: a stress
  distribution, not a uniform one).

Each instance is certified with a budget; results are appended as JSON lines, so an
interrupted sweep resumes where it stopped; refuted instances are saved as audit records.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hseed
from tqdm import tqdm

from certified.approx.float64 import approx_theorem_4_2
from certified.enclose.driver import check_max_steps
from certified.errors import InputError
from certified.exact.instance import Instance
from certified.studies.engine import open_engine
from certified.studies.strategies import inside, violating
from certified.verdict.certify import certify

__all__ = ["FAMILIES", "family_instance", "strategy_instances", "sweep", "boundary_map"]

FAMILIES = {"section-12.1": "3.1", "section-12.1-paranormal": "5.2",
            "attention-boolean": "2.1"}


def _q(x: float) -> Fraction:
    return Fraction(round(x * 100), 100)


def family_instance(family: str, index: int, *, n: int = 3, d: int = 2, seed: int = 0,
                    spread: float = 3.0) -> Instance:
    """Instance ``index`` of a numpy family (see the module docstring)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; known: {', '.join(FAMILIES)}")
    rng = np.random.default_rng([seed, n, d, index])
    K = [[_q(x) for x in row] for row in rng.uniform(-1, 1, (d, d))]
    if family == "attention-boolean":
        K = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    X0 = [[_q(x) for x in row] for row in rng.uniform(-spread, spread, (n, d))]
    V = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    if family == "section-12.1-paranormal":
        V[d - 1][d - 1] = Fraction(-1, 2)
    eye = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    return Instance.create(V=V, Q=eye, K=K, X0=X0,
                           name=f"{family} #{index} (seed {seed}, n {n}, d {d}, spread {spread})")


def strategy_instances(theorem: str, count: int, *, violate: str | None = None,
                       seed: int = 0, **options: Any) -> list[Instance]:
    """``count`` instances drawn from a strategy under a fixed seed (no database)."""


    strat = violating(theorem, violate, **options) if violate else inside(theorem, **options)
    out: list[Instance] = []

    @hseed(seed)
    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strat)
    def collect(inst: Instance) -> None:
        out.append(inst)

    collect()
    return out[:count]


def _one(payload: tuple[int, dict[str, Any], str, Any, int, float | None, int | None]
         ) -> dict[str, Any]:
    """One instance's row: a pure function of its payload (the verdict depends on the
    t and step budgets, never on the machine: a task that runs twice gives the same row;
    only the outer wall-clock cap, if set, can depend on load, and says so)."""
    index, inst_json, theorem, t_max, digits, cap, max_steps = payload
    inst = Instance.from_json(inst_json)
    t0 = time.perf_counter()
    v = certify(inst, theorem, digits=digits, t_max=t_max, max_seconds=cap, refine_t=0,
                max_steps=max_steps)
    traj = v.trajectory
    rank = None
    for src in (v.limit, v.evidence):
        if isinstance(src, dict) and "attention_rank" in src:
            rank = src["attention_rank"]
    row = {"index": index, "theorem": v.theorem, "verdict": str(v.verdict), "reason": v.reason,
           "attention_rank": rank,
           "seconds": round(time.perf_counter() - t0, 3),
           "bits": getattr(traj, "bits", None),
           "certified_until": str(getattr(traj, "certified_until", "")),
           "instance": inst_json}
    if theorem == "4.2":  # an approximate reading beside the verdict, typed as such

        row["approx"] = approx_theorem_4_2(inst).to_json()
    return row


def sweep(instances: list[Instance], theorem: str, out: str | Path, *,
          t_max: Fraction | int | str = 6, max_seconds: float | None = None,
          max_steps: int | None = None, digits: int = 20, workers: int | None = None, records: str | Path | None = None,
          progress: bool | None = None, scheduler: str | None = None,
          labels: list[str] | None = None) -> list[dict[str, Any]]:
    """Certify every instance (resuming from ``out``, a JSON-lines file); return all rows.

    Parameters
    ----------
    t_max : number
        The deterministic budget of each instance: the latest time a lemma is tried.
    max_steps : int, optional
        A second deterministic budget: validated steps per integration.
    max_seconds : float, optional
        Outer wall-clock cap of each instance (reaching it gives undecided, "wall-clock
        cap").
    labels : list of str, optional
        A label per instance (e.g. its file), stored in its row as ``"file"``.
    scheduler : str, optional
        Where the tasks run (:func:`certified.studies.engine.open_engine`): None (local
        processes), "local" (a Dask LocalCluster) or a Dask scheduler address.

    Rows are appended to ``out`` as they finish, once per instance (a row already there
    is never computed or written again). Refuted instances are saved as audit records in
    ``records`` (if given).
    """
    check_max_steps(max_steps)  # before the output file is touched
    out = Path(out)
    done: dict[int, dict[str, Any]] = {}
    if out.exists():
        for k, line in enumerate(out.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                done[int(row["index"])] = row
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise InputError(str(out), f"line {k} is not a results row",
                                 "a JSON-lines file written by certified explore, or a new "
                                 "path") from None
    drawn = [inst.to_json() for inst in instances]
    for i in sorted(done):  # a row is reused only for the instance it was computed on
        if i < len(drawn) and done[i].get("instance") != drawn[i]:
            raise InputError(str(out), f"the row of index {i} was computed on another instance "
                             f"than this sweep's instance {i}",
                             "the source, seed and --samples of the run that wrote it (a "
                             "strategy's draws depend on --samples), or a new path")
    todo = [(i, drawn[i], theorem, str(t_max), digits, max_seconds, max_steps)
            for i in range(len(instances)) if i not in done]
    label = {i: lab for i, lab in enumerate(labels)} if labels is not None else {}
    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    if progress:

        bar = tqdm(total=len(instances), initial=len(done), unit="instance", file=sys.stderr)
    with out.open("a", encoding="utf-8") as fh, open_engine(scheduler, workers) as engine:
        if bar is not None:
            bar.set_description(engine.description)

        def keep(row: dict[str, Any]) -> None:
            if row["index"] in done:  # a task Dask ran twice: the first row stands
                return
            if row["index"] in label:
                row = {"file": label[row["index"]], **row}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()  # an interrupted sweep keeps every finished row
            done[row["index"]] = row
            if row["verdict"] == "refuted" and records is not None:
                _save_record(row, theorem, Path(records))
            if bar is not None:
                bar.update(1)

        for row in engine.map_unordered(_one, todo):
            keep(row)
    if bar is not None:
        bar.close()
    return [done[i] for i in sorted(done)]


def _save_record(row: dict[str, Any], theorem: str, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rec = {"format": "certified/audit", "version": 1,
           "name": f"explore: Theorem {theorem} refuted on instance #{row['index']}",
           "source": "certified explore", "instance": row["instance"],
           "claims": [{"id": "conclusion", "statement": f"the conclusion of Theorem {theorem}",
                       "reading": {"theorem_conclusion": theorem}}],
           "precision": {"digits": 20, "t_max": "6", "max_seconds": 60}}
    tag = hashlib.sha256(json.dumps(row["instance"], sort_keys=True).encode()).hexdigest()[:10]
    (folder / f"{theorem}_{row['index']}_{tag}.json").write_text(json.dumps(rec, indent=1) + "\n")


def boundary_map(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts per verdict, with the time and precision spent."""
    out: dict[str, Any] = {"instances": len(rows)}
    for v in ("certified", "refuted", "undecided"):
        sel = [r for r in rows if r["verdict"] == v]
        out[v] = len(sel)
        if sel:
            out[f"{v}_median_seconds"] = float(np.median([r["seconds"] for r in sel]))
    out["bits"] = sorted({r["bits"] for r in rows if r["bits"] is not None})
    ranks: dict[str, int] = {}
    for r in rows:
        if r.get("attention_rank") is not None:
            key = f"rank {r['attention_rank']}"
            ranks[key] = ranks.get(key, 0) + 1
    if ranks:
        out["attention_rank_of_decided"] = dict(sorted(ranks.items()))
    approx = [r["approx"]["judgement"] for r in rows if r.get("approx")]
    if approx:
        out["approximate_float64_reading"] = {
            k: approx.count(k) for k in ("holds", "breaks", "n/a") if approx.count(k)}
        out["approximate_note"] = ("not a proof: " + next(r["approx"]["method"] for r in rows
                                                         if r.get("approx")))
    return out
