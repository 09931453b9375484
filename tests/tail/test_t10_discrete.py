"""Lemma T10 (leader–follower in discrete time): its tail sums against exact sums, its
limits against a high-precision iteration of the layer map, and verify → check end to end
at the issue's step sizes and far beyond them (T10 has no step-size condition)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certified import Instance
from certified.checker import check_certificate
from certified.strategies import STEP_SIZES, discrete, inside
from certified.enclose.arith import get_backend
from certified.tail.t4_leader_follower import _tails
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify

ROOT = Path(__file__).resolve().parents[2]


def _exact_sums(m, mu, lam, dt, K):
    """Σ_{s≥K} e^{−μq^{s+K}}, Σ_{s≥K} e^{−mq^{2s}}, Σ_{s≥K} q^{s−K}e^{−mq^{2s}} (mpmath, 50
    digits, summed until the terms are below 10^-60 of the first)."""
    q = 1 + mpmath.mpf(lam.numerator) / lam.denominator * mpmath.mpf(dt.numerator) / dt.denominator
    m, mu = mpmath.mpf(m.numerator) / m.denominator, mpmath.mpf(mu.numerator) / mu.denominator
    sums = [mpmath.mpf(0)] * 3
    for s in range(K, K + 4000):
        terms = [mpmath.exp(-mu * q ** (s + K)), mpmath.exp(-m * q ** (2 * s)),
                 q ** (s - K) * mpmath.exp(-m * q ** (2 * s))]
        sums = [a + b for a, b in zip(sums, terms)]
        if max(terms) < mpmath.mpf(10) ** -60 * max(sums):
            break
    return sums


@pytest.mark.parametrize("m,mu,dt,K", [(Fraction(1, 3), Fraction(1, 5), Fraction(1, 10), 12),
                                       (Fraction(2), Fraction(1, 2), Fraction(1, 5), 3),
                                       (Fraction(1, 2), Fraction(3), Fraction(2), 1),
                                       (Fraction(1, 40), Fraction(1, 40), Fraction(1, 10), 25)])
def test_tail_bounds_contain_the_exact_sums_and_are_tight(m, mu, dt, K):
    """One cluster {0, 1} (token 1 a follower) and one token outside: δ₀ and η₀ of T10
    against the same expressions with the exact sums (never smaller; at most the
    first-term-plus-integral slack, a factor ≤ 1 + 1/(aα) + 1/(2bα) + 1)."""
    lam, D, eps, eta = Fraction(1), Fraction(3), {1: Fraction(1, 7)}, Fraction(1, 100)
    bk = get_backend("flint")
    with mpmath.workdps(50), bk.workprec(200):
        d0, e0 = _tails(bk, m, mu, lam, K * dt, D, [0, 0, 2], eps, eta, dt)
        Sa, Sc, Sb = _exact_sums(m, mu, lam, dt, K)
        def mp(x: Fraction) -> mpmath.mpf:
            return mpmath.mpf(x.numerator) / x.denominator
        alpha = mp(lam * dt / (1 + lam * dt))
        sig, D, lamdt = mp(eps[1] + eta), mp(D), mp(lam * dt)
        # cluster {0, 1}: one token outside; cluster {2}: two outside, no followers
        true_d0 = alpha * max(sig * Sa + 1 * D * Sc, 2 * D * Sc)
        true_e0 = lamdt * max(2 * sig * Sa + 2 * 1 * D * Sb, 2 * 2 * D * Sb)
        got_d0 = mpmath.mpf(d0.numerator) / d0.denominator
        got_e0 = mpmath.mpf(e0.numerator) / e0.denominator
        assert true_d0 <= got_d0 and true_e0 <= got_e0
        q = 1 + lam * dt
        a, b = mu * q ** (2 * K), m * q ** (2 * K)
        slack = 2 + 1 / (float(a) * float(alpha)) + 1 / (2 * float(b) * float(alpha))
        assert got_d0 <= true_d0 * slack and got_e0 <= true_e0 * slack


def test_tails_refuse_non_monotone_sums():
    """b = mq^{2K} < 1/2: the sum (b′) is not bounded by its first term plus the integral."""
    bk = get_backend("flint")
    with bk.workprec(100):
        assert _tails(bk, Fraction(1, 10), Fraction(1, 10), Fraction(1), Fraction(0),
                      Fraction(1), [0, 0], {1: Fraction(1, 10)}, Fraction(1, 100),
                      Fraction(1, 10)) is None


def _layer_limit(inst: Instance, layers: int, dps: int = 80) -> list[list[mpmath.mpf]]:
    """z^[layers] by the layer map at dps digits (the oracle: no interval arithmetic)."""
    with mpmath.workdps(dps):
        dt = mpmath.mpf(inst.time.dt.numerator) / inst.time.dt.denominator
        lam = mpmath.mpf(inst.scalar_V.numerator) / inst.scalar_V.denominator
        B = [[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in inst.B]
        X = [[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in inst.X0]
        n, d = len(X), len(X[0])
        for _ in range(layers):
            S = [[sum(X[i][a] * B[a][c] * X[j][c] for a in range(d) for c in range(d))
                  for j in range(n)] for i in range(n)]
            new = []
            for i in range(n):
                top = max(S[i])
                E = [mpmath.exp(s - top) for s in S[i]]
                Z = sum(E)
                new.append([X[i][c] + dt * lam * sum(E[j] * X[j][c] for j in range(n)) / Z
                            for c in range(d)])
            X = new
        s = (1 + dt * lam) ** (-layers)
        return [[x * s for x in row] for row in X]


@pytest.mark.parametrize("example,clusters", [("discrete_layers.json", [[0, 1], [2]]),
                                              ("discrete_layers_dt_1_5.json", [[0, 1], [2]])])
def test_verify_discrete_examples_certified_checked_and_contain_the_limit(example, clusters):
    inst = Instance.load(str(ROOT / "examples" / example))
    v = certify(inst, "3.1", digits=30, max_seconds=None, t_max=8)
    assert v.verdict == "certified", v.reason
    assert "Lemma T10" in v.reason
    assert [c["members"] for c in v.limit["clusters"]] == clusters
    cert = json.loads(json.dumps(to_certificate(v)))
    rep = check_certificate(cert)
    assert rep.valid and "Lemma T10" in rep.message, rep.message
    # oracle: 150 more layers at 80 digits. Leaders move by < δ₀ ≤ 10^-30 after K: inside
    # the certified centre boxes. Followers close in at T10 (2)'s geometric rate q^{-(k-K)}
    # only: nearer their leader's box than at K, by at least that factor (up to ε, η₀).
    K = cert["tail_lemma"]["layer"]
    Z, ZK = _layer_limit(inst, K + 150), _layer_limit(inst, K)
    q = 1 + inst.scalar_V * inst.time.dt
    with mpmath.workdps(80):
        for cl in v.limit["clusters"]:
            for c, (lo, hi) in enumerate(cl["center"]):
                lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
                assert lo <= Z[cl["leader"]][c] <= hi, (cl["leader"], c)
                assert hi - lo < mpmath.mpf(10) ** -25  # width
                for i in cl["members"]:
                    far = abs(ZK[i][c] - ZK[cl["leader"]][c]) + mpmath.mpf(10) ** -30
                    near = abs(Z[i][c] - Z[cl["leader"]][c])
                    assert near <= far * (mpmath.mpf(q.denominator) / q.numerator) ** 150 * 1.01


def test_discrete_outside_t10_stays_undecided_and_checks():
    inst = Instance.create(V=[[-1, 0], [0, -1]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]],
                           X0=[[1, 0], [0, 1], [-1, "1/2"]], time={"discrete": "1/10"})
    v = certify(inst, "3.1", digits=20, max_seconds=None, t_max=2)
    assert v.verdict == "undecided" and "T10" in v.reason
    assert check_certificate(json.loads(json.dumps(to_certificate(v)))).valid


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=discrete(inside("3.1", n=(2, 4), d=2)))
def test_any_step_size_certified_results_check_and_match_the_oracle(inst):
    """T10 holds at every Δt > 0 (no step-size condition): whatever verify certifies at
    any Δt, the checker accepts, and the oracle's leaders at layer K + 60 lie in their
    clusters' centre boxes. Runs where no lemma held by t_max are undecided and check too."""
    t_max = max(Fraction(8), 12 * inst.time.dt)
    v = certify(inst, "3.1", digits=20, max_seconds=None, t_max=t_max, refine_t=0)
    cert = json.loads(json.dumps(to_certificate(v)))
    assert check_certificate(cert).valid
    if v.verdict != "certified":
        return
    Z = _layer_limit(inst, cert["tail_lemma"]["layer"] + 60, dps=40)
    with mpmath.workdps(40):
        for cl in v.limit["clusters"]:  # the leaders' limits (T10 (1))
            for c, (lo, hi) in enumerate(cl["center"]):
                assert mpmath.mpf(lo) - mpmath.mpf(10) ** -30 <= Z[cl["leader"]][c] <= \
                    mpmath.mpf(hi) + mpmath.mpf(10) ** -30


