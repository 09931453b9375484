"""Lemma T7 in discrete time (the layer map, Theorem 4.2's φ₁*-coordinate): its leakage
sum against an exact sum, its limits and cross-group bound against a high-precision
iteration of the layer map, verify → check end to end at several step sizes, and a
property test over good triples in discrete time."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings

from certified import Instance
from certified.checker import check_certificate
from certified.strategies import discrete, inside
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify

from .oracles import example_at, layer
from .oracles import mp as _mp

def _at(dt: str) -> Instance:
    return example_at("discrete_good_triple", dt)


@pytest.mark.parametrize("m", ["1/2", "1", "5", "30"])
@pytest.mark.parametrize("ldt", ["1/100", "1/10", "1", "10"])
def test_the_leakage_sum_is_bounded_by_the_lemma(m, ldt):
    """Step (e)'s inequality α Σ_{j≥0} e^{−m q^{2j}} ≤ e^{−m}(α + 1/(2m)), q = 1 + λΔt,
    α = λΔt/q, against the sum itself in mpmath at 50 digits."""
    with mpmath.workdps(50):
        q = 1 + _mp(ldt)
        a = _mp(ldt) / q
        mm = _mp(m)
        s, j = mpmath.mpf(0), 0
        while True:
            term = mpmath.exp(-mm * q ** (2 * j))
            s += term
            if term < mpmath.mpf(10) ** -60 * s or j > 100000:
                break
            j += 1
        assert a * s <= mpmath.exp(-mm) * (a + 1 / (2 * mm))


def test_the_certified_delta0_lies_between_the_leakage_sum_and_the_lemmas_bound():
    """On the shipped example at its first certified layer (m ≈ 6): the stored δ₀ is at
    least the leakage the proof sums, |G|·D·α Σ_j e^{−m q^{2j}}, and at most the lemma's
    bound |G|·D·e^{−m}(α + 1/(2m)) rounded up at the 30th digit."""
    v = certify(_at("1/10"), "4.2", digits=20, max_seconds=None, t_max=8, refine_t=0)
    assert v.verdict == "certified", v.reason
    tl = json.loads(json.dumps(to_certificate(v)))["tail_lemma"]
    size = max(len(g) for g in tl["groups"].values())
    with mpmath.workdps(60):
        lam, dt = _mp(tl["lambda1"][1]), _mp("1/10")
        q, m, D = 1 + lam * dt, _mp(tl["m"]), _mp(tl["D"])
        a = lam * dt / q
        s = mpmath.nsum(lambda j: mpmath.exp(-m * q ** (2 * j)), [0, mpmath.inf])
        d0 = mpmath.mpf(tl["delta0"])
        assert 1 < m < 100  # small enough that α and 1/(2m) both matter
        assert size * D * a * s <= d0
        assert d0 <= size * D * mpmath.exp(-m) * (a + 1 / (2 * m)) * (1 + mpmath.mpf(10) ** -28)


def _layers(inst: Instance, k: int, dps: int = 60) -> list:
    """x^[0], …, x^[k] of the layer map in mpmath at ``dps`` digits (tests/tail/oracles.py)."""
    with mpmath.workdps(dps):
        V = [[_mp(x) for x in row] for row in inst.V]
        B = [[_mp(x) for x in row] for row in inst.B]
        dt = _mp(inst.time.dt)
        X = [[_mp(x) for x in row] for row in inst.X0]
        out = [X]
        for _ in range(k):
            X = layer(X, V, B, dt)
            out.append(X)
        return out


def _psi_row(inst: Instance, row: int) -> tuple:
    """Row ``row`` of the spectral projector onto λ₁'s eigenspace, and λ₁ (mpmath)."""
    with mpmath.workdps(60):
        V = mpmath.matrix([[_mp(x) for x in row_] for row_ in inst.V])
        ev, er = mpmath.eig(V)
        evl, el = mpmath.eig(V.T)  # its own eigenvalue order
        k = max(range(len(ev)), key=lambda i: mpmath.re(ev[i]))
        kl = max(range(len(evl)), key=lambda i: mpmath.re(evl[i]))
        phi = er[:, k]
        psi = el[:, kl]
        Pi = phi * psi.T / (psi.T * phi)[0]
        return [mpmath.re(Pi[row, c]) for c in range(V.cols)], mpmath.re(ev[k])


