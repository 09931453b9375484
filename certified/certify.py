"""The verifier: integrate with enclosures until a tail lemma holds, then judge a claim.

:func:`certify` runs the validated integrator (:mod:`certified.flow`) and, at regular
times, tries the tail lemma that fits the instance (:mod:`certified.tail`). When the
lemma's hypotheses are verified at some time T its conclusions bound the whole future,
and the theorem's *conclusion* is judged from them: ``certified`` (proved for this
instance), ``refuted`` (proved false for this instance) or ``undecided`` (neither within
the budget of time, precision and wall-clock). The verdict never depends on whether the
theorem's hypotheses hold; ``hypotheses_hold`` (decided exactly by
:func:`certified.regimes.classify`) is reported next to it.

Which lemma applies (``proofs_notes/tail.md``):

* V = λI with λ > 0, continuous time — Lemma T4 (leader–follower), any B;
* V = −μI with μ > 0 and B symmetric positive definite — Lemma T6 (energy bound);
* anything else — no tail lemma is implemented yet; the verdict is ``undecided`` and
  says so.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field as dc_field
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .arith import get_backend
from .arith.base import Backend
from .errors import InputError
from .exact import inertia, sym_part
from .flow import Trajectory, enclose_trajectory
from .geometry import excludes_origin, exposing_functional
from .instance import Discrete, Instance
from .numbers import bounds_to_json, decimal_ceil, fraction_to_str, to_fraction
from .projected import ProjectedBound, find_norm, projected_groups
from .sets import LohnerSet
from .tail import (Box, LeaderFollowerBound, NormBound, leader_follower, leader_map_from_points,
                   norm_bound_contracting, round_box)

__all__ = ["THEOREMS", "Verification", "certify"]

THEOREMS = ("2.1", "3.1", "4.2", "5.2", "8.5")

#: Extra significant digits kept in the boxes handed to the tail lemmas (and stored).
GUARD_DIGITS = 10


@dataclass
class Verification:
    """The outcome of :func:`certify` (serialized by :mod:`certified.certificate`).

    Attributes
    ----------
    theorem : str
        The theorem whose conclusion was judged.
    hypotheses_hold : bool
        Exact verdict on its hypotheses.
    verdict : {"certified", "refuted", "undecided"}
    reason : str
        Why, in words (what was proved, or what could not be).
    limit : dict or None
        The spec's theorem-specific limit data when the verdict is ``certified`` (and,
        for information, whenever a tail lemma held).
    evidence : dict or None
        For ``refuted``: the proved fact that contradicts the conclusion.
    tail : LeaderFollowerBound or NormBound or None
        The verified tail lemma, if any.
    trajectory : Trajectory or None
        The validated run that produced the enclosure at T.
    """

    instance: Instance
    theorem: str
    hypotheses_hold: bool
    verdict: str
    reason: str
    digits: int
    backend: str
    limit: dict | None = None
    evidence: dict | None = None
    tail: LeaderFollowerBound | NormBound | ProjectedBound | None = None
    trajectory: Trajectory | None = None
    timescale: dict | None = None
    attempts: list[str] = dc_field(default_factory=list)
    wall_seconds: float = 0.0
    #: The Lohner set at T whose boxes the tail lemma checked (None: the final set).
    lemma_set: Any = None


# -- instance structure ---------------------------------------------------------------------

def _sym_pd(M: list[list[Fraction]]) -> bool:
    d = len(M)
    if any(M[i][j] != M[j][i] for i in range(d) for j in range(d)):
        return False
    return inertia(sym_part(M)).positive == d


def _auto_theorem(inst: Instance, report: Any) -> str:
    for t in ("2.1", "3.1", "5.2", "4.2", "8.5"):
        if report.theorems[t].hypotheses_hold:
            return t
    lam = inst.scalar_V
    if lam is not None and lam < 0:
        return "8.5"
    return "3.1" if lam is not None else "4.2"


# -- Lemma T4 on a Lohner set ------------------------------------------------------------------

def _difference_matrix(bk: Backend, n: int, d: int, leader: list[int]) -> tuple[np.ndarray, list[int]]:
    followers = [j for j in range(n) if leader[j] != j]
    M = bk.zeros((len(followers) * d, n * d))
    one = bk.const(Fraction(1))
    for r, j in enumerate(followers):
        for c in range(d):
            M[r * d + c, j * d + c] = one
            M[r * d + c, leader[j] * d + c] = -one
    return M, followers


def try_leader_follower(bk: Backend, inst: Instance, lam: Fraction, t: Fraction,
                        S: LohnerSet, digits: int) -> tuple[LeaderFollowerBound | None, str]:
    """Lemma T4 at time t on the set S (z-coordinates): leader map from the centre's
    scores, boxes and *direct* difference enclosures from S, rounded outward to
    ``digits + GUARD_DIGITS`` significant digits before the check."""
    n, d = inst.n, inst.d
    leader, why = leader_map_from_points(bk.float_array(S.c).reshape(n, d), inst.B)
    if leader is None:
        return None, why
    keep = digits + GUARD_DIGITS
    box = S.box(bk).reshape(n, d)
    boxes = [[checkable_box(bk, box[i, c], keep) for c in range(d)] for i in range(n)]
    M, followers = _difference_matrix(bk, n, d, leader)
    diffs: dict[int, list] = {}
    if followers:
        E = S.linear_image(M, bk).reshape(len(followers), d)
        diffs = {j: [checkable_box(bk, E[r, c], keep) for c in range(d)]
                 for r, j in enumerate(followers)}
    return leader_follower(bk, lam, inst.B, t, boxes, diffs, leader)


def checkable_box(bk: Backend, v: object, keep: int) -> tuple[Fraction, Fraction]:
    """The interval v widened by 1/8 of its radius (+ 2^-(4·keep)) and rounded outward to
    ``keep`` significant digits: the box a certificate stores and a tail lemma checks.

    Why the 1/8: an independent checker (:mod:`certified.checker`) replays the steps in
    its own arithmetic and must find its own enclosure inside the stored box; its
    rounding differs from Arb's, so an exact copy of this run's box would leave it no
    room. The widening costs a factor 9/8 on the lemma's input radii, nothing else.
    """
    lo, hi = bk.bounds(v)
    slack = (hi - lo) / 16 + Fraction(1, 2 ** (4 * keep))
    return round_box(lo - slack, hi + slack, keep)


# -- judging a theorem's conclusion from Lemma T4 ----------------------------------------------

def _center_json(b: list, digits: int) -> list[list[str]]:
    return [bounds_to_json(lo, hi, digits) for lo, hi in b]


def _clusters_json(inst: Instance, lf: LeaderFollowerBound, digits: int) -> list[dict]:
    out = []
    cl = lf.clusters
    boxes = lf.centers
    for idx, (k, members) in enumerate(cl):
        # Lemma T4 (iv): a = Bᵀ c_k exposes c_k; verified again on the centre boxes (G1).
        mid = [(lo + hi) / 2 for lo, hi in boxes[idx]]
        hint = [sum(inst.B[r][c] * mid[r] for r in range(inst.d)) for c in range(inst.d)]
        functional = exposing_functional(idx, boxes, hint)
        if len(cl) >= 2 or excludes_origin(boxes[idx]):
            zero: Any = False  # T4 (iv): centres are non-zero when there are ≥ 2 clusters
        else:
            zero = "undecided"
        item = {"leader": k, "members": members, "center": _center_json(boxes[idx], digits),
                "is_hull_vertex": True if functional is not None else "undecided",
                "is_zero": zero}
        if functional is not None and len(cl) >= 2:
            # Lemma G1's witness, so that a checker re-verifies the claim exactly.
            item["exposing_functional"] = [fraction_to_str(x) for x in functional]
        out.append(item)
    return out


def _lf_limit(inst: Instance, lf: LeaderFollowerBound, digits: int) -> dict:
    P = lf.attention_limit()
    return {"clusters": _clusters_json(inst, lf, digits), "attention_limit": P,
            "attention_rank": len(lf.clusters),
            "rate": {"statement": "for t >= T: |P_ij(t) - P*_ij| <= (n-1) exp(-c e^{lambda t})",
                     "c_lower_bound": lf.to_json(digits)["rate_constant"]}}


def _rows_outside(lf: LeaderFollowerBound, allowed: set[int]) -> list[int]:
    return [i for i, k in enumerate(lf.leader) if k not in allowed]


def _judge_lf(theorem: str, inst: Instance, lf: LeaderFollowerBound, digits: int
              ) -> tuple[str, str, dict | None, dict | None]:
    """(verdict, reason, limit, evidence) for a theorem's conclusion, given Lemma T4."""
    n, d = inst.n, inst.d
    limit = _lf_limit(inst, lf, digits)
    clusters = lf.clusters
    T = lf.T
    if theorem in ("3.1", "5.2"):
        return ("certified", f"Lemma T4 holds at T = {T}: every token converges to the limit "
                f"of its leader; the {len(clusters)} limits are vertices of their hull "
                f"(exposed by Bᵀc_k, T4 (iv))", limit, None)
    if theorem == "2.1":
        if d == 1:
            xs = [inst.X0[i][0] for i in range(n)]
            extremes = {xs.index(min(xs)), xs.index(max(xs))}
        else:  # "two leaders": the two most populated clusters
            sizes = sorted(clusters, key=lambda c: -len(c[1]))
            extremes = {k for k, _ in sizes[:2]}
        bad = _rows_outside(lf, extremes)
        limit = dict(limit, leaders=sorted(set(lf.leader)),
                     rate_constant=limit["rate"]["c_lower_bound"])
        if len(bad) <= 1:
            return ("certified", f"Lemma T4 holds at T = {T}: P(t) → P* Boolean with rows "
                    f"e_l for l in {sorted(extremes)} (except at most one row), "
                    f"rank {len(clusters)}, doubly-exponential rate", limit, None)
        return ("refuted", f"Lemma T4 holds at T = {T}: rows {bad} of P* attend to tokens "
                f"other than {sorted(extremes)}; P* has rank {len(clusters)}", None,
                {"attention_limit": lf.attention_limit(), "attention_rank": len(clusters),
                 "rows_outside_two_leaders": bad, "clusters": limit["clusters"]})
    if theorem == "4.2":
        if d != 1:
            return ("undecided", "Theorem 4.2's conclusion needs a simple dominant "
                    "eigenvalue; V = λI_d with d ≥ 2 has none (φ₁* is not defined)",
                    None, None)
        cl_of = {k: idx for idx, (k, _) in enumerate(clusters)}
        coord = [_center_json(lf.centers[cl_of[lf.leader[i]]], digits) for i in range(n)]
        values = [_center_json(b, digits) for b in lf.centers]
        lim = dict(limit, coordinate_limits=[c[0] for c in coord],
                   hyperplane_values=[v[0] for v in values])
        if len(clusters) <= 2:
            return ("certified", f"Lemma T4 holds at T = {T}: φ₁*(z_i) = z_i converges to "
                    f"{len(clusters)} value(s), the limits of min and max", lim, None)
        return ("refuted", f"{len(clusters)} distinct non-zero limits (T4 (iv))", None,
                {"hyperplane_values": [v[0] for v in values]})
    if theorem == "8.5":
        off = [(i, j) for i in range(n) for j in range(n) if lf.leader[i] != j]
        if n >= 2 and off:
            i, j = off[0]
            return ("refuted", f"Lemma T4 holds at T = {T}: P(t) → P* with P*[{i}][{j}] = 0, "
                    f"not 1/{n}; tokens do not all tend to 0", None,
                    {"attention_limit": lf.attention_limit(), "entry": [i, j],
                     "clusters": limit["clusters"]})
        return ("undecided", "n = 1: P = (1) trivially", None, None)
    raise InputError("theorem", f"{theorem!r} is not a theorem", "one of " + ", ".join(THEOREMS))


