"""Lemma T8 (Theorem 5.2 for a paranormal V with dim F ≥ 2): the exact splitting and its
refusals, certified F-limits against an independent run, and the checker's re-check with
tampering."""

from __future__ import annotations

import copy
import json
from fractions import Fraction as F

import numpy as np
import pytest

from certified import Instance
from certified.checker import check_certificate
from certified.checker.balls import set_scale
from certified.checker.dynamics import Field
from certified.checker.errors import CheckFailure
from certified.checker.paranormal import check_paranormal, check_paranormal_enclosure
from certified.checker.replay import replay_steps
from certified.tail.t8_paranormal import paranormal_split
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify
from tests.tail.oracles import rk4_x
from tests.test_checker import failing_field, redigest

I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
V2 = [[2, 0, 0], [0, 2, 0], [0, 0, F(1, 2)]]
# Token 1 follows token 0 in F (its F-part is "behind" (2, 0)); token 2 is its own leader.
FAST = Instance.create(V=V2, Q=I3, K=I3, X0=[[2, 0, F(1, 4)], [1, F(1, 5), F(-1, 4)],
                                             [-1, F(3, 2), F(1, 8)]])


def test_split_of_the_papers_paranormal_example_is_exact():
    V = [[1, 0, 0], [0, 1, 0], [0, 0, F(-1, 2)]]
    sp, why = paranormal_split(V, I3)
    assert why == "" and sp.lam == 1 and sp.dim_f == 2
    assert sp.nu == F(1, 2) and sp.g == 1  # ‖V_G‖∞ = 1/2 = λ/2: the boundary case allowed
    assert sp.S == [[1, 0, 0], [0, 1, 0], [0, 0, 1]] and sp.BFF == [[1, 0], [0, 1]]


def test_split_in_a_non_coordinate_basis_block_diagonalizes_V_and_B():
    # V = P diag(1, 1, 1/4) P⁻¹ with a rational P; B = P⁻ᵀ diag(2, 1, 3) P⁻¹ keeps F ⊥_B G.
    P = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype=object)
    Pf = [[F(int(x)) for x in row] for row in P]
    import sympy
    Ps = sympy.Matrix(Pf)
    Pi = Ps.inv()
    V = (Ps * sympy.diag(1, 1, sympy.Rational(1, 4)) * Pi).tolist()
    B = (Pi.T * sympy.diag(2, 1, 3) * Pi).tolist()
    conv = lambda M: [[F(int(sympy.fraction(x)[0]), int(sympy.fraction(x)[1])) for x in row]
                      for row in M]
    sp, why = paranormal_split(conv(V), conv(B))
    assert why == "" and sp.dim_f == 2 and sp.lam == 1 and sp.nu == F(1, 4)
    S, Si = sympy.Matrix(sp.S), sympy.Matrix(sp.Sinv)
    Vp = Si * sympy.Matrix(conv(V)) * S
    assert Vp[:2, :2] == sympy.eye(2) and Vp[:2, 2:] == sympy.zeros(2, 1)
    assert Vp[2:, :2] == sympy.zeros(1, 2)
    Bp = S.T * sympy.Matrix(conv(B)) * S
    assert Bp[:2, 2:] == sympy.zeros(2, 1) and Bp[2:, :2] == sympy.zeros(1, 2)


@pytest.mark.parametrize("V, B, words", [
    ([[1, 0], [0, F(-1, 2)]], [[1, 0], [0, 1]], "Lemma T7 covers dim F = 1"),
    ([[1, 0, 0], [0, 1, 0], [0, 0, F(-6, 5)]], I3, "ν ≤ λ"),
    ([[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]],
     [[1 if i == j else 0 for j in range(4)] for i in range(4)], "not semisimple"),
    ([[-1, 0, 0], [0, -1, 0], [0, 0, 0]], I3, "no rational eigenvalue λ > 0"),
])
def test_split_refusals_name_the_failed_condition(V, B, words):
    sp, why = paranormal_split([[F(x) for x in r] for r in V], [[F(x) for x in r] for r in B])
    assert sp is None and words in why


