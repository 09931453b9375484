"""Certified limits (Lemma T4, T6), verdicts, certificates and `certified verify`.

Oracles: independent long approximate runs (mpmath Taylor at 40 digits, not rigorous but
far more accurate than the widths tested), closed-form facts (P* rows, hull geometry),
and negative controls (wrong leader maps, followers ahead of their leader).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction as F
from pathlib import Path

import mpmath
import numpy as np
import pytest

from certified import Instance
from certified.approx.midpoint import approx_trajectory_mp
from certified.cli import main
from certified.enclose.arith import get_backend
from certified.enclose.driver import enclose_trajectory
from certified.logic import Truth
from certified.tail.g1_hull import excludes_origin, is_hull_vertex
from certified.tail.t4_leader_follower import leader_follower, try_leader_follower
from certified.tail.t6_energy import _log_upper
from certified.verdict.certificate import (
    canonical_digest,
    to_certificate,
    verify_digest,
)
from certified.verdict.certify import certify

EX = Path(__file__).resolve().parents[2] / "examples"
bk = get_backend("flint")


def _contains(box, x, slack=0.0):
    lo, hi = (float(v) for v in box)
    return lo - slack <= x <= hi + slack


def _lf_at(inst, T, digits=30):
    """Lemma T4 attempted on the validated enclosure at exactly t = T."""
    tr = enclose_trajectory(inst, T, digits=digits, times=[T])
    assert tr.certified_until == T
    S = tr.steps[-1].output_set
    with bk.workprec(tr.bits):
        return try_leader_follower(bk, inst, inst.V[0][0], T, S, digits)


# -- Lemma T4 against independent runs -------------------------------------------------------

ORACLE = Path(__file__).resolve().parents[1] / "data" / "long_runs"


def long_run(name: str) -> tuple[np.ndarray, np.ndarray]:
    """z(6) and P(6) of an independent 30-digit approximate run (mpmath Taylor series,
    `approx_trajectory_mp`), computed once and stored in tests/data/long_runs/ (it takes
    minutes); `test_stored_long_runs_are_reproducible` (slow) recomputes them."""
    data = json.loads((ORACLE / f"{name}.json").read_text())
    return (np.array([[float(x) for x in row] for row in data["z"]]),
            np.array([[float(x) for x in row] for row in data["P"]]))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["thm2_1_one_dimensional", "thm3_1_identity", "indefinite_B"])
def test_stored_long_runs_are_reproducible(name):
    data = json.loads((ORACLE / f"{name}.json").read_text())
    ap = approx_trajectory_mp(Instance.load(EX / f"{name}.json"), 6, times=[6], digits=30)
    for row, ref in zip(ap.tokens[-1], data["z"]):
        for x, r in zip(row, ref):
            assert abs(F(mpmath.nstr(x, 30)) - F(r)) < F(1, 10 ** 25)

def test_d1_leaders_centres_contain_long_run_limits():
    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    lf, why = _lf_at(inst, F(3, 2))
    assert lf is not None, why
    assert lf.leader == [0, 0, 4, 4, 4]  # smallest and largest token lead (Theorem 2.1)
    # Oracle: a 30-digit approximate run to t = 6; leaders move by < δ₀ after T, and the
    # followers are within e^{-(6 - 3/2)}·|e| of their leader.
    Z, P = long_run("thm2_1_one_dimensional")
    for (k, members), box in zip(lf.clusters, lf.centers):
        assert _contains((box[0][0], box[0][1]), Z[k, 0])
        for j in members:
            assert abs(Z[j, 0] - Z[k, 0]) < 0.05
    # width: δ₀ at T = 3/2 is about 2e-13 (doubly exponential in T)
    assert lf.delta0 < F(1, 10 ** 11)
    assert all(hi - lo < F(1, 10 ** 11) for b in lf.centers for lo, hi in b)
    # P* has rows e_{l(i)}; the approximate P at t = 6 agrees
    assert [int(np.argmax(row)) for row in P] == lf.leader
    assert lf.rate > 0


def test_plane_clusters_memberships_and_centres_match_long_run():
    inst = Instance.load(EX / "thm3_1_identity.json")
    lf, why = _lf_at(inst, F(2), digits=20)
    assert lf is not None, why
    Z, P = long_run("thm3_1_identity")
    assert [int(np.argmax(row)) for row in P] == lf.leader
    for (k, members), box in zip(lf.clusters, lf.centers):
        for c in range(2):
            assert _contains(box[c], Z[k, c])
        for j in members:  # every member approaches the certified centre
            assert np.max(np.abs(Z[j] - Z[k])) < 0.01
    assert lf.delta0 < F(1, 10 ** 9)
    assert len(lf.clusters) == 3


def test_wrong_leader_map_is_rejected():
    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    tr = enclose_trajectory(inst, F(3, 2), digits=20, times=[F(3, 2)])
    box = tr.tokens[-1]
    with bk.workprec(tr.bits):
        boxes = [[tuple(bk.bounds(box[i, 0]))] for i in range(5)]
        # token 3 assigned to the smallest token: a margin is negative
        wrong = [0, 0, 4, 0, 4]
        diffs = {j: [(boxes[j][0][0] - boxes[wrong[j]][0][1],
                      boxes[j][0][1] - boxes[wrong[j]][0][0])]
                 for j in range(5) if wrong[j] != j}
        res, why = leader_follower(bk, F(1), inst.B, F(3, 2), boxes, diffs, wrong)
    assert res is None and "margin" in why


def test_follower_ahead_of_its_leader_is_rejected():
    # d = 1, B = 1: token 1 at 2.5 is *ahead* of "leader" 0 at 2 (it is the true leader)
    B = [[F(1)]]
    boxes = [[(F(2), F(2))], [(F(5, 2), F(5, 2))], [(F(-2), F(-2))]]
    diffs = {1: [(F(1, 2), F(1, 2))]}
    res, why = leader_follower(bk, F(1), B, F(3), boxes, diffs, [0, 0, 2])
    assert res is None


def test_small_T_does_not_close_the_bootstrap():
    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    lf, why = _lf_at(inst, F(1, 8), digits=20)
    assert lf is None and why


# -- verdicts ------------------------------------------------------------------------------------

def test_certify_d1_theorem_2_1_certified_with_certificate():
    v = certify(Instance.load(EX / "thm2_1_one_dimensional.json"), "auto", digits=20,
                max_seconds=None, refine_t=0)
    assert v.theorem == "2.1" and v.hypotheses_hold is True
    assert v.verdict == "certified"
    assert v.limit["leaders"] == [0, 4] and v.limit["attention_rank"] == 2
    assert v.limit["attention_limit"][2] == [0, 0, 0, 0, 1]
    assert F(v.timescale["T_first"]) <= F(1)
    cert = to_certificate(v)
    assert cert["format"] == "certified/certificate" and verify_digest(cert)
    assert cert["tail_lemma"]["leader_map"] == [0, 0, 4, 4, 4]
    # every validated step is recorded and they tile [0, certified_until]
    steps = cert["integration"]["steps"]
    assert F(steps[0][0]) == 0
    for (a, h), (b, _) in zip(steps, steps[1:]):
        assert F(a) + F(h) == F(b)
    tampered = json.loads(json.dumps(cert))
    tampered["verdict"] = "refuted"
    assert not verify_digest(tampered)
    assert canonical_digest(tampered) != cert["digest"]


def test_outside_hypotheses_indefinite_B_certified_anyway():
    inst = Instance.load(EX / "indefinite_B.json")
    v = certify(inst, "3.1", digits=20, max_seconds=None, refine_t=0)
    assert v.hypotheses_hold is False  # QᵀK not symmetric, indefinite
    assert v.verdict == "certified", v.reason
    cl = v.limit["clusters"]
    assert sorted(len(c["members"]) for c in cl) == [2, 4]
    assert all(c["is_hull_vertex"] is True for c in cl)
    Z, _ = long_run("indefinite_B")
    for c in cl:
        k = c["leader"]
        assert all(_contains(c["center"][i], Z[k, i]) for i in range(2))


def test_four_clusters_refute_rank_two_in_d2_and_theorem_8_5():
    inst = Instance.load(EX / "four_clusters_d2.json")
    v = certify(inst, "2.1", digits=20, max_seconds=None, refine_t=0)
    assert v.verdict == "refuted", v.reason
    assert v.evidence["attention_rank"] == 4
    assert len(v.evidence["rows_outside_two_leaders"]) >= 2
    v2 = certify(Instance.load(EX / "thm2_1_one_dimensional.json"), "8.5", digits=20,
                 max_seconds=None, refine_t=0)
    assert v2.verdict == "refuted" and v2.hypotheses_hold is False
    i, j = v2.evidence["entry"]
    assert v2.evidence["attention_limit"][i][j] == 0


def test_budget_too_small_is_an_honest_undecided(monkeypatch):
    # Remark 7.9 by integration and Lemma T4 (S1, which solves it exactly, hidden): the two
    # tokens separate by ~1e-22 only around t ≈ 50; t ≤ 1 cannot settle it
    import certified.verdict.certify as certify_module

    monkeypatch.setattr(certify_module, "find_lemma", lambda inst: None)
    inst = Instance.load(EX / "remark_7_9.json")
    v = certify(inst, "3.1", digits=20, t_max=1, max_seconds=None)
    assert v.verdict == "undecided"
    assert v.limit is None and v.evidence is None
    assert "could not be verified up to t =" in v.reason
    assert "integration reached t_final at t = 1" in v.reason  # why the run stopped
    assert v.trajectory.certified_until == 1 and v.trajectory.stop.kind == "t_final"
    cert = to_certificate(v)
    assert cert["verdict"] == "undecided" and "limit" not in cert


def test_the_wall_clock_cap_gives_undecided_never_another_result():
    """Reaching the outer cap ends in undecided with the reason, even where a lemma would
    hold: a verdict must not depend on machine load (the cap here is already spent)."""
    v = certify(Instance.load(EX / "thm2_1_one_dimensional.json"), "2.1", digits=15,
                t_max=2, max_seconds=1e-9)
    assert v.verdict == "undecided" and v.reason.startswith("wall-clock cap")
    assert v.tail is None and v.limit is None
    assert v.trajectory.stop.kind == "wall-clock cap"


def test_same_run_twice_gives_identical_certificates_digests_included():
    inst = Instance.load(EX / "thm2_1_one_dimensional.json")
    a, b = (to_certificate(certify(inst, "2.1", digits=15, t_max=2, refine_t=F(1, 4),
                                   max_seconds=None)) for _ in range(2))
    assert a["verdict"] == "certified"
    assert a == b and a["digest"] == b["digest"]
    assert "wall_seconds" not in a  # wall time is not part of the certificate


def test_unsupported_spectrum_and_discrete_time_are_undecided():
    v = certify(Instance.load(EX / "thm5_2_paranormal.json"), "4.2", max_seconds=None)
    assert v.verdict == "undecided" and "no tail lemma" in v.reason
    assert v.trajectory is None  # nothing to integrate for: no lemma applies
    # discrete time, Theorem 3.1 with V ≠ λI: no discrete lemma is about it (T10 needs
    # V = λI; T7's discrete form is about 4.2 and 5.2, and certifies those: test_t7_discrete)
    spec = json.loads((EX / "discrete_layers.json").read_text())
    spec["V"] = [["1", "0"], ["0", "1/2"]]
    v = certify(Instance.from_json(spec), "3.1", max_seconds=None)
    assert v.verdict == "undecided" and "discrete" in v.reason and "T10" in v.reason


# -- Lemma T6 ---------------------------------------------------------------------------------

def test_energy_bound_holds_along_an_independent_run():
    inst = Instance.load(EX / "thm8_5_contracting.json")
    v = certify(inst, "3.1", digits=20, t_max=1, max_seconds=None)
    assert v.verdict == "undecided"  # Theorem 3.1's limit in z: only T6's bound applies
    nb = v.tail
    assert nb.lemma == "T6"
    T = float(nb.T)
    assert T == 1
    n = inst.n
    ap = approx_trajectory_mp(inst, 4, times=[1, 2, 4], digits=30, variable="x")
    for t, X in zip(ap.times, ap.tokens):
        X = np.array(X, dtype=float)
        q = np.einsum("ij,jk,ik->i", X, np.array(inst.B, dtype=float), X)
        L = math.log(n)
        for i in range(n):
            bound = L + (float(nb.q_at_T[i]) - L) * math.exp(-2 * float(nb.mu) * (float(t) - T))
            assert q[i] <= bound + 1e-12
            assert q[i] <= float(nb.qmax) + 1e-12
    # q_at_T encloses the true value from above, tightly
    X1 = np.array(ap.tokens[0], dtype=float)
    q1 = np.einsum("ij,ij->i", X1, X1)
    assert all(abs(float(u) - q) <= 1e-12 for u, q in zip(nb.q_at_T, q1))


def test_log_upper_bound_is_proved_and_tight():
    for n in (2, 3, 20, 1000):
        L = _log_upper(bk, n)
        assert math.log(n) <= float(L) <= math.log(n) + 1e-9
    assert _log_upper(bk, 1) == 0


# -- geometry -----------------------------------------------------------------------------

def test_hull_vertex_verification():
    sq = [[(F(x), F(x)), (F(y), F(y))] for x, y in [(0, 0), (2, 0), (0, 2), (2, 2)]]
    inside = sq + [[(F(1), F(1)), (F(1), F(1))]]
    assert all(is_hull_vertex(k, sq) is True for k in range(4))
    assert is_hull_vertex(4, inside) is Truth.UNDECIDED  # interior: no separating a exists
    # a box straddling the hull edge cannot be certified either way
    edge = sq + [[(F(2) - F(1, 10 ** 6), F(2) + F(1, 10 ** 6)), (F(1), F(1))]]
    assert is_hull_vertex(4, edge) is Truth.UNDECIDED
    assert excludes_origin([(F(1), F(2)), (F(-1), F(1))])
    assert not excludes_origin([(F(-1), F(2)), (F(-1), F(1))])


# -- CLI ------------------------------------------------------------------------------------------

def test_cli_verify_writes_certificate(tmp_path, capsys):
    out = tmp_path / "c.json"
    rc = main(["verify", str(EX / "thm2_1_one_dimensional.json"), "--digits", "15",
               "--t-max", "2", "--refine-t", "0", "--out", str(out), "--format", "json"])
    assert rc == 0
    printed = json.loads(capsys.readouterr().out)
    stored = json.loads(out.read_text())
    assert printed == stored and verify_digest(stored)
    assert stored["verdict"] == "certified" and stored["theorem"] == "2.1"


@pytest.mark.parametrize("args,needle", [
    (["--theorem", "9.9"], "--theorem"),
    (["--t-max", "-1"], "--t-max"),
    (["--t-max", "abc"], "--t-max"),
    (["--digits", "2"], "--digits"),
    (["--max-seconds", "0"], "--max-seconds"),
    (["--refine-t", "-1"], "--refine-t"),
    (["--digits", "100000000"], "--digits"),  # above the documented bound: at once
])
def test_cli_verify_bad_options_exit_2(tmp_path, capsys, args, needle):
    out = tmp_path / "c.json"
    rc = main(["verify", str(EX / "thm2_1_one_dimensional.json"), "--out", str(out)] + args)
    err = capsys.readouterr().err
    assert rc == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_cli_verify_bad_instance_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"V": [["1"]], "Q": [["1"]], "K": [["1"]], "X0": [["x"]]}')
    rc = main(["verify", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and "X0" in err
