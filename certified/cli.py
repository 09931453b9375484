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


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit status (used by the console script)."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="certified",
                 standalone_mode=False)
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
