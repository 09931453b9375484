"""Lemma T7 (Theorem 4.2's coordinate for V ≠ λI): the spectral projector against exact
oracles, certified limits against an independent run, and the checker's re-check with
tampering."""

from __future__ import annotations

import copy
import json
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
import sympy

from certified import Instance
from certified.approx.float64 import approx_trajectory_float
from certified.checker import check_certificate
from certified.enclose.arith import get_backend
from certified.tail.t7_projected import (
    dominant_interval,
    projected_groups,
    spectral_projector,
)
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify
from tests.test_checker import failing_field, redigest

BK = get_backend("flint")
# ψ = (1, 2/3) exactly for this V (row 0 of Π = (V − I/2)/(3/2)); non-normal V.
FAST = Instance.create(V=[[2, 1], [0, F(1, 2)]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]],
                       X0=[[5, F(-1, 2)], [F(5, 2), F(1, 2)], [-5, F(1, 2)], [-4, F(-1, 2)]])
AUTHORS = [[F("0.64709742"), F("0.81911926")], [F("0.61210449"), F("0.63263484")]]


def _contains(bk_value, exact) -> bool:
    lo, hi = BK.bounds(bk_value)
    return lo <= exact <= hi


def test_projector_rational_eigenvalue_exact_oracle():
    V = [[F(2), F(1)], [F(0), F(1, 2)]]
    with BK.workprec(200):
        P, why = spectral_projector(BK, V, (F(2) - F(1, 10**40), F(2) + F(1, 10**40)))
    exact = [[F(1), F(2, 3)], [F(0), F(0)]]
    assert why == ""
    for i in range(2):
        for j in range(2):
            assert _contains(P[i, j], exact[i][j])
            assert BK.rad(P[i, j]) < F(1, 10**35)


def test_projector_irrational_eigenvalue_sympy_oracle():
    """The authors' 2×2 V: λ₁ is a quadratic irrational; sympy's exact projector
    (from the closed-form eigenvectors) evaluated at 60 digits must lie inside."""
    V = AUTHORS
    inst = Instance.create(V=V, Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]], X0=[[1, 0]])
    box, why = dominant_interval(inst)
    assert why == "" and box[1] - box[0] < F(1, 10**70)
    with BK.workprec(300):
        P, _ = spectral_projector(BK, V, box)
    Vs = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in r] for r in V])
    lam = max(Vs.eigenvals(), key=lambda e: float(e))
    r = (Vs - lam * sympy.eye(2)).nullspace()[0]
    left = (Vs.T - lam * sympy.eye(2)).nullspace()[0]
    Pi = r * left.T / (left.T * r)[0]
    for i in range(2):
        for j in range(2):
            val = F(str(sympy.N(Pi[i, j], 60)))
            lo, hi = BK.bounds(P[i, j])
            assert lo - F(1, 10**55) <= val <= hi + F(1, 10**55)
            assert hi - lo < F(1, 10**60)


def test_projector_refuses_unproved_intervals():
    V = [[F(2), F(1)], [F(0), F(1, 2)]]
    with BK.workprec(100):
        assert spectral_projector(BK, V, (F(3), F(4)))[0] is None  # no root: no sign change
        # both roots 1/2 and 2 inside: p has the same sign at both ends
        assert spectral_projector(BK, V, (F(1, 4), F(3)))[0] is None
        # one root but p′ vanishes inside (at 5/4): simplicity not proved by this interval
        P, why = spectral_projector(BK, V, (F(1), F(5, 2)))
        assert P is None and "p′" in why


def test_lemma_refuses_a_token_on_the_zero_hyperplane():
    boxes = [[(F(3), F(3)), (F(0), F(0))], [(F(-1), F(-1)), (F(3, 2), F(3, 2))]]
    # ψ = (1, 2/3): the second token has ψ(x) = 0 exactly
    with BK.workprec(200):
        pb, why = projected_groups(BK, FAST.V, FAST.B, dominant_interval(FAST)[0], F(0), boxes)
    assert pb is None and "hyperplane 0" in why


@pytest.fixture(scope="module")
def fast_cert():
    v = certify(FAST, "4.2", digits=15, max_seconds=None, refine_t=0)
    return v, json.loads(json.dumps(to_certificate(v)))


