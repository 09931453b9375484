"""A validated run's result: :class:`Trajectory` (enclosures at the reported times, every
validated step, and why the run ended: :class:`StopReason`), and the operations on a
finished run that need no integrator: truncation at a step end
(:func:`truncate_trajectory`) and float midpoints for pictures
(:func:`trajectory_midpoints`). The driver (:mod:`certified.enclose.driver`) makes them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from dataclasses import field as dc_field
from fractions import Fraction

import numpy as np

from certified.enclose.arith.base import Backend
from certified.enclose.stepper import StepResult
from certified.errors import InputError
from certified.exact.instance import Discrete, Instance
from certified.exact.rationals import bounds_to_json, fraction_to_str

__all__ = ["StopReason", "Trajectory", "trajectory_midpoints", "truncate_trajectory"]


@dataclass(frozen=True)
class StopReason:
    """Why a run ended where it did.

    Attributes
    ----------
    kind : str
        ``"t_final"`` (reached), ``"predicate"`` (the ``until`` predicate held),
        ``"validation"`` (a step could not be validated: :class:`ValidationError`),
        ``"undecided"`` (a comparison could not be decided: :class:`UndecidedError`),
        ``"wall-clock cap"`` (the outer safety cap, ``max_seconds``), ``"step budget"``
        (``max_steps`` validated steps taken: deterministic).
    t : Fraction
        Time reached (every step before it validated).
    message : str
        The typed error's message (with its t and h), or a short description.
    bits : int
        Working precision of the run.
    error : Exception or None
        The typed error itself, with its ``t``, ``h`` and ``box`` when it has them.
    """

    kind: str
    t: Fraction
    message: str
    bits: int
    error: Exception | None = None

    def __str__(self) -> str:
        if self.kind in ("t_final", "predicate"):
            return f"{self.message} at t = {self.t}"
        return f"stopped at t = {self.t} ({self.bits} bits): {self.kind}: {self.message}"


@dataclass
class Trajectory:
    """Certified enclosures of a trajectory (the spec's ``simulate`` output).

    Attributes
    ----------
    instance : Instance
    variable : str
        ``"z"`` or ``"x"``: the variable of ``tokens``.
    times : list of Fraction
        The reported times (all ≤ ``certified_until``).
    tokens : list of object arrays, shape (n, d)
        ``tokens[k]`` encloses the tokens at ``times[k]``.
    attention : list of object arrays, shape (n, n)
        ``attention[k]`` encloses P at ``times[k]``.
    certified_until : Fraction
        Every step up to this time was validated.
    not_certified : list of Fraction
        Requested times beyond ``certified_until`` (no enclosure reported).
    steps : list of StepResult
        Every validated step, in order (for certificates).
    bits, order : int
        Working precision and Taylor order of the run that produced this.
    backend : Backend
    stop : StopReason or None
        Why the run that produced this ended (and, after escalation, why the driver
        stopped escalating: :attr:`escalation`).
    """

    instance: Instance
    variable: str
    times: list[Fraction]
    tokens: list[np.ndarray]
    attention: list[np.ndarray]
    certified_until: Fraction
    not_certified: list[Fraction]
    steps: list[StepResult]
    bits: int
    order: int
    backend: Backend
    wall_seconds: float = 0.0
    attempts: list[str] = dc_field(default_factory=list)
    stopped_by_predicate: bool = False
    stop: StopReason | None = None
    #: The variable the ODE was integrated in (the steps' sets are in it).
    coordinates: str = "z"
    #: Why the driver did not try more precision (empty when it did not need to).
    escalation: str = ""

    def stop_message(self) -> str:
        """One line: where and why the certified run ended."""
        text = str(self.stop) if self.stop is not None else f"t = {self.certified_until}"
        return text + (f"; {self.escalation}" if self.escalation else "")

    def max_radius(self) -> Fraction:
        """Largest token radius at the last reported time."""
        return self.backend.max_rad(self.tokens[-1]) if self.tokens else Fraction(0)

    def final_box(self) -> np.ndarray | None:
        """Box of the state at ``certified_until`` (integration variable), shape (n, d)."""
        if not self.steps:
            return None
        with self.backend.workprec(self.bits):
            return self.steps[-1].output_set.box(self.backend).reshape(
                self.instance.n, self.instance.d)

    def to_json(self, digits: int) -> dict:
        """The spec's ``simulate`` JSON (enclosures as outward-rounded decimal pairs)."""

        bk = self.backend
        out_digits = max(5, digits)

        def enc(x) -> list[str]:
            lo, hi = bk.bounds(x)
            return bounds_to_json(lo, hi, out_digits)

        out = {
            "variable": self.variable,
            "digits": digits,
            "certified_until": fraction_to_str(self.certified_until),
            "times": [fraction_to_str(t) for t in self.times],
            "tokens": [[[enc(v) for v in row] for row in tok] for tok in self.tokens],
            "attention": [[[enc(v) for v in row] for row in P] for P in self.attention],
            "not_certified_times": [fraction_to_str(t) for t in self.not_certified],
            "stop_reason": self.stop_message(),
            "method": {"backend": bk.name, "bits": self.bits, "taylor_order": self.order,
                       "steps": len(self.steps),
                       "time_mode": "discrete" if isinstance(self.instance.time, Discrete)
                       else "continuous"},
        }
        return out


def truncate_trajectory(traj: Trajectory, t: Fraction) -> Trajectory:
    """The same run ended at the step that ends at ``t`` (a step end of ``traj``): its
    steps, reported times and attempts up to there, stopped "by predicate" at ``t``."""
    keep = [s for s in traj.steps if s.t0 + s.h <= t]
    if (keep[-1].t0 + keep[-1].h if keep else Fraction(0)) != t:
        raise InputError("t", f"{t} is not the end of a step of the run", "a step end")
    at = [k for k, s in enumerate(traj.times) if s <= t]
    return replace(traj, times=[traj.times[k] for k in at],
                   tokens=[traj.tokens[k] for k in at],
                   attention=[traj.attention[k] for k in at], certified_until=t,
                   not_certified=[], steps=keep, stopped_by_predicate=True,
                   stop=StopReason("predicate", t, "the until predicate held", traj.bits),
                   escalation="")


def trajectory_midpoints(traj: Trajectory) -> tuple[list[float], list[np.ndarray],
                                                     list[np.ndarray]]:
    """Float midpoints for pictures only: the tokens after every validated step (in the
    integration variable) and P at the reported times."""
    bk = traj.backend
    n, d = traj.instance.n, traj.instance.d
    ts = [0.0] + [float(s.t0 + s.h) for s in traj.steps]
    first = traj.steps[0].input_set if traj.steps else None
    sets = ([first] if first is not None else []) + [s.output_set for s in traj.steps]
    toks = [bk.float_array(S.c).reshape(n, d) for S in sets] or \
        [bk.float_array(t) for t in traj.tokens]
    if not sets:
        ts = [float(t) for t in traj.times]
    return ts, toks, [bk.float_array(p) for p in traj.attention]
