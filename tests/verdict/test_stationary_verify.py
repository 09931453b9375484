"""`verify` uses Lemma S0 (V(z_j − z_i) = 0 for all tokens: nothing moves): the
third-party Theorem 5.2 instance, undecided before (dim F = 1, Lemma T7 finds no margin on
tokens that never separate), is decided for every theorem without integrating, and the
checker re-derives each verdict. Independent oracles: mpmath's ODE solver on the original
dynamics, and the rescaled field evaluated at 50 digits."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certified import Instance
from certified.checker import check_certificate
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify
from tests.test_checker import failing_field, failing_field_after, redigest

EX = Path(__file__).resolve().parents[2] / "examples"
#: the third-party instance V = diag(1, 0), Q = K = [[1, 1/2], [1/2, 1]], z = (0, 1), (0, 2)
WANT = {"5.2": "certified", "3.1": "certified", "4.2": "certified", "8.5": "refuted",
        "2.1": "undecided"}


def _cert(inst: Instance, theorem: str) -> dict:
    v = certify(inst, theorem, digits=20, max_seconds=None)
    assert v.trajectory is None, theorem  # solved exactly, nothing integrated
    return json.loads(json.dumps(to_certificate(v)))


@pytest.fixture(scope="module")
def certs() -> dict:
    inst = Instance.load(EX / "thm5_2_third_party.json")
    return {theorem: _cert(inst, theorem) for theorem in WANT}


def test_each_theorem_decided_by_lemma_s0_and_rechecked(certs):
    for theorem, want in WANT.items():
        c = certs[theorem]
        assert c["verdict"] == want, (theorem, c["reason"])
        assert c["tail_lemma"]["lemma"].startswith("S0 "), theorem
        rep = check_certificate(copy.deepcopy(c))
        assert rep.valid and "Lemma S0 re-checked" in rep.message, rep.message
    assert certs["8.5"]["evidence"] == {"token_not_to_zero": 0}
    centres = [cl["center"] for cl in certs["5.2"]["limit"]["clusters"]]
    assert centres == [[["0", "0"], ["1", "1"]], [["0", "0"], ["2", "2"]]]


def _rhs_x(V, B, n, d):
    """The original dynamics ẋ_i = Σ_j P_ij V x_j, P = row-softmax of x_iᵀBx_j (mpmath)."""
    def f(t, y):
        X = [y[i * d:(i + 1) * d] for i in range(n)]
        out = []
        for i in range(n):
            s = [sum(X[i][a] * B[a][b] * X[j][b] for a in range(d) for b in range(d))
                 for j in range(n)]
            m = max(s)
            w = [mpmath.exp(v - m) for v in s]
            tot = sum(w)
            avg = [sum(w[j] * X[j][b] for j in range(n)) / tot for b in range(d)]
            out += [sum(V[a][b] * avg[b] for b in range(d)) for a in range(d)]
        return out
    return f


def test_oracle_the_tokens_do_not_move_and_x0_stays_put(certs):
    """mpmath.odefun on ẋ = Σ_j P_ij V x_j from the instance: x_0(t) stays at (0, 1), as
    the refutation of 8.5 claims (‖x_0(t)‖ = 1 for all t), and z(t) = e^{−tV}x(t) stays at
    the certified limits."""
    c = certs["8.5"]
    inst = Instance.from_json(c["instance"])
    V = [[mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in row]
         for row in inst.V]
    B = [[mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in row]
         for row in inst.B]
    with mpmath.workdps(30):
        sol = mpmath.odefun(_rhs_x(V, B, inst.n, inst.d), 0,
                            [mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator
                             for z in inst.X0 for x in z])
        for t in (mpmath.mpf(1) / 2, 2):
            y = sol(t)
            assert abs(y[0]) < 1e-25 and abs(y[1] - 1) < 1e-25  # x_0 = (0, 1) ≠ 0
            # token 1: x_1 = (0, 2) too (V x_1 = 0), so z = x there
            assert abs(y[2]) < 1e-25 and abs(y[3] - 2) < 1e-25


@pytest.mark.parametrize("theorem,path,new,where", [
    ("5.2", ("verdict",), "refuted", "verdict"),
    ("5.2", ("limit", "clusters", 1, "center", 1), ["2", "3"], "limit.clusters[1].center[1][1]"),
    ("5.2", ("evidence",), {"token_not_to_zero": 0}, "evidence"),
    ("5.2", ("timescale",), {"T_first": "1"}, "timescale"),
    ("8.5", ("evidence", "token_not_to_zero"), 1, "evidence.token_not_to_zero"),
    ("8.5", ("verdict",), "undecided", "verdict"),
    ("2.1", ("verdict",), "certified", "verdict"),
])
def test_edited_claims_rejected(certs, theorem, path, new, where):
    assert failing_field_after(certs[theorem], path, new) == where


def test_a_constant_attention_claimed_for_a_moving_x_is_rejected():
    """V = −I with equal tokens: z never moves but x = e^{−t}z does, so P is not claimed
    constant by the producer; a certificate that adds the constant P is rejected."""
    inst = Instance.create(V=[[-1, 0], [0, -1]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]],
                           X0=[[1, 2], [1, 2]])
    c = _cert(inst, "8.5")
    assert c["verdict"] == "certified" and "attention_constant" not in c["tail_lemma"]
    assert c["limit"] == {"attention_limit": [["1/2", "1/2"], ["1/2", "1/2"]]}
    c["tail_lemma"]["attention_constant"] = [[["0.5", "0.5"]] * 2] * 2
    assert failing_field(redigest(c)) == "tail_lemma.attention_constant"


def _field_at(inst: Instance, digits: int = 50) -> float:
    """max_i ‖Σ_j P_ij V (z_j − z_i)‖∞ at t = 0 and t = 3 (mpmath, x = e^{tV} z by the
    matrix exponential): the rescaled field Lemma S0 says vanishes."""
    with mpmath.workdps(digits):
        V = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in row]
                           for row in inst.V])
        B = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in row]
                           for row in inst.B])
        Z = [mpmath.matrix([mpmath.mpf(x.numerator) / x.denominator for x in z])
             for z in inst.X0]
        worst = mpmath.mpf(0)
        for t in (0, 3):
            E = mpmath.expm(V * t)
            X = [E * z for z in Z]
            for i in range(len(Z)):
                s = [(X[i].T * B * X[j])[0] for j in range(len(Z))]
                m = max(s)
                w = [mpmath.exp(v - m) for v in s]
                F = sum((w[j] / sum(w) * (V * (Z[j] - Z[i])) for j in range(len(Z))),
                        mpmath.matrix(len(Z[0]), 1))
                worst = max(worst, max(abs(x) for x in F))
        return float(worst)


@st.composite
def stationary(draw):
    """V = u vᵀ (rank 1, d = 2) and tokens z₀ + c_i w with V w = 0: Lemma S0 applies."""
    q = st.fractions(min_value=-3, max_value=3, max_denominator=4)
    u = [draw(q), draw(q)]
    v = [draw(q.filter(lambda x: x != 0)), draw(q)]
    w = [-v[1], v[0]]  # vᵀw = 0
    z0 = [draw(q), draw(q)]
    n = draw(st.integers(1, 3))
    cs = draw(st.lists(q, min_size=n, max_size=n))
    X0 = [[z0[a] + c * w[a] for a in range(2)] for c in cs]
    K = draw(st.sampled_from([[[1, 0], [0, 1]], [[2, 1], [1, 1]], [[1, 2], [0, 1]]]))
    return Instance.create(V=[[u[a] * v[b] for b in range(2)] for a in range(2)],
                           Q=[[1, 0], [0, 1]], K=K, X0=X0)


@settings(max_examples=25, deadline=None)
@given(stationary(), st.sampled_from(["2.1", "3.1", "4.2", "5.2", "8.5"]))
def test_property_s0_instances_decided_and_rechecked(inst, theorem):
    """Every theorem on every such instance: the certificate names Lemma S0 and checks
    valid; the rescaled field vanishes (mpmath oracle); 3.1 is never undecided (the
    tokens lie on a line)."""
    assert _field_at(inst) < 1e-40
    c = _cert(inst, theorem)
    assert c["tail_lemma"]["lemma"].startswith("S0 ")
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message
    if theorem == "3.1":
        assert c["verdict"] == "certified"


def test_s0_attention_entries_far_below_the_fixed_point_unit():
    """P(0) with entries near e^{-156} and e^{-52} (found by CI): the checker bounds each entry
    to its relative precision, so the narrow stored intervals re-check; an interval that
    misses the true value by one part in 10^19 is still rejected."""
    inst = Instance.create(V=[[0, 0], [0, 0]], Q=[[1, 0], [0, 1]], K=[[2, 1], [1, 1]],
                           X0=[[2, 1], [-6, -3]])
    c = _cert(inst, "3.1")
    P = c["tail_lemma"]["attention_constant"]
    with mpmath.workdps(40):  # row 1: scores x_1ᵀB x_j = (−39, 117), so P_10 = 1/(1 + e^156)
        true = 1 / (1 + mpmath.exp(mpmath.mpf(156)))
        assert mpmath.mpf(P[1][0][0]) <= true <= mpmath.mpf(P[1][0][1])
        assert true < mpmath.mpf("1e-67")
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message
    bad = copy.deepcopy(c)
    lo = mpmath.mpf(P[1][0][0])
    with mpmath.workdps(40):
        shifted = mpmath.nstr(lo * (1 + mpmath.mpf("1e-18")), 25)
    bad["tail_lemma"]["attention_constant"][1][0] = [shifted, P[1][0][1]]
    redigest(bad)
    rep = check_certificate(bad)
    assert not rep.valid and "attention_constant[1][0]" in rep.message, rep.message


# -- edits an adversarial review found accepted (each must now be rejected) -------------------

@pytest.mark.parametrize("edit,where", [
    (lambda c: c["tail_lemma"]["attention_constant"][0].append(["5", "6"]),
     "tail_lemma.attention_constant"),
    (lambda c: c["tail_lemma"]["attention_constant"].append([["0", "1"]] * 2),
     "tail_lemma.attention_constant"),
    (lambda c: c["tail_lemma"]["attention_constant"][0][0].append("1"),
     "tail_lemma.attention_constant"),
    (lambda c: c["tail_lemma"].__setitem__("clusters", 2.9), "tail_lemma.clusters"),
    (lambda c: c["instance"].__setitem__("variant", ""), "instance.variant"),
    (lambda c: c["instance"].__setitem__("variant", 0), "instance.variant"),
    (lambda c: [row.append("0") for row in c["instance"]["X0"]], "instance.X0"),
    (lambda c: c["instance"].__setitem__("X0", []), "instance.X0"),
])
def test_shapes_and_sizes_are_checked(certs, edit, where):
    c = copy.deepcopy(certs["5.2"])
    edit(c)
    got = failing_field(redigest(c))
    assert got in (where, "malformed"), got


def test_s0_huge_score_differences_are_refused_at_once():
    """Scores 180000 apart: the checker refuses them before any exp (a documented
    completeness gap: mpmath's exp costs time with its argument), naming the field."""
    inst = Instance.create(V=[[0]], Q=[[1]], K=[[1]], X0=[[300], [-300]])
    c = _cert(inst, "3.1")
    rep = check_certificate(copy.deepcopy(c))
    assert not rep.valid
    assert rep.message.startswith("tail_lemma.attention_constant[0][0]: Expected score "
                                  "differences within ±2^16"), rep.message