def test_certified_limits_contain_an_independent_run(fast_cert):
    v, _ = fast_cert
    assert v.verdict == "certified" and v.tail.groups == {"+": [0, 1], "-": [2, 3]}
    # Independent: float64 RK4 in z to t = 7, where each group has merged to ~1e-6.
    V = np.array([[2, 1], [0, 0.5]])
    Z = approx_trajectory_float(V, np.eye(2), np.eye(2), [[5, -.5], [2.5, .5], [-5, .5],
                                                          [-4, -.5]], 7, h=1e-3).tokens[-1]
    w = Z @ np.array([1, 2 / 3])
    for sign, group in v.tail.groups.items():
        lo, hi = v.tail.limits[sign]
        vals = [w[i] for i in group]
        assert max(vals) - min(vals) < 1e-5  # the oracle has converged
        assert float(lo) <= min(vals) - 1e-9 and max(vals) + 1e-9 <= float(hi)
        # width: the group's spread at T (≈ 0 here) in ψ(z) plus the leakage δ₀, not more
        w0 = [float(sum(F(c) * x for c, x in zip((1, F(2, 3)), FAST.X0[i]))) for i in group]
        assert float(hi - lo) <= 1.01 * (max(w0) - min(w0) + float(v.tail.delta0)) + 1e-3
    lim = v.limit
    assert len(lim["hyperplane_values"]) == 2
    assert lim["coordinate_limits"][0] == lim["coordinate_limits"][1]


def test_checker_accepts_and_rejects_tampered_t7(fast_cert):
    _, c = fast_cert
    assert check_certificate(copy.deepcopy(c)).valid
    cases = []
    t = copy.deepcopy(c)  # a limit narrower than what the lemma proves
    lo, hi = (F(x) for x in t["limit"]["coordinate_limits"][0])
    t["limit"]["coordinate_limits"][0] = [str(hi - (hi - lo) / 100), str(hi)]
    cases.append((t, "limit.coordinate_limits[0]"))
    t = copy.deepcopy(c)  # tokens moved between groups
    t["tail_lemma"]["groups"] = {"+": [0], "-": [1, 2, 3]}
    cases.append((t, "tail_lemma.groups"))
    t = copy.deepcopy(c)  # an interval that holds no eigenvalue
    t["tail_lemma"]["lambda1"] = ["3", "4"]
    cases.append((t, "tail_lemma.lambda1"))
    t = copy.deepcopy(c)  # a larger margin than proved
    t["tail_lemma"]["m"] = str(F(t["tail_lemma"]["m"]) * 2)
    cases.append((t, "tail_lemma.m"))
    t = copy.deepcopy(c)  # a token's box at T shrunk away from the replayed enclosure
    lo, hi = (F(x) for x in t["tail_lemma"]["boxes_at_T"][1][0])
    t["tail_lemma"]["boxes_at_T"][1][0] = [str(hi), str(hi)]
    cases.append((t, "tail_lemma.boxes_at_T[1][0]"))
    t = copy.deepcopy(c)
    t["verdict"] = "refuted"
    cases.append((t, "verdict"))
    t = copy.deepcopy(c)  # a norm that does not make V|_G contract below λ₁
    t["tail_lemma"]["norm_S"] = [["1", "0"], ["0", "1000"]]
    cases.append((t, "tail_lemma.nu"))
    for tampered, field in cases:
        assert failing_field(redigest(tampered)) == field, field


def test_tied_or_complex_dominant_eigenvalue_gets_no_t7():
    # V = diag(1, −1): tied in modulus; V with a complex dominant pair: no φ₁*. Three
    # tokens (two are Lemma S3's, tests/tail/test_two_tokens.py).
    for V in ([[1, 0], [0, -1]], [[0, -1], [1, 0]]):
        inst = Instance.create(V=V, Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]],
                               X0=[[1, 0], [0, 1], [1, 1]])
        v = certify(inst, "4.2", max_seconds=None)
        assert v.verdict == "undecided" and v.trajectory is None
        assert "not unique, real and positive" in v.reason


