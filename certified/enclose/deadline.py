"""The outer wall-clock safety cap, checked cooperatively inside long loops.

A verdict never depends on machine load: budgets that shape a result are in steps,
time t or bits. Wall time is only an outer cap. The driver sets a deadline for the
duration of a run (:func:`wall_clock_cap`); the step loop, the Taylor recurrences and
the a-priori iteration call :func:`check` so that even one long step stops soon after
the cap, with :class:`WallClockCap` (a typed error: the run is certified up to the
last validated step, and says why it stopped).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from certified.errors import ValidationError

__all__ = ["StepBudget", "WallClockCap", "check", "wall_clock_cap"]

_DEADLINE: ContextVar[float | None] = ContextVar("certified_deadline", default=None)


class WallClockCap(ValidationError):
    """The outer wall-clock cap (``max_seconds``) was reached: never a verdict by itself."""


class StepBudget(ValidationError):
    """The deterministic step budget (``max_steps`` validated steps) was spent: the run is
    certified up to there; the same budget stops at the same step whatever the load or
    speed of the machine."""


@contextmanager
def wall_clock_cap(max_seconds: float | None) -> Iterator[float | None]:
    """Within the block, :func:`check` raises once ``max_seconds`` have passed (None: no
    cap). Nested caps keep the earlier deadline. Yields the deadline (perf_counter)."""
    outer = _DEADLINE.get()
    deadline = None if max_seconds is None else time.perf_counter() + max_seconds
    if outer is not None and (deadline is None or outer < deadline):
        deadline = outer
    token = _DEADLINE.set(deadline)
    try:
        yield deadline
    finally:
        _DEADLINE.reset(token)


def check(t: object = None) -> None:
    """Raise :class:`WallClockCap` if the current deadline has passed."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.perf_counter() > deadline:
        raise WallClockCap("the wall-clock cap (max_seconds) was reached", t=t)
