"""Lemma T9 in discrete time (Theorem 8.5 for the layer map): the one-layer inequality of
its proof against the map itself, certified runs against an independent mpmath iteration
(containment and width), the step-size condition. The checker's tamper tests are in
tests/checker/test_t9_discrete_checks.py."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certified import Instance
from certified.checker import check_certificate
from certified.strategies import STEP_SIZES, discrete, inside
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify

from .oracles import assert_in_boxes, example_at, iterate, layer
from .oracles import mp as _mp

def _at(dt: str) -> Instance:
    return example_at("discrete_contracting", dt)


MINUS_I = [[-1, 0], [0, -1]]  # V = −I: layer(X, −I, B, h) is x_i − h Σ_j P_ij x_j


def _energy(X: list, B: list):
    d = len(B)
    return sum(sum(x[a] * B[a][b] * x[b] for a in range(d) for b in range(d)) for x in X)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(-30, 30), min_size=2, max_size=2), min_size=2,
                max_size=5),
       st.sampled_from([Fraction(1, 20), Fraction(1, 5), Fraction(1, 2), Fraction(9, 10),
                        Fraction(5, 4), Fraction(3, 2), Fraction(19, 10)]),
       st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3)]),
       st.sampled_from([Fraction(1, 1000), Fraction(1, 100), Fraction(1, 10), Fraction(1, 3)]))
def test_one_layer_decreases_the_energy_as_the_proof_says(pts, h, eps, scale):
    """Step (d) of the proof: with h(1 + ε) < 2 and the step-size condition
    4h(1 + 1/ε)Ee^{4E} ≤ κ/r at the current layer, E⁺ ≤ E − h(2 − h(1 + ε))a − hκW²/(nr),
    κ = e^{−2E} (B = [[2, 1/2], [1/2, 1]] ≻ 0), with the layer map evaluated at 40 digits."""
    B = [[_mp(2), _mp("1/2")], [_mp("1/2"), _mp(1)]]
    if not h * (1 + eps) < 2:
        return  # no such ε in the lemma
    with mpmath.workdps(40):
        X = [[_mp(Fraction(p) * scale / 30) for p in row] for row in pts]
        n, d = len(X), 2
        r = max(1, min(d, n - 1))
        E = _energy(X, B)
        kappa = mpmath.exp(-2 * E)
        if not 4 * _mp(h) * (1 + 1 / _mp(eps)) * E * mpmath.exp(4 * E) <= kappa / r:
            return  # outside the condition: the lemma claims nothing
        xbar = [sum(x[c] for x in X) / n for c in range(d)]
        a = n * _energy([xbar], B)
        W = E - a
        Ep = _energy(layer(X, MINUS_I, B, _mp(h)), B)
        bound = E - _mp(h) * (2 - _mp(h) * (1 + _mp(eps))) * a - \
            _mp(h) * kappa * W ** 2 / (n * r)
        assert Ep <= bound + mpmath.mpf(10) ** -35 * (1 + E)


def test_the_one_layer_bound_is_not_vacuous_beyond_mu_dt_one():
    """At h = 3/2, ε = 1/6, on five small tokens where the condition holds: the bound of
    step (d) is below E, and the layer's energy is below the bound (at 40 digits)."""
    B = [[_mp(2), _mp("1/2")], [_mp("1/2"), _mp(1)]]
    h, eps = _mp("3/2"), _mp(1) / 6
    with mpmath.workdps(40):
        X = [[_mp(p) / 1000 for p in row] for row in ([3, 1], [-2, 4], [5, -1], [0, 2], [1, 1])]
        n, r = 5, 2
        E = _energy(X, B)
        kappa = mpmath.exp(-2 * E)
        assert 4 * h * (1 + 1 / eps) * E * mpmath.exp(4 * E) <= kappa / r
        xbar = [sum(x[c] for x in X) / n for c in range(2)]
        a = n * _energy([xbar], B)
        bound = E - h * (2 - h * (1 + eps)) * a - h * kappa * (E - a) ** 2 / (n * r)
        Ep = _energy(layer(X, MINUS_I, B, h), B)
        assert Ep <= bound < E


