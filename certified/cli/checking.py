"""Commands that re-check: ``check`` (a certificate) and ``audit`` (a counterexample record)."""

from __future__ import annotations

import json
import sys

import click

from certified.errors import InputError
from certified.cli.common import (
    PROGRESS,
    _one_line,
    _progress_on,
    _out_path,
    _write_atomic,
)

__all__ = ['check', 'audit']


@click.command()
@click.argument("cert")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=None,
              help="Processes replaying chunks of the steps at once (default: the usable "
              "cores; with --scheduler, the chunks: default one per worker thread of the "
              "cluster). Any chunking gives a proved verdict and, for an invalid "
              "certificate, the same first failure.")
@click.option("--scheduler", default=None,
              help="Replay the chunks on Dask: 'local' (a LocalCluster of --workers "
              "processes) or the address of a running scheduler (tcp://host:port). "
              "Each worker self-tests its arithmetic before its chunk.")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="The counterexample record the certificate must be an audit of: its "
              "claims' statements and readings are compared with this file's (the "
              "checker cannot tell whether a reading formalises a statement; the record "
              "you reviewed can).")
@click.pass_context
@click.option("--format", "fmt", type=click.Choice(["summary", "json"]), default="summary",
              show_default=True, help="One line for people, or the JSON report.")
@PROGRESS
def check(ctx: click.Context, cert: str, workers: int | None, scheduler: str | None,
          record: str | None, fmt: str, progress: bool | None) -> None:
    """Re-verify the certificate CERT independently (``certified.checker``).

    Replays every validated step in the checker's own arithmetic (Python integers,
    mpmath's directed rounding and binary64 balls with every rounding counted; no Arb),
    re-checks the tail lemma and the verdict, and recomputes the digest. Prints one line (or the JSON report with --format json). Exit
    status 0 valid, 1 invalid (the first failure, as "Expected … Got …"), 2 unreadable or
    malformed.
    """
    from certified.checker import ArithmeticUnfit, Malformed, check_file  # lazy: CLI startup
    from certified.checker.errors import NotAnAudit  # lazy: CLI startup
    from certified.studies.parallel import usable_cores  # lazy: CLI startup

    bar = None
    if _progress_on(progress):
        from tqdm import tqdm  # lazy: CLI startup

        bar = tqdm(unit="step", file=sys.stderr, leave=False, desc="replaying steps")
    tick = (lambda k, t: (bar.set_postfix_str(f"t = {float(t):.4g}", refresh=False),
                          bar.update(1))) if bar is not None else None
    try:
        if scheduler is None:
            report = check_file(cert, tick, workers if workers is not None else usable_cores(),
                                record=record)
        else:
            from certified.studies.engine import open_engine, require_dask  # lazy: optional

            require_dask()
            with open_engine(scheduler, workers) as engine:
                if engine.slots == 0:  # the chunks would wait for workers forever
                    raise InputError("--scheduler", f"the cluster at {scheduler} has no "
                                     "workers", "a scheduler with at least one worker")
                report = check_file(cert, tick, workers or engine.slots,
                                    run_chunks=engine.map_unordered, record=record)
    except NotAnAudit as exc:  # the wrong input, not an invalid certificate
        click.echo(f"certified: bad input: --record: {_one_line(str(exc))}", err=True)
        ctx.exit(2)
    except ArithmeticUnfit as exc:  # the machine, not the certificate
        click.echo(f"certified: refusing to check: {_one_line(str(exc))}", err=True)
        ctx.exit(2)
    except Malformed as exc:
        click.echo(f"certified: malformed certificate: {_one_line(str(exc))}", err=True)
        ctx.exit(2)
    finally:
        if bar is not None:
            bar.close()
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=1, ensure_ascii=False))
    else:
        doc = report.to_json()
        # the report's message starts with "valid: " for a valid one: said once, by VALID
        what = report.message.removeprefix("valid: ")
        click.echo(f"{'VALID' if report.valid else 'INVALID'}: {_one_line(what)} "
                   f"({doc.get('steps_checked', 0)} steps re-checked in "
                   f"{doc.get('seconds', 0)} s)")
    if not report.valid:  # the verdict is on stdout, once; the exit status says it too
        ctx.exit(1)


@click.command()
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
    # lazy: CLI startup (and optional dependencies of the command)
    from certified.studies.audit import (
        audit_certificate,
        load_record,
        public,
        run_audit,
    )

    rec = load_record(record)
    if digits is not None:
        rec.digits = digits
        rec.max_digits = max(rec.max_digits, digits)
    res = run_audit(rec)
    if out is not None:
        _write_atomic(out, json.dumps(audit_certificate(rec, res), indent=1,
                                      ensure_ascii=False) + "\n")
    click.echo(json.dumps(public(res), indent=1, ensure_ascii=False))
