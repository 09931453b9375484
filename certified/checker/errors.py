"""The checker's one exception: the first failed check, as "Expected … Got …"."""

from __future__ import annotations

from ..errors import CertifiedError

__all__ = ["CheckFailure", "Malformed", "NotAnAudit"]


class CheckFailure(CertifiedError):
    """A check failed: the certificate is invalid (exit status 1).

    ``final`` says that no finer arithmetic can change the outcome (a stored box disjoint
    from the checker's enclosure of the true value): a retry at more bits is skipped."""

    def __init__(self, where: str, expected: str, got: str, final: bool = False) -> None:
        self.where, self.expected, self.got, self.final = where, expected, got, final
        super().__init__(f"{where}: Expected {expected}. Got {got}.")


class Malformed(CertifiedError):
    """The certificate cannot be read: not JSON, wrong format, schema violation (exit 2)."""


class NotAnAudit(Malformed):
    """A record was given to compare, but the certificate is not an audit: the wrong
    input, not an invalid certificate (exit status 2)."""
