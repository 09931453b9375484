"""Helpers shared by the command modules: option parsing, output paths, atomic writes."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from certified.errors import InputError
from certified.exact.rationals import to_fraction
from certified.precision import Precision


def _number(value: str, option: str):

    try:
        return to_fraction(value, option)
    except InputError as exc:
        raise click.BadParameter(exc.problem, param_hint=option) from None


def _out_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Check an output path before any work: its folder must exist and be writable."""

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


def _precision(digits: int | None, bits: int | None, max_bits: int | None = None) -> Precision:
    """The run's one :class:`Precision` from ``--digits``/``--bits`` (validated there)."""
    if digits is not None and bits is not None:
        raise click.UsageError("--digits and --bits are alternatives; give one")
    try:
        return Precision.build(digits if digits is not None else 30, bits=bits,
                               max_bits=max_bits)
    except InputError as exc:
        raise click.BadParameter(exc.problem + (f"; accepted: {exc.accepted}"
                                                if exc.accepted else ""),
                                 param_hint=f"--{exc.field.replace('_', '-')}") from None


def _int_list(value: str, option: str, minimum: int = 1, maximum: int = 4096) -> list[int]:
    try:
        out = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        out = []
    if not out or any(not minimum <= v <= maximum for v in out):
        raise click.BadParameter(f"{value!r} is not a comma-separated list of integers in "
                                 f"[{minimum}, {maximum}]", param_hint=option)
    return out


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _need_matplotlib(option: str) -> None:
    """Fail before any computation when --plot needs matplotlib and it is missing."""
    try:
        import matplotlib  # noqa: F401  # lazy: optional dependency (the plot extra)
    except ImportError:
        raise click.BadParameter("needs matplotlib: pip install 'certified[plot]'",
                                 param_hint=option) from None


def require_dask() -> None:
    """--scheduler needs Dask: say so before any work, with the install command."""
    from certified.studies.engine import require_dask as check  # lazy: CLI startup

    check()


#: ``--progress/--no-progress`` of the long commands (verify, simulate, check)
PROGRESS = click.option(
    "--progress/--no-progress", default=None,
    help="A progress bar on stderr: t, the validated steps and the last tail-lemma attempt "
    "(check: the steps replayed). Default: on when stderr is a terminal.")


def _progress_on(flag: bool | None) -> bool:
    """The ``--progress`` flag, or whether stderr is a terminal when it is not given."""
    return sys.stderr.isatty() if flag is None else flag