def test_mpmath_backend_reaches_the_same_groups():
    box = dominant_interval(FAST)[0]
    boxes = [[(x, x) for x in row] for row in FAST.X0]
    out = {}
    for name in ("flint", "mpmath"):
        bk = get_backend(name)
        with bk.workprec(200):
            pb, why = projected_groups(bk, FAST.V, FAST.B, box, F(0), boxes)
        assert pb is not None, why
        out[name] = pb
    a, b = out["flint"], out["mpmath"]
    assert a.groups == b.groups
    for k in a.limits:  # the two enclosures of the same quantity overlap and are narrow
        assert max(a.limits[k][0], b.limits[k][0]) <= min(a.limits[k][1], b.limits[k][1])
    assert abs(a.m - b.m) < F(1, 10**20) * a.m
    mpmath.mp.dps = 15


def test_approximate_reading_of_theorem_4_2_is_typed_and_discriminates():
    """The float64 reading used beside explore's verdicts: holds where T7 certified,
    breaks with a negative dominant eigenvalue and with a rotating complex pair."""
    from certified.approx.float64 import approx_theorem_4_2

    assert approx_theorem_4_2(FAST).judgement == "holds"
    neg = Instance.create(V=[[-1, 0], [0, F(1, 2)]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]],
                          X0=[[1, 1], [F(1, 2), -1], [-1, F(1, 2)]])
    r = approx_theorem_4_2(neg)
    assert r.judgement == "breaks" and "approximate" in r.method
    rot = Instance.create(V=[[0, -1], [1, 0]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]],
                          X0=[[1, 0], [0, 1]])
    r = approx_theorem_4_2(rot)  # a pure rotation: the plane coordinates keep turning
    assert r.judgement == "breaks" and "complex dominant pair" in r.detail


def test_theorem_5_2_with_one_dimensional_F_is_certified_and_checked():
    """λ₁ simple: F = span φ₁ and T7 proves 5.2's conclusion (F-components → the two
    endpoints of K = conv{aφ, bφ}); the checker re-derives each centre from φ."""
    v = certify(FAST, "5.2", digits=15, max_seconds=None, refine_t=0)
    assert v.verdict == "certified"
    c = json.loads(json.dumps(to_certificate(v)))
    clusters = c["limit"]["clusters"]
    assert [cl["members"] for cl in clusters] == [[0, 1], [2, 3]]
    # φ = e₁ for this V: the F-component is (ψ(z), 0); the oracle's limits 4.6667, −4.6665
    assert F(clusters[0]["center"][0][0]) <= F("4.6666") <= F(clusters[0]["center"][0][1])
    assert F(clusters[1]["center"][0][0]) <= F("-4.6664") <= F(clusters[1]["center"][0][1])
    assert check_certificate(copy.deepcopy(c)).valid
    t = copy.deepcopy(c)
    t["limit"]["clusters"][1]["center"][0] = ["-4.5", "-4.4"]
    assert failing_field(redigest(t)) == "limit.clusters[1].center[0]"
    t = copy.deepcopy(c)
    t["limit"]["clusters"][0]["is_zero"] = True
    assert failing_field(redigest(t)) == "limit.clusters[0].is_zero"


def test_tiny_positive_group_keeps_a_positive_limit_interval():
    """Found by the property suite: a token starting on {ψ = 0} is at ψ ≈ 9e-10 after one
    step; the group's limit interval must stay > 0 (Arb's 30-bit radii put a ball product's
    lower end at −3e-9 before the ends were computed separately)."""
    inst = Instance.create(V=[[1, 0], [0, 0]], Q=[[1, 0], [0, 2]], K=[[1, 0], [0, 2]],
                           X0=[[0, 2], [1, 0]])
    # Picard steps: the short first step is what leaves the token at ψ ≈ 9e-10
    v = certify(inst, "4.2", digits=20, t_max=6, max_seconds=None, refine_t=0, step="picard")
    assert v.verdict == "certified" and v.tail.groups == {"+": [0, 1], "-": []}
    lo, hi = v.tail.limits["+"]
    assert 0 < lo < F(1, 10**8) and hi < 1
    c = json.loads(json.dumps(to_certificate(v)))
    assert c["limit"]["groups"] == {"+": [0, 1]}  # an empty group claims nothing
    assert check_certificate(copy.deepcopy(c)).valid
    # one sign group has no cross-group margin: a claimed rate is rejected
    c["limit"]["cross_group_rate"]["m"] = "1"
    assert failing_field(redigest(c)) == "limit.cross_group_rate.m"