def test_split_is_not_attempted_in_large_dimension():
    d = 25
    V = [[F(int(i == j and i < 2)) for j in range(d)] for i in range(d)]
    sp, why = paranormal_split(V, [[F(int(i == j)) for j in range(d)] for i in range(d)])
    assert sp is None and "d = 25 > 24" in why


def _rk4_x(X: np.ndarray, Vf: np.ndarray, Bf: np.ndarray, T: float) -> np.ndarray:
    """Float64 RK4 (h = 2e-4) from X to time T: the independent oracle of the T8 tests."""
    return rk4_x(X, Vf, Bf, T, 2e-4)


def _fast_state_at(T: float) -> np.ndarray:
    """A float64 RK4 state of FAST at time T: the independent oracle, and a starting box
    for the lemma-only tests."""
    return _rk4_x(np.array([[2, 0, .25], [1, .2, -.25], [-1, 1.5, .125]]),
                  np.diag([2, 2, .5]), np.eye(3), T)


@pytest.fixture(scope="module")
def fast_cert():
    v = certify(FAST, "5.2", digits=15, max_seconds=None, refine_t=0)
    return v, json.loads(json.dumps(to_certificate(v)))


def test_certified_F_limits_contain_an_independent_run(fast_cert):
    v, c = fast_cert
    assert v.verdict == "certified" and c["tail_lemma"]["lemma"].startswith("T8")
    clusters = c["limit"]["clusters"]
    assert [cl["members"] for cl in clusters] == [[0, 1], [2]]
    # Independent: float64 RK4 in x to t = 6, z_F = e^{−2t}x_F (V|_F = 2·Id). By then the
    # follower's F-part has merged with its leader's to < 1e-4 and every F-part has
    # stopped moving.
    zF = np.exp(-2 * 6) * _fast_state_at(6)[:, :2]
    assert np.abs(zF[0] - zF[1]).max() < 1e-4
    for cl in clusters:
        for i in cl["members"]:
            for a in range(2):
                lo, hi = (float(F(x)) for x in cl["center_F_coordinates"][a])
                assert lo - 1e-9 <= zF[i, a] <= hi + 1e-9
            # the F-component in R^3 is (z_F, 0) for this coordinate basis
            assert cl["center"][2] == ["0", "0"]
        # width: the leader's box at T inflated by δ₀, no more
        d0 = float(F(c["tail_lemma"]["delta0"]))
        for a in range(2):
            lo, hi = (float(F(x)) for x in cl["center_F_coordinates"][a])
            blo, bhi = (float(F(x)) for x in c["tail_lemma"]["boxes_at_T"][cl["leader"]][a])
            assert hi - lo <= (bhi - blo) + 2 * d0 + 1e-12
    assert c["limit"]["attention_limit"] == [[1, 0, 0], [1, 0, 0], [0, 0, 1]]


def test_checker_accepts_the_t8_certificate(fast_cert):
    _, c = fast_cert
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid and "Lemma T8 re-checked" in rep.message, rep.message


def test_checker_rejects_tampered_t8_constants_and_limits(fast_cert):
    _, c = fast_cert
    cases = []
    t = copy.deepcopy(c)  # κ below 2gY²e^{−2λT}
    t["tail_lemma"]["kappa"] = str(F(t["tail_lemma"]["kappa"]) / 4)
    cases.append((t, "tail_lemma.kappa"))
    t = copy.deepcopy(c)  # a G-growth rate above λ/2
    t["tail_lemma"]["nu"] = "3/2"
    cases.append((t, "tail_lemma.nu"))
    t = copy.deepcopy(c)  # a basis whose span is not invariant
    t["tail_lemma"]["basis"][2][0] = "1"
    cases.append((t, "tail_lemma.basis"))
    t = copy.deepcopy(c)  # Y below a stored G box
    t["tail_lemma"]["Y"] = "1/100"
    cases.append((t, "tail_lemma.Y"))
    t = copy.deepcopy(c)  # a larger margin than proved (κ not subtracted)
    t["tail_lemma"]["mu"] = str(F(t["tail_lemma"]["mu"]) + F(t["tail_lemma"]["kappa"]) * 2)
    cases.append((t, "tail_lemma.mu"))
    t = copy.deepcopy(c)  # a centre in R^3 moved off S_F·(box ± δ₀)
    t["limit"]["clusters"][1]["center"][0] = ["-5", "-4"]
    cases.append((t, "limit.clusters[1].center[0]"))
    t = copy.deepcopy(c)
    t["verdict"] = "refuted"
    cases.append((t, "verdict"))
    for tampered, field in cases:
        assert failing_field(redigest(tampered)) == field, field


