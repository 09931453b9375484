"""Commands on one instance: ``classify``, ``simulate``, ``verify``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from certified.cli.common import (
    PROGRESS,
    _need_matplotlib,
    _number,
    _out_path,
    _precision,
    _progress_on,
    _write_atomic,
)

__all__ = ['classify', 'simulate', 'verify']


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "table"]), default="json",
              show_default=True, help="JSON (the spec's format) or a table for people.")
def classify(file: str, fmt: str) -> None:
    """Decide exactly which theorems' hypotheses hold for the instance in FILE.

    Every verdict is exact (rational arithmetic, exact polynomial algebra, or Arb
    enclosures that separate); nothing is decided from a floating-point guess.
    """
    from certified.exact.hypotheses import classify as run  # lazy: CLI startup
    from certified.exact.instance import Instance  # lazy: CLI startup

    report = run(Instance.load(file))
    if fmt == "table":
        click.echo(report.to_table())
    else:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))


_FORMAT = click.option("--format", "fmt", type=click.Choice(["summary", "json"]),
                       default="summary", show_default=True,
                       help="A short summary for people, or the whole JSON document.")


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--t-final", "t_final", required=True, help="Final time T > 0 (exact number).")
@click.option("--digits", type=int, default=None,
              help="Working precision in decimal digits (default 30; at most 10,000).")
@click.option("--bits", type=int, default=None, help="Working precision in bits (instead of --digits).")
@click.option("--times", default=None, help="Comma-separated report times (default 0,T).")
@click.option("--variable", type=click.Choice(["x", "z"]), default="z", show_default=True,
              help="Report x (original) or z = e^{-tV} x (rescaled).")
@click.option("--backend", type=click.Choice(["flint", "mpmath"]), default="flint",
              show_default=True)
@click.option("--step", type=click.Choice(["defect", "picard"]), default="defect",
              show_default=True, help="The validated step: defect (Lemma I10: long steps "
              "set by analyticity, with picard as the fallback) or picard (Lemma I6 only: "
              "short steps). The checker replays both.")
@click.option("--max-bits", type=int, default=None,
              help="Cap of the automatic precision escalation (default 4 × the start).")
@click.option("--max-seconds", "max_seconds", type=click.FloatRange(min=0, min_open=True),
              default=None, help="Outer wall-clock cap (default: none); the run is then "
              "certified up to where it stopped, and says so.")
@click.option("--out", callback=_out_path, default=None, help="Write the JSON to this file.")
@click.option("--plot", callback=_out_path, default=None,
              help="Draw token trajectories and P at the last time (PNG; needs matplotlib).")
@_FORMAT
@PROGRESS
def simulate(file: str, t_final: str, digits: int | None, bits: int | None, times: str | None,
             variable: str, backend: str, step: str, max_bits: int | None,
             max_seconds: float | None, out: str | None, plot: str | None, fmt: str,
             progress: bool | None) -> None:
    """Certified enclosures of the trajectory and of P at the requested times.

    `certified_until` is the time up to which every step was validated; requested times
    beyond it are listed, not reported, and `stop_reason` says why the run ended.
    """
    from certified.enclose.driver import enclose_trajectory  # lazy: CLI startup
    from certified.exact.instance import Instance  # lazy: CLI startup

    prec = _precision(digits, bits, max_bits)
    tf = _number(t_final, "--t-final")
    if tf <= 0:
        raise click.BadParameter("must be > 0", param_hint="--t-final")
    report = None
    if times is not None:
        report = [_number(x.strip(), "--times") for x in times.split(",") if x.strip()]
        if not report:
            raise click.BadParameter("no times given", param_hint="--times")
    if plot is not None:
        _need_matplotlib("--plot")
    inst = Instance.load(file)
    traj = enclose_trajectory(inst, tf, times=report, precision=prec, variable=variable,
                              backend=backend, max_seconds=max_seconds, step=step,
                              progress=_progress_on(progress))
    doc = traj.to_json(prec.digits)
    text = json.dumps(doc, indent=1, ensure_ascii=False)
    if out is not None:
        _write_atomic(out, text + "\n")
    if plot is not None:
        from certified.enclose.driver import trajectory_midpoints  # lazy: CLI startup
        from certified.plots import plot_trajectory  # lazy: optional dependency

        ts, toks, atts = trajectory_midpoints(traj)
        plot_trajectory(ts, toks, atts, plot, variable=variable, title=inst.name or "")
    if fmt == "json":
        click.echo(text)
        return
    from certified.api import enclosures_summary  # lazy: CLI startup

    click.echo(f"certified until t = {doc['certified_until']} ({doc['stop_reason']}); "
               f"{doc['method']['steps']} validated steps at {doc['method']['bits']} bits")
    click.echo("\n".join(enclosures_summary(traj, variable)))
    if doc["not_certified_times"]:
        click.echo("not certified: " + ", ".join(doc["not_certified_times"]))
    if out is not None:
        click.echo(f"written: {out}")


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--theorem", type=click.Choice(["2.1", "3.1", "4.2", "5.2", "8.5", "auto"]),
              default="auto", show_default=True,
              help="Whose conclusion to judge (auto: the first of 2.1, 3.1, 5.2, 4.2, 8.5 whose "
              "hypotheses hold; if none, 8.5 for V = λI with λ < 0, 3.1 for other λI, 4.2 "
              "otherwise).")
@click.option("--digits", type=int, default=30, show_default=True,
              help="Working precision of the integration (decimal digits, at most 10,000).")
@click.option("--t-max", "t_max", default="8", show_default=True,
              help="Latest time at which a tail lemma is tried (a deterministic budget).")
@click.option("--refine-t", "refine_t", default="3", show_default=True,
              help="After the first verdict at T, integrate at most to T + this to tighten "
              "the limits to the requested digits, with at most as many steps as T took, "
              "and only while the limits keep tightening (0: stop at the first verdict).")
@click.option("--max-steps", "max_steps", type=click.IntRange(min=1), default=None,
              help="At most this many validated steps per integration (a deterministic "
              "budget, like --t-max). Default: none.")
@click.option("--max-seconds", "max_seconds", type=click.FloatRange(min=0, min_open=True),
              default=None, help="Outer wall-clock cap (default: none). Reached before the "
              "first verdict: undecided with reason 'wall-clock cap'; during the "
              "refinement: the first verdict, as with --refine-t 0.")
@click.option("--step", type=click.Choice(["defect", "picard"]), default="defect",
              show_default=True, help="The validated step: defect (Lemma I10: long steps "
              "set by analyticity, with picard as the fallback) or picard (Lemma I6 only: "
              "short steps). The checker replays both.")
@click.option("--backend", type=click.Choice(["flint", "mpmath"]), default="flint",
              show_default=True)
@click.option("--out", callback=_out_path, default=None,
              help="Where to write the certificate (default: FILE's name + .certificate.json "
              "in the current folder).")
@click.option("--plot", callback=_out_path, default=None,
              help="Draw trajectories with the certified limits, and P(T) next to P* "
              "(needs matplotlib).")
@_FORMAT
@PROGRESS
def verify(file: str, theorem: str, digits: int, t_max: str, refine_t: str,
           max_steps: int | None, max_seconds: float | None, step: str, backend: str, out: str | None,
           plot: str | None, fmt: str, progress: bool | None) -> None:
    """Certify or refute a theorem's limit statement on the instance in FILE.

    Writes the certificate and prints a summary (or, with --format json, the whole
    certificate). The verdict is "certified", "refuted" or "undecided" and does not
    depend on whether the theorem's hypotheses hold. Exit status 0 whatever the verdict.
    """
    from certified.api import summary_lines  # lazy: CLI startup
    from certified.exact.instance import Instance  # lazy: CLI startup
    from certified.verdict.certificate import to_certificate  # lazy: CLI startup
    from certified.verdict.certify import certify  # lazy: CLI startup
    from certified.verdict.picture import verification_picture  # lazy: CLI startup

    prec = _precision(digits, None)
    tm = _number(t_max, "--t-max")
    if tm <= 0:
        raise click.BadParameter("must be > 0", param_hint="--t-max")
    rt = _number(refine_t, "--refine-t")
    if rt < 0:
        raise click.BadParameter("must be >= 0", param_hint="--refine-t")
    if plot is not None:
        _need_matplotlib("--plot")
    target = out if out is not None else _out_path(None, None, Path(file).stem +
                                                    ".certificate.json")
    inst = Instance.load(file)
    v = certify(inst, theorem, precision=prec, t_max=tm, refine_t=rt,
                max_seconds=max_seconds, max_steps=max_steps, backend=backend, step=step,
                progress=_progress_on(progress))
    cert = to_certificate(v)
    text = json.dumps(cert, indent=1, ensure_ascii=False)
    _write_atomic(target, text + "\n")
    if plot is not None:
        from certified.plots import plot_verification  # lazy: optional dependency

        picture = verification_picture(v)
        if picture is not None:
            plot_verification(picture.times, picture.tokens, picture.attention_at_T,
                              picture.lemma.attention_limit, picture.lemma.centers, plot,
                              title=picture.title, levels=picture.lemma.levels)
    if fmt == "json":
        click.echo(text)
        if v.refinement:  # not part of the certificate; stdout stays one JSON document
            click.echo(f"refinement: {v.refinement}", err=True)
    else:
        click.echo(summary_lines(cert))
        if v.refinement:
            click.echo(f"refinement: {v.refinement}")
        click.echo(f"certificate: {target}")