def test_astronomical_entries_do_not_crash_the_float_heuristics(tmp_path, capsys):
    """Exact inputs have no range, floats do. V = diag(10^400, 1) (a good triple) made
    `verify` exit 1 with an OverflowError in the eigenvector heuristic of Lemma T7's norm;
    now the heuristics divide by the largest entry (eigenvectors and argmax are
    scale-free), and the approximate float64 paths refuse with a one-line InputError
    naming the matrix."""
    from certified.approx.float64 import approx_theorem_4_2
    from certified.cli import main
    from certified.errors import InputError
    from certified.tail.t4_leader_follower import leader_map_from_points
    from certified.tail.t7_projected import norm_matrix_candidates

    big = F(10) ** 400
    V = [[big, F(0)], [F(0), F(1)]]
    S = norm_matrix_candidates(V)[0]
    assert S == norm_matrix_candidates([[F(1), F(0)], [F(0), F(1, 10 ** 400)]])[0]
    Z = np.array([[1.0, 0.2], [0.9, 0.1], [-1.0, 0.3]])
    B = [[F(2), F(1)], [F(1), F(3)]]
    assert leader_map_from_points(Z, [[x * big for x in row] for row in B]) == \
        leader_map_from_points(Z, B)
    inst = Instance.create(V=V, Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]],
                           X0=[[1, 0], [0, 1]])
    with pytest.raises(InputError, match=r"^V: .*float64 range"):
        approx_theorem_4_2(inst)
    path = tmp_path / "huge_v.json"
    path.write_text(json.dumps({"V": [["1e400", "0"], ["0", "1"]], "Q": [["1", "0"], ["0", "1"]],
                                "K": [["1", "0"], ["0", "1"]], "X0": [["1", "0"], ["0", "1"]]}))
    assert main(["verify", str(path), "--digits", "15", "--t-max", "1", "--format", "json",
                 "--out", str(tmp_path / "c.json")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "undecided"


@pytest.mark.parametrize("V", [
    # the 5.2-inside boundary row's instances #7, #10 and #16: a simple λ₁ and a complex
    # pair of smaller modulus, not normal
    [["-8", "5", "1"], ["-15", "19/2", "3/2"], ["-2", "1", "-3/2"]],
    [["7", "-7/4", "15/4"], ["-12", "33/4", "-45/4"], ["-9", "53/4", "-59/4"]],
    [["1/2", "-1", "-3/2"], ["0", "-3/4", "-5/4"], ["0", "1/4", "1/4"]],
])
def test_the_eigenvector_norm_of_a_complex_pair_is_its_modulus(V):
    """The first norm candidate (the real eigenvector basis) gives ‖V|_G‖ equal to the
    largest modulus on G, up to the basis' rounding to 2⁻⁴⁰. Normalising x and y of a
    pair x ± iy separately made it 2.50 instead of 1.118 on #7 and 21.1 instead of 1.458
    on #10, both above λ₁, so Lemma T7 was never tried ("no norm found")."""
    from certified.tail.t7_projected import find_norm, norm_bound, norm_matrix_candidates

    Vq = [[F(x) for x in row] for row in V]
    inst = Instance.create(V=Vq, Q=np.eye(3, dtype=int).tolist(), K=np.eye(3, dtype=int).tolist(),
                           X0=[[1, 0, 0], [0, 1, 0]])
    lam_box, why = dominant_interval(inst)
    assert lam_box is not None, why
    with mpmath.workdps(50):
        ev = sorted(mpmath.eig(mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator
                                                for x in row] for row in Vq]))[0],
                    key=lambda z: -abs(z))
    lam1, rho_G = ev[0], max(abs(z) for z in ev[1:])
    assert abs(lam1.imag) < 1e-40 and abs(lam1.real - (lam_box[0] + lam_box[1]) / 2) < 1e-40
    with BK.workprec(256):
        P, _ = spectral_projector(BK, Vq, lam_box)
        W = BK.matmul(BK.array(Vq), BK.identity(3) - P)
        nu = norm_bound(BK, W, norm_matrix_candidates(Vq)[0])[0]
        S, why = find_norm(BK, Vq, lam_box)
    assert S is not None, why
    assert rho_G <= mpmath.mpf(nu.numerator) / nu.denominator <= rho_G * (1 + 1e-9)  # ≥ ρ: any operator norm
