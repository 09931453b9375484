"""The quadratic norm on G of Lemma T8 (``certified/tail/g_metric.py``): the exact
conditions checked by an independent oracle (sympy's positive-definiteness on the exact
matrices), its growth rate against numpy's spectral radius, its bound on a box against
sampled points, and the splits it makes possible (a complex pair with ρ(V_G) < λ <
|a| + |b|, a defective complex pair) — end to end on a shipped example."""

from __future__ import annotations

import copy
import itertools
import json
from fractions import Fraction as F

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from certified import Instance
from certified.checker import check_certificate
from certified.tail.g_metric import metric_bound, stein_metric
from certified.tail.t8_paranormal import paranormal_split
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify
from tests.tail.oracles import rk4_x


def _sym(M) -> sympy.Matrix:
    return sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in r] for r in M])


def _rho(VG) -> float:
    return float(max(abs(np.linalg.eigvals(np.array([[float(x) for x in r] for r in VG])))))


def _assert_metric(VG, lam, P, nu):
    """The two exact conditions, decided by sympy (not by the code under test)."""
    m = len(VG)
    Ps, Vs = _sym(P), _sym(VG)
    assert Ps == Ps.T
    assert (Ps - sympy.eye(m)).is_positive_definite
    assert (sympy.Rational(nu.numerator, nu.denominator) ** 2 * Ps - Vs.T * Ps * Vs
            ).is_positive_definite
    assert _rho(VG) < nu <= lam


ROTATION = [[F(3, 5), F(-3, 5)], [F(3, 5), F(3, 5)]]  # 3/5 ± 3i/5: modulus 0.849
DEFECTIVE_PAIR = [[F(1, 2), F(-1, 2), F(1), F(0)], [F(1, 2), F(1, 2), F(0), F(1)],
                  [F(0), F(0), F(1, 2), F(-1, 2)], [F(0), F(0), F(1, 2), F(1, 2)]]
IRRATIONAL_PAIR = [[F(1, 2), F(-1)], [F(1, 2), F(1, 2)]]  # 1/2 ± i/√2: modulus 0.866


@pytest.mark.parametrize("VG", [ROTATION, DEFECTIVE_PAIR, IRRATIONAL_PAIR])
def test_metric_exists_below_lambda_and_is_exact(VG):
    P, nu = stein_metric(VG, F(1))
    _assert_metric(VG, F(1), P, nu)
    assert nu > F(1, 2)  # ρ > λ/2 here: the combined margin's range


def test_metric_takes_the_plain_range_when_the_spectrum_allows():
    VG = [[F(3, 10), F(-3, 10)], [F(3, 10), F(3, 10)]]  # modulus 0.42 < λ/2
    P, nu = stein_metric(VG, F(1))
    _assert_metric(VG, F(1), P, nu)
    assert nu <= F(1, 2)


@pytest.mark.parametrize("VG", [
    [[F(1), F(-1)], [F(1), F(1)]],                         # modulus √2 > 1
    [[F(0), F(1)], [F(-1), F(0)]],                         # modulus 1 = λ: a tie
    [[F(1, 2)]],                                           # dim G = 1: the max-norm is exact
])
def test_metric_refused_at_or_above_lambda_and_in_dimension_one(VG):
    assert stein_metric(VG, F(1)) is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-12, 12), min_size=9, max_size=9), st.integers(1, 8))
def test_metric_on_random_V_G_is_exact_or_refused_for_a_reason(entries, scale):
    """3×3 V_G = entries/(4·scale): a metric exactly when ρ(V_G) < λ = 1 with room
    (float oracle), and then the exact conditions hold."""
    VG = [[F(entries[3 * i + j], 4 * scale) for j in range(3)] for i in range(3)]
    rho = _rho(VG)
    got = stein_metric(VG, F(1))
    if rho >= 1:
        assert got is None
    elif rho < 0.99:
        assert got is not None, rho
        _assert_metric(VG, F(1), *got)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.fractions(-3, 3, max_denominator=16), min_size=4, max_size=4),
       st.integers(0, 2 ** 32 - 1))