# -- the driver ------------------------------------------------------------------------------

def certify(instance: Instance, theorem: str = "auto", *, digits: int = 30,
            t_max: Fraction | int | str = 8, max_seconds: float | None = 120.0,
            backend: str = "flint", check_every: Fraction = Fraction(1, 8),
            max_bits: int | None = None, refine_seconds: float | None = None,
            progress: bool = False) -> Verification:
    """Certify or refute a theorem's limit statement on ``instance``.

    Parameters
    ----------
    instance : Instance
    theorem : {"2.1", "3.1", "4.2", "5.2", "8.5", "auto"}
        "auto" picks the first theorem whose hypotheses hold (else by the form of V).
    digits : int
        Working precision of the integration (decimal digits).
    t_max : number
        Latest time T at which a tail lemma may be tried.
    max_seconds : float or None
        Wall-clock budget for the integration.
    backend : {"flint", "mpmath"}
    check_every : Fraction
        Try the tail lemma whenever t has advanced by this much.
    max_bits : int, optional
        Precision cap for the integrator's escalation.
    refine_seconds : float, optional
        After the first time a tail lemma holds, keep integrating (for tighter limits,
        until δ₀ ≤ 10^-digits) for at most this long; default: as long again as the
        first success took, plus 5 s. 0 stops at the first success.

    Returns
    -------
    Verification
    """
    from .regimes import classify

    if theorem not in THEOREMS + ("auto",):
        raise InputError("theorem", f"{theorem!r} is not a theorem",
                         "one of 2.1, 3.1, 4.2, 5.2, 8.5, auto")
    tmax = to_fraction(t_max, "t_max")
    if tmax <= 0:
        raise InputError("t_max", f"{tmax} is not positive", "a number > 0")
    if instance.variant is not None:
        raise InputError("variant", "the theorems' limit statements are about the paper's "
                         "dynamics, not the open variants",
                         "an instance without 'variant' (simulate the variant instead)")
    if digits < 5:
        raise InputError("digits", f"{digits} is too small", "digits >= 5")
    report = classify(instance)
    thm = _auto_theorem(instance, report) if theorem == "auto" else theorem
    hyp = report.theorems[thm].hypotheses_hold
    out = Verification(instance, thm, hyp, "undecided", "", digits, backend)
    t0 = _time.perf_counter()
    lam = instance.scalar_V
    if isinstance(instance.time, Discrete):
        out.reason = ("no tail lemma for discrete time is implemented: nothing about "
                      "k → ∞ is proved (use `certified simulate` for finite depth)")
    elif lam is not None and lam > 0:
        _run_leader_follower(out, instance, lam, tmax, digits, backend, max_seconds,
                             check_every, max_bits, progress, refine_seconds)
    elif lam is not None and lam < 0 and _sym_pd(instance.B):
        _run_energy(out, instance, -lam, tmax, digits, backend, max_seconds, max_bits,
                    progress)
    elif lam is None and thm in ("4.2", "5.2"):
        from .paranormal import paranormal_split

        split, why8 = paranormal_split(instance.V, instance.B) if thm == "5.2" else (None, "")
        if split is not None:
            _run_paranormal(out, instance, split, tmax, digits, backend, max_seconds,
                            check_every, max_bits, progress, refine_seconds)
        else:
            _run_projected(out, instance, tmax, digits, backend, max_seconds, check_every,
                           max_bits, progress, refine_seconds)
            if thm == "5.2" and out.verdict == "undecided":
                out.reason = f"Lemma T8 does not apply ({why8}); Lemma T7: {out.reason}"
    else:
        out.reason = ("no tail lemma is implemented for this V and B (implemented: "
                      "V = λI with λ > 0, any B; V = −μI with B symmetric positive "
                      "definite; Theorem 4.2's coordinate for a simple dominant λ₁ > 0; "
                      "Theorem 5.2 for a paranormal V); the conclusion about t → ∞ is not "
                      "proved")
    out.wall_seconds = _time.perf_counter() - t0
    return out


