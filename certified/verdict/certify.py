"""The verifier: integrate with enclosures until a tail lemma holds, then judge a claim.

:func:`certify` runs the validated integrator (:mod:`certified.enclose.driver`) and, at regular
times, tries the tail lemma that fits the instance (:mod:`certified.tail.t4_leader_follower`). When the
lemma's hypotheses are verified at some time T its conclusions bound the whole future,
and the theorem's *conclusion* is judged from them: ``certified`` (proved for this
instance), ``refuted`` (proved false for this instance) or ``undecided`` (neither within
the budget of time, precision and wall-clock). The verdict never depends on whether the
theorem's hypotheses hold; ``hypotheses_hold`` (decided exactly by
:func:`certified.exact.hypotheses.classify`) is reported next to it.

Which lemma applies (``proofs_notes/tail.md``):

* V = λI with λ > 0, continuous time — Lemma T4 (leader–follower), any B; two tokens
  of equal norm with QᵀK = βI, β > 0: Lemma S1 (solved exactly, no integration);
* V = −μI with μ > 0 and B symmetric positive definite — Lemma T6 (energy bound), and
  for Theorem 8.5 Lemma T9 (energy decay: x_i → 0, P → ones/n, with a rate);
* a simple dominant eigenvalue λ₁ > 0 (Theorem 4.2, and 5.2 with dim F = 1) — Lemma T7;
  a paranormal V with dim F ≥ 2 (Theorem 5.2), or dim F = 1 where ⟨Qφ₁, Kφ₁⟩ ≤ 0 rules
  T7 out (Theorems 5.2 and 4.2) — Lemma T8;
* discrete time — the discrete forms: T10 (V = λI), T7, T8 (under its step-size
  condition), T9 (μΔt < 2 and a condition on the energy) and T11 (Theorem 8.5 refuted
  for μΔt > 2);
* anything else — no tail lemma applies; the verdict is ``undecided`` and says so.

The run's budgets and lemma schedule are in :mod:`certified.verdict.schedule`."""

from __future__ import annotations

import time as _time
from dataclasses import dataclass
from dataclasses import field as dc_field
from fractions import Fraction
from typing import Any

import numpy as np

from certified.enclose.arith import get_backend
from certified.enclose.budget import check_instance_fits
from certified.enclose.deadline import wall_clock_cap
from certified.enclose.driver import Trajectory, check_max_steps
from certified.enclose.lohner_set import LohnerSet
from certified.errors import InputError
from certified.exact.hypotheses import THEOREMS, classify
from certified.exact.instance import Discrete, Instance
from certified.exact.linalg import inertia, sym_part
from certified.exact.rationals import (
    bounds_to_json,
    decimal_ceil,
    fraction_to_str,
    to_fraction,
)
from certified.exact.spectrum import Spectrum
from certified.logic import Truth, Verdict, truth_to_json
from certified.precision import SETUP_BITS, Precision
from certified.tail.boxes import checkable_box
from certified.tail.g1_hull import excludes_origin, exposing_functional
from certified.tail.t4_leader_follower import LeaderFollowerBound, try_leader_follower
from certified.tail.s0_stationary import (
    StationaryLimit,
    applies_stationary,
    stationary_limit,
    stationary_verdict,
)
from certified.tail.s3_two_tokens import CONVERGES as S3_CONVERGES
from certified.tail.s3_two_tokens import DIVERGES as S3_DIVERGES
from certified.tail.s3_two_tokens import leading_reading, two_tokens
from certified.tail.s1_symmetric import (
    PairLimit,
    TripleLimit,
    find_lemma,
    symmetric_pair_limit,
    symmetric_triple_limit,
)
from certified.tail.t6_energy import NormBound
from certified.tail.t9_energy_decay import (
    EnergyDecay,
)
from certified.tail.t7_projected import (
    ProjectedBound,
    dominant_interval,
    find_norm,
    projected_groups,
)
from certified.tail.t8_paranormal import (
    ParanormalBound,
    paranormal_split,
    step_size_condition,
    try_paranormal,
)
from certified.verdict.contracting import run_divergence_discrete, run_energy, run_energy_discrete
from certified.verdict.schedule import Job, LemmaSchedule, integrate, timescale
from certified.verdict.judge import (
    RATE_STATEMENT_DISCRETE,
    center_json,
    judge_leader_follower,
)


