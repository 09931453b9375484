"""Precision: the one place where decimal digits become bits.

A run's precision is one :class:`Precision` value, built once from the user's
``--digits`` (or ``--bits``) and passed down; no other producer module converts
between digits and bits. (The independent checker keeps its own conversion: it
imports nothing from the producer.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from certified.errors import InputError

__all__ = ["GUARD_BITS", "GUARD_DIGITS", "MAX_DIGITS", "MIN_DIGITS", "Precision",
           "SETUP_BITS", "bits_of_digits", "bits_to_digits", "default_order", "digits_to_bits"]

#: Smallest accepted ``--digits``.
MIN_DIGITS = 5
#: Largest accepted ``--digits``: one Taylor step at 10,000 digits already takes minutes
#: on (2, 2) tokens, and the Taylor order grows with the digits (:func:`default_order`).
MAX_DIGITS = 10_000
#: Guard bits added to the target when digits become working bits.
GUARD_BITS = 16
#: Extra significant digits kept in the boxes handed to the tail lemmas (and stored).
GUARD_DIGITS = 10
#: Working bits of set-up computations that escalate or verify on their own (an
#: isolating interval of λ₁, the choice of a norm on G): their results are checked
#: exactly or rigorously afterwards, so this only affects whether they succeed.
SETUP_BITS = 256


def bits_of_digits(digits: int) -> int:
    """Bits carrying ``digits`` decimal digits: ⌈digits·log₂10⌉ (no guard bits)."""
    return int(math.ceil(digits * math.log2(10)))


def digits_to_bits(digits: int) -> int:
    """Working bits for ``digits`` decimal digits: ⌈digits·log₂10⌉ + :data:`GUARD_BITS`."""
    return bits_of_digits(digits) + GUARD_BITS


def bits_to_digits(bits: int) -> int:
    """Decimal digits carried by ``bits`` bits: ⌈bits·log₁₀2⌉ (rounded up)."""
    return math.ceil(bits * math.log10(2))


def default_order(digits: int) -> int:
    """Taylor order used at ``digits`` digits.

    The Cauchy remainder M (h/ρ)^{K+1} is tiny for h/ρ = 1/2 once K + 1 ≈ 3.3 × digits;
    about 1.5 orders per digit lets h/ρ stay near 1/3, where the step count is set by
    the admissible disk ρ rather than by the order (measured on two tokens to T = 1 at
    30 digits: K = 30, 45, 60 took 621, 310, 155 steps). Higher orders lose more bits in
    the recurrences, hence the K/2 guard bits of :attr:`Precision.start_bits`.
    """
    return max(12, min(120, int(1.5 * digits) + 4))


@dataclass(frozen=True)
class Precision:
    """The precision of one run.

    Attributes
    ----------
    digits : int
        Requested decimal digits (the accuracy reported limits aim at).
    target_bits : int
        Bits of accuracy asked of each step's remainder.
    order : int
        Taylor order of the steps.
    start_bits : int
        Working bits of the first attempt: ``target_bits + order // 2`` (guard bits for
        the ≈ 0.5 bit per order the recurrences lose).
    max_bits : int
        Cap of the driver's escalation (precision doubles while a run falls short).
    """

    digits: int
    target_bits: int
    order: int
    start_bits: int
    max_bits: int

    @classmethod
    def build(cls, digits: int | None = 30, *, bits: int | None = None,
              order: int | None = None, max_bits: int | None = None) -> "Precision":
        """The precision of ``digits`` decimal digits (or of ``bits`` bits, which take
        precedence), validated once: a one-line :class:`InputError` names the field."""
        if bits is not None:
            if not isinstance(bits, int) or bits < 16:
                raise InputError("bits", f"{bits!r} is too small", "an integer >= 16")
            target = bits
            digits = int(bits / math.log2(10))
        else:
            if not isinstance(digits, int) or isinstance(digits, bool):
                raise InputError("digits", f"{digits!r} is not an integer",
                                 f"an integer {MIN_DIGITS}..{MAX_DIGITS}")
            if digits < MIN_DIGITS:
                raise InputError("digits", f"{digits} is too small", f"digits >= {MIN_DIGITS}")
            target = digits_to_bits(digits)
        if digits > MAX_DIGITS:
            raise InputError("digits", f"{digits} is above the supported {MAX_DIGITS} "
                             f"(one Taylor step of order {default_order(digits)} at "
                             f"{digits_to_bits(digits)} bits would take hours)",
                             f"digits <= {MAX_DIGITS}")
        K = order if order is not None else default_order(int(target / math.log2(10)))
        if K < 1:
            raise InputError("order", f"{K} is not positive", "an order >= 1")
        start = target + K // 2
        cap = max_bits if max_bits is not None else 4 * start
        if cap < start:
            raise InputError("max_bits", f"{cap} is below the starting precision {start}",
                             f"max_bits >= {start}")
        return cls(digits, target, K, start, cap)

    @property
    def keep_digits(self) -> int:
        """Significant digits of the boxes a tail lemma checks: digits + GUARD_DIGITS."""
        return self.digits + GUARD_DIGITS

    @property
    def lemma_bits(self) -> int:
        """Working bits for checking a lemma on boxes of :attr:`keep_digits` digits: four
        bits a digit (log₂10 ≈ 3.32, rounded up with room for the lemma's own roundings)."""
        return 4 * self.keep_digits

    def replay_digits(self, bits: int) -> int:
        """Significant digits of a certificate's replay data for a run at ``bits`` bits:
        max(digits, bits in digits) + 5 (room for the checker's own arithmetic)."""
        return max(self.digits, bits_to_digits(bits)) + 5
