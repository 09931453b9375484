"""Claim rules every certificate kind shares: the theorems a verdict may be about, the
verdict of a run that proves nothing, and the timescale (``proofs_notes/checker.md``,
"Every field and the rule that checks it")."""

from __future__ import annotations

from typing import Any

from .errors import CheckFailure
from .lemmas import _q, closed
from .reading import float_text_is

__all__ = ["THEOREMS", "check_timescale", "nothing_claimed"]

#: the theorems a `verify` certificate may be about (its verdict is for one of them)
THEOREMS = ("2.1", "3.1", "4.2", "5.2", "8.5")


def nothing_claimed(obj: dict) -> None:
    """No lemma proves a limit: the verdict is undecided, no limit or evidence."""
    if obj["verdict"] != "undecided":
        raise CheckFailure("verdict", "'undecided' (no lemma proves a limit here)",
                           repr(obj["verdict"]))
    for key in ("limit", "evidence"):
        if obj.get(key):
            raise CheckFailure(key, "null (nothing is proved)", repr(obj[key])[:60])


def check_timescale(ctx: Any, parsed: dict) -> None:
    """The timescale's claims: T_used is the lemma's T, T_first a time in [0, T], the
    floats their values, δ₀ at T_used at least the recomputed δ₀."""
    ts = ctx.obj.get("timescale")
    if ctx.lemma is None or ts is None:
        return
    T = _q(ctx.lemma["T"], "tail_lemma.T")
    allowed = {"T", "T_float", "meaning", "T_first", "T_first_float", "T_used",
               "delta0_at_first", "delta0_at_T_used"}
    closed(ts, allowed, "timescale")
    for key in ("T", "T_used"):
        if key in ts and _q(ts[key], f"timescale.{key}") != T:
            raise CheckFailure(f"timescale.{key}", f"{T} (tail_lemma.T)", repr(ts[key]))
    if "T_first" in ts and not 0 <= _q(ts["T_first"], "timescale.T_first") <= T:
        raise CheckFailure("timescale.T_first", f"a time in [0, {T}]", repr(ts["T_first"]))
    for key in ("T_float", "T_first_float"):
        base = ts.get(key.replace("_float", "") if key != "T_float" else "T",
                      ts.get("T_used"))
        if key in ts:
            want = float(_q(base, f"timescale.{key}"))
            if not float_text_is(ts[key], want):  # by its text: 0.999…9 is not 1.0
                raise CheckFailure(f"timescale.{key}", repr(want),
                                   getattr(ts[key], "text", repr(ts[key]))[:60])
    if "delta0_at_T_used" in ts and "delta0" in parsed and \
            _q(ts["delta0_at_T_used"], "timescale.delta0_at_T_used") < parsed["delta0"]:
        raise CheckFailure("timescale.delta0_at_T_used", f">= {float(parsed['delta0'])!r} "
                           "(δ₀ recomputed at T)", repr(ts["delta0_at_T_used"]))