@dataclass
class Verification:
    """The outcome of :func:`certify` (serialized by :mod:`certified.verdict.certificate`).

    Attributes
    ----------
    theorem : str
        The theorem whose conclusion was judged.
    hypotheses_hold : bool
        Exact verdict on its hypotheses.
    verdict : Verdict
    reason : str
        Why, in words (what was proved, or what could not be).
    limit : dict or None
        The spec's theorem-specific limit data when the verdict is ``certified`` (and,
        for information, whenever a tail lemma held).
    evidence : dict or None
        For ``refuted``: the proved fact that contradicts the conclusion.
    tail : LeaderFollowerBound or NormBound or EnergyDecay or ProjectedBound or None
        The verified tail lemma, if any.
    trajectory : Trajectory or None
        The validated run that produced the enclosure at T.
    """

    instance: Instance
    theorem: str
    hypotheses_hold: bool
    verdict: Verdict
    reason: str
    digits: int
    backend: str
    limit: dict | None = None
    evidence: dict | None = None
    tail: (LeaderFollowerBound | NormBound | EnergyDecay | ProjectedBound | PairLimit
           | TripleLimit | StationaryLimit | None) = None
    trajectory: Trajectory | None = None
    timescale: dict | None = None
    attempts: list[str] = dc_field(default_factory=list)
    wall_seconds: float = 0.0
    #: The Lohner set at T whose boxes the tail lemma checked (None: the final set).
    lemma_set: Any = None
    precision: Precision | None = None
    #: What ended the refinement after the first success, in words ("" when the lemma
    #: is not refined). Not part of the certificate: a refinement cut by the wall-clock
    #: cap reports the first success, whose certificate is that of ``refine_t = 0``.
    refinement: str = ""


def _sym_pd(M: list[list[Fraction]]) -> bool:
    d = len(M)
    if any(M[i][j] != M[j][i] for i in range(d) for j in range(d)):
        return False
    return inertia(sym_part(M)).positive == d


def _line_split(inst: Instance) -> tuple[Any, str]:
    """Theorem 5.2 with dim F = 1 where Lemma T7 cannot apply because ⟨Qφ₁, Kφ₁⟩ ≤ 0
    (decided exactly): Lemma T8's splitting with dim F = 1 (its proof never uses
    dim F ≥ 2), or (None, why) — (None, "") when T7 is the lemma to try."""
    sp = Spectrum(inst.V)
    ev = sp.dominant.positive_real
    if ev is None or ev.multiplicity != 1 or \
            sp.leading_eigenvector(ev, inst.B).form_sign > 0:
        return None, ""
    split, why = paranormal_split(inst.V, inst.B, min_dim=1)
    if split is not None and split.dim_f == 1 and not split.nu < split.lam:
        # Theorem 4.2 (and the T7/T8 choice) is about a strictly dominant λ: with ν = λ
        # another eigenvalue of modulus λ is not excluded
        split, why = None, f"‖V_G‖∞ = ν = λ = {split.lam}: λ is not proved strictly dominant"
    if split is None:
        return None, (f"⟨Qφ₁, Kφ₁⟩ ≤ 0 (exact sign): Lemma T7 needs it positive, and Lemma "
                      f"T8 on the line F does not apply ({why}); no tail lemma applies")
    return split, ""


def _auto_theorem(inst: Instance, report: Any) -> str:
    for t in ("2.1", "3.1", "5.2", "4.2", "8.5"):
        if report.theorems[t].hypotheses_hold:
            return t
    lam = inst.scalar_V
    if lam is not None and lam < 0:
        return "8.5"
    return "3.1" if lam is not None else "4.2"


