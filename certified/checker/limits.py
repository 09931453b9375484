"""Resource limits derived from the certificate's claimed precision, decided before any
arithmetic (``proofs_notes/checker.md``, "Resource limits").

A few bytes of a certificate choose how much work the checker does: the working bits of
the replay, the Taylor order of each step, the pieces of a defect step. Each is bounded
here by what an honest certificate of the stated ``precision.digits`` can need, so that a
forged value is rejected at once instead of costing hours or gigabytes. The bounds are
generous multiples of what the producer uses (it starts at ⌈digits·log₂10⌉ + 16 + order/2
bits, order ≤ 120, and escalates to 4× the start by default); a certificate outside them is
not checked, whatever else it holds. The checker keeps its own digits→bits conversion
(it imports nothing from the producer).
"""

from __future__ import annotations

import math
from typing import Any

from .errors import CheckFailure

__all__ = ["MAX_DIGITS", "MAX_ORDER", "MAX_PIECES", "bits_cap", "check_limits", "own_bits"]

#: The producer's largest ``--digits``.
MAX_DIGITS = 10_000
#: The largest Taylor order of a step (the producer's default order is at most 120).
MAX_ORDER = 256
#: The largest number of pieces of a defect step's circle (the producer uses ≤ 256).
MAX_PIECES = 1024


def own_bits(digits: int) -> int:
    """Bits carrying ``digits`` decimal digits, plus 16 guard bits (the checker's own
    conversion)."""
    return math.ceil(digits * math.log2(10)) + 16


def bits_cap(digits: int) -> int:
    """The most working bits an honest certificate of ``digits`` digits states: 8× the
    producer's largest start (own bits + half the largest order), twice its default
    escalation cap."""
    return 8 * (own_bits(digits) + MAX_ORDER // 2)


def _int(x: Any, where: str, lo: int, hi: int, why: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):  # 3.0 is not an integer here
        raise CheckFailure(where, f"an integer in [{lo}, {hi}] ({why})", repr(x)[:60])
    if not lo <= x <= hi:
        raise CheckFailure(where, f"an integer in [{lo}, {hi}] ({why})", repr(x)[:60])
    return x


def check_limits(obj: dict) -> None:
    """Reject, before any work, a certificate whose sizes no honest one of its stated
    precision has: ``precision.digits``, ``precision.bits``, ``integration.bits`` and
    ``order``, and every replay record's ``order`` and ``pieces``."""
    prec = obj.get("precision")
    if not isinstance(prec, dict) or not {"digits", "bits"} & set(prec):
        raise CheckFailure("precision", "digits (and/or bits: an audit's exact lemmas)",
                           repr(prec)[:60])
    integ = obj.get("integration")
    if isinstance(integ, dict) and "digits" not in prec:  # what bounds the replay's work
        raise CheckFailure("precision.digits", f"an integer in [1, {MAX_DIGITS}] (the "
                           "precision the integration was run at)", "missing")
    # an audit solved exactly states its bits only: bounded as the largest digits' bits
    digits = _int(prec["digits"], "precision.digits", 1, MAX_DIGITS, "the producer's range") \
        if "digits" in prec else MAX_DIGITS
    cap = bits_cap(digits)
    why = f"at most 8x the producer's starting bits for {digits} digits"
    if "bits" in prec:
        _int(prec["bits"], "precision.bits", 2, cap, why)
    if not isinstance(integ, dict):
        return
    if "bits" in integ:
        _int(integ["bits"], "integration.bits", 2, cap, why)
    if "order" in integ:
        _int(integ["order"], "integration.order", 1, MAX_ORDER, "the largest Taylor order")
    replay = integ.get("replay")
    records = replay.get("records") if isinstance(replay, dict) else None
    for k, rec in enumerate(records if isinstance(records, list) else []):
        if not isinstance(rec, dict):
            continue  # the schema's bulk check names it
        at = f"integration.replay.records[{k}]"
        if "pieces" in rec:  # (each record's order: the schema's bulk check, <= MAX_ORDER)
            _int(rec["pieces"], f"{at}.pieces", 1, MAX_PIECES, "the most pieces of a circle")
