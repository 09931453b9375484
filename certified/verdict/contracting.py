"""The runs for V = −μI, μ > 0, with B symmetric positive definite (decided by the caller):
Lemma T6's energy bound and Lemma T9's energy decay in continuous time, T9's discrete
form (μΔt < 2) and Lemma T11's divergence of the layer map (μΔt > 2). Each fills the
:class:`~certified.verdict.certify.Verification` it is given (typed ``Any`` here: the
verdict module imports this one, not the other way)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from certified.enclose.arith import get_backend
from certified.enclose.driver import enclose_trajectory
from certified.enclose.lohner_set import LohnerSet
from certified.exact.rationals import bounds_to_json, fraction_to_str
from certified.logic import Verdict
from certified.tail.boxes import checkable_box, round_box
from certified.tail.t11_divergence import Divergence, divergence_discrete
from certified.tail.t6_energy import norm_bound_contracting
from certified.tail.t9_energy_decay import RATE_STATEMENT as T9_STATEMENT
from certified.tail.t9_energy_decay import RATE_STATEMENT_DISCRETE as T9_STATEMENT_DISCRETE
from certified.tail.t9_energy_decay import (EnergyDecayDiscrete, energy_decay,
                                            energy_decay_discrete, step_epsilon)
from certified.verdict.schedule import Job, LemmaSchedule, capped, integrate

__all__ = ["run_divergence_discrete", "run_energy", "run_energy_discrete"]


def _t9_limit(n: int, d: int, statement: str, c: Fraction) -> dict[str, Any]:
    """What Lemma T9 proves, in either form: one cluster of every token at the origin,
    P → (1/n)·ones (rank 1), and the energy's rate with the constant c."""
    return {"clusters": [{"members": list(range(n)), "center": [["0", "0"]] * d}],
            "attention_limit": [[f"1/{n}" if n > 1 else "1"] * n for _ in range(n)],
            "attention_rank": 1,
            "rate": {"statement": statement, "c_lower_bound": fraction_to_str(c)}}


def run_energy_discrete(out: Any, job: Job, mu: Fraction, dt: Fraction) -> None:
    """Theorem 8.5 in discrete time (V = −μI, B ≻ 0): iterate the layer map in x and try
    Lemma T9's discrete form every ``check_every`` (its step-size condition holds once
    the energy is small enough); stop at the first layer where it holds."""
    inst, digits, prec = job.instance, job.precision.digits, job.precision
    if step_epsilon(mu * dt) is None:  # decided before iterating: no layer can satisfy it
        out.reason = (f"Lemma T9's discrete form needs μΔt < 2 (the layer must contract the "
                      "mean) and Lemma T11 (divergence) needs μΔt > 2; "
                      f"here μΔt = {mu * dt}: nothing about k → ∞ is proved")
        return
    bk = get_backend(job.backend)
    keep = prec.keep_digits

    def attempt(t: Fraction, box: np.ndarray, S: LohnerSet) -> tuple[Any, str]:
        boxes = [[checkable_box(bk, box[i, c], keep) for c in range(inst.d)]
                 for i in range(inst.n)]
        with bk.workprec(prec.lemma_bits):
            return energy_decay_discrete(bk, mu, inst.B, t, dt, boxes, digits)

    until = LemmaSchedule(attempt, None, Fraction(0), job.check_every, Fraction(0))
    if not integrate(out, job, until, "T9 (discrete form)", "x"):
        return
    ed: EnergyDecayDiscrete = until.last
    n, d = inst.n, inst.d
    out.timescale = {"T_first": str(ed.T), "T_first_float": float(ed.T), "T_used": str(ed.T),
                     "meaning": "the first check layer at which Lemma T9's discrete form "
                                f"held with ε = {ed.epsilon} (checked at every multiple of "
                                f"{job.check_every}); the run stops there"}
    out.verdict = Verdict.CERTIFIED
    out.limit = _t9_limit(n, d, T9_STATEMENT_DISCRETE, ed.c)
    out.reason = (f"Lemma T9's discrete form holds at layer {int(ed.T / dt)} (T = {ed.T}, "
                  f"Δt = {dt}): Σ_i x_iᵀBx_i ≤ E_T/(1 + c(k − K)) with E_T = "
                  f"{float(ed.E_T):.6g}, c = {float(ed.c):.6g}, so every x_i → 0 and "
                  "P → (1/n)·ones")


