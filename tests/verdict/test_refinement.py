"""The refinement after a first verdict (:func:`certified.verdict.schedule.refine`).

What must hold: refining never loses the verdict (a wall-clock cap during the refinement
returns the first success's certificate, byte for byte the ``refine_t=0`` one); it stops
once the bound stops tightening, and after at most as many steps as the first verdict
took; the reported success is the one with the smallest bound, and the certificate ends
at it; the continued enclosure contains an independent mpmath solution.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import mpmath
import pytest

import certified.verdict.schedule as schedule
from certified import Instance
from certified.checker import check_certificate
from certified.approx.midpoint import approx_trajectory_mp
from certified.cli import main
from certified.enclose.arith import get_backend
from certified.enclose.driver import continue_trajectory, enclose_trajectory
from certified.precision import Precision
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify
from certified.verdict.schedule import PATIENCE, LemmaSchedule

EX = Path(__file__).resolve().parents[2] / "examples"
bk = get_backend("flint")

#: |λ₂| = 0.999999 against λ₁ = 1: Lemma T7's limit intervals shrink by ≈ 0.85 per check,
#: so they cannot reach 10^-12 (the instance of the issue that made refinement slow).
NEAR_TIE = {"V": [["1", "0"], ["0", "-999999/1000000"]], "Q": [["1", "0"], ["0", "1"]],
            "K": [["1", "0"], ["0", "1"]],
            "X0": [["1", "1/2"], ["-1", "1/3"], ["2", "-1/2"], ["-3/2", "-1"]]}


def _checked(v) -> dict:
    cert = to_certificate(v)
    report = check_certificate(json.loads(json.dumps(cert)))
    assert report.valid, report.message
    return cert


# -- the schedule on scripted bounds --------------------------------------------------------

def _scripted(bounds: list[F | None], target: F = F(1, 10 ** 6)) -> tuple[LemmaSchedule, list]:
    """A schedule whose lemma returns the given bounds at t = 1, 2, 3, ... (None: fails);
    returns the schedule and the predicate's answers."""
    it = iter(bounds)

    def attempt(t, box, S):
        b = next(it)
        return (None, "scripted failure") if b is None else ({"T": t, "bound": b}, "")

    s = LemmaSchedule(attempt, lambda r: r["bound"], target, F(1), F(1))
    answers: list[bool] = []
    for k in range(len(bounds)):  # as the driver: the first run, then the continuation
        answers.append(s(F(k + 1), None, f"set{k + 1}"))
        if answers.count(True) == 2:
            break
    return s, answers


def test_the_first_success_ends_the_run_that_found_it():
    s, answers = _scripted([None, None, F(1, 3)])
    assert answers == [False, False, True]
    assert s.first == s.last == {"T": 3, "bound": F(1, 3)} and s.last_set == "set3"
    assert s.wants_refinement()


def test_no_refinement_when_the_first_bound_meets_the_target():
    s, _ = _scripted([F(1, 10 ** 7)])
    assert not s.wants_refinement()


def test_refinement_stops_at_the_target_and_reports_it():
    s, answers = _scripted([F(1), F(1, 4), F(1, 10 ** 6)])
    assert answers == [True, False, True]
    assert s.last["bound"] == F(1, 10 ** 6) and s.last_t_success == 3
    assert "reached 10^-digits" in s.ended


def test_refinement_stops_after_patience_successes_without_halving():
    # 1 → 1/4 → 1/10 halve (progress); 1/2, 1/3, 1/5 do not reach 1/20: three strikes
    bounds = [F(1), F(1, 4), F(1, 10), F(1, 2), F(1, 3), F(1, 5), F(1, 100)]
    s, answers = _scripted(bounds)
    assert PATIENCE == 3
    assert answers == [True, False, False, False, False, True]  # never asked for the 7th
    assert s.last["bound"] == F(1, 10) and s.last_set == "set3"  # the smallest, not the last
    assert s.last_t_success == 3 and "stopped tightening" in s.ended


def test_a_failed_check_is_not_a_strike_and_a_rise_keeps_the_best():
    # T4's δ₀ may rise for a check (a leader changes) before it falls
    bounds = [F(1), F(1, 4), None, F(3), F(1, 5), F(1, 10), F(1, 1000), F(1, 10 ** 6)]
    s, answers = _scripted(bounds)
    assert answers == [True, False, False, False, False, False, False, True]
    assert s.last["bound"] == F(1, 10 ** 6)


def test_the_best_is_the_earliest_among_equal_bounds():
    s, answers = _scripted([F(1), F(1, 3), F(1, 3), F(1, 3), F(1, 3)])
    assert answers == [True, False, False, False, True]
    assert s.last_t_success == 2