def test_metric_bound_contains_sampled_points_and_is_tight(ends, seed):
    """The bound is ≥ √(yᵀPy) at random points of the box and within 10⁻¹⁵ (relative) of
    the maximum over its vertices, plus 2^−63 (mpmath at 50 digits)."""
    import mpmath

    P, _ = stein_metric(ROTATION, F(1))
    box = [(min(ends[0], ends[1]), max(ends[0], ends[1])),
           (min(ends[2], ends[3]), max(ends[2], ends[3]))]
    bound = metric_bound(P, box)
    Pf = np.array([[float(x) for x in r] for r in P])
    rng = np.random.default_rng(seed)
    for _ in range(50):
        y = np.array([rng.uniform(float(lo), float(hi)) for lo, hi in box])
        assert np.sqrt(y @ Pf @ y) <= float(bound) * (1 + 1e-12)
    def mq(q: F) -> mpmath.mpf:
        return mpmath.mpf(q.numerator) / q.denominator

    with mpmath.workdps(50):
        top = max(mpmath.sqrt(sum(mq(v[i]) * mq(P[i][j]) * mq(v[j])
                                  for i in range(2) for j in range(2)))
                  for v in itertools.product(*[(F(lo), F(hi)) for lo, hi in box]))
        # relative: the 20-digit rounding; absolute: sqrt_up's 2^−64 (a zero box)
        assert top <= mq(bound) <= top * (1 + mpmath.mpf(10) ** -15) + mpmath.mpf(2) ** -63


def _block(VG):
    m = len(VG)
    d = m + 2
    V = [[F(0)] * d for _ in range(d)]
    V[0][0] = V[1][1] = F(1)
    for i in range(m):
        V[2 + i][2:] = VG[i]
    return V, [[F(int(i == j)) for j in range(d)] for i in range(d)]


@pytest.mark.parametrize("VG", [ROTATION, DEFECTIVE_PAIR, IRRATIONAL_PAIR])
def test_split_uses_the_metric_where_every_basis_gives_nu_above_lambda(VG):
    """V = diag(1, 1) ⊕ V_G: before the quadratic norm these were refused (‖V_G‖∞ ≥ 6/5
    in every basis tried); now split with ν ≤ λ and the exact conditions."""
    V, B = _block(VG)
    sp, why = paranormal_split(V, B)
    assert sp is not None, why
    assert sp.G_metric is not None and sp.combined
    S = _sym(sp.S)
    VGs = (S.inv() * _sym(V) * S)[2:, 2:]
    VGq = [[F(str(VGs[i, j])) for j in range(VGs.cols)] for i in range(VGs.rows)]
    _assert_metric(VGq, F(1), sp.G_metric, sp.nu)


def test_split_takes_the_metric_into_the_plain_range_for_discrete_time():
    """V_G = the pair 3/10 ± 3i/10 (modulus 0.42 < λ/2, |a| + |b| = 3/5 > λ/2): the
    eigenvector basis needs the combined margin, which T8's discrete form lacks; the
    quadratic norm brings ν below λ/2, so the step-size condition holds for small Δt."""
    from certified.tail.t8_paranormal import step_size_condition

    V, B = _block([[F(3, 10), F(-3, 10)], [F(3, 10), F(3, 10)]])
    sp, why = paranormal_split(V, B)
    assert sp is not None and sp.G_metric is not None and not sp.combined, why
    assert 0.42 < sp.nu <= F(1, 2)
    assert step_size_condition(sp, F(1, 10))


def test_split_refused_when_the_G_part_reaches_lambda():
    V, B = _block([[F(1), F(-1)], [F(1), F(1)]])
    sp, why = paranormal_split(V, B)
    assert sp is None and "no quadratic norm on G" in why and "ν ≤ λ" in why