def certify(instance: Instance, theorem: str = "auto", *, digits: int = 30,
            t_max: Fraction | int | str = 8, max_seconds: float | None = None,
            backend: str = "flint", check_every: Fraction = Fraction(1, 8),
            max_bits: int | None = None, refine_t: Fraction | int | str = 3,
            progress: bool = False, precision: Precision | None = None,
            step: str = "defect", max_steps: int | None = None) -> Verification:
    """Certify or refute a theorem's limit statement on ``instance``.

    Parameters
    ----------
    instance : Instance
    theorem : {"2.1", "3.1", "4.2", "5.2", "8.5", "auto"}
        "auto" picks the first of 2.1, 3.1, 5.2, 4.2, 8.5 whose hypotheses hold (else by
        the form of V: 8.5 for V = λI with λ < 0, 3.1 for other λI, 4.2 otherwise).
    digits : int
        Working precision of the integration (decimal digits).
    t_max : number
        Latest time T at which a tail lemma may be tried.
    max_seconds : float or None
        Outer wall-clock safety cap (default: none). Reaching it gives ``undecided`` with
        the reason "wall-clock cap", never a different certified result.
    max_steps : int or None
        Deterministic budget of validated steps per integration (default: none): like
        ``t_max``, it gives the same verdict whatever the load or speed of the machine.
    backend : {"flint", "mpmath"}
    check_every : Fraction
        Try the tail lemma whenever t has advanced by this much.
    max_bits : int, optional
        Precision cap for the integrator's escalation.
    step : {"defect", "picard"}
        The integrator's validated step (see
        :func:`~certified.enclose.driver.enclose_trajectory`): "defect" (Lemma I10, the
        default, with Lemma I6 as the fallback) or "picard" (Lemma I6 only). The checker
        replays both.
    precision : Precision, optional
        The run's precision, built once by the caller (then ``digits`` and ``max_bits``
        are ignored).
    refine_t : number
        After the first time T₁ a tail lemma holds, continue the same run for tighter
        limits: stop once the lemma's own bound (δ₀ for T4/T8, the widest limit interval
        for T7) is ≤ 10^-digits, or is more than half the previous success's (it stopped
        tightening), or at t = T₁ + refine_t (or t_max), or after as many steps as T₁
        took; 0 stops at the first success. Every budget is in t or steps:
        deterministic. The limits' widths at the stop are what the lemma proves there,
        and may be wider than 10^-digits. ``Verification.refinement`` says what ended it.
        A wall-clock cap reached during the refinement returns the first success (the
        certificate ``refine_t = 0`` gives).

    Returns
    -------
    Verification
    """

    if theorem not in THEOREMS + ("auto",):
        raise InputError("theorem", f"{theorem!r} is not a theorem",
                         "one of 2.1, 3.1, 4.2, 5.2, 8.5, auto")
    tmax = to_fraction(t_max, "t_max")
    if tmax <= 0:
        raise InputError("t_max", f"{tmax} is not positive", "a number > 0")
    check_max_steps(max_steps)
    if instance.variant is not None:
        raise InputError("variant", "the theorems' limit statements are about the paper's "
                         "dynamics, not the open variants",
                         "an instance without 'variant' (simulate the variant instead)")
    prec = precision if precision is not None else Precision.build(digits, max_bits=max_bits)
    digits = prec.digits
    check_instance_fits(instance, prec.order, prec.start_bits)  # before classify's work
    report = classify(instance)
    thm = _auto_theorem(instance, report) if theorem == "auto" else theorem
    hyp = report.theorems[thm].hypotheses_hold
    out = Verification(instance, thm, hyp, Verdict.UNDECIDED, "", digits, backend, precision=prec)
    rt = to_fraction(refine_t, "refine_t")
    if rt < 0:
        raise InputError("refine_t", f"{rt} is negative", "a number >= 0")
    job = Job(instance, prec, backend, tmax, max_seconds, check_every, progress, rt, step,
               max_steps)
    t0 = _time.perf_counter()
    with wall_clock_cap(max_seconds):  # one outer cap for every integration of the run
        _dispatch(out, job, thm)
    out.wall_seconds = _time.perf_counter() - t0
    return out


