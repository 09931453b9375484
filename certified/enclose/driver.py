"""The driver: integrate with validated steps, report enclosures at requested times.

:func:`enclose_trajectory` integrates an instance (continuous time: the rescaled ODE in
z, Taylor steps; discrete time: the layer map in x) and returns a
:class:`Trajectory`: enclosures of the tokens (in x or z) and of P at the requested
times, and ``certified_until``, the time up to which every step was validated.
Requested times beyond ``certified_until`` are listed as not certified and have no
enclosure. :func:`continue_trajectory` extends a finished run from its last set. If a step cannot be validated the driver shortens it; below the minimum
step, or when radii blow up, it restarts at twice the precision, up to ``max_bits``;
it never keeps an unvalidated step.
"""

from __future__ import annotations

import sys
import time as _time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Iterable

import numpy as np
from tqdm import tqdm

from certified.enclose.arith import get_backend
from certified.enclose.arith.base import Backend
from certified.enclose.budget import check_instance_fits
from certified.enclose.deadline import StepBudget, WallClockCap, wall_clock_cap
from certified.enclose.deadline import check as check_deadline
from certified.enclose.defect_step import DefectRejected, DefectStepper
from certified.enclose.field import AttentionField
from certified.enclose.lohner_set import LohnerSet
from certified.enclose.stepper import StepRejected, StepResult, map_step, taylor_step
from certified.enclose.trajectory import (StopReason, Trajectory, trajectory_midpoints,
                                          truncate_trajectory)
from certified.enclose.variant_field import variant_field
from certified.errors import InputError, UndecidedError, ValidationError
from certified.exact.instance import Discrete, Instance
from certified.exact.linalg import from_fmpq_mat, to_fmpq_mat
from certified.exact.rationals import to_fraction
from certified.exact.variant_spec import Pieces, certifiable
from certified.precision import Precision

__all__ = ["StopReason", "Trajectory", "check_max_steps", "continue_trajectory",
           "enclose_trajectory", "truncate_trajectory",
           "trajectory_midpoints"]

#: Radii above this (absolute, in z) count as a blow-up and trigger more precision.
BLOWUP_RADIUS = Fraction(1, 10 ** 3)


def _progress(total: float, enabled: bool):
    if not enabled:
        return None
    return tqdm(total=float(total), file=sys.stderr, unit="t", leave=False,
                bar_format="{l_bar}{bar}| t={n:.3g}/{total:.3g} [{elapsed}{postfix}]")


def _show(bar: Any, advance: float, steps: int, until: Any) -> None:
    """Advance the bar; show the steps and the last tail-lemma attempt (a schedule's
    ``why``: where it was tried and why it did not hold yet)."""
    why = getattr(until, "why", "") or ""
    bar.set_postfix_str(f"{steps} steps" + (f"; lemma {why[:70]}" if why else ""),
                        refresh=False)
    bar.update(advance)


def _linear_change(bk: Backend, field: AttentionField, S: LohnerSet, t: Fraction) -> np.ndarray:
    """Box of e^{tV} y (token-wise) for every y in the set (rigorous matrix exponential):
    x = e^{tV} z, and z = e^{-tV} x with t negated."""
    n, d = field.n, field.d
    E = bk.expm(field.V * bk.const(t))
    M = np.kron(bk.identity(n), E)  # acts token-wise on the flattened state
    return S.linear_image(M, bk).reshape(n, d)


def _initial_set(inst: Instance, bk: Backend, box: "np.ndarray | LohnerSet | None"
                 ) -> LohnerSet:
    if isinstance(box, LohnerSet):  # continuing from a previous run's set
        return box
    if box is None:
        return LohnerSet.from_exact([x for row in inst.X0 for x in row], bk)
    return LohnerSet.from_box(box.reshape(-1), bk)


@dataclass(frozen=True)
class _Run:
    """What every attempt (every precision) of one :func:`enclose_trajectory` call shares."""

    inst: Instance
    report: list[Fraction]
    bk: Backend
    variable: str
    coordinates: str
    h_max: Fraction
    progress: bool
    #: The validated step of continuous runs: "picard" (Lemma I6) or "defect" (Lemma I10,
    #: with I6 as the fallback on every step where it fails).
    step: str
    until: Callable[[Fraction, np.ndarray, LohnerSet], bool] | None
    #: Deterministic budget: at most this many validated steps per attempt (None: none).
    max_steps: int | None = None


