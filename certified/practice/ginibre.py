"""How generic is Definition 4.1(i)? A census of real Ginibre matrices, every sample proved.

Sample ``i`` of dimension ``d`` under seed ``s`` is the d×d matrix of i.i.d. N(0, 1) float64
entries drawn by ``numpy.random.default_rng([s, d, i])``: reproducible one by one, whatever
the number of processes or the chunking. Each sample is a matrix of exact binary rationals
and its class is *proved* by :func:`certified.practice.leading.classify_leading`
(Gershgorin on a verified similarity, then Arb's verified eigenvalues at higher
precision, then the exact spectrum; never a float guess).

The fractions are then *statistics*: Wilson score intervals at 95% say how well the sample
fraction estimates the probability for the Gaussian ensemble. Only the per-sample classes
are certified; the interval is a confidence interval, not an enclosure.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np
from tqdm import tqdm

from certified.practice.leading import KINDS, classify_leading
from certified.studies.engine import open_engine
from certified.studies.parallel import usable_cores

__all__ = ["DEFAULT_DIMS", "DimCensus", "sample", "classify_range", "census", "wilson",
           "to_table", "plot_census"]

DEFAULT_DIMS = (2, 4, 8, 16, 32, 64, 128)
#: z for a two-sided 95% Wilson interval (Φ⁻¹(0.975)).
Z95 = 1.959963984540054
#: The paper's figure for d = 128: about 14%.
PAPER_D128 = 0.14


def sample(d: int, index: int, seed: int = 0) -> np.ndarray:
    """Sample ``index`` of dimension ``d``: i.i.d. N(0, 1) float64 entries, shape (d, d)."""
    return np.random.default_rng([seed, d, index]).standard_normal((d, d))


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion k/n (a statistical statement)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z / den * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def classify_range(d: int, start: int, stop: int, seed: int = 0) -> dict[str, Any]:
    """Classify samples start … stop − 1 of dimension d (one unit of parallel work).

    Returns
    -------
    dict
        ``kinds``: counts per kind (largest-modulus reading), ``methods``: counts per
        deciding stage, ``escalated``: sample indices not settled by the first stage,
        ``seconds``: wall time in this process.
    """
    t0 = time.perf_counter()
    kinds = {k: 0 for k in KINDS}
    methods: dict[str, int] = {}
    escalated = []
    for i in range(start, stop):
        cls = classify_leading(sample(d, i, seed))
        kinds[cls.kind] += 1
        name = f"{cls.method}-{cls.bits}"
        methods[name] = methods.get(name, 0) + 1
        if cls.method != "gershgorin":
            escalated.append(i)
    return {"d": d, "start": start, "stop": stop, "kinds": kinds, "methods": methods,
            "escalated": escalated, "seconds": time.perf_counter() - t0}


@dataclass
class DimCensus:
    """The census of one dimension (counts are exact; intervals are statistics)."""

    d: int
    samples: int = 0
    kinds: dict[str, int] = field(default_factory=lambda: {k: 0 for k in KINDS})
    methods: dict[str, int] = field(default_factory=dict)
    escalated: list[int] = field(default_factory=list)
    cpu_seconds: float = 0.0

    def add(self, part: dict[str, Any]) -> None:
        self.samples += part["stop"] - part["start"]
        for k, v in part["kinds"].items():
            self.kinds[k] += v
        for k, v in part["methods"].items():
            self.methods[k] = self.methods.get(k, 0) + v
        self.escalated.extend(part["escalated"])
        self.cpu_seconds += part["seconds"]

    @property
    def positive(self) -> int:
        """Samples satisfying Definition 4.1(i): leading eigenvalue real, positive, simple."""
        return self.kinds["positive"]

    @property
    def real(self) -> int:
        """Samples whose leading eigenvalue is unique, simple and real (either sign)."""
        return self.kinds["positive"] + self.kinds["negative"]

    def to_json(self) -> dict[str, Any]:
        n = self.samples
        return {
            "d": self.d, "samples": n, "kinds": dict(self.kinds),
            "definition_4_1_i": {"count": self.positive, "fraction": self.positive / n,
                                 "wilson95": list(wilson(self.positive, n))},
            "leading_real": {"count": self.real, "fraction": self.real / n,
                             "wilson95": list(wilson(self.real, n))},
            "methods": dict(sorted(self.methods.items())),
            "escalated_samples": sorted(self.escalated),
            "cpu_seconds": round(self.cpu_seconds, 3),
        }


def _classify_job(job: tuple[int, int, int, int]) -> dict[str, Any]:
    d, a, b, seed = job
    return classify_range(d, a, b, seed)


def census(dims: Iterable[int] = DEFAULT_DIMS, samples: int = 10_000, seed: int = 0,
           workers: int | None = None, chunk: int | None = None,
           progress: bool | None = None, scheduler: str | None = None) -> dict[str, Any]:
    """Classify ``samples`` Ginibre matrices per dimension, in parallel processes.

    Parameters
    ----------
    dims : iterable of int
        Dimensions d ≥ 1.
    samples : int
        Samples per dimension (indices 0 … samples − 1).
    seed : int
        Seed of the ensemble (see :func:`sample`).
    workers : int, optional
        Processes (default: every local core). 1 runs in this process.
    chunk : int, optional
        Samples per unit of work (default: about 8 units per worker and dimension).
    progress : bool, optional
        A tqdm bar on stderr (default: when stderr is a terminal).
    scheduler : str, optional
        Where the units run (:func:`certified.studies.engine.open_engine`): None (local
        processes), "local" (a Dask LocalCluster) or a Dask scheduler address. The
        result does not depend on it.

    Returns
    -------
    dict
        ``{"seed", "samples", "workers", "wall_seconds", "dims": [DimCensus.to_json()…]}``.
    """
    dims = list(dims)
    workers = workers or usable_cores()
    if progress is None:
        progress = sys.stderr.isatty()
    jobs = []
    for d in dims:
        step = chunk or max(1, math.ceil(samples / (8 * workers)))
        jobs += [(d, a, min(a + step, samples)) for a in range(0, samples, step)]
    # Largest dimensions first: the long units start early and the tail stays short.
    jobs.sort(key=lambda j: -j[0])
    result = {d: DimCensus(d) for d in dims}
    t0 = time.perf_counter()
    bar = None
    if progress:

        bar = tqdm(total=samples * len(dims), unit="matrix", file=sys.stderr,
                   desc="ginibre")
    with open_engine(scheduler, workers) as engine:
        if bar is not None:
            bar.set_description(f"ginibre ({engine.description})")
        for part in engine.map_unordered(_classify_job, [(d, a, b, seed)
                                                          for d, a, b in jobs]):
            result[part["d"]].add(part)
            if bar is not None:
                bar.update(part["stop"] - part["start"])
    if bar is not None:
        bar.close()
    return {"seed": seed, "samples": samples, "workers": workers,
            "wall_seconds": round(time.perf_counter() - t0, 2),
            "dims": [result[d].to_json() for d in dims]}


def to_table(res: dict[str, Any]) -> str:
    """A Markdown table of a :func:`census` result."""
    lines = [
        "| d | samples | 4.1(i) holds | fraction [95% Wilson] | leading real | fraction "
        "[95% Wilson] | complex pair | other | not settled at 53 bits |",
        "|---:|---:|---:|---|---:|---|---:|---:|---:|",
    ]
    for row in res["dims"]:
        p, r = row["definition_4_1_i"], row["leading_real"]
        lines.append(
            f"| {row['d']} | {row['samples']} | {p['count']} | {p['fraction']:.4f} "
            f"[{p['wilson95'][0]:.4f}, {p['wilson95'][1]:.4f}] | {r['count']} | "
            f"{r['fraction']:.4f} [{r['wilson95'][0]:.4f}, {r['wilson95'][1]:.4f}] | "
            f"{row['kinds']['complex']} | {row['kinds']['other']} | "
            f"{len(row['escalated_samples'])} |")
    return "\n".join(lines)


def plot_census(res: dict[str, Any], path: str) -> None:
    """Fractions against d (log scale) with Wilson intervals, and the paper's 14%."""
    import matplotlib  # lazy: optional dependency (the plot extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: optional dependency (the plot extra)

    ds = [row["d"] for row in res["dims"]]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for key, label, marker in (("definition_4_1_i", "leading eigenvalue real and positive "
                                "(Def. 4.1(i))", "o"),
                               ("leading_real", "leading eigenvalue real", "s")):
        f = np.array([row[key]["fraction"] for row in res["dims"]])
        lo = np.array([row[key]["wilson95"][0] for row in res["dims"]])
        hi = np.array([row[key]["wilson95"][1] for row in res["dims"]])
        ax.errorbar(ds, f, yerr=[f - lo, hi - f], marker=marker, capsize=3, label=label)
    ax.axhline(PAPER_D128, color="grey", ls=":", label="paper: about 14% at d = 128")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ds, [str(d) for d in ds])
    ax.set_xlabel("d")
    ax.set_ylabel("fraction of samples (proved per sample)")
    ax.set_ylim(0, 1)
    ax.set_title(f"Real Ginibre d×d, {res['samples']} samples per d (seed {res['seed']}), "
                 "95% Wilson intervals", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