def test_keep_first_forgets_the_refinement():
    s, _ = _scripted([F(1), F(1, 4), F(1, 16)])
    assert s.last["bound"] == F(1, 16)
    s.keep_first()
    assert s.last == s.first and s.last_set == "set1" and s.last_t_success == 1


# -- certify --------------------------------------------------------------------------------

def test_near_tie_refinement_stops_when_the_limits_stop_tightening():
    inst = Instance.from_json(NEAR_TIE)
    first = certify(inst, "4.2", digits=12, refine_t=0)
    refined = certify(inst, "4.2", digits=12)
    assert first.verdict == refined.verdict == "certified"
    assert "stopped tightening" in refined.refinement
    n1 = len(first.trajectory.steps)
    assert n1 < len(refined.trajectory.steps) <= 2 * n1
    a, b = first.tail.limits, refined.tail.limits
    for g in a:  # two proved enclosures of one limit: they meet, the later is narrower
        (lo1, hi1), (lo2, hi2) = a[g], b[g]
        assert max(lo1, lo2) <= min(hi1, hi2)
        assert hi2 - lo2 < hi1 - lo1
    assert max(hi - lo for lo, hi in b.values()) > F(1, 10 ** 12)  # the target is far
    _checked(refined)


def test_a_cap_during_refinement_returns_the_first_verdict_byte_for_byte(monkeypatch):
    """The cap is simulated deterministically (a test never depends on wall-clock
    budgets): it is reached at the first step after the refinement's first success that
    improved on the first verdict, so that success has to be forgotten."""
    import certified.enclose.driver as driver
    from certified.enclose.deadline import WallClockCap

    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    real_continue, real_check = schedule.continue_trajectory, driver.check_deadline
    improved = []

    def capped_after_an_improvement(traj, end, **kwargs):
        until = kwargs["until"]

        def check(t=None):
            if until.last is not until.first:  # a better success is held: cap now
                improved.append(until.last_t_success)
                raise WallClockCap("the wall-clock cap (max_seconds) was reached", t=t)
            real_check(t)

        monkeypatch.setattr(driver, "check_deadline", check)
        try:
            return real_continue(traj, end, **kwargs)
        finally:
            monkeypatch.setattr(driver, "check_deadline", real_check)

    plain = certify(inst, "2.1", digits=15, t_max=2, refine_t=0)
    full = certify(inst, "2.1", digits=15, t_max=2)
    monkeypatch.setattr(schedule, "continue_trajectory", capped_after_an_improvement)
    cut = certify(inst, "2.1", digits=15, t_max=2)
    assert improved and improved[0] > plain.tail.T  # the cap came after a better success
    assert cut.verdict == "certified" and "cut by the wall-clock cap" in cut.refinement
    a, b = to_certificate(cut), to_certificate(plain)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["digest"] == b["digest"]
    assert to_certificate(full)["digest"] != a["digest"]  # the refinement did change it
    _checked(cut)


def test_refinement_takes_at_most_as_many_steps_as_the_first_verdict(monkeypatch):
    """With the tightening rule switched off, the step budget is what ends it."""
    monkeypatch.setattr(schedule, "PATIENCE", 10 ** 6)
    seen = []
    real = schedule.continue_trajectory

    def spy(traj, end, **kwargs):
        more = real(traj, end, **kwargs)
        seen.append((len(traj.steps), kwargs["max_steps"], len(more.steps), more.stop.kind))
        return more

    monkeypatch.setattr(schedule, "continue_trajectory", spy)
    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    v = certify(inst, "2.1", digits=40, t_max=3, refine_t=5)
    (n1, budget, total, kind), = seen
    assert budget == n1 and total - n1 <= n1
    assert kind == "step budget" and "step budget was spent" in v.refinement
    # the certificate ends at the best success, at or before the continuation's end
    assert v.trajectory.certified_until == v.tail.T and len(v.trajectory.steps) <= total
    _checked(v)


def test_discrete_refinement_is_bounded_by_refine_t_alone():
    """Layers have a fixed length and cost: no step budget, t ≤ T₁ + refine_t; the
    refined δ₀ is far tighter (Lemma T10's is doubly exponential in the layers)."""
    inst = Instance.load(EX / "discrete_layers.json")
    first = certify(inst, "3.1", digits=30, refine_t=0)
    v = certify(inst, "3.1", digits=30)
    assert v.refinement.startswith("the bound reached 10^-digits")
    assert first.tail.T < v.tail.T <= first.tail.T + 3
    assert v.tail.delta0 <= F(1, 10 ** 30) < first.tail.delta0
    _checked(v)