def _dispatch(out: Verification, job: Job, thm: str) -> None:
    """Run the tail lemma that fits the instance and the theorem (module docstring)."""
    instance = job.instance
    lam = instance.scalar_V
    if isinstance(instance.time, Discrete) and lam is not None and lam > 0:
        _run_leader_follower(out, job, lam, dt=instance.time.dt)  # Lemma T10
    elif isinstance(instance.time, Discrete) and thm in ("4.2", "5.2"):
        dt = instance.time.dt
        split, why8 = (paranormal_split(instance.V, instance.B) if thm == "5.2"
                       else (None, ""))
        if split is not None and split.BFG is None and step_size_condition(split, dt):
            _run_paranormal(out, job, split, dt=dt)  # Lemma T8, discrete form
        elif split is not None:  # dim F ≥ 2: λ is not simple, so T7 does not apply either
            out.reason = ("discrete time: Lemma T10 needs V = λI, and Lemma T8's discrete "
                          "form does not apply (" + (
                "F–G cross terms in B': the discrete form is proved without them"
                if split.BFG is not None else
                f"its step-size condition (1 + νΔt)² ≤ 1 + λΔt fails: ν = {split.nu}, "
                f"λ = {split.lam}, Δt = {dt}") + "); nothing about k → ∞ is proved for "
                "this V (use `certified simulate` for finite depth)")
        else:  # a simple dominant λ₁ (Theorem 4.2; 5.2 with dim F = 1): T7's discrete form
            _run_projected(out, job, dt=dt)
            if out.verdict is Verdict.UNDECIDED and thm == "5.2":
                out.reason = f"Lemma T8 does not apply ({why8}); Lemma T7: {out.reason}"
    elif isinstance(instance.time, Discrete) and lam is not None and lam < 0 and \
            thm == "8.5" and _sym_pd(instance.B):
        if -lam * instance.time.dt > 2:  # the mean's factor 1 − μΔt has modulus > 1
            run_divergence_discrete(out, job, -lam, instance.time.dt)  # Lemma T11
        else:
            run_energy_discrete(out, job, -lam, instance.time.dt)  # Lemma T9, discrete form
    elif isinstance(instance.time, Discrete):
        out.reason = ("discrete time: a tail lemma exists only for V = λI with λ > 0 "
                      "(Lemma T10), for Theorems 4.2 and 5.2 with a simple dominant "
                      "eigenvalue (Lemma T7's discrete form), for Theorem 5.2 with a "
                      "paranormal V under Lemma T8's step-size condition and for Theorem "
                      "8.5 (V = −μI, QᵀK ≻ 0: Lemma T9's discrete form); nothing about "
                      "k → ∞ is proved for this V (use `certified simulate` for finite "
                      "depth)")
    elif applies_stationary(instance) is None:
        _run_stationary(out, job)
    elif lam is not None and lam > 0 and find_lemma(instance) == "S1":
        _run_symmetric_pair(out, job)
    elif lam is not None and lam > 0 and find_lemma(instance) == "S2":
        _run_symmetric_triple(out, job)
    elif lam is not None and lam > 0:
        _run_leader_follower(out, job, lam)
    elif lam is not None and lam < 0 and _sym_pd(instance.B):
        run_energy(out, job, -lam)
    elif lam is None and thm == "4.2" and instance.n == 2 and \
            (reading := leading_reading(instance.V)) is not None:
        _run_two_tokens(out, job, reading)  # Lemma S3: Definition 4.1(i) fails, two tokens
    elif lam is None and thm in ("4.2", "5.2"):

        split, why8 = paranormal_split(instance.V, instance.B) if thm == "5.2" else (None, "")
        line, why1 = _line_split(instance) if split is None else (None, "")
        if split is not None:
            _run_paranormal(out, job, split)
        elif line is not None:  # dim F = 1 and ⟨Qφ₁, Kφ₁⟩ ≤ 0: Lemma T7 cannot apply
            _run_paranormal(out, job, line)
            if out.verdict is Verdict.UNDECIDED:
                out.reason = ("Lemma T7 does not apply (⟨Qφ₁, Kφ₁⟩ ≤ 0, exact sign); Lemma T8 "
                              f"on the line F = ker(V − {line.lam}I): {out.reason}")
        elif why1:
            out.reason = why1
        else:
            _run_projected(out, job)
            if thm == "5.2" and out.verdict is Verdict.UNDECIDED:
                out.reason = f"Lemma T8 does not apply ({why8}); Lemma T7: {out.reason}"
    else:
        out.reason = ("no tail lemma is implemented for this V and B (implemented: "
                      "V = λI with λ > 0, any B; V = −μI with B symmetric positive "
                      "definite; Theorem 4.2's coordinate for a simple dominant λ₁ > 0; "
                      "Theorem 5.2 for a paranormal V); the conclusion about t → ∞ is not "
                      "proved")