def run_divergence_discrete(out: Any, job: Job, mu: Fraction, dt: Fraction
                             ) -> None:
    """Theorem 8.5 in discrete time with μΔt > 2 (V = −μI, B ≻ 0): iterate the layer map
    in x and try Lemma T11 at every check layer from the first on; stop at the first layer
    where it holds: the conclusion is refuted (max_i x_iᵀBx_i → ∞)."""
    inst, prec = job.instance, job.precision
    bk = get_backend(job.backend)
    keep = prec.keep_digits

    def attempt(t: Fraction, box: np.ndarray, S: LohnerSet) -> tuple[Any, str]:
        boxes = [[checkable_box(bk, box[i, c], keep) for c in range(inst.d)]
                 for i in range(inst.n)]
        return divergence_discrete(mu, inst.B, t, dt, boxes, prec.digits)

    until = LemmaSchedule(attempt, None, Fraction(0), job.check_every, Fraction(0))
    if not integrate(out, job, until, "T11", "x"):
        out.reason = (f"μΔt = {mu * dt} > 2, but " + out.reason[0].lower() + out.reason[1:])
        return
    dv: Divergence = until.last
    K = int(dv.T / dt)
    out.timescale = {"T_first": str(dv.T), "T_first_float": float(dv.T), "T_used": str(dv.T),
                     "meaning": "the first layer at which Lemma T11 held (checked at the "
                                f"first layer at or after every multiple of {job.check_every} "
                                "in t); the run stops there"}
    out.verdict = Verdict.REFUTED
    out.evidence = dv.evidence()
    out.reason = (f"Lemma T11 holds at layer {K} (T = {dv.T}, Δt = {dt}, μΔt = {mu * dt} > 2): "
                  f"max_i x_iᵀBx_i ≥ ρ^(2(k − K))·L with ρ ≥ {float(dv.rho):.6g} > 1 and "
                  f"L = {float(dv.L):.6g}, so the tokens do not all converge to 0 (the "
                  "continuous-time conclusion fails at this step size)")


def run_energy(out: Any, job: Job, mu: Fraction) -> None:
    """V = −μI, B symmetric positive definite: integrate to t_max, then Lemma T6."""
    inst, tmax, digits, prec = job.instance, job.t_max, job.precision.digits, job.precision
    backend = job.backend
    bk = get_backend(backend)
    traj = enclose_trajectory(inst, tmax, backend=backend, variable="x", coordinates="x",
                              max_seconds=job.max_seconds, precision=prec,
                              progress=job.progress, times=[0], step=job.step,
                              max_steps=job.max_steps)
    out.trajectory = traj
    if capped(out, job, traj):
        return
    T = traj.certified_until
    box = traj.final_box()
    with bk.workprec(prec.lemma_bits):
        if T == 0 or box is None:
            X = [[(x, x) for x in row] for row in inst.X0]
        else:
            X = [[round_box(*bk.bounds(v), prec.keep_digits) for v in row] for row in box]
        nb = norm_bound_contracting(bk, mu, inst.B, T, X)
    out.tail = nb
    out.timescale = {"T": str(T), "T_float": float(T),
                     "meaning": "time of the enclosure the energy lemma T6 starts from"}
    proved = {"sup_{t>=T} max_i x_i^T B x_i <=": bounds_to_json(Fraction(0), nb.qmax, digits)[1],
              "for t >= T": "x_i(t)^T B x_i(t) <= log n + (q_i(T) - log n)^+ e^{-2 mu (t - T)}",
              "T": str(T)}
    out.limit = {"proved": proved}
    if out.theorem == "8.5":
        # Lemma T9 on T6's bounds: x_i → 0 and P → ones/n, with E(t) ≤ E_T/(1 + c(t − T))
        n, d = len(inst.X0), len(inst.V)
        with bk.workprec(prec.lemma_bits):
            ed = energy_decay(bk, nb, n, d, digits)
        if ed.c <= 0:  # E_T = 0 (every token at 0), or κ's enclosure reached 0
            out.reason = ("Lemma T9 gives no positive rate: " + (
                "every token is at the origin at T (an equilibrium)" if ed.E_T == 0 else
                f"the lower end of the enclosure of exp(-2 E_T), E_T = {float(ed.E_T):.6g}, "
                "is not positive at this working precision") + "; the t = ∞ statement is "
                "left undecided")
            return
        out.tail = ed
        out.verdict = Verdict.CERTIFIED
        out.limit = {"proved": proved} | _t9_limit(n, d, T9_STATEMENT, ed.c)
        out.reason = (f"Lemma T9 holds at T = {T}: Σ_i x_iᵀBx_i ≤ E_T/(1 + c(t − T)) with "
                      f"E_T = {float(ed.E_T):.6g}, c = {float(ed.c):.6g}, so every x_i → 0 and "
                      "P → (1/n)·ones")
    else:
        out.reason = ("V = −μI: only Lemma T6 (a norm bound) applies; the conclusion of "
                      f"Theorem {out.theorem} about t → ∞ is not proved")