@pytest.mark.parametrize("dt, t_max", [("1/10", 80), ("1/2", 80), ("3/2", 480)])
def test_certified_energy_decay_contains_the_iterated_map(dt, t_max):
    """verify certifies; the checker accepts; an independent mpmath iteration of the layer
    map lies in the stored boxes at K, its energy at K is within 10⁻⁸ of E_T (width), and
    for 400 layers beyond K the energy stays below E_T/(1 + c(k − K)) and every
    |P_ij − 1/n| below (e^{2E} − 1)/n."""
    inst = _at(dt)
    v = certify(inst, "8.5", digits=20, max_seconds=None, t_max=t_max, refine_t=0)
    assert v.verdict == "certified", v.reason
    cert = json.loads(json.dumps(to_certificate(v)))
    rep = check_certificate(cert)
    assert rep.valid, rep.message
    tl = cert["tail_lemma"]
    K, E_T, c = tl["layer"], _mp(tl["E_T_upper"]), _mp(tl["c_lower"])
    with mpmath.workdps(50):  # h at 50 digits: 1/10 is not a binary64
        X, V, B, h = iterate(inst, dt, K)
        assert_in_boxes(X, tl["boxes_at_T"])
        EK = _energy(X, B)
        assert EK <= E_T <= EK + mpmath.mpf(10) ** -8
        n = len(X)
        for k in range(1, 401):
            X = layer(X, V, B, h)
            E = _energy(X, B)
            assert E <= E_T / (1 + c * k)
            for i in range(n):
                s = [sum(X[i][a] * B[a][b] * X[j][b] for a in range(2) for b in range(2))
                     for j in range(n)]
                tot = sum(mpmath.exp(v) for v in s)
                assert all(abs(mpmath.exp(v) / tot - mpmath.mpf(1) / n)
                           <= (mpmath.exp(2 * E) - 1) / n for v in s)
        assert E < E_T / 2  # the energy does decay (not a vacuous bound)


def test_mu_dt_of_two_is_refused_before_iterating():
    v = certify(_at("2"), "8.5", digits=20, max_seconds=None, t_max=8)
    assert v.verdict == "undecided" and "μΔt < 2" in v.reason and v.trajectory is None
    assert check_certificate(json.loads(json.dumps(to_certificate(v)))).valid


def test_a_layer_before_the_condition_holds_is_not_accepted():
    """Moving the lemma to an earlier layer (boxes, q, E_T recomputed by the producer's
    own arithmetic there would violate the condition): the producer refuses it, naming the
    step-size condition."""
    from certified.enclose.arith import get_backend
    from certified.tail.t9_energy_decay import energy_decay_discrete

    bk = get_backend("flint")
    inst = _at("1/10")
    with mpmath.workdps(30):
        B = [[_mp(x) for x in row] for row in inst.B]
        X = [[_mp(x) for x in row] for row in inst.X0]
        for _ in range(40):
            X = layer(X, MINUS_I, B, _mp("1/10"))
    boxes = [[(Fraction(str(x)) - Fraction(1, 10 ** 20), Fraction(str(x)) + Fraction(1, 10 ** 20))
              for x in row] for row in X]
    ed, why = energy_decay_discrete(bk, Fraction(1), inst.B, Fraction(4), Fraction(1, 10),
                                    boxes, 20)
    assert ed is None and "step-size condition" in why


@settings(max_examples=16, deadline=None)
@given(discrete(inside("8.5", n=(2, 4), d=2),
                dt=st.sampled_from(STEP_SIZES + (Fraction(5, 4), Fraction(3, 2)))))
def test_drawn_8_5_instances_in_discrete_time_decide_by_mu_dt(inst):
    """Theorem 8.5's instances (V = −I, QᵀK = I) at Δt from 1/10 to 100 (Δt = 1 has no
    rescaled form and is not drawn): certified and checked for μΔt < 2 within 400 layers or
    t = 200 (Lemma T9), refuted and checked for μΔt > 2 (Lemma T11), undecided naming both
    conditions at μΔt = 2."""
    h = -inst.V[0][0] * inst.time.dt
    v = certify(inst, "8.5", digits=12, max_seconds=None,
                t_max=max(Fraction(200), 400 * inst.time.dt), refine_t=0)
    if h != 2:
        assert v.verdict == ("certified" if h < 2 else "refuted"), v.reason
        assert check_certificate(json.loads(json.dumps(to_certificate(v)))).valid
    else:
        assert v.verdict == "undecided" and "needs μΔt < 2" in v.reason and \
            "μΔt > 2" in v.reason
