"""Commands on one instance: ``classify``, ``simulate``, ``verify``."""

from __future__ import annotations

import json
import sys

import click

from certified.cli.common import (
    _number,
    _out_path,
    _precision,
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


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--t-final", "t_final", required=True, help="Final time T > 0 (exact number).")
@click.option("--digits", type=int, default=None,
              help="Working precision in decimal digits (default 30).")
@click.option("--bits", type=int, default=None, help="Working precision in bits (instead of --digits).")
@click.option("--times", default=None, help="Comma-separated report times (default 0,T).")
@click.option("--variable", type=click.Choice(["x", "z"]), default="z", show_default=True,
              help="Report tokens in x or in the rescaled z = e^{-tV} x.")
@click.option("--backend", type=click.Choice(["flint", "mpmath"]), default="flint",
              show_default=True, help="Ball arithmetic: Arb (python-flint) or mpmath intervals.")
@click.option("--max-bits", type=int, default=None,
              help="Cap for automatic precision escalation (default 4x the start).")
@click.option("--out", callback=_out_path, default=None, help="Also write the JSON to this file.")
@click.option("--plot", callback=_out_path, default=None,
              help="Draw trajectories and P to this PNG file.")
def simulate(file: str, t_final: str, digits: int | None, bits: int | None, times: str | None,
             variable: str, backend: str, max_bits: int | None, out: str | None,
             plot: str | None) -> None:
    """Certified enclosures of the trajectory and of P at the requested times.

    Default precision: 30 digits. `certified_until` in the output is the time up to which
    every step was validated; requested times beyond it are listed, not reported.
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
    inst = Instance.load(file)
    traj = enclose_trajectory(inst, tf, times=report, precision=prec, variable=variable,
                              backend=backend, progress=sys.stderr.isatty())
    text = json.dumps(traj.to_json(prec.digits), indent=1)
    if out is not None:
        _write_atomic(out, text + "\n")
    if plot is not None:
        from certified.enclose.driver import trajectory_midpoints  # lazy: CLI startup
        from certified.plots import plot_trajectory  # lazy: optional dependency

        ts, toks, atts = trajectory_midpoints(traj)
        plot_trajectory(ts, toks, atts, plot, variable=variable,
                        title=inst.name or "")
    click.echo(text)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--theorem", type=click.Choice(["2.1", "3.1", "4.2", "5.2", "8.5", "auto"]),
              default="auto", show_default=True,
              help="Whose conclusion to judge (auto: the first whose hypotheses hold).")
@click.option("--digits", type=int, default=30, show_default=True,
              help="Working precision of the integration (decimal digits).")
@click.option("--t-max", "t_max", default="8", show_default=True,
              help="Latest time at which a tail lemma is tried.")
@click.option("--max-seconds", "max_seconds", type=float, default=120.0, show_default=True,
              help="Wall-clock budget of the integration.")
@click.option("--backend", type=click.Choice(["flint", "mpmath"]), default="flint",
              show_default=True)
@click.option("--out", callback=_out_path, default=None,
              help="Also write the certificate to this file.")
@click.option("--plot", callback=_out_path, default=None,
              help="Draw trajectories with the certified limits, and P(T) next to P*.")
def verify(file: str, theorem: str, digits: int, t_max: str, max_seconds: float,
           backend: str, out: str | None, plot: str | None) -> None:
    """Certify or refute a theorem's limit statement on the instance in FILE.

    Prints the certificate (JSON). The verdict is "certified", "refuted" or "undecided"
    and does not depend on whether the theorem's hypotheses hold. Exit status 0 whatever
    the verdict.
    """

    from certified.exact.instance import Instance  # lazy: CLI startup
    from certified.verdict.certificate import to_certificate  # lazy: CLI startup
    from certified.verdict.certify import certify  # lazy: CLI startup
    from certified.verdict.picture import verification_picture  # lazy: CLI startup
    if plot is not None:
        from certified.plots import plot_verification  # lazy: optional dependency

    prec = _precision(digits, None)
    if max_seconds <= 0:
        raise click.BadParameter("must be > 0", param_hint="--max-seconds")
    tm = _number(t_max, "--t-max")
    if tm <= 0:
        raise click.BadParameter("must be > 0", param_hint="--t-max")
    inst = Instance.load(file)
    v = certify(inst, theorem, precision=prec, t_max=tm, max_seconds=max_seconds,
                backend=backend, progress=sys.stderr.isatty())
    text = json.dumps(to_certificate(v), indent=1, ensure_ascii=False)
    if out is not None:
        _write_atomic(out, text + "\n")
    if plot is not None:
        picture = verification_picture(v)
        if picture is not None:
            plot_verification(picture.times, picture.tokens, picture.attention_at_T,
                              picture.lemma.attention_limit, picture.lemma.centers, plot,
                              title=picture.title, levels=picture.lemma.levels)
    click.echo(text)
