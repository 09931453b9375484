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

from certified.enclose.driver import (Trajectory, continue_trajectory, enclose_trajectory,
                                     truncate_trajectory)
from certified.enclose.lohner_set import LohnerSet
from certified.exact.instance import Discrete, Instance
from certified.logic import Verdict
from certified.precision import Precision

__all__ = ["Job", "LemmaSchedule", "PATIENCE", "TIGHTENING", "capped", "integrate", "refine",
           "timescale"]


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


#: Refinement progress: a success counts as progress when its bound (δ₀, or the widest
#: limit interval) is at most this fraction of the bound at the last progress (one bit).
TIGHTENING = Fraction(1, 2)
#: The refinement ends after this many successes in a row without progress. Past
#: saturation each step is shorter (like e^{-2t}), so a bound that tightens slowly (T7 on
#: a near tie: ≈ 0.3 bit per check) costs ever more per bit; Lemma T4's δ₀ may rise for
#: a check or two (a leader changes) before it falls double-exponentially, hence not 1.
PATIENCE = 3


class LemmaSchedule:
    """The ``until`` predicate of a certify run: try a tail lemma every ``check_every``
    on the validated enclosure, and remember the first and the best success.

    The first success ends the run that found it (:func:`integrate` then decides whether
    to refine). In the refinement (a continuation of that run) the predicate holds at a
    success whose bound ``measure`` is ≤ ``target`` (the limits are as tight as asked),
    or after :data:`PATIENCE` successes in a row that did not bring the bound down to
    :data:`TIGHTENING` times its value at the last progress (the limits stopped
    tightening). The reported success is the one with the smallest bound (the earliest
    among equals). Every decision is on exact numbers at times fixed by the steps, so
    the outcome does not depend on machine load.

    Parameters
    ----------
    try_lemma : callable (t, box, S) -> (result or None, why)
        Tries the lemma on the enclosure at t.
    measure : callable (result) -> Fraction, or None
        The bound that refinement tightens (δ₀, or the widest limit interval); None for a
        lemma whose first success is final (no refinement).
    target : Fraction
        Refinement stops once ``measure`` is ≤ this (10^-digits).
    check_every, first_check : Fraction
        The check times: ``first_check`` and every ``check_every`` after it.
    """

    def __init__(self, try_lemma: Callable[[Fraction, np.ndarray, LohnerSet],
                                           tuple[Any, str]],
                 measure: Callable[[Any], Fraction] | None, target: Fraction,
                 check_every: Fraction, first_check: Fraction) -> None:
        self.try_lemma, self.measure, self.target = try_lemma, measure, target
        self.check_every, self.first_check = check_every, first_check
        self.next, self.last_t = first_check, Fraction(-1)
        self.first: Any = None
        self.first_set: LohnerSet | None = None
        self.first_t: Fraction | None = None
        #: The reported success (the first, or the best of the refinement), its set and t.
        self.last: Any = None
        self.last_set: LohnerSet | None = None
        self.last_t_success: Fraction | None = None
        self.why = ""
        #: Why the refinement's predicate held (set when it does).
        self.ended = ""
        self._anchor: Fraction | None = None  # the bound at the last progress
        self._strikes = 0

    def wants_refinement(self) -> bool:
        """After the first success: is there a bound to tighten, not yet at the target?"""
        return self.measure is not None and self.first is not None and \
            self.measure(self.first) > self.target

    def keep_first(self) -> None:
        """Forget the refinement's successes: the first success is the result."""
        self.last, self.last_set, self.last_t_success = \
            self.first, self.first_set, self.first_t

    def __call__(self, t: Fraction, box: np.ndarray, S: LohnerSet) -> bool:
        if t < self.last_t:  # the driver restarted at higher precision
            self.next = self.first_check
        self.last_t = t
        if t < self.next:
            return False
        while self.next <= t:
            self.next += self.check_every
        result, why = self.try_lemma(t, box, S)
        self.why = f"at t = {t}: {why}" if why else ""
        if result is None:
            return False
        if self.first is None:  # the run that found it ends here
            self.first, self.first_set, self.first_t = result, S, t
            self.keep_first()
            if self.measure is not None:
                self._anchor = self.measure(result)
            return True
        if self.measure is None:
            return True
        now = self.measure(result)
        if now < self.measure(self.last):
            self.last, self.last_set, self.last_t_success = result, S, t
        if now <= self.target:
            self.ended = f"the bound reached 10^-digits at t = {t}"
            return True
        assert self._anchor is not None
        if now <= self._anchor * TIGHTENING:
            self._anchor, self._strikes = now, 0
            return False
        self._strikes += 1
        if self._strikes >= PATIENCE:
            self.ended = (f"the bound stopped tightening: {PATIENCE} successes in a row up "
                          f"to t = {t} did not halve it (best {float(self.measure(self.last)):.3g}"
                          f" at t = {self.last_t_success})")
            return True
        return False