def _stop(exc: Exception, t: Fraction, bits: int) -> StopReason:
    kind = "wall-clock cap" if isinstance(exc, WallClockCap) else \
        "step budget" if isinstance(exc, StepBudget) else \
        "validation" if isinstance(exc, ValidationError) else "undecided"
    return StopReason(kind, t, str(exc), bits, exc)


def _run_continuous(run: _Run, t_final: Fraction, bits: int, order: int, target_bits: int,
                    *, report: list[Fraction] | None = None,
                    initial_box: "np.ndarray | LohnerSet | None" = None,
                    until: Callable[[Fraction, np.ndarray, LohnerSet], bool] | None = None,
                    field_factory: Callable[[Backend], Any] | None = None,
                    t_start: Fraction = Fraction(0)) -> Trajectory:
    """One attempt at ``bits`` bits on [t_start, t_final] (``initial_box`` at ``t_start``);
    the trajectory carries its stop."""
    inst, bk, h_max, progress = run.inst, run.bk, run.h_max, run.progress
    variable = "x" if field_factory is not None else run.variable
    coordinates = "x" if field_factory is not None else run.coordinates
    report = run.report if report is None else report
    with bk.workprec(bits):
        # A variant's field (certified.exact.variant_spec) follows the same stepper protocol.
        field = field_factory(bk) if field_factory is not None else \
            AttentionField(inst, bk, coordinates)
        n, d = inst.n, inst.d
        S = _initial_set(inst, bk, initial_box)
        t = t_start
        steps: list[StepResult] = []
        times, tokens, attn = [], [], []
        pending = sorted(set(report))
        # Remainder tolerance from the target accuracy, not from the working bits: the
        # extra bits are guard bits for the ~0.5 bit/order lost by the Taylor recurrences.
        tol = Fraction(1, 2 ** target_bits)
        bar = _progress(t_final, progress)

        def record(t_now: Fraction, Sset: LohnerSet) -> None:
            # Compute everything first: a failure must not leave a half-written report.
            Y = Sset.box(bk).reshape(n, d)
            if variable == coordinates:
                tok = Y
            else:  # x = e^{tV} z, or z = e^{-tV} x, applied to the set
                tok = _linear_change(bk, field, Sset, t_now if variable == "x" else -t_now)
            P = field.attention(Y, t_now, clip=True)
            times.append(t_now)
            tokens.append(tok)
            attn.append(P)

        stopped_by_predicate = False
        stop: StopReason | None = None
        # Lemma I10 first where asked for (not for the variants' fields), I6 as fallback.
        defect = DefectStepper() if run.step == "defect" and field_factory is None else None
        try:
            while pending and pending[0] == 0:
                record(Fraction(0), S)
                pending.pop(0)
            rho, streak = Fraction(1, 2), 0
            # Steps between tries of a doubled disk: doubled after a try that failed (a
            # failed Picard test costs an F evaluation on the complex set), reset after
            # one that held. A heuristic: any ρ that passes gives a valid step.
            patience, probing = 4, False
            rho_min = Fraction(1, 2 ** 30) * max(t_final, Fraction(1))
            while t < t_final:
                check_deadline(t)
                _spend(run, len(steps), t)
                target = pending[0] if pending else t_final
                scale = 1 + max(abs(bk.bounds(v)[1]) for v in S.c)
                res = None
                if defect is not None:
                    try:
                        res = defect(field, S, t, min(target - t, h_max), order, tol * scale)
                    except (DefectRejected, UndecidedError, ArithmeticError, ValueError):
                        # a typed rejection, or a float heuristic out of range (entries of
                        # 10⁴⁰⁰): the step of Lemma I6 takes over
                        res = None
                while res is None:
                    try:
                        res = taylor_step(field, S, t, min(target - t, h_max), order, rho,
                                          tol * scale)
                    except StepRejected:
                        rho, streak = rho / 2, 0
                        if probing:
                            patience, probing = min(2 * patience, 64), False
                        if rho < rho_min:
                            raise
                if probing:
                    patience, probing = 4, False
                h = res.h
                S = res.output_set
                steps.append(res)
                if bar is not None:
                    _show(bar, float(h), len(steps), run.until)
                t = t + h
                if S.max_radius(bk) > BLOWUP_RADIUS:
                    raise ValidationError("enclosure radius blew up", t=t, h=h)
                if pending and t == pending[0]:
                    record(t, S)
                    pending.pop(0)
                if until is not None and until(t, S.box(bk).reshape(n, d), S):
                    if not times or times[-1] != t:
                        record(t, S)
                    stopped_by_predicate = True
                    break
                streak += 1
                if streak >= patience:  # try a larger disk after a run of successes
                    rho, streak, probing = min(rho * 2, Fraction(2)), 0, rho < 2
        except (ValidationError, UndecidedError) as exc:
            # Certified up to the last validated t; the reason is kept, and the caller
            # may escalate the precision.
            stop = _stop(exc, t, bits)
        finally:
            if bar is not None:
                bar.close()
        if stop is None:
            stop = StopReason("predicate", t, "the until predicate held", bits) \
                if stopped_by_predicate else StopReason("t_final", t, "reached t_final", bits)
        not_cert = [s for s in sorted(set(report)) if s > t or s not in times]
        traj = Trajectory(inst, variable, times, tokens, attn, t, not_cert, steps, bits,
                          order, bk, stopped_by_predicate=stopped_by_predicate, stop=stop,
                          coordinates=coordinates)
        if defect is not None:  # the defect step's counters (no timings: deterministic)
            counts = {k: v for k, v in defect.stats.items() if not k.startswith("t_")}
            traj.attempts.append(f"defect step: {counts}")
        return traj