def _run_leader_follower(out: Verification, job: Job, lam: Fraction,
                         dt: Fraction | None = None) -> None:
    """V = λI, λ > 0: integrate in z and try Lemma T4 every ``check_every`` (with ``dt``:
    the layer map, in x, mapped to z at the check layers, and Lemma T10)."""
    inst, digits = job.instance, job.precision.digits
    backend, check_every = job.backend, job.check_every
    bk = get_backend(backend)
    target = Fraction(1, 10 ** digits)
    # Keep integrating while the lemma's own bound δ₀ on the leaders' motion is wider
    # than the target: every later success gives a tighter ball around the limits.
    code = "T4" if dt is None else "T10"
    until = LemmaSchedule(lambda t, box, S: try_leader_follower(bk, inst, lam, t, S, digits,
                                                                 dt=dt),
                           lambda lf: lf.delta0, target, check_every, check_every)
    if not integrate(out, job, until, code, "z"):
        return
    lf: LeaderFollowerBound = until.last
    first: LeaderFollowerBound = until.first
    out.timescale = timescale(code, first.T, lf.T, check_every, "δ₀ > 10^-digits",
                               delta0_at_first=decimal_ceil(first.delta0, 6),
                               delta0_at_T_used=decimal_ceil(lf.delta0, 6))
    out.verdict, out.reason, out.limit, out.evidence = judge_leader_follower(out.theorem, inst, lf,
                                                                 digits)


#: Lemma T7's cross-group statement, in continuous and in discrete time (the checker
#: compares them verbatim).
T7_RATE_STATEMENT = ("for t >= T and i, l in different groups: P_il(t) <= "
                     "exp(-m e^{2 lambda1 (t - T)})")
T7_RATE_STATEMENT_DISCRETE = ("for layers k >= K = T/dt and i, l in different groups: "
                              "P_il <= exp(-m (1 + lambda1 dt)^{2(k - K)})")


def _run_projected(out: Verification, job: Job, dt: Fraction | None = None) -> None:
    """Theorem 4.2 for V ≠ λI: integrate in x and try Lemma T7 every ``check_every``
    (with ``dt``: the layer map, and T7's discrete form at the check layers)."""
    inst, digits, prec = job.instance, job.precision.digits, job.precision
    backend, check_every = job.backend, job.check_every

    sp = Spectrum(inst.V)
    lam_box, why = dominant_interval(inst, spectrum=sp)
    if lam_box is None:
        out.reason = why + "; no tail lemma applies"
        return
    # What does not depend on the tokens is decided before integrating: the exact sign of
    # ⟨Qφ₁, Kφ₁⟩ (Lemma H5) and a norm with ‖V|_G‖ < λ₁.
    if sp.leading_eigenvector(sp.dominant.positive_real, inst.B).form_sign <= 0:
        out.reason = ("⟨Qφ₁, Kφ₁⟩ ≤ 0 (exact sign): Lemma T7 needs it positive; no tail "
                      "lemma applies")
        return
    bk = get_backend(backend)
    with bk.workprec(SETUP_BITS):
        S, why = find_norm(bk, inst.V, lam_box)
    if S is None:
        out.reason = why + "; no tail lemma applies"
        return
    cands = [S]
    keep = prec.keep_digits

    def attempt(t: Fraction, box: np.ndarray, S: LohnerSet) -> tuple[Any, str]:
        boxes = [[checkable_box(bk, box[i, c], keep) for c in range(inst.d)]
                 for i in range(inst.n)]
        with bk.workprec(prec.lemma_bits):
            return projected_groups(bk, inst.V, inst.B, lam_box, t, boxes, cands, dt=dt)

    # Refine while a group's limit interval is wider than the target.
    target = Fraction(1, 10 ** digits)
    until = LemmaSchedule(attempt, lambda pb: max(hi - lo for lo, hi in pb.limits.values()),
                          target, check_every, Fraction(0))
    if not integrate(out, job, until, "T7", "x"):
        return
    pb: ProjectedBound = until.last
    first: ProjectedBound = until.first
    out.timescale = timescale("T7", first.T, pb.T, check_every,
                               "a group's limit interval was wider than 10^-digits")
    values = [bounds_to_json(lo, hi, digits) for _, (lo, hi) in sorted(pb.limits.items())]
    group_of = {i: g for g, members in pb.groups.items() for i in members}
    coord = [bounds_to_json(*pb.limits[group_of[i]], digits) for i in range(inst.n)]
    out.limit = {"coordinate_limits": coord, "hyperplane_values": values,
                 "functional": {"psi": [bounds_to_json(lo, hi, digits) for lo, hi in pb.psi],
                                "meaning": "ψ = row " + str(pb.row) + " of the spectral "
                                "projector onto ker(V − λ₁I) (a non-zero multiple of φ₁*); "
                                "the hyperplanes are {z : ψ(z) = value}"},
                 # a sign group without tokens claims nothing: not written
                 "groups": {s: m for s, m in pb.groups.items() if m},
                 "cross_group_rate": {"statement": T7_RATE_STATEMENT if dt is None
                                      else T7_RATE_STATEMENT_DISCRETE,
                                      "m": None if pb.m is None else str(pb.m)},
                 "not_proved": "the other coordinates of z_i (they may diverge), the limit "
                               "of P within a group, and a rate of convergence within a group"}
    out.verdict = Verdict.CERTIFIED
    out.reason = (f"Lemma T7 holds at T = {pb.T}: φ₁*(z_i) converges for every token, to "
                  f"{pb.values} value(s) (one per sign group), inside {{a, 0, b}}")
    if out.theorem == "5.2":
        # F = span φ₁ (λ₁ simple, ρ(V|_G) < λ₁ proved by ν < λ₁): the F-components ψ(z_i)φ
        # converge to the ≤ 2 points aφ, bφ, the vertices of K = conv{aφ, bφ}, never 0.
        out.limit = dict(out.limit, clusters=[
            {"members": pb.groups[g],
             "center": [bounds_to_json(lo, hi, digits) for lo, hi in pb.f_component(g)],
             "is_hull_vertex": True, "is_zero": False}
            for g in sorted(pb.limits)],
            F="span(φ₁) = ker(V − λ₁I), dimension 1; G = the other generalized eigenspaces",
            not_proved="the G-components (free in Theorem 5.2), the limit of P (no Boolean "
                       "P* is proved), a rate inside a group")
        out.reason = (f"Lemma T7 holds at T = {pb.T}: with F = span φ₁ (dimension 1) the "
                      f"F-components converge to {pb.values} point(s) aφ, bφ, the vertices "
                      "of K = conv{aφ, bφ}, none 0")
    if dt is not None:
        out.reason += (f" (T7's discrete form, layer {int(pb.T / dt)} of Δt = {dt}; z^[k] = "
                       "(I + ΔtV)^{-k} x^[k])")