def test_kappa_far_below_the_fixed_point_unit(fast_cert):
    """κ ≥ 2gY²e^{−2λT} is checked in mpmath floats (relative precision), like Lemma T4's
    tails: with T = 30 the bound is ≈ 10⁻⁵² (e^{−120}), far below the fixture's fixed-point
    unit 2^−P ≈ 10⁻³⁶ (fixed point rejected every κ below that unit). The exact bound rounded
    up to 30 digits is accepted, a quarter of it rejected."""
    import mpmath

    _, c = fast_cert
    set_scale(int(c["integration"]["bits"]) + 64)
    V = [[F(x) for x in r] for r in c["instance"]["V"]]
    B = [[F(int(i == j)) for j in range(3)] for i in range(3)]  # QᵀK = I
    lemma = copy.deepcopy(c["tail_lemma"])
    lemma["T"] = "30"
    g, Y, lam = (F(lemma[k]) for k in ("g", "Y", "lambda"))
    with mpmath.workdps(80):
        need = 2 * mpmath.mpf(g.numerator) / g.denominator * \
            (mpmath.mpf(Y.numerator) / Y.denominator) ** 2 * mpmath.exp(-2 * 30 * lam.numerator /
                                                                        mpmath.mpf(lam.denominator))
        assert need < mpmath.mpf(10) ** -40
        lemma["kappa"] = str(F(mpmath.nstr(need, 30)) * (1 + F(1, 10 ** 29)))
        quarter = str(F(mpmath.nstr(need / 4, 30)))
    check_paranormal(lemma, V, B, 3)
    with pytest.raises(CheckFailure) as exc:
        check_paranormal(dict(lemma, kappa=quarter), V, B, 3)
    assert exc.value.where == "tail_lemma.kappa"


@pytest.mark.slow
def test_checker_rejects_a_g_box_that_misses_the_replayed_set(fast_cert):
    _, c = fast_cert
    integ, lemma = c["integration"], c["tail_lemma"]
    set_scale(int(integ["bits"]) + 64)
    V = [[F(x) for x in r] for r in c["instance"]["V"]]
    X0 = [[F(x) for x in r] for r in c["instance"]["X0"]]
    B = [[F(int(i == j)) for j in range(3)] for i in range(3)]  # QᵀK = I
    pn = check_paranormal(lemma, V, B, 3)
    S = replay_steps(Field(None, B, 3, "x", V=V), X0, integ["steps"], integ["replay"]["records"],
                     F(integ["replay"]["t_end"]))
    check_paranormal_enclosure(pn, S, 3, 3)  # the stored boxes hold the replayed set
    lo, hi = pn["g_boxes"][2][0]
    pn["g_boxes"][2][0] = (hi, hi + 1)
    with pytest.raises(CheckFailure, match=r"G_boxes_at_T\[2\]\[0\]"):
        check_paranormal_enclosure(pn, S, 3, 3)


@pytest.mark.parametrize("backend", ["flint", "mpmath"])
def test_lemma_t8_on_a_box_is_backend_independent_and_kappa_matters(backend):
    """Lemma T8 alone on a small box around a state at T = 1/2 (not a validated enclosure:
    this tests the lemma's arithmetic): both backends accept with the same leader map and
    κ = 2gY²e^{−2λT} to 12 digits; a κ at least the margin is refused."""
    from certified.enclose.arith import get_backend
    from certified.enclose.lohner_set import LohnerSet
    from certified.tail.t4_leader_follower import leader_follower
    from certified.tail.t8_paranormal import try_paranormal

    bk = get_backend(backend)
    sp, _ = paranormal_split(FAST.V, FAST.B)
    X = _fast_state_at(0.5)
    with bk.workprec(200):
        box = [bk.interval(F(v) - F(1, 10 ** 20), F(v) + F(1, 10 ** 20)) for v in X.flat]
        S = LohnerSet.from_box(np.array(box, dtype=object), bk)
        pb, why = try_paranormal(bk, sp, 3, F(1, 2), S, 20)
        assert pb is not None, why
        assert pb.lf.leader == [0, 0, 2]
        Y = max(abs(v) for v in X[:, 2])
        assert abs(float(pb.lf.kappa) - 2 * float(sp.g) * Y ** 2 * np.exp(-2)) < 1e-9
        # The same data with κ above the within-cluster margin: refused, with the reason.
        lf, why = leader_follower(bk, sp.lam, sp.BFF, F(1, 2), pb.lf.boxes, pb.lf.diffs,
                                  pb.lf.leader, kappa=pb.lf.mu + pb.lf.kappa + 1)
        assert lf is None and "not behind" in why