def _run_variant(run: _Run, t_final: Fraction, bits: int, order: int,
                 target_bits: int) -> Trajectory:
    """A variant (certified.exact.variant_spec) in x; piecewise weights piece by piece.

    On each piece the field is smooth and the stepper's contract holds; the set at a
    switching time is the initial set of the next piece, so the chain of enclosures is
    valid across switches (Lemma V1).
    """


    inst, report, bk = run.inst, run.report, run.bk
    var = inst.variant
    if not isinstance(var, Pieces):
        return _run_continuous(run, t_final, bits, order, target_bits,
                               field_factory=lambda b: variant_field(inst, b))
    cuts = [Fraction(0)] + [s for s in var.starts if s < t_final] + [t_final]
    weights = [(inst.V, inst.Q, inst.K)] + [(w.V, w.Q, w.K) for w in var.weights]
    times: list[Fraction] = []
    tokens: list[np.ndarray] = []
    attn: list[np.ndarray] = []
    steps: list[StepResult] = []
    start: LohnerSet | None = None
    reached = Fraction(0)
    stop: StopReason | None = None
    for i, (a, c) in enumerate(zip(cuts, cuts[1:])):
        rep = [s - a for s in report if a <= s <= c and s not in times]
        # the step budget is for the whole run: each piece gets what the earlier ones left
        left = None if run.max_steps is None else run.max_steps - len(steps)
        if left is not None and left <= 0:
            stop = StopReason("step budget", reached, f"the step budget max_steps = "
                              f"{run.max_steps} was spent", bits)
            break
        tr = _run_continuous(replace(run, max_steps=left), c - a, bits, order, target_bits,
                             report=rep,
                             initial_box=start,
                             field_factory=lambda b, w=weights[i]: variant_field(inst, b, w))
        times += [s + a for s in tr.times]
        tokens += tr.tokens
        attn += tr.attention
        steps += [replace(st, t0=st.t0 + a) for st in tr.steps]
        reached = a + tr.certified_until
        if tr.certified_until < c - a or not tr.steps:
            stop = tr.stop
            break
        start = tr.steps[-1].output_set
    not_cert = [s for s in sorted(set(report)) if s > reached or s not in times]
    if stop is None or stop.kind == "t_final":
        stop = StopReason("t_final", reached, "reached t_final", bits)
    return Trajectory(inst, "x", times, tokens, attn, reached, not_cert, steps, bits, order,
                      bk, coordinates="x", stop=stop)