def _run_paranormal(out: Verification, job: Job, split: Any,
                    dt: Fraction | None = None) -> None:
    """Theorem 5.2 (dim F ≥ 2; or 1 where Lemma T7 cannot apply): integrate in x and try
    Lemma T8 every ``check_every``
    (with ``dt``: the layer map, and T8's discrete form at the check layers)."""
    inst, digits, prec = job.instance, job.precision.digits, job.precision
    backend, check_every = job.backend, job.check_every

    bk = get_backend(backend)
    target = Fraction(1, 10 ** digits)

    def attempt(t: Fraction, box: np.ndarray, S: LohnerSet) -> tuple[Any, str]:
        with bk.workprec(prec.lemma_bits):
            return try_paranormal(bk, split, inst.n, t, S, digits, dt=dt)

    until = LemmaSchedule(attempt, lambda pb: pb.lf.delta0, target, check_every,
                          check_every)
    if not integrate(out, job, until, "T8", "x"):
        return
    pb: ParanormalBound = until.last
    first: ParanormalBound = until.first
    lf = pb.lf
    out.timescale = timescale("T8", first.T, pb.T, check_every, "δ₀ > 10^-digits",
                               delta0_at_T_used=decimal_ceil(lf.delta0, 6))
    clusters = []
    cl = lf.clusters
    for idx, (k, members) in enumerate(cl):
        box = lf.centers[idx]
        item: dict[str, Any] = {
            "leader": k, "members": members,
            "center": center_json(pb.f_component(idx), digits),
            "center_F_coordinates": center_json(box, digits),
            "is_hull_vertex": True,
            "is_zero": truth_to_json(Truth.FALSE if len(cl) >= 2 or excludes_origin(box)
                                     else Truth.UNDECIDED)}
        if len(cl) >= 2:
            mid = [(lo + hi) / 2 for lo, hi in box]
            f = split.dim_f
            hint = [sum(split.BFF[r][c] * mid[r] for r in range(f)) for c in range(f)]
            functional = exposing_functional(idx, lf.centers, hint)
            if functional is None:
                item["is_hull_vertex"] = truth_to_json(Truth.UNDECIDED)
            else:
                item["exposing_functional"] = [fraction_to_str(a) for a in functional]
        clusters.append(item)
    out.limit = {
        "clusters": clusters,
        "attention_limit": lf.attention_limit(), "attention_rank": len(cl),
        "rate": {"c_lower_bound": lf.to_json(digits)["rate_constant"],
                 "statement": ("for t >= T: |P_ij(t) - P*_ij| <= (n-1) exp(-c e^{lambda t})"
                               if dt is None else RATE_STATEMENT_DISCRETE)},
        "F": f"ker(V - {split.lam}I), dimension {split.dim_f} (columns 1..{split.dim_f} of "
             "tail_lemma.basis); centre = the F-component of the limit (along G), "
             "center_F_coordinates = the same in that basis (the exposing functionals act "
             "on these)",
        "not_proved": "the G-components of z_i (free in Theorem 5.2)"}
    out.verdict = Verdict.CERTIFIED
    out.reason = (f"Lemma T8 holds at T = {pb.T}: the F-components converge to {len(cl)} "
                  f"point(s), the limits of the leaders, each a vertex of their hull K; "
                  "P(t) → P* Boolean")
    if out.theorem == "4.2":  # dim F = 1: φ₁*(z) is the F-coordinate (φ₁ = S's column 1)
        _judge_line(out, pb, digits)
    elif out.theorem != "5.2":
        raise AssertionError(f"Lemma T8 run for Theorem {out.theorem}")


