"""Rigorous enclosures of the trajectory against exact oracles (containment and width).

Oracles: closed forms (n = 1; Q = 0), a symmetric two-token configuration reduced to a
scalar separable ODE solved independently by quadrature at 60+ digits, a forward-then-
backward run, the discrete map evaluated at 2000 bits, and high-precision approximate
runs. Every test asserts containment *and* an upper bound on the width.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certified import Instance
from certified.approx.midpoint import approx_trajectory_mp
from certified.enclose.driver import enclose_trajectory

BACKENDS = ["flint", "mpmath"]
I2 = [[1, 0], [0, 1]]


def contains(backend, ball, value, dps=80) -> bool:
    """Is the mpmath number ``value`` inside the backend interval ``ball``?"""
    lo, hi = backend.bounds(ball)
    with mpmath.workdps(dps):
        return mpmath.mpf(lo.numerator) / lo.denominator <= value <= \
            mpmath.mpf(hi.numerator) / hi.denominator


def contains_q(backend, ball, q: F) -> bool:
    """Is the exact rational q inside the backend interval ``ball``?"""
    lo, hi = backend.bounds(ball)
    return lo <= q <= hi


def width(backend, ball) -> float:
    lo, hi = backend.bounds(ball)
    return float(hi - lo)


# ---------------------------------------------------------------- n = 1 and Q = 0
V_UPPER = [[1, 2], [0, -1]]  # e^{tV} = [[e^t, e^t − e^{−t}], [0, e^{−t}]]


def exp_tV(t):
    e, ei = mpmath.exp(t), mpmath.exp(-t)
    return mpmath.matrix([[e, e - ei], [0, ei]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_token_closed_form(backend):
    inst = Instance.create(V=V_UPPER, Q=[[1, 1]], K=[[2, -1]], X0=[["1/3", "-2/7"]])
    tr = enclose_trajectory(inst, "1/2", times=["1/4", "1/2"], digits=25, variable="x",
                            backend=backend)
    assert tr.certified_until == F(1, 2)
    bk = tr.backend
    with mpmath.workdps(80):
        x0 = mpmath.matrix([mpmath.mpf(1) / 3, mpmath.mpf(-2) / 7])
        for t, tok in zip(tr.times, tr.tokens):
            exact = exp_tV(mpmath.mpf(t.numerator) / t.denominator) * x0
            for c in range(2):
                assert contains(bk, tok[0, c], exact[c])
                assert width(bk, tok[0, c]) < 1e-20


@pytest.mark.parametrize("backend", BACKENDS)
def test_uniform_attention_closed_form(backend):
    # Q = 0: P = (1/n)·ones, ẋ_i = V m(t), m(t) = e^{tV} m0, so
    # x_i(t) = x_i(0) + (e^{tV} − I) m0 and z_i = e^{−tV} x_i.
    X0 = [["1", "0"], ["0", "1/2"], ["-1/3", "1"]]
    inst = Instance.create(V=V_UPPER, Q=[[0, 0]], K=[[0, 0]], X0=X0)
    tr = enclose_trajectory(inst, "1/2", times=["1/2"], digits=25, backend=backend)
    bk = tr.backend
    with mpmath.workdps(80):
        t = mpmath.mpf(1) / 2
        X = [mpmath.matrix([mpmath.mpf(F(a).numerator) / F(a).denominator for a in row])
             for row in X0]
        m0 = (X[0] + X[1] + X[2]) / 3
        E, Ei = exp_tV(t), exp_tV(-t)
        for i in range(3):
            z = Ei * (X[i] + (E - mpmath.eye(2)) * m0)
            for c in range(2):
                assert contains(bk, tr.tokens[0][i, c], z[c])
                assert width(bk, tr.tokens[0][i, c]) < 1e-20
        # P = 1/3 exactly, enclosed
        for v in tr.attention[0].flat:
            assert contains(bk, v, mpmath.mpf(1) / 3) and width(bk, v) < 1e-20


# ---------------------------------------------------------------- symmetric two tokens
def symmetric_oracle(b: F, t: F, dps: int = 60):
    """x₁ = (e^t, w), x₂ = (e^t, −w) with ẇ = w·tanh(w²), w(0) = b (V = Q = K = I):
    solve ∫_b^w coth(s²)/s ds = t by quadrature and root finding."""
    with mpmath.workdps(dps):
        b_, t_ = mpmath.mpf(b.numerator) / b.denominator, mpmath.mpf(t.numerator) / t.denominator
        g = lambda w: mpmath.quad(lambda s: mpmath.coth(s * s) / s, [b_, w]) - t_  # noqa: E731
        # ẇ = w tanh(w²) ∈ (0, w]: the root lies in [b, b·e^t], where g is increasing.
        w = mpmath.findroot(g, (b_, b_ * mpmath.exp(t_)), solver="illinois")
        return mpmath.exp(t_), w, -w  # negate here: mpmath rounds to the global precision


@pytest.mark.parametrize("backend", BACKENDS)
def test_symmetric_two_tokens_scalar_ode(backend):
    b = F(1, 2)
    inst = Instance.create(V=I2, Q=I2, K=I2, X0=[[1, b], [1, -b]])
    T = F(1, 2) if backend == "mpmath" else F(1)
    tr = enclose_trajectory(inst, T, times=[T], digits=25, variable="x", backend=backend)
    bk = tr.backend
    u, w, minus_w = symmetric_oracle(b, T)
    tok = tr.tokens[0]
    for value, ball in [(u, tok[0, 0]), (w, tok[0, 1]), (u, tok[1, 0]), (minus_w, tok[1, 1])]:
        assert contains(bk, ball, value)
        assert width(bk, ball) < 1e-18


def test_forward_then_backward_contains_start():
    # In x the ODE is autonomous; reversing time is V → −V with the same Q, K.
    X0 = [["1/2", "1/3"], ["-1/4", "1"], ["1", "-1/5"]]
    V = [[1, "1/2"], [0, "1/2"]]
    Vneg = [[-1, "-1/2"], [0, "-1/2"]]
    Q, K = [[1, 0], [0, 2]], [[1, 1], [0, 1]]
    fwd = enclose_trajectory(Instance.create(V=V, Q=Q, K=K, X0=X0), "1/2", digits=25,
                             coordinates="x", variable="x")
    bk = fwd.backend
    end = fwd.tokens[-1]
    back = enclose_trajectory(Instance.create(V=Vneg, Q=Q, K=K, X0=X0), "1/2", digits=25,
                              coordinates="x", variable="x", initial_box=end)
    start = back.tokens[-1]
    for i, row in enumerate(X0):
        for c, v in enumerate(row):
            assert contains_q(bk, start[i, c], F(v))
            assert width(bk, start[i, c]) < 1e-18


# ---------------------------------------------------------------- discrete time
def euler_map_mp(X, V, B, dt):
    n = len(X)
    out = []
    for i in range(n):
        s = [sum(X[i][a] * B[a][b] * X[j][b] for a in range(len(V)) for b in range(len(V)))
             for j in range(n)]
        m = max(s)
        e = [mpmath.exp(x - m) for x in s]
        Z = sum(e)
        xbar = [sum(e[j] / Z * X[j][c] for j in range(n)) for c in range(len(V))]
        out.append([X[i][r] + dt * sum(V[r][c] * xbar[c] for c in range(len(V)))
                    for r in range(len(V))])
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_discrete_map_against_2000_bits(backend):
    X0 = [["1", "1/10"], ["-1/2", "1"], ["1/3", "-1"]]
    V = [[1, "1/3"], [0, "-1/2"]]
    Q, K = [[1, 0], [0, 1]], [[2, 0], [1, 1]]
    inst = Instance.create(V=V, Q=Q, K=K, X0=X0, time={"discrete": "1/10"})
    layers = 20 if backend == "flint" else 8
    T = F(layers, 10)
    tr = enclose_trajectory(inst, T, times=[T], digits=30, variable="x", backend=backend)
    bk = tr.backend
    with mpmath.workprec(2000):
        q = lambda a: mpmath.mpf(F(a).numerator) / F(a).denominator  # noqa: E731
        X = [[q(a) for a in row] for row in X0]
        Vm = [[q(a) for a in row] for row in V]
        B = [[q(x) for x in row] for row in inst.B]
        for _ in range(layers):
            X = euler_map_mp(X, Vm, B, mpmath.mpf(1) / 10)
        for i in range(3):
            for c in range(2):
                assert contains(bk, tr.tokens[0][i, c], X[i][c], dps=700)
                assert width(bk, tr.tokens[0][i, c]) < 1e-25


def test_discrete_rescaled_variable_matches_remark_3_4():
    # z^[k] = R^{-k} x^[k] must agree with iterating the rescaled map of Remark 3.4.
    from certified.enclose.arith import get_backend
    from certified.enclose.field import AttentionField

    X0 = [["1", "1/10"], ["-1/2", "1"]]
    V = [[1, "1/3"], [0, "-1/2"]]
    inst = Instance.create(V=V, Q=I2, K=I2, X0=X0, time={"discrete": "1/4"})
    tr = enclose_trajectory(inst, 1, times=[1], digits=30, variable="z")
    bk = get_backend("flint")
    with bk.workprec(300):
        f = AttentionField(inst, bk, "z")
        Z = bk.array([[F(x) for x in row] for row in inst.X0])
        for k in range(4):
            Z = f.rescaled_euler_map(Z, k, F(1, 4))
        for a, b in zip(tr.tokens[0].flat, Z.flat):
            assert a.overlaps(b) and width(tr.backend, a) < 1e-25


def test_continuous_is_the_limit_of_discrete():
    X0 = [["1", "1/10"], ["-1/2", "1"], ["1/3", "-1"]]
    V = [[1, 0], [0, 1]]
    cont = enclose_trajectory(Instance.create(V=V, Q=I2, K=I2, X0=X0), "1/2", times=["1/2"],
                              digits=20, variable="x")
    bk = cont.backend
    errs = []
    for dt in (F(1, 20), F(1, 40), F(1, 80)):
        disc = enclose_trajectory(Instance.create(V=V, Q=I2, K=I2, X0=X0,
                                                  time={"discrete": dt}), "1/2",
                                  times=["1/2"], digits=20, variable="x")
        errs.append(max(abs(bk.to_float(a) - bk.to_float(b))
                        for a, b in zip(disc.tokens[0].flat, cont.tokens[0].flat)))
    # Euler is first order: halving Δt roughly halves the distance to the ODE.
    assert errs[0] > errs[1] > errs[2] > 0
    assert 1.6 < errs[0] / errs[1] < 2.4 and 1.6 < errs[1] / errs[2] < 2.4


# ---------------------------------------------------------------- random instances
small = st.fractions(min_value=-1, max_value=1, max_denominator=4)


@settings(max_examples=6, deadline=None)
@given(st.data())
def test_random_small_instances_contain_high_precision_solution(data):
    n, d = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2))
    mat = lambda r, c: data.draw(st.lists(st.lists(small, min_size=c, max_size=c),  # noqa
                                          min_size=r, max_size=r))
    inst = Instance.create(V=mat(d, d), Q=mat(1, d), K=mat(1, d), X0=mat(n, d))
    tr = enclose_trajectory(inst, "1/4", times=["1/4"], digits=20)
    approx = approx_trajectory_mp(inst, "1/4", times=["1/4"], digits=50, order=30,
                                  h=F(1, 64))
    bk = tr.backend
    assert tr.certified_until == F(1, 4)
    for ball, value in zip(tr.tokens[0].flat, approx.tokens[0].flat):
        assert contains(bk, ball, value) and width(bk, ball) < 1e-15


def test_until_predicate_stops_at_first_validated_time():
    # stop as soon as token 0's second coordinate is proved below 0.45 (it decreases from 1/2)
    inst = Instance.create(V=I2, Q=I2, K=I2, X0=[[1, "1/2"], [1, "-1/2"]])

    def below(t, box, S):
        lo, hi = tr_backend.bounds(box[0, 1])
        return hi < F(45, 100)

    from certified.enclose.arith import get_backend
    tr_backend = get_backend("flint")
    tr = enclose_trajectory(inst, 2, digits=20, until=below)
    assert tr.stopped_by_predicate and 0 < tr.certified_until < 2
    assert tr.times[-1] == tr.certified_until
    lo, hi = tr.backend.bounds(tr.tokens[-1][0, 1])
    assert hi < F(45, 100)
    # the state before did not satisfy it: the stop is the first validated time
    prev = tr.steps[-1].input_set.box(tr.backend)
    with tr.backend.workprec(tr.bits):
        assert tr.backend.bounds(prev[1])[1] >= F(45, 100)


def test_float_path_handles_albert_scale():
    from certified.approx.float64 import approx_trajectory_float

    rng = np.random.default_rng(3)
    n, d = 256, 128
    V = rng.standard_normal((d, d)) / np.sqrt(d)
    Q, K = rng.standard_normal((d, d)) * 3, rng.standard_normal((d, d)) * 3  # huge scores
    res = approx_trajectory_float(V, Q, K, rng.uniform(-1, 1, (n, d)), 0.05, h=0.01)
    assert res.tokens[-1].shape == (n, d) and np.isfinite(res.tokens[-1]).all()
    P = res.attention[-1]
    assert np.isfinite(P).all() and np.allclose(P.sum(axis=1), 1)
    assert "approximate" in res.method


def test_saturated_scores_of_size_1e12_are_certified():
    # Scores of size 10^12 and gaps of size 10^11: P = I up to e^{-10^11}, so z(t) = z(0)
    # to far below 20 digits. The jets used to lose everything to the ball x − x of the
    # row's own shift column (radius 2·rad x, times the score scale at every order), and
    # no step was validated; with that column exactly 0 (Lemma I2) the run reaches t = 1.
    big = [[10 ** 6, 0], [0, 10 ** 6]]
    X0 = [[1, "1/2"], ["-1/3", 1]]
    inst = Instance.create(V=I2, Q=big, K=big, X0=X0)
    tr = enclose_trajectory(inst, 1, times=[0, "1/2", 1], digits=20, max_bits=300)
    assert tr.certified_until == 1 and tr.times == [0, F(1, 2), 1]
    exact = [F(x) for row in X0 for x in row]
    with tr.backend.workprec(tr.bits):
        for box in tr.tokens[1:]:
            for v, x in zip(box.reshape(-1), exact):
                lo, hi = tr.backend.bounds(v)
                assert lo <= x <= hi and hi - lo < F(1, 10 ** 20)  # contains, and tight


def test_unvalidatable_run_reports_where_it_stopped():
    # A tie of scores of size 10^12: row 0 weighs tokens 0 and 1 equally, and the tie
    # breaks on a time scale of 10^-12. No step is validated at any precision up to the
    # cap: nothing past t = 0 may be reported as certified.
    big = [[10 ** 6, 0], [0, 10 ** 6]]
    inst = Instance.create(V=I2, Q=big, K=big, X0=[[1, 0], [1, "1/2"]])
    tr = enclose_trajectory(inst, 1, times=[0, "1/2", 1], digits=20, max_bits=300)
    assert tr.certified_until < F(1, 2)
    # it says why: a typed validation failure, and the precision cap ended the escalation
    assert tr.stop.kind in ("validation", "undecided") and tr.stop.error is not None
    assert "precision cap" in tr.escalation and "max_bits = 300" in tr.stop_message()
    assert tr.times == [0] and tr.not_certified == [F(1, 2), F(1)]
    assert len(tr.tokens) == 1 and len(tr.attempts) >= 2  # the driver escalated precision
    out = tr.to_json(20)
    assert out["times"] == ["0"] and out["not_certified_times"] == ["1/2", "1"]


# ------------------------------------------------------- the a-priori enclosure and tube
THREE_TOKENS = Instance.create(V=I2, Q=I2, K=I2,
                               X0=[[F(1, 2), F(1, 3)], [F(-1, 4), F(3, 5)], [F(2, 5), F(-7, 10)]])


def _reference(times):
    """40-digit Taylor run (not rigorous) of THREE_TOKENS at the given times (z = x at 0)."""
    step = F(1, 512)
    ref = approx_trajectory_mp(THREE_TOKENS, max(times), times=times, digits=40, order=30,
                               h=step)
    return [np.array(z, dtype=object).reshape(-1) for z in ref.tokens]


@pytest.mark.parametrize("backend", BACKENDS)
def test_affine_apriori_contains_solution_and_is_second_order(backend):
    """Lemma I6 (affine form): y(τ) − c − τa ∈ W on [0, ρ] at 40-digit reference points,
    and the Cauchy bound M is O(ρ²) (the plain form's is O(ρ)) and ≥ 3× smaller here."""
    from certified.enclose.arith import get_backend
    from certified.enclose.field import AttentionField
    from certified.enclose.stepper import cauchy_apriori

    bk = get_backend(backend)
    rho = F(1, 64)
    times = [F(k, 512) for k in (2, 4, 6)]
    ref = _reference(times)
    with bk.workprec(120):
        field = AttentionField(THREE_TOKENS, bk, "z")
        c = bk.array(THREE_TOKENS.X0)
        lead = field.leaders(c, F(0))
        pri = cauchy_apriori(field, c, F(0), rho, lead, center=c)
        a = pri.velocity.reshape(-1)
        W = pri.W.reshape(-1)
        for t, y in zip(times, ref):
            for i in range(6):
                off = y[i] - mpmath.mpf(THREE_TOKENS.X0[i // 2][i % 2].numerator) / \
                    THREE_TOKENS.X0[i // 2][i % 2].denominator - \
                    mpmath.mpf(t.numerator) / t.denominator * bk.to_float(a[i])
                assert contains(bk, bk.re_im(W[i])[0], off), (t, i)
        plain = cauchy_apriori(field, c, F(0), rho, lead, affine=False)
        assert float(max(pri.M)) < float(max(plain.M)) / 3
        plain2 = cauchy_apriori(field, c, F(0), rho / 2, lead, affine=False)
        affine2 = cauchy_apriori(field, c, F(0), rho / 2, lead, center=c)
        # Halving ρ: the plain M halves (O(ρ)), the affine one drops by ≈ 4 (O(ρ²)).
        assert float(max(plain.M)) / float(max(plain2.M)) < 2.5
        assert float(max(pri.M)) / float(max(affine2.M)) > 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_narrow_tube_contains_solution_and_is_narrower(backend):
    """Lemma I6b: from a deliberately wide coarse tube (±10⁻³ around the true motion),
    the narrow tube still contains the 40-digit solution on [0, h] and is ≥ 10× narrower
    in every coordinate that moves less than 10⁻⁴ over the step."""
    from certified.enclose.arith import get_backend
    from certified.enclose.field import AttentionField
    from certified.enclose.stepper import _tight_tube

    bk = get_backend(backend)
    h = F(1, 256)
    times = [F(k, 512) for k in (1, 2)]
    ref = _reference(times)
    with bk.workprec(120):
        field = AttentionField(THREE_TOKENS, bk, "z")
        c = bk.array(THREE_TOKENS.X0)
        lead = field.leaders(c, F(0))
        jets = field.jets(c, F(0), 30, lead)
        F0 = field.velocity(c, F(0), lead).reshape(-1)
        Y = c.reshape(-1)
        pad = bk.interval(F(-1, 1000), F(1, 1000))
        coarse = np.array([Y[i] + F0[i] * bk.interval(F(0), h) + pad for i in range(6)],
                          dtype=object)
        # |Σ_{k>30} c_k τ^k| on [0, 1/256]: (h/R)^31 with R ≈ 0.8 (|c_k|^{-1/k}) is ~1e-72,
        # so 10⁻³⁰ is a (generous) bound for this test's remainder.
        rem = np.array([bk.interval(F(-1, 10 ** 30), F(1, 10 ** 30))] * 6, dtype=object)
        tube = _tight_tube(field, coarse, jets, rem, Y - c.reshape(-1),
                           bk.interval(F(0), h), h)
        for y in ref:
            for i in range(6):
                assert contains(bk, tube[i], y[i]), i
        for i in range(6):  # the motion h|F_i| plus O(h²), not the ±10⁻³ of the pad
            motion = abs(bk.to_float(F0[i])) * float(h)
            assert width(bk, coarse[i]) > 2e-3
            assert width(bk, tube[i]) < motion + 1e-5, (i, width(bk, tube[i]), motion)


def test_long_run_keeps_its_digits():
    """Two tokens of the benchmark to T = 3 at 30 digits: the step size is also limited
    by the point polynomial's own rounding radius (its high-order coefficients carry radii
    growing like the score scale^k). Without that control the longer steps of the affine
    a-priori enclosure ended at radius 2e-22; now ≤ 1e-30, and the box contains a 45-digit
    reference solution."""
    X0 = [[F(137, 500), F(-23, 50)], [F(-459, 500), F(-967, 1000)]]  # bench_integrator (2, 2)
    inst = Instance.create(V=I2, Q=I2, K=I2, X0=X0)
    tr = enclose_trajectory(inst, 3, times=[3], digits=30, max_bits=None)
    assert tr.certified_until == 3
    ref = approx_trajectory_mp(inst, 3, times=[3], digits=45, order=40, h=F(1, 32))
    bk = tr.backend
    with bk.workprec(tr.bits):
        box = tr.final_box().reshape(-1)
        assert float(bk.max_rad(box)) < 1e-30
        z = np.array(ref.tokens[-1], dtype=object).reshape(-1)
        assert all(contains(bk, b, v) for b, v in zip(box, z))


@pytest.mark.parametrize("backend", BACKENDS)
def test_matmul_sum_encloses_the_exact_sum_of_products(backend):
    """Σ_a L_a R_a from backend-native operands (the jets' Cauchy products): contains the
    exact rational result, with radius at rounding level, on both backends."""
    from certified.enclose.arith import get_backend

    bk = get_backend(backend)
    rng = np.random.default_rng(3)
    shapes = [((4, 3), (3, 5))] * 6
    Ls = [[[F(int(v), 7) for v in row] for row in rng.integers(-50, 50, s)] for s, _ in shapes]
    Rs = [[[F(int(v), 11) for v in row] for row in rng.integers(-50, 50, s)] for _, s in shapes]
    exact = [[sum(L[i][c] * R[c][j] for L, R in zip(Ls, Rs) for c in range(3))
              for j in range(5)] for i in range(4)]
    with bk.workprec(100):
        nat = lambda m: bk.native(bk.array(m))  # noqa: E731
        out = bk.matmul_sum([nat(L) for L in Ls], [nat(R) for R in Rs])
        assert out.shape == (4, 5)
        for i in range(4):
            for j in range(5):
                assert contains_q(bk, out[i, j], exact[i][j])
                assert width(bk, out[i, j]) < 1e-25


@pytest.mark.parametrize("backend", BACKENDS)
def test_rad_float_is_the_radius_in_floats(backend):
    """`rad_float` (the wrapping heuristic's radius) agrees with the exact `rad` to float
    accuracy on both backends (it only steers step sizes, but must not be off by factors)."""
    from certified.enclose.arith import get_backend

    bk = get_backend(backend)
    with bk.workprec(120):
        for lo, hi in ((F(1, 3), F(1, 2)), (F(-7, 5), F(-7, 5)), (F(-10 ** 9), F(1, 10 ** 9))):
            x = bk.interval(lo, hi)
            assert float(bk.rad(x)) == pytest.approx(bk.rad_float(x), rel=1e-12, abs=1e-30)
            assert bk.rad_float(x) >= (float(hi) - float(lo)) / 2 * (1 - 1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_finite_intervals_are_never_bounded_or_contained(backend):
    """An overflowed enclosure (an endpoint ±inf or nan) has no rational bounds and is
    contained in nothing. The mpmath backend once read a raw inf endpoint as 0, so
    [−inf, +inf] passed for [0, 0]: an a-priori inclusion whose F had overflowed was
    'validated' (see the next test)."""
    from certified.enclose.arith import get_backend
    from certified.errors import UndecidedError

    bk = get_backend(backend)
    with bk.workprec(120):
        one = bk.const(F(1))
        inf = one / bk.interval(F(-1), F(1))  # [−inf, +inf]
        half_inf = one / bk.interval(F(0), F(1))  # [1, +inf] (Arb: [±inf])
        outer = bk.interval(F(-10) ** 9, F(10) ** 9)
        for v in (inf, half_inf):
            assert not bk.is_finite(v)
            with pytest.raises(UndecidedError):
                bk.bounds(v)
            assert not bk.contains(outer, v)
            assert not bk.contains_interior(outer, v)
            cv = bk.complex_box(v, bk.const(F(0)))
            assert not bk.c_contains_interior(bk.complex_box(outer, outer), cv)
        assert bk.is_finite(outer) and bk.contains(outer, bk.const(F(0)))


def test_backends_admit_the_same_apriori_squares():
    """The complex a-priori inclusion of Lemma I6 on eight tokens in [−1, 1]³: both
    backends validate the same squares (ρ = 1/64 yes, 1/16 no: there F on the complex
    set overflows). Before the non-finite fix the mpmath backend 'validated' ρ = 1/16
    and 1/8 from an F of [−inf, +inf] and so took 2–4× longer steps than flint."""
    from certified.enclose.arith import get_backend
    from certified.enclose.field import AttentionField
    from certified.enclose.stepper import StepRejected, cauchy_apriori

    rng = np.random.default_rng(0)
    X0 = [[F(int(round(v * 1000)), 1000) for v in row] for row in rng.uniform(-1, 1, (8, 3))]
    eye = [[int(i == j) for j in range(3)] for i in range(3)]
    inst = Instance.create(V=eye, Q=eye, K=eye, X0=X0)
    verdicts = {}
    for name in BACKENDS:
        bk = get_backend(name)
        with bk.workprec(143):
            field = AttentionField(inst, bk, "z")
            c = bk.array(inst.X0)
            lead = field.leaders(c, F(0))
            row = []
            for rho in (F(1, 64), F(1, 16), F(1, 8)):
                try:
                    cauchy_apriori(field, c, F(0), rho, lead, center=c)
                    row.append(True)
                except StepRejected:
                    row.append(False)
            verdicts[name] = row
    assert verdicts["flint"] == verdicts["mpmath"] == [True, False, False]


@pytest.mark.parametrize("backend", BACKENDS)
def test_radius_of_a_non_finite_ball_is_never_reported_finite(backend):
    """Arb's arb('inf') has radius 0; `rad` must not report 0 for it (it raises, as
    `bounds` does), and the float radius of the step heuristics is inf."""
    from certified.enclose.arith import get_backend
    from certified.errors import UndecidedError

    bk = get_backend(backend)
    with bk.workprec(120):
        one = bk.const(F(1))
        cases = [one / bk.interval(F(-1), F(1))]
        if backend == "flint":
            from flint import arb
            cases += [arb("inf"), arb("nan")]
        for v in cases:
            with pytest.raises(UndecidedError):
                bk.rad(v)
            with pytest.raises(UndecidedError):
                bk.max_rad(np.array([bk.const(F(0)), v], dtype=object))
            assert bk.rad_float(v) == float("inf")
        assert F(1, 2) <= bk.rad(bk.interval(F(1), F(2))) <= F(1, 2) * (1 + F(1, 2 ** 20))