# -- Lemma T8 with F–G cross terms (tail.md: the combined within-cluster margin (Hμ̂)) -----------

def test_split_with_cross_terms_records_the_blocks():
    V = [[F(1), 0, 0], [0, F(1), 0], [0, 0, F(1, 4)]]
    B = [[F(x) for x in r] for r in [[1, 0, 1], [0, 1, 0], [1, 0, 1]]]
    sp, why = paranormal_split(V, B)
    assert sp is not None, why
    assert sp.BFG == [[1], [0]] and sp.BGF == [[1, 0]] and sp.h_FG == 1 and sp.h_GF == 1


def _cross_state_at(T: float) -> np.ndarray:
    """examples/thm5_2_cross_terms.json in x at time T (float64 RK4): the oracle."""
    return _rk4_x(np.array([[1, 0, .5], [-1, 1, 1], [.5, .25, 0]]), np.diag([1, 1, .5]),
                  np.array([[2, 0, .5], [0, 2, 0], [.5, 0, 1]]), T)


@pytest.fixture(scope="module")
def cross_cert():
    """The producer's run of examples/thm5_2_cross_terms.json (about 70 s: the test that
    reads the run is slow; the checker's tests below read the stored certificate of the
    same instance, ``stored_cross``)."""
    inst = Instance.load("examples/thm5_2_cross_terms.json")
    v = certify(inst, "5.2", digits=15, max_seconds=None, refine_t=0, t_max=6)
    return v, json.loads(json.dumps(to_certificate(v)))


@pytest.fixture(scope="module")
def stored_cross() -> dict:
    """The same instance's certificate at 8 digits, stored with the checker's fixtures
    (tests/checker/data/t8_52_cross.json.gz, regenerated by tests/checker/producer.py)."""
    from tests.checker.producer import load

    c = load("t8_52_cross")
    assert c["instance"]["name"] == Instance.load("examples/thm5_2_cross_terms.json").name
    return c


@pytest.mark.slow
def test_cross_terms_certified_checked_and_the_oracle_agrees(cross_cert):
    v, c = cross_cert
    assert v.verdict == "certified", v.reason
    tl = c["tail_lemma"]
    assert tl["lemma"].startswith("T8") and {"kappa_mu", "Delta0", "Delta1"} <= set(tl)
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message
    # oracle: RK4 to t = 5; z_F = e^{−t}x_F (S = I, λ = 1). Leaders in their boxes
    # (conclusion 1), followers within θ(ε + η₀) of them (conclusion 2), P Boolean = P*.
    t = 5.0
    X = _cross_state_at(t)
    zF = np.exp(-t) * X[:, :2]
    T = float(F(tl["T"]))
    theta = np.exp(-(t - T))
    for cl in c["limit"]["clusters"]:
        box = [(float(F(lo)), float(F(hi))) for lo, hi in cl["center_F_coordinates"]]
        for i in cl["members"]:
            slack = 1e-12
            if i != cl["leader"]:
                eps = max(abs(float(F(x))) for p in tl["differences_at_T"][str(i)] for x in p)
                slack += theta * (eps + float(F(tl["eta0"])))
            for a in range(2):
                assert box[a][0] - slack <= zF[i, a] <= box[a][1] + slack, (i, a)
    S = X @ np.array([[2, 0, .5], [0, 2, 0], [.5, 0, 1]]) @ X.T
    S -= S.max(axis=1, keepdims=True)
    P = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    assert np.abs(P - np.array(c["limit"]["attention_limit"])).max() < 1e-6