def capped(out: Any, job: Job, traj: Trajectory) -> bool:
    """The outer wall-clock cap was reached: the verdict is undecided, whatever the lemma
    proved before (a result must not depend on machine load)."""
    if traj.stop is None or traj.stop.kind != "wall-clock cap":
        return False
    out.verdict = Verdict.UNDECIDED
    out.reason = (f"wall-clock cap: max_seconds = {job.max_seconds} was reached at t = "
                  f"{traj.certified_until} before the deterministic budget (t_max = "
                  f"{job.t_max}, max_steps = {job.max_steps}) was spent; the enclosures up "
                  "to there are certified")
    return True


def integrate(out: Any, job: Job, until: LemmaSchedule, lemma: str,
              variable: str) -> bool:
    """Integrate (in ``variable``, "z" or "x") until the lemma first holds, then refine;
    store the run and the reported lemma success in ``out``. False (verdict undecided,
    with the reason) if the lemma never held."""
    traj = enclose_trajectory(job.instance, job.t_max, backend=job.backend, variable=variable,
                              coordinates=variable, until=until, max_seconds=job.max_seconds,
                              precision=job.precision, progress=job.progress, times=[0],
                              step=job.step, max_steps=job.max_steps)
    out.trajectory = traj
    out.attempts = list(getattr(traj, "attempts", []))
    if capped(out, job, traj):
        return False
    if until.last is None:
        out.verdict = Verdict.UNDECIDED
        out.reason = (f"Lemma {lemma} could not be verified up to t = {traj.certified_until} "
                      f"(certified enclosures up to there; budget: t_max = {job.t_max}"
                      + (f", max_steps = {job.max_steps}" if job.max_steps is not None else "")
                      + f"); last attempt {until.why or 'none'}; "
                      f"integration {traj.stop_message()}")
        return False
    out.refinement = refine(out, job, until, traj)
    out.tail = until.last
    out.lemma_set = until.last_set
    return True


def refine(out: Any, job: Job, until: LemmaSchedule, traj: Trajectory) -> str:
    """Continue the run that found the first success, for tighter limits; return what
    ended the refinement (one line for people; not part of the certificate).

    Budgets, all deterministic: t ≤ T₁ + ``refine_t`` (and ≤ ``t_max``); in continuous
    time at most as many steps as the first success took (so refining never costs much
    more than the verdict did); ``max_steps`` for both together; the run's own bits (no
    restart). The predicate stops at the target or when the
    bound stops tightening (:class:`LemmaSchedule`). If the outer wall-clock cap is
    reached during the refinement, the first success is reported: its certificate is
    the one ``refine_t = 0`` gives, byte for byte."""
    T1 = traj.certified_until
    if until.measure is None:
        return ""
    if not traj.steps or T1 != until.first_t or traj.steps[-1].output_set is not until.first_set \
            and not isinstance(job.instance.time, Discrete):
        # the run does not end at the first success (cannot happen: the driver returns
        # the run whose predicate held); refining it would continue another run
        return "not possible: the run does not end at the first success"
    if not until.wants_refinement():
        return "none needed: the first success's bound is already ≤ 10^-digits"
    if job.refine_t == 0:
        return "not asked (refine_t = 0)"
    end = min(T1 + job.refine_t, job.t_max)
    if isinstance(job.instance.time, Discrete):  # a layer time
        dt = job.instance.time.dt
        end = dt * int(end / dt)
    if end <= T1:
        return f"no budget left: t_max = {job.t_max} is reached"
    # Continuous time: at most as many steps as the first success took (past saturation
    # steps shrink like e^{-2t}, so t alone does not bound the cost). Discrete time: the
    # layers have a fixed length and cost, so refine_t/Δt already bounds it.
    discrete = isinstance(job.instance.time, Discrete)
    budget: int | None = None if discrete else len(traj.steps)
    if job.max_steps is not None:
        left = job.max_steps - len(traj.steps)
        budget = left if budget is None else min(budget, left)
    if budget is not None and budget <= 0:
        return f"no budget left: max_steps = {job.max_steps} steps are spent"
    more = continue_trajectory(traj, end, precision=job.precision, until=until,
                               max_steps=budget, step=job.step, progress=job.progress)
    stop = more.stop
    if stop is not None and stop.kind == "wall-clock cap":
        until.keep_first()
        return (f"cut by the wall-clock cap (max_seconds = {job.max_seconds}); the verdict "
                f"and certificate are the first success's at T = {T1}, the same as with "
                "refine_t = 0")
    # The certificate ends at the reported (best) success: its steps are those the
    # checker replays, and nothing after them is claimed.
    assert until.last_t_success is not None
    out.trajectory = truncate_trajectory(more, until.last_t_success)
    if until.last_t_success < more.certified_until:
        out.trajectory.attempts = more.attempts + [
            f"reported: the best success at t = {until.last_t_success}; the steps after it "
            "are not in the certificate"]
    out.attempts = list(out.trajectory.attempts)
    best = f"; the best bound is at T = {until.last_t_success}"
    if stop is None or stop.kind == "predicate":
        return until.ended
    if stop.kind == "t_final":
        return f"its budget in t was spent at t = {end} (T_first + refine_t, or t_max){best}"
    if stop.kind == "step budget":
        return (f"its step budget was spent: {budget} steps (as many as the first success "
                f"took, or what max_steps left) to t = {more.certified_until}{best}")
    return (f"a step could not be validated at t = {stop.t} ({stop.kind}); the refinement "
            f"is not retried at more bits{best}")


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