@pytest.mark.parametrize("dt", ["1/10", "1/5", "1", "2"])
def test_limits_and_cross_group_bound_against_the_layer_map(dt):
    """verify certifies at Δt = 1/10 (the issue's), 1/5, 1 and 2, the checker accepts, and
    the oracle's ψ(z) = q^{−k}ψ(x^[k]) at the layer K + 200 lies in each token's certified
    limit interval, which is no wider than 1.01 × the group's spread at K plus δ₀′;
    P_il ≤ exp(−m q^{2(k−K)}) across the groups at the layers K … K + 3."""
    inst = _at(dt)
    v = certify(inst, "4.2", digits=20, max_seconds=None, t_max=8, refine_t=0)
    assert v.verdict == "certified", v.reason
    cert = json.loads(json.dumps(to_certificate(v)))
    assert cert["tail_lemma"]["lemma"].startswith("T7") and \
        Fraction(cert["tail_lemma"]["dt"]) == Fraction(dt)
    rep = check_certificate(cert)
    assert rep.valid, rep.message
    K = cert["tail_lemma"]["layer"]
    X = _layers(inst, K + 200)
    psi, lam1 = _psi_row(inst, cert["tail_lemma"]["psi_row"])
    m = _mp(cert["limit"]["cross_group_rate"]["m"])
    groups = cert["limit"]["groups"]
    with mpmath.workdps(60):
        q = 1 + lam1 * _mp(dt)
        far = [q ** -(K + 200) * sum(p * x for p, x in zip(psi, X[K + 200][i]))
               for i in range(inst.n)]
        atK = [q ** -K * sum(p * x for p, x in zip(psi, X[K][i])) for i in range(inst.n)]
        d0 = _mp(cert["tail_lemma"]["delta0"]) * q ** -K
        for i, (lo, hi) in enumerate(cert["limit"]["coordinate_limits"]):
            assert _mp(lo) - mpmath.mpf(10) ** -18 <= far[i] <= _mp(hi) + mpmath.mpf(10) ** -18
        for g, members in groups.items():
            spread = max(atK[i] for i in members) - min(atK[i] for i in members)
            lo, hi = cert["limit"]["coordinate_limits"][members[0]]
            assert _mp(hi) - _mp(lo) <= mpmath.mpf("1.01") * (spread + d0) + \
                mpmath.mpf(10) ** -18
        B = [[_mp(x) for x in row] for row in inst.B]
        for k in range(K, K + 4):
            for i in groups["+"]:
                s = [sum(X[k][i][a] * B[a][b] * X[k][j][b] for a in range(inst.d)
                         for b in range(inst.d)) for j in range(inst.n)]
                lse = mpmath.log(sum(mpmath.exp(v) for v in s))
                for l_ in groups["-"]:
                    assert s[l_] - lse <= -m * q ** (2 * (k - K))  # log P_il


def test_the_shipped_example_is_certified_at_every_tried_step_size():
    """No step-size condition (ν < λ₁ is all the proof needs): the authors' 2×2 matrix is
    certified at Δt from 1/10 to 2 with the same two sign groups."""
    seen = set()
    for dt in ("1/10", "1/2", "1", "2"):
        v = certify(_at(dt), "4.2", digits=20, max_seconds=None, t_max=8, refine_t=0)
        assert v.verdict == "certified", (dt, v.reason)
        seen.add(json.dumps(v.limit["groups"], sort_keys=True))
    assert len(seen) == 1


def test_theorem_5_2_with_dim_F_one_in_discrete_time():
    """5.2 with a simple λ₁ (dim F = 1) goes through T7's discrete form, with clusters."""
    v = certify(example_at("thm5_2_one_dimensional_F", "1/10"), "5.2", digits=20, max_seconds=None, t_max=8,
                refine_t=0)
    assert v.verdict == "certified", v.reason
    assert "T7's discrete form" in v.reason and v.limit["clusters"]
    assert check_certificate(json.loads(json.dumps(to_certificate(v)))).valid


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=discrete(inside("4.2", n=(2, 4), d=2)))
def test_good_triples_in_discrete_time_check(inst):
    """Whatever verify answers for a good triple in discrete time (any Δt of
    STEP_SIZES), the checker accepts; a certified answer names T7's discrete form."""
    t_max = max(Fraction(8), 12 * inst.time.dt)
    v = certify(inst, "4.2", digits=20, max_seconds=None, t_max=t_max, refine_t=0)
    cert = json.loads(json.dumps(to_certificate(v)))
    rep = check_certificate(cert)
    assert rep.valid, rep.message
    if v.verdict == "certified" and inst.scalar_V is None:
        assert "T7's discrete form" in v.reason