class _LemmaSchedule:
    """The ``until`` predicate of a certify run: try a tail lemma every ``check_every``
    on the validated enclosure, remember the first and the latest success, and after the
    first success keep integrating (for tighter limits) until ``good_enough`` holds or
    the refinement budget — as long again as the first success took, plus 5 s, unless
    ``refine_seconds`` is given — is spent."""

    def __init__(self, try_lemma: Callable[[Fraction, np.ndarray, LohnerSet],
                                           tuple[Any, str]],
                 good_enough: Callable[[Any], bool], check_every: Fraction,
                 first_check: Fraction, refine_seconds: float | None) -> None:
        self.try_lemma, self.good_enough = try_lemma, good_enough
        self.check_every, self.first_check = check_every, first_check
        self.refine_seconds = refine_seconds
        self.next, self.last_t = first_check, Fraction(-1)
        self.start = _time.perf_counter()
        self.refine_until: float | None = None
        self.first: Any = None
        self.last: Any = None
        self.last_set: LohnerSet | None = None  # the set whose box the lemma used
        self.why = ""

    def __call__(self, t: Fraction, box: np.ndarray, S: LohnerSet) -> bool:
        if t < self.last_t:  # the driver restarted at higher precision
            self.next = self.first_check
        self.last_t = t
        if self.refine_until is not None and _time.perf_counter() >= self.refine_until:
            return True  # refinement budget spent: report the last success
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
            now = _time.perf_counter()
            extra = (now - self.start) + 5 if self.refine_seconds is None else self.refine_seconds
            self.refine_until = now + extra
        self.last, self.last_set = result, S
        if _time.perf_counter() >= self.refine_until:
            return True
        return self.good_enough(result)