def test_discrete_strategy_keeps_the_instance_and_sets_the_step():
    """discrete(...) changes only the time setting; a non-positive Δt is refused."""
    @settings(max_examples=20, deadline=None)
    @given(inst=discrete(inside("3.1", n=(2, 3), d=2)))
    def draws(inst):
        assert inst.time.dt in STEP_SIZES and inst.scalar_V is not None
    draws()

    @settings(max_examples=1, deadline=None, database=None)
    @given(inst=discrete(inside("3.1", n=2, d=2), dt=st.just(Fraction(0))))
    def zero_step(inst):
        raise AssertionError("a zero step was drawn")
    with pytest.raises(ValueError):
        zero_step()


@pytest.mark.parametrize("dt", ["1/10", "1/5", "1/2", "1", "2", "10", "100"])
def test_no_step_size_threshold_for_scalar_V(dt):
    """T10 has no step-size condition: Theorem 3.1's six tokens are certified (and checked)
    at every Δt tried, with the same three clusters at every Δt."""
    spec = json.loads((ROOT / "examples" / "thm3_1_identity.json").read_text())
    spec["time"] = {"discrete": dt}
    inst = Instance.from_json(spec)
    v = certify(inst, "3.1", digits=30, max_seconds=None, t_max=max(8, 20 * Fraction(dt)))
    assert v.verdict == "certified", (dt, v.reason)
    assert [c["members"] for c in v.limit["clusters"]] == [[0, 3, 5], [1], [2, 4]]
    assert check_certificate(json.loads(json.dumps(to_certificate(v)))).valid


def test_checker_rejects_an_empty_rate_and_a_first_time_off_the_layers():
    """c ≤ 0 would make the rate statement empty; T_first must be a layer time."""
    from certified.checker import digest

    v = certify(Instance.load(str(ROOT / "examples" / "discrete_layers.json")), "3.1",
                digits=30, max_seconds=None)
    cert = json.loads(json.dumps(to_certificate(v)))
    for path, value, field in [(("tail_lemma", "rate_constant"), "0", "rate_constant"),
                               (("limit", "rate", "c_lower_bound"), "-5", "c_lower_bound"),
                               (("timescale", "T_first"), "1/3", "T_first")]:
        c = json.loads(json.dumps(cert))
        obj = c
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value
        c["digest"] = digest(c)
        rep = check_certificate(c)
        assert not rep.valid and field in rep.message, (path, rep.message)