@pytest.mark.slow
def test_the_rotating_G_example_end_to_end():
    """examples/thm5_2_rotating_G.json (V_G = the pair 3/5 ± 3i/5): certified by Lemma T8
    with the quadratic norm and checked valid (about 6 min); each F-limit contains a
    float64 RK4 run's F-part at t = 8 to 10⁻⁶ (z_F = e^{−t}x_F, V|_F = I)."""
    inst = Instance.load("examples/thm5_2_rotating_G.json")
    v = certify(inst, "5.2", digits=15, t_max=6, refine_t=0, max_seconds=None)
    assert v.verdict == "certified", v.reason
    c = json.loads(json.dumps(to_certificate(v)))
    assert "G_metric" in c["tail_lemma"]
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message
    V = np.array([[float(F(x)) for x in r] for r in inst.V])
    X = np.array([[float(F(x)) for x in r] for r in inst.X0])
    t = 8.0
    X = rk4_x(X, V, np.eye(len(V)), t, 1e-3)  # ẋ_i = Σ_j P_ij V x_j (B = I)
    zF = X[:, :2] * np.exp(-t)
    for cl in c["limit"]["clusters"]:
        for i in cl["members"]:
            for r in range(2):
                lo, hi = (float(F(x)) for x in cl["center"][r])
                assert lo - 1e-6 <= zF[i, r] <= hi + 1e-6, (i, r, zF[i, r], lo, hi)
        assert float(F(cl["center"][1][1])) - float(F(cl["center"][1][0])) < 1e-3


def test_discrete_time_with_the_metric_certified_checked_and_tampered():
    """V = diag(1, 1) ⊕ the pair 3/10 ± 3i/10, Δt = 1/10: T8's discrete form needs
    (1 + νΔt)² ≤ 1 + λΔt, which ν = |a| + |b| = 3/5 fails and the quadratic norm's ν ≈ 0.46
    meets. Certified, checked valid (the checker iterates the layer map), and each
    cluster's F-centre (width < 0.03) contains a float64 iteration's z_F = 1.1^{−k}x_F at
    layer 400 to 10⁻⁹; a ν breaking the step-size condition, or the metric removed (‖V_G‖∞ = 3/5 > ν),
    is rejected naming nu."""
    from tests.test_checker import failing_field, redigest

    I4 = [[int(i == j) for j in range(4)] for i in range(4)]
    V = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, "3/10", "-3/10"], [0, 0, "3/10", "3/10"]]
    X0 = [[2, 1, "1/2", "-1/2"], [-1, 2, 0, "1/2"], [1, -2, "-1/2", 0]]
    inst = Instance.create(V=V, Q=I4, K=I4, X0=X0, time={"discrete": "1/10"})
    v = certify(inst, "5.2", digits=20, t_max=8, refine_t=0, max_seconds=None)
    assert v.verdict == "certified", v.reason
    c = json.loads(json.dumps(to_certificate(v)))
    lemma = c["tail_lemma"]
    assert "G_metric" in lemma and (1 + F(lemma["nu"]) / 10) ** 2 <= F(11, 10)
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message
    X = np.array([[float(F(x)) for x in r] for r in X0])
    Vf = np.array([[float(F(x)) for x in r] for r in V])
    for _ in range(400):
        S = X @ X.T
        P = np.exp(S - S.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        X = X + 0.1 * (P @ X) @ Vf.T
    zF = X[:, :2] / 1.1 ** 400
    for cl in c["limit"]["clusters"]:
        for i in cl["members"]:
            for r in range(2):
                lo, hi = (float(F(x)) for x in cl["center"][r])
                assert lo - 1e-9 <= zF[i, r] <= hi + 1e-9, (i, r, zF[i, r], lo, hi)
                # width: 2δ₀ at layer 4 (0.0256 here), no rate inside a cluster is claimed
                assert hi - lo < 0.03
    bad = copy.deepcopy(c)
    bad["tail_lemma"]["nu"] = "1/2"  # (1 + 1/20)² = 1.1025 > 1.1
    assert failing_field(redigest(bad)) == "tail_lemma.nu"
    bad = copy.deepcopy(c)
    del bad["tail_lemma"]["G_metric"]
    assert failing_field(redigest(bad)) == "tail_lemma.nu"