def _integrate(out: Verification, inst: Instance, until: _LemmaSchedule, lemma: str,
               variable: str, tmax: Fraction, digits: int, backend: str,
               max_seconds: float | None, max_bits: int | None, progress: bool) -> bool:
    """Integrate (in ``variable``, "z" or "x") under the lemma schedule ``until``; store
    the run and the latest lemma success in ``out``. False (verdict undecided, with the
    reason) if the lemma never held."""
    traj = enclose_trajectory(inst, tmax, digits=digits, backend=backend, variable=variable,
                              coordinates=variable, until=until, max_seconds=max_seconds,
                              max_bits=max_bits, progress=progress, times=[0])
    out.trajectory = traj
    out.attempts = list(getattr(traj, "attempts", []))
    # A success in a run that was later abandoned for more precision is still proved:
    # its boxes came from validated steps.
    if until.last is None:
        out.verdict = "undecided"
        out.reason = (f"Lemma {lemma} could not be verified up to t = {traj.certified_until} "
                      f"(certified enclosures up to there; budget: t_max = {tmax}, "
                      f"{max_seconds} s); last attempt {until.why or 'none'}")
        return False
    out.tail = until.last
    out.lemma_set = until.last_set
    return True


def _timescale(lemma: str, first_T: Fraction, used_T: Fraction, check_every: Fraction,
               refined_while: str, **extra: str) -> dict:
    """Remark 3.3's timescale of a lemma run: the first check time at which the lemma
    held, and the (later, refined) time whose lemma is reported."""
    return {"T_first": str(first_T), "T_first_float": float(first_T), "T_used": str(used_T),
            **extra,
            "meaning": f"T_first: first check time at which Lemma {lemma}'s hypotheses held "
                       f"(checks every {check_every}); T_used: the time of the lemma "
                       f"reported (integration continued while {refined_while}, within "
                       "the budget)"}


