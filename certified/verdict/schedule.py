"""The shared machinery of a certify run: its budgets (:class:`Job`), the schedule that
tries a tail lemma on the validated enclosure (:class:`LemmaSchedule`), the integration
under that schedule (:func:`integrate`) and the timescale record of Remark 3.3
(:func:`timescale`). Every budget is in steps, t or bits; the wall-clock cap only makes a
verdict undecided (:func:`capped`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from certified.enclose.driver import Trajectory, enclose_trajectory
from certified.enclose.lohner_set import LohnerSet
from certified.exact.instance import Instance
from certified.logic import Verdict
from certified.precision import Precision

__all__ = ["Job", "LemmaSchedule", "capped", "integrate", "timescale"]


@dataclass(frozen=True)
class Job:
    """The budgets and options one :func:`certify` call passes to its lemma runs."""

    instance: Instance
    precision: Precision
    backend: str
    t_max: Fraction
    max_seconds: float | None
    check_every: Fraction
    progress: bool
    refine_t: Fraction
    step: str
    max_steps: int | None = None


class LemmaSchedule:
    """The ``until`` predicate of a certify run: try a tail lemma every ``check_every``
    on the validated enclosure, remember the first and the latest success, and after the
    first success at T₁ keep integrating (for tighter limits) until ``good_enough`` holds
    or t reaches T₁ + ``refine_t``. Every budget is in t: the outcome does not depend on
    machine load."""

    def __init__(self, try_lemma: Callable[[Fraction, np.ndarray, LohnerSet],
                                           tuple[Any, str]],
                 good_enough: Callable[[Any], bool], check_every: Fraction,
                 first_check: Fraction, refine_t: Fraction) -> None:
        self.try_lemma, self.good_enough = try_lemma, good_enough
        self.check_every, self.first_check = check_every, first_check
        self.refine_t = refine_t
        self.next, self.last_t = first_check, Fraction(-1)
        self.refine_until: Fraction | None = None
        self.first: Any = None
        self.last: Any = None
        self.last_set: LohnerSet | None = None  # the set whose box the lemma used
        self.why = ""

    def __call__(self, t: Fraction, box: np.ndarray, S: LohnerSet) -> bool:
        if t < self.last_t:  # the driver restarted at higher precision
            self.next = self.first_check
        self.last_t = t
        if self.refine_until is not None and t >= self.refine_until:
            return True  # refinement budget (in t) spent: report the last success
        if t < self.next:
            return False
        while self.next <= t:
            self.next += self.check_every
        result, why = self.try_lemma(t, box, S)
        self.why = f"at t = {t}: {why}" if why else ""
        if result is None:
            return False
        if self.first is None:
            self.first = result
            self.refine_until = t + self.refine_t
        self.last, self.last_set = result, S
        return t >= self.refine_until or self.good_enough(result)


def capped(out: Any, job: Job, traj: Trajectory) -> bool:
    """The outer wall-clock cap was reached: the verdict is undecided, whatever the lemma
    proved before (a result must not depend on machine load)."""
    if traj.stop is None or traj.stop.kind != "wall-clock cap":
        return False
    out.verdict = Verdict.UNDECIDED
    out.reason = (f"wall-clock cap: max_seconds = {job.max_seconds} was reached at t = "
                  f"{traj.certified_until} before the deterministic budget (t_max = "
                  f"{job.t_max}, refinement {job.refine_t}) was spent; the enclosures up to "
                  "there are certified")
    return True


def integrate(out: Any, job: Job, until: LemmaSchedule, lemma: str,
               variable: str) -> bool:
    """Integrate (in ``variable``, "z" or "x") under the lemma schedule ``until``; store
    the run and the latest lemma success in ``out``. False (verdict undecided, with the
    reason) if the lemma never held."""
    traj = enclose_trajectory(job.instance, job.t_max, backend=job.backend, variable=variable,
                              coordinates=variable, until=until, max_seconds=job.max_seconds,
                              precision=job.precision, progress=job.progress, times=[0],
                              step=job.step, max_steps=job.max_steps)
    out.trajectory = traj
    out.attempts = list(getattr(traj, "attempts", []))
    if capped(out, job, traj):
        return False
    # A success in a run that was later abandoned for more precision is still proved:
    # its boxes came from validated steps.
    if until.last is None:
        out.verdict = Verdict.UNDECIDED
        out.reason = (f"Lemma {lemma} could not be verified up to t = {traj.certified_until} "
                      f"(certified enclosures up to there; budget: t_max = {job.t_max}"
                      + (f", max_steps = {job.max_steps}" if job.max_steps is not None else "")
                      + f"); last attempt {until.why or 'none'}; "
                      f"integration {traj.stop_message()}")
        return False
    out.tail = until.last
    out.lemma_set = until.last_set
    return True


def timescale(lemma: str, first_T: Fraction, used_T: Fraction, check_every: Fraction,
               refined_while: str, **extra: str) -> dict:
    """Remark 3.3's timescale of a lemma run: the first check time at which the lemma
    held, and the (later, refined) time whose lemma is reported."""
    where = "at the first step end" if lemma != "T10" else "at the first layer"
    return {"T_first": str(first_T), "T_first_float": float(first_T), "T_used": str(used_T),
            **extra,
            "meaning": f"T_first: first check time at which Lemma {lemma}'s hypotheses held "
                       f"(checked {where} at or after every multiple of {check_every}); "
                       "T_used: the time of the lemma "
                       f"reported (integration continued while {refined_while}, within "
                       "the budget)"}
