"""Lemma T9 (energy decay, V = −μI, B ≻ 0): its bounds against an independent solution
(mpmath.odefun, a Taylor integrator the library does not use), and Theorem 8.5 certified
and re-checked, inside and outside its hypotheses."""

from __future__ import annotations

import copy
import json
import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certified import Instance
from certified.checker import check_certificate
from certified.enclose.arith import get_backend
from certified.tail.t6_energy import norm_bound_contracting
from certified.tail.t9_energy_decay import energy_decay, rank_bound
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify
from tests.test_checker import failing_field, redigest

#: (μ, B, X0): the shipped example; a non-identity B with μ = 1/2 and four tokens; one token
CASES = [
    (F(1), [[1, 0], [0, 1]], [[3, 0], [0, 2], [-1, -1]]),
    (F(1, 2), [[2, 1], [1, 1]], [[1, 2], [-2, 1], [0, -1], [F(3, 2), F(1, 2)]]),
    (F(2), [[1]], [[F(5, 2)]]),
]


def _oracle(mu, B, X0, ts, dps=20):
    """E(t) = Σ x_iᵀBx_i and max_ij |P_ij − 1/n| at each t, from mpmath.odefun."""
    n, d = len(X0), len(X0[0])
    with mpmath.workdps(dps):
        Bm = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator if isinstance(x, F)
                             else mpmath.mpf(x) for x in row] for row in B])

        def tokens(y):
            return [mpmath.matrix([y[i * d + a] for a in range(d)]) for i in range(n)]

        def attention(xs):
            rows = []
            for i in range(n):
                s = [(xs[i].T * Bm * xs[j])[0] for j in range(n)]
                top = max(s)
                w = [mpmath.exp(v - top) for v in s]
                rows.append([v / sum(w) for v in w])
            return rows

        def f(t, y):
            xs = tokens(y)
            P = attention(xs)
            out = []
            for i in range(n):
                v = sum((P[i][j] * xs[j] for j in range(n)), mpmath.matrix(d, 1))
                out.extend(-mpmath.mpf(mu.numerator) / mu.denominator * v[a] for a in range(d))
            return out

        y0 = [mpmath.mpf(F(x).numerator) / F(x).denominator for row in X0 for x in row]
        sol = mpmath.odefun(f, 0, y0)
        out = []
        for t in ts:
            xs = tokens(sol(t))
            E = sum((x.T * Bm * x)[0] for x in xs)
            P = attention(xs)
            out.append((float(E), max(float(abs(P[i][j] - mpmath.mpf(1) / n))
                                      for i in range(n) for j in range(n))))
    return out


@pytest.mark.parametrize("mu,B,X0", CASES, ids=["8.5-example", "mu-half-B", "one-token"])
def test_energy_decay_bounds_contain_an_independent_solution(mu, B, X0):
    """From T = 0 (the exact initial tokens as boxes): E(t) ≤ E_T/(1 + c t) and
    |P_ij − 1/n| ≤ (e^{2E(t)} − 1)/n at 9 times in [0, 8], E non-increasing, and the
    bound not vacuous: E_T is E(0) to 25 digits and c > 0."""
    bk = get_backend("flint")
    Bq = [[F(x) for x in row] for row in B]
    X = [[(F(x), F(x)) for x in row] for row in X0]
    nb = norm_bound_contracting(bk, mu, Bq, F(0), X)
    ed = energy_decay(bk, nb, len(X0), len(X0[0]), 25)
    ts = [F(k) for k in range(9)]
    values = _oracle(mu, B, X0, ts)
    E0 = values[0][0]
    assert float(ed.E_T) >= E0 and float(ed.E_T) - E0 <= 1e-15 * max(1.0, E0)
    assert ed.c > 0 and ed.rank_bound == rank_bound(len(X0), len(X0[0]))
    prev = math.inf
    for t, (E, dev) in zip(ts, values):
        bound = float(ed.energy_at(t))
        assert E <= bound * (1 + 1e-15), (t, E, bound)
        assert dev <= (math.exp(2 * bound) - 1) / len(X0) * (1 + 1e-15) + 1e-300
        assert E <= prev * (1 + 1e-15)  # part 1: E is non-increasing
        prev = E
    # the decay is real on these cases: at t = 8 the true energy is below E_T/2
    assert values[-1][0] < E0 / 2