def _run_leader_follower(out: Verification, inst: Instance, lam: Fraction, tmax: Fraction,
                         digits: int, backend: str, max_seconds: float | None,
                         check_every: Fraction, max_bits: int | None, progress: bool,
                         refine_seconds: float | None = None) -> None:
    bk = get_backend(backend)
    target = Fraction(1, 10 ** digits)
    # Keep integrating while the lemma's own bound δ₀ on the leaders' motion is wider
    # than the target: every later success gives a tighter ball around the limits.
    until = _LemmaSchedule(lambda t, box, S: try_leader_follower(bk, inst, lam, t, S, digits),
                           lambda lf: lf.delta0 <= target, check_every, check_every,
                           refine_seconds)
    if not _integrate(out, inst, until, "T4", "z", tmax, digits, backend, max_seconds,
                      max_bits, progress):
        return
    lf: LeaderFollowerBound = until.last
    first: LeaderFollowerBound = until.first
    out.timescale = _timescale("T4", first.T, lf.T, check_every, "δ₀ > 10^-digits",
                               delta0_at_first=decimal_ceil(first.delta0, 6),
                               delta0_at_T_used=decimal_ceil(lf.delta0, 6))
    out.verdict, out.reason, out.limit, out.evidence = _judge_lf(out.theorem, inst, lf,
                                                                 digits)