def test_a_token_on_the_hyperplane_stays_undecided_and_checks():
    """Found by the property test: a token at 0 has φ₁*-coordinate 0 at every layer, so
    T7 never applies; the 80 layers run are enclosed and the checker, which then needs a
    finer scale than its first for the plain interval iteration, accepts them (it used to
    stop at its first scale with "a divisor ball contains 0")."""
    inst = Instance.create(V=[[1, 0], [0, Fraction(1, 2)]], Q=[[1, 0], [0, 1]],
                           K=[[1, 0], [0, 1]], X0=[[0, 0], [0, 1]], time={"discrete": "1/10"})
    v = certify(inst, "4.2", digits=20, max_seconds=None, t_max=8, refine_t=0)
    assert v.verdict == "undecided" and "not provably non-zero" in v.reason
    cert = json.loads(json.dumps(to_certificate(v)))
    assert len(cert["integration"]["steps"]) == 80
    rep = check_certificate(cert)
    assert rep.valid and "layer 80" in rep.message, rep.message


def test_a_margin_in_the_millions_checks_and_a_too_small_delta0_is_rejected():
    """Found by the property test: at layer 12 of Δt = 1 the cross-group margin is
    m ≈ 3.1·10⁶, so δ₀ ≈ e^{−m}. The checker bounded it as a rational, capped at δ for
    exponents below −10⁶, and then rejected the producer's (valid) δ₀. It now compares the
    stored δ₀ with its mpf bound directly; a stored δ₀ below that bound is still rejected."""
    inst = Instance.create(V=[[1, 0], [Fraction(1, 4), Fraction(3, 4)]], Q=[[1, 0], [0, 1]],
                           K=[[1, 0], [0, 1]], X0=[[1, 0], [-2, 0]], time={"discrete": "1"})
    v = certify(inst, "4.2", digits=20, max_seconds=None, t_max=12, refine_t=0)
    assert v.verdict == "certified", v.reason
    cert = json.loads(json.dumps(to_certificate(v)))
    assert Fraction(cert["tail_lemma"]["m"]) > 10 ** 6
    rep = check_certificate(cert)
    assert rep.valid, rep.message
    from tests.test_checker import redigest

    # the shipped example at Δt = 1/10: m ≈ 2.7·10⁴, δ₀ ≈ 10^{−11974}, written out
    v = certify(_at("1/10"), "4.2", digits=20, max_seconds=None, t_max=8)
    cert = json.loads(json.dumps(to_certificate(v)))
    d0 = cert["tail_lemma"]["delta0"]
    assert "e-11" in d0 and check_certificate(cert).valid
    bad = json.loads(json.dumps(cert))
    bad["tail_lemma"]["delta0"] = d0.replace("e-11", "e-12")  # 10^{-1000} times smaller
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith("tail_lemma.delta0: Expected >= "), \
        rep.message


def test_the_checker_refuses_a_step_size_that_makes_R_singular():
    """Remark 3.4's rescaled form needs R = I + ΔtV invertible; Instance refuses a singular
    R and so must the checker: V = diag(1, −1/2) certified at Δt = 1, then Δt edited to 2
    (R = diag(3, 0)) with the digest recomputed."""
    from tests.test_checker import redigest

    inst = Instance.create(V=[[1, 0], [0, Fraction(-1, 2)]], Q=[[1, 0], [0, 1]],
                           K=[[1, 0], [0, 1]], X0=[[1, Fraction(1, 2)], [-2, 1],
                                                   [Fraction(1, 2), -1]],
                           time={"discrete": "1"})
    v = certify(inst, "4.2", digits=20, max_seconds=None, t_max=8, refine_t=0)
    assert v.verdict == "certified", v.reason
    cert = json.loads(json.dumps(to_certificate(v)))
    assert check_certificate(cert).valid
    cert["instance"]["time"] = {"discrete": "2"}
    rep = check_certificate(redigest(cert))
    assert not rep.valid
    assert rep.message.startswith("instance.time.discrete (R = I + Δt·V): Expected an "
                                  "invertible matrix"), rep.message