def test_max_steps_bounds_first_verdict_and_refinement_together():
    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    n1 = len(certify(inst, "2.1", digits=15, t_max=2, refine_t=0).trajectory.steps)
    v = certify(inst, "2.1", digits=15, t_max=2, max_steps=n1)
    assert v.verdict == "certified" and "no budget left" in v.refinement
    assert len(v.trajectory.steps) == n1


def test_the_refined_certificate_ends_at_the_reported_success():
    v = certify(Instance.load(EX / "thm2_1_one_dimensional.json"), "2.1", digits=15,
                t_max=2)
    cert = _checked(v)
    integ = cert["integration"]
    assert integ["certified_until"] == integ["replay"]["t_end"] == cert["timescale"]["T_used"]


# -- the continuation -----------------------------------------------------------------------

def test_continued_enclosure_contains_the_mpmath_solution_and_stays_narrow():
    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    prec = Precision.build(20)
    first = enclose_trajectory(inst, F(1, 2), precision=prec)
    more = continue_trajectory(first, F(1), precision=prec)
    assert more.steps[: len(first.steps)] == first.steps
    assert more.certified_until == 1 and more.stop.kind == "t_final"
    assert more.steps[len(first.steps)].t0 == F(1, 2)  # no gap at the seam
    ends = [s.t0 + s.h for s in more.steps]
    assert all(a == s.t0 for a, s in zip([F(0)] + ends, more.steps))
    with bk.workprec(more.bits):
        box = more.steps[-1].output_set.box(bk)
        oracle = approx_trajectory_mp(inst, 1, times=[1], digits=40,
                                      order=30).tokens[-1].reshape(-1)
        for enc, z in zip(box, oracle):
            lo, hi = bk.bounds(enc)
            with mpmath.workdps(60):  # a conversion exact enough for the comparison
                lo_m, hi_m = (mpmath.mpf(q.numerator) / q.denominator for q in (lo, hi))
                assert lo_m <= z <= hi_m
            assert hi - lo < F(1, 10 ** 20)


def test_continuation_refuses_an_empty_run_or_an_earlier_end():
    from dataclasses import replace

    from certified.errors import InputError

    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    prec = Precision.build(15)
    traj = enclose_trajectory(inst, F(1, 4), precision=prec)
    with pytest.raises(InputError, match="t_final"):
        continue_trajectory(traj, F(1, 8), precision=prec)
    with pytest.raises(InputError, match="no validated step"):
        continue_trajectory(replace(traj, steps=[]), F(1, 2), precision=prec)


def test_the_run_whose_lemma_held_is_the_result_of_an_escalation(monkeypatch):
    """Attempt 1 reaches t = 1 without a success and fails; attempt 2 (twice the bits)
    succeeds at t = 1/2: the driver returns attempt 2 (its steps end at the lemma's set),
    not the one that reached further."""
    import certified.enclose.driver as driver
    from certified.enclose.trajectory import StopReason, Trajectory

    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    prec = Precision.build(15)

    def fake(run, tf, bits, K, target, initial_box=None, until=None, **kw):
        if bits == prec.start_bits:
            return Trajectory(inst, "z", [], [], [], F(1), [], ["a"] * 3, bits, K, None,
                              stop=StopReason("validation", F(1), "blew up", bits))
        return Trajectory(inst, "z", [], [], [], F(1, 2), [], ["b"] * 2, bits, K, None,
                          stopped_by_predicate=True,
                          stop=StopReason("predicate", F(1, 2), "held", bits))

    monkeypatch.setattr(driver, "_run_continuous", fake)
    run = driver._Run(inst, [F(0)], None, "z", "z", F(1, 4), False, "defect", lambda *a: 0)
    best, _ = driver._escalate(run, F(8), prec, None)
    assert best.stopped_by_predicate and best.certified_until == F(1, 2)
    assert best.steps == ["b", "b"] and best.bits == 2 * prec.start_bits


def test_verify_prints_what_ended_the_refinement(tmp_path, capsys):
    out = tmp_path / "c.json"
    args = ["verify", str(EX / "thm2_1_one_dimensional.json"), "--digits", "15",
            "--t-max", "2"]
    assert main(args + ["--out", str(out)]) == 0
    assert "refinement: the bound reached 10^-digits at t = " in capsys.readouterr().out
    assert main(args + ["--refine-t", "0", "--out", str(tmp_path / "d.json")]) == 0
    assert "refinement: not asked (refine_t = 0)" in capsys.readouterr().out