def _run_discrete(run: _Run, t_final: Fraction, bits: int,
                  start: tuple[int, LohnerSet] | None = None) -> Trajectory:
    """The layer map of Remarks 1.1/3.4, layer by layer (no truncation: Lemma I9), from
    X0 or from ``start`` = (layer, set in x)."""
    inst, report, bk, variable, progress = run.inst, run.report, run.bk, run.variable, \
        run.progress

    dt = inst.time.dt  # type: ignore[union-attr]
    n, d = inst.n, inst.d
    layers = int(t_final / dt)
    wanted = {int(s / dt): s for s in report if (s / dt).denominator == 1 and s <= t_final}
    with bk.workprec(bits):
        field = AttentionField(inst, bk, "x")
        first_layer = 0 if start is None else start[0]
        S = LohnerSet.from_exact([x for row in inst.X0 for x in row], bk) if start is None \
            else start[1]
        R = to_fmpq_mat([[Fraction(int(i == j)) + dt * inst.V[i][j] for j in range(d)]
                         for i in range(d)])
        Rinv = R.inv()
        steps: list[StepResult] = []
        times, tokens, attn = [], [], []
        bar = _progress(layers, progress)
        t_cert = dt * first_layer

        def z_box(layer: int, Sset: LohnerSet) -> np.ndarray:
            """z^[k] = R^{-k} x^[k], applied to the set (exact rational matrix), shape (N,)."""
            M = bk.array(from_fmpq_mat(Rinv ** layer))
            return Sset.linear_image(np.kron(bk.identity(n), M), bk)

        def record(layer: int, Sset: LohnerSet) -> None:
            X = Sset.box(bk).reshape(n, d)
            tok = X if variable == "x" else z_box(layer, Sset).reshape(n, d)
            P = field.attention(X, Fraction(0), clip=True)
            times.append(wanted[layer])  # all or nothing: no half-written report
            tokens.append(tok)
            attn.append(P)

        stopped = False
        try:
            if first_layer in wanted:
                record(first_layer, S)
            for layer in range(first_layer, layers):
                check_deadline(t_cert)
                _spend(run, len(steps), t_cert)
                res = map_step(field, S, layer, dt)
                S = res.output_set
                steps.append(res)
                t_cert = dt * (layer + 1)
                if S.max_radius(bk) > BLOWUP_RADIUS * 10 ** 6:
                    raise ValidationError("enclosure radius blew up", t=t_cert, h=dt)
                if layer + 1 in wanted:
                    record(layer + 1, S)
                if bar is not None:
                    _show(bar, 1, layer + 1, run.until)
                if run.until is not None:  # a tail lemma's schedule: T10 in z, T8 in x
                    Zs = S if variable == "x" else LohnerSet.from_box(z_box(layer + 1, S), bk)
                    if run.until(t_cert, Zs.box(bk).reshape(n, d), Zs):
                        stopped = True
                        break
        except (ValidationError, UndecidedError) as exc:
            stop = _stop(exc, t_cert, bits)  # certified up to the last validated layer
        else:
            stop = StopReason("predicate", t_cert, "the until predicate held", bits) \
                if stopped else StopReason("t_final", t_cert, "reached t_final", bits)
        finally:
            if bar is not None:
                bar.close()
        not_cert = [s for s in sorted(set(report)) if s not in times]
        return Trajectory(inst, variable, times, tokens, attn, t_cert, not_cert, steps, bits,
                          1, bk, stop=stop, coordinates="x", stopped_by_predicate=stopped)


