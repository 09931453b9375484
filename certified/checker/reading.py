"""Reading a certificate before any mathematics: its digest, its schema, the size of
its numbers, its bulk (steps and replay records) and its matrices.

Part of the trusted core (``proofs_notes/checker.md``): a certificate that is not
well-formed is :class:`~certified.checker.errors.Malformed` (exit 2) before anything is
computed from it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
from contextlib import contextmanager
from fractions import Fraction
from importlib import resources
from typing import Any, Iterator

from .errors import CheckFailure, Malformed
from .limits import MAX_ORDER

__all__ = ['BOOLEAN_KEYS', 'types_check', 'exact_number', 'JsonFloat', 'MAX_DEPTH', 'MAX_FILE_BYTES', 'float_text_is', 'loads_exact', 'MAX_EXPONENT', 'MAX_STR_DIGITS', '_EXPONENT', '_RECORD_KEYS', '_bulk_check', '_long_numbers', '_matrix', '_number_sizes_check', '_scalar', '_schema_check', '_split_bulk', '_strings', '_too_large', 'digest']


def digest(obj: dict) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces, ASCII) without ``digest``."""
    body = {k: v for k, v in obj.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _schema_check(obj: Any) -> None:
    import jsonschema  # lazy: startup time (only when a certificate is validated)

    if not isinstance(obj, dict) or obj.get("format") != "certified/certificate":
        raise Malformed("not a certificate: 'format' must be \"certified/certificate\"")
    if obj.get("version") != 1:
        raise Malformed(f"certificate version {obj.get('version')!r} is not supported (1)")
    # The schema's bulk (the steps and replay records, 10⁵ nodes) is checked by the same
    # rules written out in _bulk_check: jsonschema takes seconds on it.
    shallow, bulk = _split_bulk(obj)
    # what jsonschema.validate raises, without re-checking the schema itself on every call
    # (0.17 s a certificate)
    exc = jsonschema.exceptions.best_match(_validator().iter_errors(shallow))
    if exc is not None:
        path = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise Malformed(f"schema: at {path}: {exc.message}")
    _bulk_check(*bulk)


@functools.cache
def _validator() -> Any:
    """The certificate schema's validator, its draft taken from the schema's $schema and
    the schema checked against that draft once."""
    import jsonschema  # lazy: startup time (only when a certificate is validated)

    schema = json.loads(resources.files("certified").joinpath(
        "schemas/certificate.schema.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _split_bulk(obj: dict) -> tuple[dict, tuple]:
    integ = obj.get("integration")
    if not isinstance(integ, dict):
        return obj, ([], [])
    steps, replay = integ.get("steps"), integ.get("replay")
    records = replay.get("records") if isinstance(replay, dict) else None
    if not isinstance(steps, list) or not isinstance(records, list):
        return obj, ([], [])
    integ2 = dict(integ, steps=[], replay=dict(replay, records=[]))
    return dict(obj, integration=integ2), (steps, records)


def _strings(x: Any, where: str, length: int | None = None) -> None:
    if not isinstance(x, list) or not all(isinstance(v, str) for v in x) or \
            (length is not None and len(x) != length):
        raise Malformed(f"schema: at {where}: expected an array of "
                        f"{length if length is not None else 'any number of'} strings")


_RECORD_KEYS = {"order", "rho", "velocity", "apriori", "set"}
#: A defect step's record (Lemma I10, checker Lemma C20).
_DEFECT_KEYS = {"method", "order", "rho", "pieces", "R", "guard_bits", "set"}


def _int_field(rec: dict, key: str, at: str, lo: int, hi: int) -> None:
    v = rec[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise Malformed(f"schema: at {at}/{key}: {v!r} is not of type 'integer'")
    if not lo <= v <= hi:
        raise Malformed(f"schema: at {at}/{key}: {v} is " + (
            f"greater than the maximum of {hi}" if v > hi else f"less than the minimum of {lo}"))


def _bulk_check(steps: list, records: list) -> None:
    """The schema's rules for integration/steps and integration/replay/records."""
    for k, st in enumerate(steps):
        _strings(st, f"integration/steps/{k}", 2)
    for k, rec in enumerate(records):
        at = f"integration/replay/records/{k}"
        if isinstance(rec, dict) and "method" in rec:
            if set(rec) != _DEFECT_KEYS or rec["method"] != "defect":
                raise Malformed(f"schema: at {at}: expected a defect step's fields method "
                                "('defect'), order, rho, pieces, R, guard_bits, set, no others")
            _int_field(rec, "pieces", at, 1, 4096)
            _int_field(rec, "guard_bits", at, 0, 4096)
            if not isinstance(rec["R"], str):
                raise Malformed(f"schema: at {at}/R: expected a string")
        elif not isinstance(rec, dict) or not {"order", "rho", "apriori", "set"} <= set(rec) \
                or not set(rec) <= _RECORD_KEYS:
            raise Malformed(f"schema: at {at}: expected the fields order, rho, apriori, set "
                            "(and velocity), no others")
        order = rec["order"]
        if isinstance(order, bool) or not isinstance(order, int):
            raise Malformed(f"schema: at {at}/order: {order!r} is not of type 'integer'")
        if not 1 <= order <= MAX_ORDER:
            raise Malformed(f"schema: at {at}/order: {order} is " + (
                f"greater than the maximum of {MAX_ORDER}" if order > 1 else
                "less than the minimum of 1"))
        if not isinstance(rec["rho"], str):
            raise Malformed(f"schema: at {at}/rho: expected a string")
        if "velocity" in rec:
            _strings(rec["velocity"], f"{at}/velocity")
        if "apriori" in rec and not isinstance(rec["apriori"], list):
            raise Malformed(f"schema: at {at}/apriori: expected an array")
        for i, a in enumerate(rec.get("apriori", [])):
            _strings(a, f"{at}/apriori/{i}", 4)
        st = rec["set"]
        if not isinstance(st, dict) or set(st) != {"c", "A", "r"}:
            raise Malformed(f"schema: at {at}/set: expected exactly the fields c, A, r")
        _strings(st["c"], f"{at}/set/c")
        if not isinstance(st["A"], list) or not isinstance(st["r"], list):
            raise Malformed(f"schema: at {at}/set: expected arrays A and r")
        for i, row in enumerate(st["A"]):
            _strings(row, f"{at}/set/A/{i}")
        for i, pair in enumerate(st["r"]):
            _strings(pair, f"{at}/set/r/{i}", 2)


#: Largest decimal exponent accepted in an exact-number string. Fraction("1e999999999")
#: would build a 3-gigabit integer: one such string must not hang the checker.
MAX_EXPONENT = 100_000
# A whole string in the decimal-with-exponent form Fraction() accepts (not a hex digest or a
# name that merely ends in "e" and digits).
_EXPONENT = re.compile(r"\s*[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)[eE]([+-]?\d[\d_]*)\s*")


_SIX_DIGIT_EXPONENT = re.compile(r"[eE][+-]?[\d_]{6}")
assert MAX_EXPONENT >= 99_999  # the fast path of _number_sizes_check relies on it


def _too_large(x: str) -> bool:
    if "e" not in x and "E" not in x:
        return False
    m = _EXPONENT.fullmatch(x)
    digits = m.group(1).lstrip("+-").replace("_", "") if m else ""
    return len(digits) > 6 or bool(digits and int(digits) > MAX_EXPONENT)


def _number_sizes_check(obj: Any, where: str = "") -> None:
    """Malformed if any string carries a decimal exponent beyond ±MAX_EXPONENT (walked
    before anything is parsed; strings without 'e'/'E' cost one test each; the path of an
    offending string is found by a second walk)."""
    # Fast path: an offending string has an exponent of at least 6 digits or underscores
    # (5 digits are at most 99,999 < MAX_EXPONENT), so a document in which no 'e'/'E' is
    # followed by 6 of them has none; JSON escapes leave such runs unchanged.
    try:
        text = json.dumps(obj, ensure_ascii=False, check_circular=False)
    except (TypeError, ValueError):
        text = None
    if text is not None and not _SIX_DIGIT_EXPONENT.search(text):
        return
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if _too_large(x):
                break
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    else:
        return
    paths = [(obj, where)]
    while paths:
        x, at = paths.pop()
        if isinstance(x, str):
            if _too_large(x):
                raise Malformed(f"{at or '(top level)'}: the number {x[:40]!r} has a "
                                f"decimal exponent beyond ±{MAX_EXPONENT}")
        elif isinstance(x, dict):
            paths.extend((v, f"{at}.{k}" if at else str(k)) for k, v in x.items())
        elif isinstance(x, list):
            paths.extend((v, f"{at}[{i}]") for i, v in enumerate(x))


def exact_number(x: Any, where: str) -> Fraction:
    """The exact rational a stored number denotes: a string or an integer as written, a
    JSON number literal by its text (:class:`JsonFloat`; a float from another reader by
    its repr, the text ``json`` writes). Never a bool, a list or an object."""
    if isinstance(x, bool) or not isinstance(x, (str, int, float)):
        raise CheckFailure(where, "an exact number", repr(x)[:60])
    text = x.text if isinstance(x, JsonFloat) else x if isinstance(x, str) else repr(x)
    try:
        return Fraction(text.strip() if isinstance(text, str) else text)
    except (ValueError, ZeroDivisionError, OverflowError) as exc:
        raise CheckFailure(where, "an exact number", repr(x)[:60]) from exc


#: The largest certificate file the checker reads, checked before parsing: a JSON parse
#: holds about 4.5 bytes per byte of text in memory, so this keeps a rejected file within
#: ≈ 300 MB (an honest certificate with defect steps is ≈ 0.5 MB for 20 tokens).
MAX_FILE_BYTES = 64 * 2 ** 20
#: The deepest nesting of arrays and objects a certificate has (the tail lemma's boxes:
#: 6 levels under the top), with room; deeper is not a certificate.
MAX_DEPTH = 24


class JsonFloat(float):
    """A JSON number literal with a fraction or an exponent, read from its text.

    It is the float Python's ``json`` would give (so the digest, whose canonical JSON
    writes Python's repr of a float, is the producer's), and it keeps its ``text``: a
    literal such as ``0.99999999999999999999`` is not the float 1.0 it rounds to, and
    every comparison of a stored float is with its text (:func:`float_text_is`)."""

    text: str


def _float(text: str) -> JsonFloat:
    if _too_large(text):  # the rule for exponents in strings, for literals too
        raise Malformed(f"the number {text[:40]!r} has a decimal exponent beyond "
                        f"±{MAX_EXPONENT}")
    x = JsonFloat(text)
    x.text = text
    return x


def _constant(name: str) -> Any:
    raise Malformed(f"the JSON value {name} is not a number of the format")


def _object(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:  # json keeps the last, another reader the first: two certificates
            raise Malformed(f"duplicate key {k!r} in one JSON object")
        out[k] = v
    return out


#: The only fields a certificate writes as JSON booleans (every other true/false is not a
#: value of the format: `1` is not `true`, and `true` is not 1).
BOOLEAN_KEYS = frozenset({"hypotheses_hold", "is_hull_vertex", "is_zero", "attention_boolean",
                          "theorem_5_2_conclusion"})


def types_check(obj: Any) -> None:
    """Every JSON float is in a field named ``*_float`` (an informational float of an exact
    value stored beside it) or ``wall_seconds``, and every boolean in one of
    :data:`BOOLEAN_KEYS`: counts, indices and exact numbers are integers or strings, so
    ``3.0`` for 3 or ``true`` for 1 is rejected wherever it stands, naming the field."""
    stack: list[tuple[Any, str, str]] = [(obj, "", "")]
    while stack:
        x, key, at = stack.pop()
        if isinstance(x, bool):
            if key not in BOOLEAN_KEYS:
                raise CheckFailure(at or "(top level)", "an integer or an exact number (a "
                                   "string): true/false only in " + ", ".join(sorted(BOOLEAN_KEYS)),
                                   repr(x))
        elif isinstance(x, float):
            if not (key.endswith("_float") or key == "wall_seconds"):
                raise CheckFailure(at or "(top level)", "an integer or an exact number "
                                   "written as a string (floats only in *_float fields)",
                                   getattr(x, "text", repr(x))[:60])
        elif isinstance(x, dict):
            stack.extend((v, str(k), f"{at}.{k}" if at else str(k)) for k, v in x.items())
        elif isinstance(x, list):
            stack.extend((v, key, f"{at}[{i}]") for i, v in enumerate(x))


def float_text_is(stored: Any, want: float) -> bool:
    """``stored`` is the float ``want`` written as Python writes it (``repr``): a
    :class:`JsonFloat` by its text, a float from another reader by its value."""
    if isinstance(stored, bool) or not isinstance(stored, (int, float)):
        return False
    if isinstance(stored, JsonFloat):
        return stored.text == repr(want)
    return type(stored) is float and stored == want


def loads_exact(text: str | bytes) -> Any:
    """Parse a certificate's JSON text strictly: a duplicate key, NaN or Infinity, a
    nesting deeper than :data:`MAX_DEPTH` or a text longer than :data:`MAX_FILE_BYTES`
    is :class:`Malformed`; a number with a fraction or exponent is a :class:`JsonFloat`
    (its text kept)."""
    if len(text) > MAX_FILE_BYTES:
        raise Malformed(f"the certificate is {len(text)} bytes, over the checker's limit of "
                        f"{MAX_FILE_BYTES} bytes")
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        obj = json.loads(text, object_pairs_hook=_object, parse_float=_float,
                         parse_constant=_constant)
    except RecursionError:
        raise Malformed(f"the JSON nesting is deeper than {MAX_DEPTH}") from None
    _depth_check(obj)
    return obj


def _depth_check(obj: Any) -> None:
    stack = [(obj, 0)]
    while stack:
        x, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Malformed(f"the JSON nesting is deeper than {MAX_DEPTH}")
        if isinstance(x, dict):
            stack.extend((v, depth + 1) for v in x.values())
        elif isinstance(x, list):
            stack.extend((v, depth + 1) for v in x if isinstance(v, (list, dict)))


def _matrix(inst: dict, key: str) -> list[list[Fraction]]:
    try:
        return [[exact_number(x, f"instance.{key}") for x in row] for row in inst[key]]
    except CheckFailure:
        raise
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise CheckFailure(f"instance.{key}", "a matrix of exact numbers", "something else") from exc


def _scalar(V: list[list[Fraction]]) -> Fraction | None:
    d = len(V)
    lam = V[0][0]
    ok = all(V[i][j] == (lam if i == j else 0) for i in range(d) for j in range(d))
    return lam if ok else None


#: Python (≥ 3.11) refuses int ↔ str conversions beyond 4300 digits by default; exact
#: numbers of a certificate at up to 10⁶ bits have up to ≈ 301,030 digits.
MAX_STR_DIGITS = 400_000


@contextmanager
def _long_numbers() -> Iterator[None]:
    """Allow integers of up to MAX_STR_DIGITS digits while a certificate is read and
    checked (forked workers inherit it), and restore the interpreter's limit after."""
    get = getattr(sys, "get_int_max_str_digits", None)
    old = get() if get is not None else 0
    if old:
        sys.set_int_max_str_digits(max(old, MAX_STR_DIGITS))
    try:
        yield
    finally:
        if old:
            sys.set_int_max_str_digits(old)
