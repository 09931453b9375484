"""The protocol every tail lemma's result follows.

A lemma result is the conclusion of one lemma of ``proofs_notes/tail.md``, valid for
all t ≥ T. Callers (the verdict, the certificate, the pictures, the audits) use only
this protocol, never attribute probing.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, runtime_checkable

__all__ = ["LemmaPicture", "LemmaResult"]


@dataclass(frozen=True)
class LemmaPicture:
    """What a figure shows of a lemma's conclusion (floats: a picture only).

    Attributes
    ----------
    centers : list of list of (float, float) or None
        Per cluster, the enclosure of its limit in R^d (coordinate intervals).
    attention_limit : list of list of int or None
        The Boolean limit P*, shape (n, n), when the lemma proves one.
    levels : (list of float, list of float) or None
        A functional ψ (length d) and the hyperplane values {ψ = c} it proves.
    """

    centers: list[list[tuple[float, float]]] | None = None
    attention_limit: list[list[int]] | None = None
    levels: tuple[list[float], list[float]] | None = None


@runtime_checkable
class LemmaResult(Protocol):
    """The conclusions of one tail lemma, valid for all t ≥ :attr:`T`."""

    #: The lemma's name in ``proofs_notes/tail.md`` ("T4", "T6", "T7", "T8").
    lemma: str

    @property
    def T(self) -> Fraction:
        """The time of the enclosure whose boxes the lemma checked."""

    def to_json(self, digits: int) -> dict:
        """The lemma's data for a certificate (exact boxes as decimal pairs)."""

    def picture(self) -> LemmaPicture:
        """What a figure shows of the conclusion."""