def enclose_trajectory(instance: Instance, t_final: Fraction | int | str, *,
                       times: Iterable[Fraction | int | str] | None = None,
                       digits: int = 30, bits: int | None = None, variable: str = "z",
                       backend: str = "flint", max_bits: int | None = None,
                       order: int | None = None, h_max: Fraction | None = None,
                       progress: bool = False, coordinates: str = "z",
                       initial_box: np.ndarray | None = None,
                       max_seconds: float | None = None,
                       until: Callable[[Fraction, np.ndarray, LohnerSet], bool] | None = None,
                       precision: Precision | None = None, step: str = "defect",
                       max_steps: int | None = None) -> Trajectory:
    """Certified enclosures of the trajectory of ``instance`` on [0, t_final].

    Parameters
    ----------
    instance : Instance
    t_final : number
        Final time (exact; > 0). In discrete time, layers k with k·Δt ≤ t_final.
    times : iterable of numbers, optional
        Times at which to report enclosures (default: 0 and t_final). In discrete time
        they must be multiples of Δt.
    digits, bits : int
        Working precision (decimal digits, or bits which take precedence); ignored
        when ``precision`` is given.
    variable : {"z", "x"}
        Variable of the reported tokens.
    backend : {"flint", "mpmath"}
    max_bits : int, optional
        Cap for automatic precision escalation (default: 4 × the starting bits).
    order : int, optional
        Taylor order (default from the digits).
    h_max : Fraction, optional
        Largest step (default 1/4).
    progress : bool
        Show a progress bar on stderr.
    coordinates : {"z", "x"}
        Variable the ODE is integrated in (continuous time); outputs are converted.
    initial_box : object array, shape (n, d), optional
        Start from this box of states (backend intervals) instead of the exact X0.
    max_seconds : float, optional
        Wall-clock budget; the result is certified up to where it stopped.
    until : callable (t, box, S) -> bool, optional
        Continuous time: stop after the first validated step at whose end the predicate
        holds on the enclosure (``box`` of shape (n, d) in the integration variable, and
        the :class:`LohnerSet` ``S`` it came from, for tighter linear images); that time
        is recorded and ``stopped_by_predicate`` is set. The predicate must decide from
        the enclosure alone (e.g. with interval comparisons that are proved).
    step : {"defect", "picard"}
        The validated step of continuous runs: Lemma I10 (the default: steps set by
        analyticity, with I6 as the fallback wherever it fails) or Lemma I6 alone. The
        independent checker replays both (its Lemmas C3 and C20).
    max_steps : int, optional
        Continuous time: a deterministic budget of validated steps. The run stops there
        (``stop.kind == "step budget"``), certified up to where it stopped, and is not
        retried at more bits.
    precision : Precision, optional
        The run's precision (digits, order, starting bits, escalation cap), built once
        by the caller; default ``Precision.build(digits, bits=bits, order=order,
        max_bits=max_bits)``.

    Returns
    -------
    Trajectory
        With ``certified_until`` the time up to which every step was validated; this
        may be < t_final only if even ``max_bits`` did not suffice (or the wall-clock
        cap was reached). ``stop`` and ``stop_message()`` say why it ended there.
    """

    tf = to_fraction(t_final, "t_final")
    if tf <= 0:
        raise InputError("t_final", f"{tf} is not positive", "a number > 0")
    if variable not in ("x", "z"):
        raise InputError("variable", f"{variable!r} is not a variable", "'x' or 'z'")
    report = sorted({to_fraction(s, "times") for s in (times if times is not None else [0, tf])})
    for s in report:
        if s < 0 or s > tf:
            raise InputError("times", f"{s} is outside [0, t_final = {tf}]",
                             "times between 0 and t_final")
    if instance.variant is not None:

        why = certifiable(instance.variant)
        if why is not None:
            raise InputError("variant", why, "a smooth variant (tanh x-form, heads, pieces); "
                             "approximate runs: certified.approx.float64.approx_variant")
        if variable != "x" or until is not None or initial_box is not None:
            raise InputError("variable", "a variant is integrated and reported in x only",
                             "variable 'x' (no until= or initial_box=)")
    if isinstance(instance.time, Discrete):
        for s in report:
            if (s / instance.time.dt).denominator != 1:
                raise InputError("times", f"{s} is not a multiple of Δt = {instance.time.dt}",
                                 "layer times k·Δt")
    if step not in ("picard", "defect"):
        raise InputError("step", f"{step!r} is not a step method", "'picard' or 'defect'")
    check_max_steps(max_steps)
    prec = precision if precision is not None else \
        Precision.build(digits, bits=bits, order=order, max_bits=max_bits)
    check_instance_fits(instance, prec.order, prec.start_bits)  # before any work
    bk = get_backend(backend)
    hm = Fraction(h_max) if h_max is not None else Fraction(1, 4)
    t0 = _time.perf_counter()
    with wall_clock_cap(max_seconds):
        best, attempts = _escalate(_Run(instance, report, bk, variable, coordinates, hm,
                                        progress, step, until, max_steps), tf, prec,
                                   initial_box)
    best.wall_seconds = _time.perf_counter() - t0
    best.attempts = attempts
    return best