def _judge_line(out: Verification, pb: Any, digits: int) -> None:
    """Theorem 4.2 from Lemma T8 on the line F = span φ₁ (φ₁ = the basis' first column, so
    φ₁*(z) = (S⁻¹z)₁ = z_F): each φ₁*(z_i) converges to its leader's limit. Up to two
    values are {a, b}: certified; three or more are distinct and non-zero (T4 (4) with
    the reduced margins), so a middle one is not in {a, 0, b}: refuted."""
    lf = pb.lf
    cl = lf.clusters
    values = [center_json(box, digits)[0] for box in lf.centers]
    if len(cl) <= 2:
        of = {k: idx for idx, (k, _) in enumerate(cl)}
        out.limit = dict(out.limit, hyperplane_values=values,
                         coordinate_limits=[values[of[lf.leader[i]]] for i in range(len(lf.leader))])
        out.reason += (f"; φ₁*(z_i) = z_F converges to {len(cl)} value(s), the limits of min "
                       "and max: Theorem 4.2's conclusion")
        return
    out.verdict, out.limit = Verdict.REFUTED, None
    out.evidence = {"hyperplane_values": values}
    out.reason = (f"Lemma T8 holds at T = {pb.T} on the line F: φ₁*(z_i) converges to {len(cl)} "
                  "distinct non-zero values, so a middle one is neither a, b nor 0")


def _run_symmetric_pair(out: Verification, job: Job) -> None:
    """Two tokens of equal norm, V = λI, QᵀK = βI (λ, β > 0): Lemma S1 solves them exactly
    to t = ∞ (no integration). The two limits are distinct and P → I, so the verdict is
    Lemma T4's for the leader map [0, 1] (``proofs_notes/tail.md``, from lemmas to
    verdicts)."""
    inst, prec = job.instance, job.precision
    bits = prec.lemma_bits
    while True:  # the distance is > 0 in theory: more bits until it is proved
        pair = symmetric_pair_limit(inst, bits)
        if pair.distance > 0:
            break
        if bits >= prec.max_bits:
            out.reason = (f"Lemma S1 applies, but the distance between the limits was not "
                          f"proved positive within {prec.max_bits} bits")
            return
        bits = min(2 * bits, prec.max_bits)
    data = pair.to_json(prec.digits)
    out.tail = pair
    P = data["attention_limit"]  # P* = I
    dist = float(pair.distance.mid())
    if out.theorem == "8.5":
        out.verdict = Verdict.REFUTED
        out.evidence = {"entry": [0, 1], "attention_limit": P}
        out.reason = ("Lemma S1: P(t) → I exactly, so P*_01 = 0 ≠ 1/2: Theorem 8.5's "
                      "P → (1/n)·ones fails")
    elif out.theorem == "4.2" and len(inst.V) != 1:
        out.reason = ("Lemma S1 solves the pair, but with V = λI and d ≥ 2 Theorem 4.2's "
                      "conclusion is undefined (no simple dominant eigenvalue)")
    else:
        out.verdict = Verdict.CERTIFIED
        out.limit = {"clusters": [{"members": [i], "center": c}
                                  for i, c in enumerate(data["limits_z"])],
                     "attention_limit": P, "attention_rank": 2}
        out.reason = (f"Lemma S1 (symmetric pair, solved exactly to t = ∞): the two tokens "
                      f"converge to distinct points {dist:.3g} apart, each a vertex of their "
                      "hull, and P → I")