def dominant_interval(inst: Instance, bits: int = 256, spectrum: Any = None
                      ) -> tuple[Box | None, str]:
    """An isolating rational interval of the unique dominant eigenvalue of V, when it
    is real, simple and positive (decided exactly by :class:`~certified.spectrum.Spectrum`;
    pass ``spectrum`` to reuse one already built for V).
    """
    from .balls import arb_bounds
    from .spectrum import Spectrum

    sp = spectrum if spectrum is not None else Spectrum(inst.V)
    ev = sp.dominant.positive_real
    if ev is None:
        return None, ("the eigenvalue of largest modulus is not unique, real and positive: "
                      "φ₁* (Theorem 4.2's coordinate) is not defined")
    if ev.multiplicity != 1:
        return None, "the dominant eigenvalue is not simple: φ₁* is not defined"
    lo, hi = arb_bounds(sp._refined_real(ev, bits))
    keep = bits * 3 // 10
    # A rational λ₁ comes as an exact point: Lemma T7 wants an interval with a sign change.
    tiny = Fraction(1, 2 ** bits) * (1 + abs(hi))
    return round_box(lo - tiny, hi + tiny, keep), ""


def _run_projected(out: Verification, inst: Instance, tmax: Fraction, digits: int,
                   backend: str, max_seconds: float | None, check_every: Fraction,
                   max_bits: int | None, progress: bool, refine_seconds: float | None) -> None:
    """Theorem 4.2 for V ≠ λI: integrate in x and try Lemma T7 every ``check_every``."""
    from .spectrum import Spectrum

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
    with bk.workprec(256):
        S, why = find_norm(bk, inst.V, lam_box)
    if S is None:
        out.reason = why + "; no tail lemma applies"
        return
    cands = [S]
    keep = digits + GUARD_DIGITS

    def attempt(t: Fraction, box: np.ndarray, S: LohnerSet) -> tuple[Any, str]:
        boxes = [[checkable_box(bk, box[i, c], keep) for c in range(inst.d)]
                 for i in range(inst.n)]
        with bk.workprec(4 * keep):
            return projected_groups(bk, inst.V, inst.B, lam_box, t, boxes, cands)

    # Refine while a group's limit interval is wider than the target.
    target = Fraction(1, 10 ** digits)
    until = _LemmaSchedule(attempt, lambda pb: all(hi - lo <= target
                                                   for lo, hi in pb.limits.values()),
                           check_every, Fraction(0), refine_seconds)
    if not _integrate(out, inst, until, "T7", "x", tmax, digits, backend, max_seconds,
                      max_bits, progress):
        return
    pb: ProjectedBound = until.last
    first: ProjectedBound = until.first
    out.timescale = _timescale("T7", first.T, pb.T, check_every,
                               "a group's limit interval was wider than 10^-digits")
    values = [bounds_to_json(lo, hi, digits) for _, (lo, hi) in sorted(pb.limits.items())]
    group_of = {i: g for g, members in pb.groups.items() for i in members}
    coord = [bounds_to_json(*pb.limits[group_of[i]], digits) for i in range(inst.n)]
    out.limit = {"coordinate_limits": coord, "hyperplane_values": values,
                 "functional": {"psi": [bounds_to_json(lo, hi, digits) for lo, hi in pb.psi],
                                "meaning": "ψ = row " + str(pb.row) + " of the spectral "
                                "projector onto ker(V − λ₁I) (a non-zero multiple of φ₁*); "
                                "the hyperplanes are {z : ψ(z) = value}"},
                 "groups": pb.groups,
                 "cross_group_rate": {"statement": "for t >= T and i, l in different groups: "
                                      "P_il(t) <= exp(-m e^{2 lambda1 (t - T)})",
                                      "m": None if pb.m is None else str(pb.m)},
                 "not_proved": "the other coordinates of z_i (they may diverge), the limit "
                               "of P within a group, and a rate of convergence within a group"}
    out.verdict = "certified"
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


