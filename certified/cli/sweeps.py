"""Sweeps: ``explore`` (boundary maps) and ``ginibre`` (the census of Definition 4.1(i))."""

from __future__ import annotations

import json
import sys

import click

from certified.cli.common import (
    _int_list,
    _need_matplotlib,
    _number,
    _out_path,
    _precision,
    _write_atomic,
    require_dask,
)

__all__ = ['batch', 'explore', 'ginibre']


# Options shared by the sweep commands (one definition each).
_T_MAX = click.option("--t-max", "t_max", default="6", show_default=True,
                      help="Per instance: the latest time a tail lemma is tried "
                      "(deterministic).")
_MAX_SECONDS = click.option("--max-seconds", "max_seconds",
                            type=click.FloatRange(min=0, min_open=True), default=None,
                            help="Per instance: an outer wall-clock cap (undecided, "
                            "'wall-clock cap', when reached). Default: none.")
_MAX_STEPS = click.option("--max-steps", "max_steps", type=click.IntRange(min=1),
                          default=None,
                          help="Per instance: at most this many validated steps per "
                          "integration (deterministic, like --t-max). Default: none.")
_WORKERS = click.option("--workers", type=click.IntRange(min=1), default=None,
                        help="Processes (default: the cores this process may use).")
_SCHEDULER = click.option("--scheduler", default=None,
                          help="Run on Dask: 'local' (a LocalCluster of --workers processes) "
                          "or the address of a running scheduler (tcp://host:port). "
                          "Default: local processes.")


@click.command()
@click.option("--family", type=click.Choice(["section-12.1", "section-12.1-paranormal",
                                            "attention-boolean"]),
              default=None, help="A numpy-seeded family (uniform sampling).")
@click.option("--strategy", "theorem", type=click.Choice(["2.1", "3.1", "4.2", "5.2", "8.5"]),
              default=None, help="Draw from certified.strategies.inside(THEOREM) instead.")
@click.option("--violate", default=None, help="With --strategy: a hypothesis to violate "
              "(certified.strategies.VIOLATIONS).")
@click.option("--samples", type=click.IntRange(min=1), default=200, show_default=True)
@click.option("--n", "n_tokens", type=click.IntRange(min=1, max=64), default=3,
              show_default=True, help="Tokens per instance (families).")
@click.option("--d", "dim", type=click.IntRange(min=1, max=16), default=2, show_default=True,
              help="Dimension (families).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--spread", type=click.FloatRange(min=0, min_open=True), default=3.0,
              show_default=True, help="Tokens uniform in [-spread, spread]^d (families).")
@_T_MAX
@_MAX_STEPS
@_MAX_SECONDS
@_WORKERS
@_SCHEDULER
@click.option("--out", callback=_out_path, required=True,
              help="Results as JSON lines (appended; a rerun resumes).")
@click.option("--records", default=None, help="Folder for audit records of refuted instances.")
def explore(family: str | None, theorem: str | None, violate: str | None, samples: int,
            n_tokens: int, dim: int, seed: int, spread: float, t_max: str,
            max_steps: int | None, max_seconds: float | None, workers: int | None, scheduler: str | None, out: str,
            records: str | None) -> None:
    """Sweep sampled instances, certify each, and print the boundary map (JSON).

    Counts of certified / refuted / undecided verdicts for the theorem's conclusion, with
    the time and precision spent. Interrupted sweeps resume from --out.
    """

    # lazy: CLI startup (and optional dependencies of the command)
    from certified.studies.explore import (
        FAMILIES,
        boundary_map,
        family_instance,
        strategy_instances,
        sweep,
    )

    if (family is None) == (theorem is None):
        raise click.UsageError("give exactly one of --family and --strategy")
    tm = _number(t_max, "--t-max")
    if tm <= 0:
        raise click.BadParameter("must be > 0", param_hint="--t-max")
    if scheduler is not None:
        require_dask()
    if violate is not None and theorem is None:
        raise click.BadParameter("needs --strategy", param_hint="--violate")
    if family is not None:
        thm = FAMILIES[family]
        insts = [family_instance(family, i, n=n_tokens, d=dim, seed=seed, spread=spread)
                 for i in range(samples)]
    else:
        from certified.strategies import VIOLATIONS  # lazy: CLI startup

        if violate is not None and (violate not in VIOLATIONS or
                                    theorem not in VIOLATIONS[violate][0]):
            ok = [h for h, (ts, _) in VIOLATIONS.items() if theorem in ts]
            raise click.BadParameter(f"{violate!r} does not apply to Theorem {theorem}; "
                                     f"choose from {', '.join(ok) or 'none'}",
                                     param_hint="--violate")
        thm = theorem
        insts = strategy_instances(theorem, samples, violate=violate, seed=seed)
    rows = sweep(insts, thm, out, t_max=tm, max_steps=max_steps, max_seconds=max_seconds,
                 workers=workers,
                 records=records, progress=sys.stderr.isatty(), scheduler=scheduler)
    res = {"theorem": thm, "source": family or f"strategy {theorem}"
           + (f" violating {violate}" if violate else ""), **boundary_map(rows)}
    click.echo(json.dumps(res, indent=1, ensure_ascii=False))


