"""The ``certified`` command (thin: each command parses, calls one library function,
and prints).

Exit status: 0 success; 2 bad input or usage, with one line on stderr naming the field
or option and what is accepted, no traceback, nothing written; 1 an internal failure
or an undecidable computation, with a one-line message.

One module per command group: :mod:`~certified.cli.instances` (classify, simulate,
verify), :mod:`~certified.cli.checking` (check, audit), :mod:`~certified.cli.sweeps`
(explore, ginibre), :mod:`~certified.cli.practice` (weights, forward, variants).
"""

from __future__ import annotations

import sys
from typing import Sequence

import click

from certified import __version__
from certified.cli import checking, instances, practice, sweeps
from certified.cli.common import _one_line
from certified.errors import CertifiedError, InputError

__all__ = ["cli", "entry_point", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="certified")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """certified: machine-checked clustering theorems for self-attention dynamics."""
    # The producer's binary64 kernels (Lemma I12) assume what the checker's do (Lemma
    # C13): the same self-test, before any command computes (exit 2, one line).
    from certified.checker.selftest import failures  # lazy: CLI startup

    bad = failures()
    if bad:
        click.echo("certified: arithmetic self-test failed: " + ", ".join(bad), err=True)
        ctx.exit(2)


for _module in (instances, checking, sweeps, practice):
    for _name in _module.__all__:
        cli.add_command(getattr(_module, _name))


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
