"""The JSON Schemas of the formats (instance, audit record, certificate), shipped as
package data in ``certified/schemas`` and checked with ``jsonschema``.

Reading: :func:`check_input` turns the first schema violation into an
:class:`~certified.errors.InputError` naming the JSON path (one line, exit 2 in the CLI).
Writing: :func:`check_output` refuses to emit a document that does not match its own
schema (an internal error, never silently written).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from certified.errors import CertifiedError, InputError
from certified.exact.rationals import JsonNumber

__all__ = ["KINDS", "schema", "check_input", "check_output"]

KINDS = ("instance", "audit", "certificate")


@lru_cache(maxsize=None)
def schema(kind: str) -> dict[str, Any]:
    """The schema of ``kind`` (one of :data:`KINDS`)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    text = resources.files("certified").joinpath("schemas", f"{kind}.schema.json").read_text(
        encoding="utf-8")
    return json.loads(text)


def _plain(obj: Any) -> Any:
    """Exact JSON numbers (kept as text by the exact parser) as Python numbers, for the
    type checks of the schema only (the values used later stay exact)."""
    if isinstance(obj, JsonNumber):
        try:
            return int(obj)
        except ValueError:
            return float(obj)
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_plain(v) for v in obj]
    return obj


def _first_error(obj: Any, kind: str):
    # lazy: startup time (only when a document is validated)
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema(kind)).iter_errors(_plain(obj)),
                    key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    return errors[0] if errors else None


def _where(err: Any, kind: str) -> str:
    parts = [f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path]
    return (kind + "".join(parts)) if parts else kind


def check_input(obj: Any, kind: str) -> None:
    """Raise :class:`InputError` at the first violation of the schema of ``kind``."""
    err = _first_error(obj, kind)
    if err is not None:
        msg = " ".join(err.message.split())
        if len(msg) > 160:
            msg = msg[:157] + "..."
        raise InputError(_where(err, kind), msg, f"a document matching {kind}.schema.json")


def check_output(obj: Any, kind: str) -> None:
    """Raise :class:`CertifiedError` if a document we produced violates its schema."""
    err = _first_error(obj, kind)
    if err is not None:
        raise CertifiedError(f"internal: the {kind} written does not match its schema at "
                             f"{_where(err, kind)}: {' '.join(err.message.split())}")
