"""The one exception hierarchy of ``certified``.

Every error the library raises on purpose derives from :class:`CertifiedError`.
Callers that want to tell "your input is wrong" from "the mathematics could not be
decided within the budget" catch the two subclasses below; the CLI maps
:class:`InputError` to exit status 2 and every other :class:`CertifiedError` to 1.
"""

from __future__ import annotations

__all__ = [
    "CertifiedError",
    "InputError",
    "UndecidedError",
    "ValidationError",
]


class CertifiedError(Exception):
    """Base class of every error raised on purpose by ``certified``."""


class InputError(CertifiedError, ValueError):
    """Bad user input: names the field and says what would be accepted.

    Parameters
    ----------
    field : str
        Where the problem is, e.g. ``"V[1][0]"``, ``"X0"``, ``"time.discrete"``,
        or a command-line option such as ``"--format"``.
    problem : str
        What is wrong with it, in one short clause.
    accepted : str, optional
        What would be accepted instead.

    Notes
    -----
    ``str(err)`` is always a single line, so the CLI can print it as is.
    """

    def __init__(self, field: str, problem: str, accepted: str | None = None) -> None:
        self.field = field
        self.problem = problem
        self.accepted = accepted
        text = f"{field}: {problem}"
        if accepted:
            text += f"; accepted: {accepted}"
        # One line, whatever the caller passed in.
        super().__init__(" ".join(text.split()))


class UndecidedError(CertifiedError):
    """A question could not be decided rigorously within the stated budget.

    Raised, for instance, by ``bool()`` of an undecided three-valued comparison, or
    when an exact fallback would exceed its documented size limit. It is never
    silently turned into ``False``.
    """


class ValidationError(CertifiedError):
    """A rigorous computation could not be validated.

    Parameters
    ----------
    message : str
        What failed.
    t : object, optional
        Time at which it failed (for integrators).
    h : object, optional
        Step size that was attempted.
    box : object, optional
        The set (enclosure) the failing step started from.
    """

    def __init__(self, message: str, *, t: object = None, h: object = None,
                 box: object = None) -> None:
        self.t = t
        self.h = h
        self.box = box
        parts = [message]
        if t is not None:
            parts.append(f"t = {t}")
        if h is not None:
            parts.append(f"h = {h}")
        super().__init__("; ".join(parts))
