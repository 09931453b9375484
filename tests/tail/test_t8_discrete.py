"""Lemma T8 in discrete time (Theorem 5.2, paranormal V, the layer map): its exact
step-size condition (1 + νΔt)² ≤ 1 + λΔt, its limits against a 50-digit iteration of the
layer map (an independent oracle: mpmath, no enclosure), verify → check end to end inside
the condition, and `undecided` with the reason outside it."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from certified import Instance
from certified.checker import check_certificate, digest
from certified.tail.t8_paranormal import paranormal_split, step_size_condition
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify

ROOT = Path(__file__).resolve().parents[2]
V = [[1, 0, 0], [0, 1, 0], [0, 0, "1/4"]]  # λ = 1, ν = 1/4: Δt ≤ (λ − 2ν)/ν² = 8
I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
X0 = [["1", "0", "1"], ["-1", "1", "2"], ["0", "-1", "-1"], ["1/2", "1/2", "0"]]


def _inst(dt: str) -> Instance:
    return Instance.create(V=V, Q=I3, K=I3, X0=X0, time={"discrete": dt})


def test_step_size_condition_is_exact_at_its_boundary():
    split, why = paranormal_split(_inst("1").V, _inst("1").B)
    assert split is not None, why
    assert split.nu == Fraction(1, 4) and split.lam == 1
    assert step_size_condition(split, Fraction(8))  # (1 + 2)² = 9 = 1 + 8: equality holds
    assert not step_size_condition(split, Fraction(8) + Fraction(1, 10 ** 12))
    assert step_size_condition(split, Fraction(1, 10 ** 12))


def _layers_mp(inst: Instance, layers: int) -> list:
    """x^[k] for k = 0 … layers by the layer map in mpmath at 50 digits."""
    dt = mpmath.mpf(inst.time.dt.numerator) / inst.time.dt.denominator
    q = lambda x: mpmath.mpf(x.numerator) / x.denominator  # noqa: E731
    Vm, Bm = mpmath.matrix([[q(x) for x in r] for r in inst.V]), \
        mpmath.matrix([[q(x) for x in r] for r in inst.B])
    X = [mpmath.matrix([q(x) for x in z]) for z in inst.X0]
    out = [X]
    for _ in range(layers):
        new = []
        for i in range(len(X)):
            s = [(X[i].T * Bm * X[j])[0] for j in range(len(X))]
            m = max(s)
            w = [mpmath.exp(v - m) for v in s]
            avg = sum((w[j] / sum(w) * X[j] for j in range(len(X))), mpmath.matrix(3, 1))
            new.append(X[i] + dt * (Vm * avg))
        X = new
        out.append(X)
    return out


@pytest.mark.parametrize("dt", ["1/10", "1/2", "2"])
def test_verify_certifies_inside_the_condition_and_the_oracle_agrees(dt):
    inst = _inst(dt)
    v = certify(inst, "5.2", digits=15, t_max=40)
    assert v.verdict == "certified", v.reason
    c = json.loads(json.dumps(to_certificate(v)))
    assert c["tail_lemma"]["lemma"].startswith("T8 ") and c["tail_lemma"]["dt"] == dt
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid and "Lemma T8 re-checked" in rep.message, rep.message
    # oracle: 60 layers past K at 50 digits; z_F = q^{-k} x_F (S = I here) lies in the
    # certified box of its leader's cluster (center_F_coordinates), and P is Boolean
    K = c["tail_lemma"]["layer"]
    q = 1 + Fraction(dt)
    with mpmath.workdps(50):
        xs = _layers_mp(inst, K + 60)
        last = xs[-1]
        scale = mpmath.mpf(1) / (mpmath.mpf(q.numerator) / q.denominator) ** (K + 60)
        for cl in c["limit"]["clusters"]:
            box = [(mpmath.mpf(Fraction(lo).numerator) / Fraction(lo).denominator,
                    mpmath.mpf(Fraction(hi).numerator) / Fraction(hi).denominator)
                   for lo, hi in cl["center_F_coordinates"]]
            for i in cl["members"]:
                zF = [last[i][a] * scale for a in range(2)]
                slack = mpmath.mpf(0)  # the leader: inside its box (conclusion 1)
                if i != cl["leader"]:  # a follower: within θ(ε_j + η₀) of it (conclusion 2)
                    eps = max(abs(Fraction(x)) for pair in
                              c["tail_lemma"]["differences_at_T"][str(i)] for x in pair)
                    bound = (eps + Fraction(c["tail_lemma"]["eta0"])) / q ** 60
                    slack = mpmath.mpf(bound.numerator) / bound.denominator
                for a in range(2):
                    assert box[a][0] - slack <= zF[a] <= box[a][1] + slack, (i, a)
        Pstar = c["limit"]["attention_limit"]
        for i in range(4):
            s = [(last[i].T * last[j])[0] for j in range(4)]
            m = max(s)
            w = [mpmath.exp(x - m) for x in s]
            for j in range(4):
                assert abs(w[j] / sum(w) - Pstar[i][j]) < 1e-20


@pytest.mark.parametrize("dt", ["9", "17/2"])
def test_outside_the_condition_undecided_with_the_reason(dt):
    v = certify(_inst(dt), "5.2", digits=15, t_max=40)
    assert v.verdict == "undecided"
    assert "(1 + νΔt)² ≤ 1 + λΔt" in v.reason and f"Δt = {dt}" in v.reason


def test_a_nu_the_condition_refuses_is_rejected_by_the_checker():
    """A certificate whose stored ν is lowered to pass a condition it fails: the checker
    recomputes ‖V_G‖∞ and the condition exactly."""
    c = json.loads(json.dumps(to_certificate(certify(_inst("1/2"), "5.2", digits=15))))
    c["tail_lemma"]["nu"] = "1/8"
    c["digest"] = digest(c)
    rep = check_certificate(c)
    assert not rep.valid and rep.message.startswith("tail_lemma.nu"), rep.message