def _run_symmetric_triple(out: Verification, job: Job) -> None:
    """d = 1, tokens {−a, 0, a}, V, QK > 0: Lemma S2 solves them exactly to t = ∞ (no
    integration). The limits −a', 0, a' are distinct; the outer rows of P* are the tokens'
    own unit vectors and the middle row is (1/3, 1/3, 1/3). So 2.1 (one exceptional row),
    3.1 (±a' ∈ ∂K, and 0), 4.2 (limits in {a, 0, b}) and 5.2 are certified; 8.5 is
    refuted (P*_ij = 0 ≠ 1/3 in an outer row)."""
    inst, prec = job.instance, job.precision
    tri = symmetric_triple_limit(inst, prec.lemma_bits)
    data = tri.to_json(prec.digits)
    out.tail = tri
    P = data["attention_limit"]
    if out.theorem == "8.5":
        i = next(k for k, row in enumerate(inst.X0) if row[0] != 0)
        j = next(k for k in range(3) if k != i)
        out.verdict = Verdict.REFUTED
        out.evidence = {"entry": [i, j], "attention_limit": P}
        out.reason = (f"Lemma S2: P*_{i}{j} = 0 ≠ 1/3 (an outer token ends up attending to "
                      "itself only): Theorem 8.5's P → (1/n)·ones fails")
        return
    out.verdict = Verdict.CERTIFIED
    out.limit = {"clusters": [{"members": [i], "center": c}
                              for i, c in enumerate(data["limits_z"])],
                 "attention_limit": P, "attention_rank": 3}
    out.reason = ("Lemma S2 (odd-symmetric triple, solved exactly to t = ∞): the outer tokens "
                  "converge to ±a·e^{−J(u₀)}, the middle one stays at 0 and attends "
                  "uniformly (the one exceptional row of Theorem 2.1; P* has rank 3)")


def _run_two_tokens(out: Verification, job: Job, reading: tuple[str, dict]) -> None:
    """Theorem 4.2 with two tokens outside Definition 4.1(i): Lemma S3 at t = 0 (no
    integration). Tied (a simple λ₁ > 0 among the largest moduli) and complex (one pair,
    Re λ₁ > 0): the coordinates converge, certified; negative (one simple λ₁ < 0), V
    Hurwitz, (B + Bᵀ)/2 ≻ 0: |φ₁*(z₁) − φ₁*(z₂)| grows like e^{gt}, refuted."""
    s3, why = two_tokens(job.instance, job.precision.digits, reading)
    if s3 is None:
        out.reason = why
        return
    out.tail = s3
    if s3.case == "negative":
        out.verdict = Verdict.REFUTED
        g = s3.data["growth_exponent_lower"]  # a decimal string
        out.evidence = {"statement": S3_DIVERGES, "growth_exponent_lower": g}
        out.reason = (f"Lemma S3 (two tokens, λ₁ = {s3.data['lambda1']} < 0 of largest "
                      f"modulus, V Hurwitz): |φ₁*(z₁(t)) − φ₁*(z₂(t))| ≥ |w₀|e^(gt) with "
                      f"g ≥ {g}, so φ₁*(z_i) does not converge")
        return
    out.verdict = Verdict.CERTIFIED
    out.limit = {"statement": S3_CONVERGES[s3.case]}
    what = ("reading R1: φ₁ for the simple λ₁ = {} > 0 among the eigenvalues tied in "
            "modulus; the other tied coordinates are not claimed".format(s3.data["lambda1"])
            if s3.case == "tied" else "reading R2: the complex pair of largest modulus, "
            "Re λ₁ > 0, read in its real plane")
    out.reason = (f"Lemma S3 (two tokens; {what}): each token's coordinate converges, to "
                  "at most two values")


def _run_stationary(out: Verification, job: Job) -> None:
    """V(z_j − z_i) = 0 for all tokens: Lemma S0, z(t) ≡ z(0) exactly (no integration); the
    verdict from the exact limits by :func:`~certified.tail.s0_stationary.stationary_verdict`."""
    inst, prec = job.instance, job.precision
    sv = stationary_verdict(inst, out.theorem)
    out.tail = stationary_limit(inst, prec.lemma_bits)
    out.verdict = Verdict(sv.verdict)
    out.limit, out.evidence, out.reason = sv.limit, sv.evidence, sv.reason
