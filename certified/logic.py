"""Three-valued truth for rigorous comparisons, and the three verdicts.

A comparison of enclosures has three outcomes: proved true, proved false, or not
decided at the precision used. :class:`Truth` models that. ``bool(Truth.UNDECIDED)``
raises :class:`~certified.errors.UndecidedError`: an undecided comparison must never
read as ``False`` (the lesson of mpmath's old interval comparisons returning ``None``).
"""

from __future__ import annotations

import enum

from certified.errors import UndecidedError

__all__ = ["Truth", "Verdict", "truth_to_json"]


class Truth(enum.Enum):
    """The outcome of a rigorous predicate: ``TRUE``, ``FALSE`` or ``UNDECIDED``."""

    TRUE = "true"
    FALSE = "false"
    UNDECIDED = "undecided"

    def __bool__(self) -> bool:
        if self is Truth.UNDECIDED:
            raise UndecidedError("an undecided comparison has no truth value; "
                                 "test `is Truth.TRUE` or raise the precision")
        return self is Truth.TRUE

    @classmethod
    def of(cls, value: bool) -> "Truth":
        """The decided truth value of a plain (exactly computed) boolean."""
        return cls.TRUE if value else cls.FALSE

    def __and__(self, other: "Truth") -> "Truth":
        if Truth.FALSE in (self, other):
            return Truth.FALSE
        if Truth.UNDECIDED in (self, other):
            return Truth.UNDECIDED
        return Truth.TRUE

    def __invert__(self) -> "Truth":
        return {Truth.TRUE: Truth.FALSE, Truth.FALSE: Truth.TRUE}.get(self, Truth.UNDECIDED)


def truth_to_json(value: Truth) -> bool | str:
    """The JSON form of a three-valued fact in a certificate's limit data: ``true``,
    ``false`` or the string ``"undecided"`` (test it with ``is True``/``== "undecided"``,
    never by truthiness)."""
    return {Truth.TRUE: True, Truth.FALSE: False}.get(value, "undecided")


class Verdict(str, enum.Enum):
    """The verdict on a theorem's limit statement for one instance.

    ``CERTIFIED``: proved for this instance; ``REFUTED``: proved false for it;
    ``UNDECIDED``: neither within the budget. A ``str`` enum, so JSON writes the plain
    value (``"certified"``); ``bool()`` raises, since no verdict is true or false.
    """

    CERTIFIED = "certified"
    REFUTED = "refuted"
    UNDECIDED = "undecided"

    def __str__(self) -> str:
        return self.value

    def __bool__(self) -> bool:
        raise TypeError("a Verdict has no truth value; compare it with Verdict.CERTIFIED")