@pytest.mark.parametrize("key,value,where", [
    ("kappa_mu", "0", "tail_lemma.kappa_mu"),
    ("kappa", "1/1000", "tail_lemma.kappa"),
    ("Delta0", "0", "tail_lemma.Delta0"),
    ("Z", "1/10", "tail_lemma.Z"),
])
def test_cross_term_constants_are_recomputed(stored_cross, key, value, where):
    c = copy.deepcopy(stored_cross)
    c["tail_lemma"][key] = value
    assert failing_field(redigest(c)) == where


def test_cross_fields_on_a_certificate_without_cross_terms_are_rejected(fast_cert):
    c = copy.deepcopy(fast_cert[1])
    c["tail_lemma"]["kappa_mu"] = "0"
    assert failing_field(redigest(c)) == "tail_lemma.kappa_mu"


def test_split_takes_the_combined_margin_for_nu_between_half_lambda_and_lambda():
    """λ/2 < ν ≤ λ: T8's plain margin reduction needs 2ν ≤ λ; the combined margin (Hμ̂),
    (HΔ) needs only ν ≤ λ (tail.md)."""
    V = [[F(1), 0, 0], [0, F(1), 0], [0, 0, F(-3, 5)]]
    sp, why = paranormal_split(V, [[F(int(i == j)) for j in range(3)] for i in range(3)])
    assert sp is not None and sp.combined and sp.BFG is None and sp.nu == F(3, 5), why
    V[2][2] = F(1)  # ν = λ: still allowed (the exponents compare e^{ν(s−T)} with e^{λ(s−T)})
    assert paranormal_split(V, [[F(int(i == j)) for j in range(3)] for i in range(3)])[0] \
        is not None


@pytest.mark.parametrize("VG, lower, upper, metric", [
    # real eigenvalues 1/2, 2/5 of a non-normal block: ‖V_G‖∞ = 7/2 in a naive basis
    ([["1/2", "3"], ["0", "2/5"]], F(1, 2), F(1, 2), False),
    # a complex pair 1/5 ± 3i/10 of a skewed block: |a| + |b| = 1/2 in its real basis, just
    # above λ/2 after the eigenvectors' rounding; the quadratic norm (ρ = 0.36) goes below
    ([["1/5", "-3"], ["3/100", "1/5"]], F(36, 100), F(1, 2), True),
])
def test_split_tries_the_eigenvector_basis_of_V_G(VG, lower, upper, metric):
    """V = P·diag(1, 1, V_G)·P⁻¹, B = I: T8's ν is ‖V_G‖∞ in whichever basis of G is used.
    In range(V − λI)'s columns ν > λ = 1 (the split was refused); in V_G's real eigenvector
    basis ν is the largest |μ| (real) or |a| + |b| (a pair), up to the eigenvectors'
    rational rounding; where that is still above λ/2, the quadratic norm on G
    (test_g_metric.py) is taken if it is below. Exact checks: S⁻¹VS = diag(I, V_G′),
    ν = ‖V_G′‖∞ ≥ ρ(V_G) (or the quadratic norm's conditions)."""
    import sympy

    P = sympy.Matrix([[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1]])
    G = sympy.Matrix([[sympy.Rational(x) for x in r] for r in VG])
    V = P * sympy.diag(1, 1, G) * P.inv()
    Vq = [[F(str(V[i, j])) for j in range(4)] for i in range(4)]
    I4 = [[F(int(i == j)) for j in range(4)] for i in range(4)]
    sp, why = paranormal_split(Vq, I4)
    assert sp is not None, why
    Vp = sympy.Matrix(sp.Sinv) * V * sympy.Matrix(sp.S)
    assert sympy.Matrix(sp.Sinv) * sympy.Matrix(sp.S) == sympy.eye(4)
    assert Vp[:2, :2] == sympy.eye(2) and Vp[:2, 2:] == sympy.zeros(2, 2) \
        and Vp[2:, :2] == sympy.zeros(2, 2)
    assert (sp.G_metric is not None) == metric
    if metric:
        Pm = sympy.Matrix([[sympy.Rational(str(x)) for x in r] for r in sp.G_metric])
        nu = sympy.Rational(str(sp.nu))
        assert (Pm - sympy.eye(2)).is_positive_definite
        assert (nu ** 2 * Pm - Vp[2:, 2:].T * Pm * Vp[2:, 2:]).is_positive_definite
    else:
        row_sums = [sum(abs(Vp[i, j]) for j in (2, 3)) for i in (2, 3)]
        assert sp.nu == F(str(max(row_sums)))
    rho = max(abs(complex(e)) for e in G.eigenvals())
    assert rho <= float(sp.nu) and lower <= sp.nu <= upper + F(1, 10 ** 6)