def test_theorem_8_5_certified_by_t9_and_rechecked():
    """verify's path: the shipped example to t = 1, then T9; the checker re-derives it; a
    rate constant above the checked one, a wrong rank, an E_T below Σ q_i(T) and an
    attention limit other than ones/n are each rejected naming the field."""
    v = certify(Instance.load("examples/thm8_5_contracting.json"), "8.5", digits=12,
                t_max=1, max_seconds=None, refine_t=0)
    assert v.verdict == "certified" and v.hypotheses_hold is True and v.tail.lemma == "T9"
    c = json.loads(json.dumps(to_certificate(v)))
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid and "Lemma T9 re-checked" in rep.message, rep.message
    lemma = c["tail_lemma"]
    edits = [(("tail_lemma", "c_lower"), str(F(lemma["c_lower"]) * 3), "tail_lemma.c_lower"),
             (("tail_lemma", "rank_bound"), 1, "tail_lemma.rank_bound"),
             (("tail_lemma", "E_T_upper"), str(F(lemma["E_T_upper"]) / 2),
              "tail_lemma.E_T_upper"),
             (("limit", "attention_limit", 0, 0), "1/2", "limit.attention_limit"),
             (("limit", "rate", "c_lower_bound"), str(F(lemma["c_lower"]) * 2),
              "limit.rate.c_lower_bound"),
             (("limit", "rate", "c_lower_bound"), "-1", "limit.rate.c_lower_bound")]
    for path, new, where in edits:
        e = copy.deepcopy(c)
        obj = e
        for p in path[:-1]:
            obj = obj[p]
        obj[path[-1]] = new
        assert failing_field(redigest(e)) == where, (path, new)


def test_outside_the_hypotheses_t9_still_certifies_theorem_8_5():
    """V = −2I and QᵀK = diag(1, 2) (symmetric positive definite, not I): the hypotheses of
    Theorem 8.5 fail, its conclusion is proved anyway (Lemma T9 needs only B ≻ 0)."""
    inst = Instance.create(V=[[-2, 0], [0, -2]], Q=[[1, 0], [0, 2]], K=[[1, 0], [0, 1]],
                           X0=[[1, 0], [0, 1], [-1, 1]])
    v = certify(inst, "8.5", digits=12, t_max=F(1, 2), max_seconds=None, refine_t=0)
    assert v.hypotheses_hold is False and v.verdict == "certified" and v.tail.lemma == "T9"
    assert check_certificate(json.loads(json.dumps(to_certificate(v)))).valid
    # B indefinite: no energy lemma, the verdict stays undecided
    inst = Instance.create(V=[[-1, 0], [0, -1]], Q=[[1, 0], [0, -1]], K=[[1, 0], [0, 1]],
                           X0=[[1, 0], [0, 1], [-1, 1]])
    v = certify(inst, "8.5", digits=12, t_max=F(1, 2), max_seconds=None, refine_t=0)
    assert v.verdict == "undecided"


def _energy_derivative(mu, B, X):
    """Ė = −2μ Σ_ij P_ij x_iᵀBx_j at the state X (mpmath, 40 digits), and E."""
    n = len(X)
    with mpmath.workdps(40):
        Bm = mpmath.matrix(B)
        xs = [mpmath.matrix(row) for row in X]
        s = [[(xs[i].T * Bm * xs[j])[0] for j in range(n)] for i in range(n)]
        Edot = mpmath.mpf(0)
        for i in range(n):
            w = [mpmath.exp(v - max(s[i])) for v in s[i]]
            Edot += sum(w[j] * s[i][j] for j in range(n)) / sum(w)
        return -2 * mpmath.mpf(mu) * Edot, sum(s[i][i] for i in range(n))