def _run_paranormal(out: Verification, inst: Instance, split: Any, tmax: Fraction,
                    digits: int, backend: str, max_seconds: float | None,
                    check_every: Fraction, max_bits: int | None, progress: bool,
                    refine_seconds: float | None) -> None:
    """Theorem 5.2 with dim F ≥ 2: integrate in x and try Lemma T8 every ``check_every``."""
    from .paranormal import ParanormalBound, try_paranormal

    bk = get_backend(backend)
    target = Fraction(1, 10 ** digits)

    def attempt(t: Fraction, box: np.ndarray, S: LohnerSet) -> tuple[Any, str]:
        with bk.workprec(4 * (digits + GUARD_DIGITS)):
            return try_paranormal(bk, split, inst.n, t, S, digits)

    until = _LemmaSchedule(attempt, lambda pb: pb.lf.delta0 <= target, check_every,
                           check_every, refine_seconds)
    if not _integrate(out, inst, until, "T8", "x", tmax, digits, backend, max_seconds,
                      max_bits, progress):
        return
    pb: ParanormalBound = until.last
    first: ParanormalBound = until.first
    lf = pb.lf
    out.timescale = _timescale("T8", first.T, pb.T, check_every, "δ₀ > 10^-digits",
                               delta0_at_T_used=decimal_ceil(lf.delta0, 6))
    clusters = []
    cl = lf.clusters
    for idx, (k, members) in enumerate(cl):
        box = lf.centers[idx]
        item: dict[str, Any] = {
            "leader": k, "members": members,
            "center": _center_json(pb.f_component(idx), digits),
            "center_F_coordinates": _center_json(box, digits),
            "is_hull_vertex": True,
            "is_zero": False if len(cl) >= 2 or excludes_origin(box) else "undecided"}
        if len(cl) >= 2:
            mid = [(lo + hi) / 2 for lo, hi in box]
            f = split.dim_f
            hint = [sum(split.BFF[r][c] * mid[r] for r in range(f)) for c in range(f)]
            functional = exposing_functional(idx, lf.centers, hint)
            if functional is None:
                item["is_hull_vertex"] = "undecided"
            else:
                item["exposing_functional"] = [fraction_to_str(a) for a in functional]
        clusters.append(item)
    out.limit = {
        "clusters": clusters,
        "attention_limit": lf.attention_limit(), "attention_rank": len(cl),
        "rate": {"c_lower_bound": lf.to_json(digits)["rate_constant"],
                 "statement": "for t >= T: |P_ij(t) - P*_ij| <= (n-1) exp(-c e^{lambda t})"},
        "F": f"ker(V - {split.lam}I), dimension {split.dim_f} (columns 1..{split.dim_f} of "
             "tail_lemma.basis); centre = the F-component of the limit (along G), "
             "center_F_coordinates = the same in that basis (the exposing functionals act "
             "on these)",
        "not_proved": "the G-components of z_i (free in Theorem 5.2)"}
    out.verdict = "certified"
    out.reason = (f"Lemma T8 holds at T = {pb.T}: the F-components converge to {len(cl)} "
                  f"point(s), the limits of the leaders, each a vertex of their hull K; "
                  "P(t) → P* Boolean")


def _run_energy(out: Verification, inst: Instance, mu: Fraction, tmax: Fraction, digits: int,
                backend: str, max_seconds: float | None, max_bits: int | None,
                progress: bool) -> None:
    bk = get_backend(backend)
    traj = enclose_trajectory(inst, tmax, digits=digits, backend=backend, variable="x",
                              coordinates="x", max_seconds=max_seconds, max_bits=max_bits,
                              progress=progress, times=[0])
    out.trajectory = traj
    T = traj.certified_until
    box = traj.final_box()
    with bk.workprec(128):
        if T == 0 or box is None:
            X = [[(x, x) for x in row] for row in inst.X0]
        else:
            X = [[round_box(*bk.bounds(v), digits + GUARD_DIGITS) for v in row] for row in box]
        nb = norm_bound_contracting(bk, mu, inst.B, T, X)
    out.tail = nb
    out.timescale = {"T": str(T), "T_float": float(T),
                     "meaning": "time of the enclosure the energy lemma T6 starts from"}
    proved = {"sup_{t>=T} max_i x_i^T B x_i <=": bounds_to_json(Fraction(0), nb.qmax, digits)[1],
              "for t >= T": "x_i(t)^T B x_i(t) <= log n + (q_i(T) - log n)^+ e^{-2 mu (t - T)}",
              "T": str(T)}
    out.limit = {"proved": proved}
    if out.theorem == "8.5":
        out.reason = ("Lemma T6 proves the bound on sup_{t ≥ T} ‖x_i(t)‖_B and exponential "
                      "entry into the ball of radius √(log n); no lemma proves ‖x_i‖ → 0, so "
                      "the t = ∞ statement stays undecided")
    else:
        out.reason = ("V = −μI: only Lemma T6 (a norm bound) applies; the conclusion of "
                      f"Theorem {out.theorem} about t → ∞ is not proved")