@pytest.mark.parametrize("VG, nu, above_half", [
    # a Jordan block at 1/2 = λ/2: ‖V_G‖∞ = 3/2 > λ in range(V − λI)'s columns and no
    # eigenvector basis; scaled by ε = 1/4, ν = 3/4 (the combined margin: 2ν > λ)
    ([["1/2", "1"], ["0", "1/2"]], F(3, 4), True),
    # at 1/4 with a large off-diagonal entry: ε = 1/8 gives ν = 3/8 ≤ λ/2 (the plain one)
    ([["1/4", "3"], ["0", "1/4"]], F(3, 8), False),
    # close to λ: ε = 1/32 (at most half the gap 1/10), ν = 9/10 + 1/32
    ([["9/10", "1"], ["0", "9/10"]], F(9, 10) + F(1, 32), True),
    # a 3×3 block: each superdiagonal entry scaled by ε = 1/8
    ([["1/4", "1", "0"], ["0", "1/4", "1"], ["0", "0", "1/4"]], F(3, 8), False),
])
def test_split_tries_the_scaled_jordan_basis_of_a_defective_V_G(VG, nu, above_half):
    """V = P·diag(1, 1, V_G)·P⁻¹, B = I, V_G defective (no eigenvector basis) with
    ρ(V_G) < λ = 1: in V_G's Jordan basis scaled by ε the superdiagonal is ε, so
    ν = ρ(V_G) + ε. Exact checks: S⁻¹VS = diag(I, V_G′), ν = ‖V_G′‖∞ (exactly the
    expected value), V_G′ upper triangular with ρ(V_G) on its diagonal."""
    import sympy

    m = len(VG)
    d = 2 + m
    P = sympy.eye(d)
    P[0, 2], P[1, d - 1], P[2, 0], P[d - 1, 1] = 1, 1, 2, -1  # mixes F and G (det −2)
    G = sympy.Matrix([[sympy.Rational(x) for x in r] for r in VG])
    V = P * sympy.diag(1, 1, G) * P.inv()
    Vq = [[F(str(V[i, j])) for j in range(d)] for i in range(d)]
    Id = [[F(int(i == j)) for j in range(d)] for i in range(d)]
    sp, why = paranormal_split(Vq, Id)
    assert sp is not None, why
    Vp = sympy.Matrix(sp.Sinv) * V * sympy.Matrix(sp.S)
    assert sympy.Matrix(sp.Sinv) * sympy.Matrix(sp.S) == sympy.eye(d)
    assert Vp[:2, :2] == sympy.eye(2) and Vp[:2, 2:] == sympy.zeros(2, m) \
        and Vp[2:, :2] == sympy.zeros(m, 2)
    VGp = Vp[2:, 2:]
    assert all(VGp[i, j] == 0 for i in range(m) for j in range(i))  # Jordan: triangular
    assert all(VGp[i, i] == G[0, 0] for i in range(m))
    assert sp.nu == nu == F(str(max(sum(abs(VGp[i, j]) for j in range(m)) for i in range(m))))
    # 2ν > λ needs the combined margin (so does B' = SᵀBS with F–G blocks, as here)
    assert (2 * sp.nu > sp.lam) == above_half and sp.combined