def test_the_differential_inequality_of_lemma_t9_at_random_and_near_tight_states():
    """The heart of the proof, Ė ≤ −μ·min(1/E, e^{−2E}/(n r))·E², at 300 random states
    (n ≤ 5, d ≤ 3, random B ≻ 0) and at the symmetric pair x₁ = −x₂ in d = 1, where
    Ė = −μE²·tanh(E/2)/(E/2) and the inequality is within a factor 2e^{2E} of equality (a
    constant off by 2 in the lemma fails here for small E)."""
    import numpy as np

    rng = np.random.default_rng(7)
    for _ in range(300):
        n, d = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        A = rng.normal(size=(d, d))
        B = (A @ A.T + 0.1 * np.eye(d)).tolist()
        X = (rng.normal(size=(n, d)) * rng.choice([0.05, 0.5, 1.5])).tolist()
        mu = float(rng.choice([0.5, 1.0, 3.0]))
        Edot, E = _energy_derivative(mu, B, X)
        m = min(1 / E, mpmath.exp(-2 * E) / (n * rank_bound(n, d)))
        assert Edot <= -mu * m * E ** 2 * (1 - mpmath.mpf(10) ** -30), (n, d, X)
    for s in (1e-3, 0.1, 0.5):
        Edot, E = _energy_derivative(1, [[1]], [[s], [-s]])
        bound = -min(1 / E, mpmath.exp(-2 * E) / 2) * E ** 2
        assert bound * 2 * mpmath.exp(2 * E) * 1.001 <= Edot <= bound, (s, Edot, bound)


_COORD = st.integers(-6, 6).map(lambda k: F(k, 2))  # [−3, 3] in steps of 1/2


@settings(max_examples=3, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_COORD, _COORD), min_size=5, max_size=5, unique=True))
def test_five_tokens_in_the_square_certified_with_a_rate_the_oracle_obeys(points):
    """Theorem 8.5's setting of the issue: V = −I₂, Q = K = I₂, five distinct tokens in
    [−3, 3]² (the shipped examples/thm8_5_five_tokens.json is one): certified by Lemma T9,
    checked valid, and a float64 RK4 solution two time units after T obeys the certified
    rate Σ|x_i|² ≤ E_T/(1 + c(t − T)), and |P_ij − 1/n| ≤ (e^{2E} − 1)/n at the oracle's E."""
    X0 = [list(p) for p in points]
    inst = Instance.create(V=[[-1, 0], [0, -1]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]], X0=X0)
    v = certify(inst, "8.5", digits=12, t_max=8, max_seconds=None, refine_t=0)
    assert v.verdict == "certified" and v.tail.lemma == "T9", v.reason
    c = json.loads(json.dumps(to_certificate(v)))
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message
    lemma = c["tail_lemma"]
    T, E_T, cl = (F(lemma[k]) for k in ("T", "E_T_upper", "c_lower"))
    # the oracle: float64 RK4 (h = 1/100) of ẋ_i = −Σ_j P_ij x_j to T + 2, no library code
    X = np.array([[float(x) for x in row] for row in X0])

    def f(X):
        S = X @ X.T
        S -= S.max(axis=1, keepdims=True)
        P = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
        return -P @ X

    h, steps = 0.01, int(round(float(T + 2) * 100))
    for _ in range(steps):
        k1 = f(X)
        k2 = f(X + h / 2 * k1)
        k3 = f(X + h / 2 * k2)
        X = X + h / 6 * (k1 + 2 * k2 + 2 * k3 + f(X + h * k3))
    E = float((X * X).sum())
    S = X @ X.T
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    assert E <= float(E_T / (1 + cl * 2)) * (1 + 1e-9)
    assert abs(P - 1 / 5).max() <= (math.exp(2 * E) - 1) / 5 * (1 + 1e-6) + 1e-15