@click.command()
@click.option("--dims", default="2,4,8,16,32,64,128", show_default=True,
              help="Comma-separated dimensions d.")
@click.option("--samples", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Samples per dimension.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the ensemble: sample i of dimension d is "
                   "default_rng([seed, d, i]).standard_normal((d, d)).")
@_WORKERS
@_SCHEDULER
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.option("--out", callback=_out_path, default=None,
              help="Also write the JSON result to this file.")
@click.option("--plot", callback=_out_path, default=None,
              help="Draw the fractions against d to this PNG file.")
def ginibre(dims: str, samples: int, seed: int, workers: int | None, scheduler: str | None,
            fmt: str, out: str | None, plot: str | None) -> None:
    """How often a real Ginibre matrix satisfies Definition 4.1(i).

    Every sample's class (leading eigenvalue real positive / real negative / a complex
    pair / other) is proved (Gershgorin on a verified similarity, Arb, exact spectrum);
    the fractions come with 95% Wilson intervals, which are statistics, not enclosures.
    """

    from certified.practice.ginibre import (  # lazy: CLI startup
        census,
        plot_census,
        to_table,
    )

    ds = _int_list(dims, "--dims", 1, 1024)
    if plot is not None:
        _need_matplotlib("--plot")
    if scheduler is not None:
        require_dask()
    res = census(ds, samples=samples, seed=seed, workers=workers,
                 progress=sys.stderr.isatty(), scheduler=scheduler)
    text = json.dumps(res, indent=1, ensure_ascii=False)
    if out is not None:
        _write_atomic(out, text + "\n")
    if plot is not None:
        plot_census(res, plot)
    click.echo(to_table(res) if fmt == "table" else text)


@click.group()
def batch() -> None:
    """Run a command on many instance files (resumable JSON lines, local or Dask)."""


@batch.command("verify")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--theorem", type=click.Choice(["2.1", "3.1", "4.2", "5.2", "8.5", "auto"]),
              default="auto", show_default=True)
@click.option("--digits", type=int, default=20, show_default=True)
@_T_MAX
@_MAX_STEPS
@_MAX_SECONDS
@_WORKERS
@_SCHEDULER
@click.option("--out", callback=_out_path, required=True,
              help="One JSON line per file (appended; a rerun skips the files done).")
def batch_verify(files: tuple[str, ...], theorem: str, digits: int, t_max: str,
                 max_steps: int | None, max_seconds: float | None, workers: int | None, scheduler: str | None,
                 out: str) -> None:
    """Verify every instance FILE; one row per file in --out; print the counts (JSON)."""
    from certified.exact.instance import Instance  # lazy: CLI startup
    from certified.studies.explore import boundary_map, sweep  # lazy: CLI startup

    prec = _precision(digits, None)
    tm = _number(t_max, "--t-max")
    if tm <= 0:
        raise click.BadParameter("must be > 0", param_hint="--t-max")
    if scheduler is not None:
        require_dask()
    insts = [Instance.load(f) for f in files]  # every file read before any work
    rows = sweep(insts, theorem, out, t_max=tm, max_steps=max_steps,
                 max_seconds=max_seconds, digits=prec.digits, workers=workers, progress=sys.stderr.isatty(),
                 scheduler=scheduler, labels=list(files))
    click.echo(json.dumps({"files": len(files), **boundary_map(rows)}, indent=1,
                          ensure_ascii=False))