def continue_trajectory(traj: Trajectory, t_final: Fraction, *, precision: Precision,
                        until: Callable[[Fraction, np.ndarray, LohnerSet], bool] | None = None,
                        max_steps: int | None = None, step: str = "defect",
                        progress: bool = False, h_max: Fraction | None = None) -> Trajectory:
    """Continue a validated run from the set of its last step up to ``t_final``.

    The continuation starts at ``traj.certified_until`` from ``traj.steps[-1].output_set``
    (a rigorous enclosure of the state there), at the run's own bits and order, and is
    not retried at more bits: it ends at ``t_final``, where ``until`` holds, where
    ``max_steps`` further steps are spent, where a step cannot be validated, or at the
    outer wall-clock cap (``stop.kind`` says which). Every step of the result is
    validated, so the chain of enclosures from t = 0 is the same kind of object as one
    uninterrupted run (the checker replays it step by step and never sees the seam).

    Parameters
    ----------
    traj : Trajectory
        A continuous-time run in the ODE's own coordinates, or a discrete-time run.
        Its last step's set is the continuation's initial set.
    t_final : Fraction
        End of the continuation (> ``traj.certified_until``; in discrete time a layer
        time).
    precision : Precision
        The precision ``traj`` was computed with (for the remainder tolerance).
    until, max_steps, step, progress, h_max
        As in :func:`enclose_trajectory` (``max_steps`` counts the new steps only).

    Returns
    -------
    Trajectory
        The steps, reported times and attempts of ``traj`` followed by the new ones;
        ``certified_until`` and ``stop`` are the continuation's.
    """
    if not traj.steps or traj.instance.variant is not None:
        raise InputError("traj", "no validated step to continue from (or a variant)",
                         "a trajectory of the paper's dynamics with at least one step")
    check_max_steps(max_steps)
    inst, bk, bits = traj.instance, traj.backend, traj.bits
    t0 = traj.certified_until
    if t_final <= t0:
        raise InputError("t_final", f"{t_final} is not after t = {t0}", "a later time")
    run = _Run(inst, [], bk, traj.variable, traj.coordinates,
               h_max if h_max is not None else Fraction(1, 4), progress, step, until,
               max_steps)
    last = traj.steps[-1].output_set
    started = _time.perf_counter()
    with wall_clock_cap(None):  # an enclosing cap (the caller's) still applies
        if isinstance(inst.time, Discrete):
            k0 = t0 / inst.time.dt
            if k0.denominator != 1:
                raise InputError("traj", f"t = {t0} is not a layer time", "a discrete run")
            more = _run_discrete(run, t_final, bits, start=(int(k0), last))
        else:
            target = precision.target_bits + (bits - precision.start_bits)
            more = _run_continuous(run, t_final, bits, traj.order, target, report=[],
                                   initial_box=last, until=until, t_start=t0)
    return Trajectory(inst, traj.variable, traj.times + more.times,
                      traj.tokens + more.tokens, traj.attention + more.attention,
                      more.certified_until, [], traj.steps + more.steps, bits, traj.order, bk,
                      wall_seconds=traj.wall_seconds + _time.perf_counter() - started,
                      attempts=traj.attempts + [f"continued at {bits} bits from t = {t0}: "
                                                f"certified until {more.certified_until}"]
                      + more.attempts,
                      stopped_by_predicate=more.stopped_by_predicate, stop=more.stop,
                      coordinates=traj.coordinates, escalation="")


def _spend(run: _Run, taken: int, t: Fraction) -> None:
    """Raise :class:`StepBudget` before a step beyond the run's ``max_steps``."""
    if run.max_steps is not None and taken >= run.max_steps:
        raise StepBudget(f"the step budget max_steps = {run.max_steps} was spent", t=t)


def check_max_steps(max_steps: object) -> None:
    """Raise :class:`InputError` unless ``max_steps`` is None or an integer ≥ 1."""
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int)
                                  or max_steps < 1):
        raise InputError("max_steps", f"{max_steps!r} is not a positive integer",
                         "an integer >= 1, or None")


def _escalate(run: _Run, tf: Fraction, prec: Precision, initial_box: Any
              ) -> tuple[Trajectory, list[str]]:
    """Attempts at doubling precision until t_final, the predicate, or the cap."""
    K, target, start_bits, cap = prec.order, prec.target_bits, prec.start_bits, prec.max_bits
    instance, until = run.inst, run.until
    best: Trajectory | None = None
    attempts: list[str] = []
    b = start_bits
    while True:
        if isinstance(instance.time, Discrete):
            traj = _run_discrete(run, tf, b)
        elif instance.variant is not None:
            traj = _run_variant(run, tf, b, K, target + (b - start_bits))
        else:
            traj = _run_continuous(run, tf, b, K, target + (b - start_bits),
                                   initial_box=initial_box, until=until)
        attempts.append(f"{b} bits: certified until {traj.certified_until}")
        attempts += traj.attempts  # e.g. the defect step's counters
        # The run whose predicate held is the result even if an earlier one reached
        # further: its steps end at the set the predicate accepted (the lemma's).
        if best is None or traj.stopped_by_predicate or \
                traj.certified_until > best.certified_until:
            best = traj
        if traj.certified_until >= tf or traj.stopped_by_predicate:
            break
        if traj.stop is not None and traj.stop.kind in ("wall-clock cap", "step budget"):
            break
        if b * 2 > cap:
            best.escalation = f"precision cap: {2 * b} bits would exceed max_bits = {cap}"
            break
        b *= 2
    return best, attempts