@pytest.mark.parametrize("coeffs", [
    [F(1, 20), F(1, 10), F(0), F(1, 5)],           # x⁴ − x³/5 − x/10 − 1/20, irreducible
    [F(1, 20), F(1, 10), F(0), F(0), F(0)],        # x⁵ − x/10 − 1/20, not solvable by sympy
])
def test_the_jordan_basis_is_skipped_for_an_irrational_spectrum(coeffs):
    """V = diag(1, 1, C), C the companion matrix of an irreducible polynomial with
    ρ(C) < λ = 1 but 2ρ > λ: the Jordan basis needs a rational spectrum, which the
    characteristic polynomial decides at once (jordan_form over radicals took minutes
    here, and raised for the quintic); the split is the one of the other bases."""
    import sympy

    from certified.tail.t8_paranormal import _jordan_basis

    m = len(coeffs)
    C = [[F(0)] * m for _ in range(m)]
    for i in range(m - 1):
        C[i + 1][i] = F(1)
    for i in range(m):
        C[i][m - 1] = coeffs[i]
    rho = max(abs(complex(r)) for r in sympy.Matrix(C).charpoly().nroots())
    assert 0.5 < rho < 1
    assert _jordan_basis(sympy.Matrix(C), sympy.Integer(1)) is None
    d = m + 2
    V = [[F(0)] * d for _ in range(d)]
    V[0][0] = V[1][1] = F(1)
    for i in range(m):
        V[2 + i][2:] = C[i]
    sp, why = paranormal_split(V, [[F(int(i == j)) for j in range(d)] for i in range(d)])
    assert sp is not None and rho <= float(sp.nu) <= 1, why


@pytest.mark.slow
def test_nu_above_half_lambda_certified_and_checked():
    """V = diag(1, 1, 3/4), Q = K = I (ν = 3/4 > λ/2, no cross terms): certified through
    the combined margin and checked valid (about 4 min: G grows like e^{3t/4})."""
    X0 = [["1", "0", "1/2"], ["-1", "1", "1"], ["1/2", "1/4", "0"]]
    inst = Instance.create(V=[[1, 0, 0], [0, 1, 0], [0, 0, "3/4"]], Q=I3, K=I3, X0=X0)
    v = certify(inst, "5.2", digits=15, t_max=6, refine_t=0, max_seconds=None)
    assert v.verdict == "certified", v.reason
    c = json.loads(json.dumps(to_certificate(v)))
    assert "kappa_mu" in c["tail_lemma"] and c["tail_lemma"]["nu"] == "3/4"
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message


def test_a_short_difference_row_is_rejected_naming_it(stored_cross):
    c = copy.deepcopy(stored_cross)
    j = next(iter(c["tail_lemma"]["differences_at_T"]))
    c["tail_lemma"]["differences_at_T"][j].pop()
    assert failing_field(redigest(c)) == f"tail_lemma.differences_at_T[{j}]"


@pytest.mark.slow
def test_the_jordan_block_example_end_to_end():
    """examples/thm5_2_jordan_block.json (V_G a Jordan block at 1/4: ‖V_G‖∞ = 5/4 > λ in
    the standard basis, ν = 3/8 in the scaled Jordan basis): certified by Lemma T8 and
    checked valid (about 3 min); each F-limit contains a float64 RK4 run's z_F at t = 8
    to 10⁻⁶ (no code of the library in the oracle)."""
    inst = Instance.load("examples/thm5_2_jordan_block.json")
    v = certify(inst, "5.2", digits=15, t_max=6, refine_t=0, max_seconds=None)
    assert v.verdict == "certified", v.reason
    c = json.loads(json.dumps(to_certificate(v)))
    assert c["tail_lemma"]["nu"] == "3/8"
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message
    V = np.array([[float(F(x)) for x in r] for r in inst.V])
    X = np.array([[float(F(x)) for x in r] for r in inst.X0])
    t = 8.0
    X = rk4_x(X, V, np.eye(len(V)), t, 1e-3)  # ẋ_i = Σ_j P_ij V x_j (B = I)
    Z = X * np.exp(-t)  # V = I on F = span(e₁, e₂): z_F = e^{−t}x_F
    for cl in c["limit"]["clusters"]:
        (i,) = cl["members"]
        for k in range(2):
            lo, hi = (float(F(x)) for x in cl["center"][k])
            assert lo - 1e-6 <= Z[i, k] <= hi + 1e-6, (i, k, Z[i, k], lo, hi)

