"""Lemma T11 (divergence of the layer map for μΔt > 2: Theorem 8.5 refuted in discrete
time): the one-layer inequality of its proof against the map itself, refutations against
an independent mpmath iteration (containment, width and the growth it proves), the
threshold ρ > 1 decided exactly. The checker's tamper tests are in
tests/checker/test_t11_checks.py."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certified.checker import check_certificate
from certified.tail.t11_divergence import INV_E_UPPER, divergence_discrete
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify

from .oracles import assert_in_boxes, example_at, iterate, layer
from .oracles import mp as _mp

MINUS_I = [[-1, 0], [0, -1]]  # V = −I: layer(X, −I, B, h) is x_i − h Σ_j P_ij x_j


def _q(x: list, B: list):
    d = len(B)
    return sum(x[a] * B[a][b] * x[b] for a in range(d) for b in range(d))


def test_the_stored_inverse_e_bounds_1_over_e():
    with mpmath.workdps(40):
        assert _mp(INV_E_UPPER) >= 1 / mpmath.e
        assert _mp(INV_E_UPPER) - 1 / mpmath.e < mpmath.mpf(10) ** -4  # and is close


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(-30, 30), min_size=2, max_size=2), min_size=1,
                max_size=6),
       st.sampled_from([Fraction(21, 10), Fraction(3), Fraction(10)]),
       st.sampled_from([Fraction(1, 30), Fraction(1, 3), Fraction(1), Fraction(3)]),
       st.booleans())
def test_one_layer_grows_the_largest_norm_as_the_proof_says(pts, h, scale, mirror):
    """Step (a) of the proof: M⁺ ≥ γM − h(n − 1)/(eM) for the layer map at 40 digits,
    B = [[2, 1/2], [1/2, 1]] ≻ 0, including configurations with every other token at
    −x_i (``mirror``), where the attention pulls hardest against x_i."""
    B = [[_mp(2), _mp("1/2")], [_mp("1/2"), _mp(1)]]
    with mpmath.workdps(40):
        X = [[_mp(Fraction(p) * scale / 10) for p in row] for row in pts]
        if mirror:
            X = [X[0]] + [[-c for c in X[0]] for _ in X[1:]]
        n = len(X)
        M = max(mpmath.sqrt(_q(x, B)) for x in X)
        if M == 0:
            return
        Mp = max(mpmath.sqrt(_q(x, B)) for x in layer(X, MINUS_I, B, _mp(h)))
        bound = (_mp(h) - 1) * M - _mp(h) * (n - 1) / (mpmath.e * M)
        assert Mp >= bound - mpmath.mpf(10) ** -35 * (1 + M)


@pytest.mark.parametrize("dt", ["3", "5/2", "10"])
def test_refutation_contains_the_iterated_map_and_its_growth_holds(dt):
    """verify refutes; the checker accepts; an independent mpmath iteration of the layer
    map lies in the stored boxes at K (width below 10⁻¹⁵ relative), its max_i x_iᵀBx_i at K
    is ≥ the stored L and within 10⁻⁸ relative of it, and for 30 layers beyond K
    max_i x_iᵀBx_i ≥ ρ^{2(k−K)}L, growing by at least ρ² a layer."""
    inst = example_at("discrete_contracting", dt)
    v = certify(inst, "8.5", digits=20, max_seconds=None, t_max=80, refine_t=0)
    assert v.verdict == "refuted", v.reason
    cert = json.loads(json.dumps(to_certificate(v)))
    rep = check_certificate(cert)
    assert rep.valid, rep.message
    tl = cert["tail_lemma"]
    K = tl["layer"]
    assert cert["evidence"]["diverges"]["rho_lower"] == tl["rho_lower"]
    with mpmath.workdps(60):
        L, rho = _mp(tl["M2_lower"]), _mp(tl["rho_lower"])  # at 60 digits, not 15
        X, V, B, h = iterate(inst, dt, K)
        assert_in_boxes(X, tl["boxes_at_T"])
        for i, row in enumerate(tl["boxes_at_T"]):
            for col, (lo, hi) in enumerate(row):
                assert _mp(hi) - _mp(lo) <= mpmath.mpf(10) ** -15 * (1 + abs(X[i][col]))
        top = max(_q(x, B) for x in X)
        assert L <= top <= L * (1 + mpmath.mpf(10) ** -8)
        gamma = h - 1
        assert 1 < rho <= gamma  # ρ = γ − h(n − 1)ē/L, rounded down
        prev = top
        for k in range(1, 31):
            X = layer(X, V, B, h)
            top = max(_q(x, B) for x in X)
            assert top >= rho ** (2 * k) * L
            assert top >= rho ** 2 * prev * (1 - mpmath.mpf(10) ** -40)
            prev = top


def test_the_threshold_rho_above_1_is_decided_exactly():
    """Two tokens, x_0 = (1, 0) and x_1 = 0, B = diag(L, 1), h = 3: max q = L and
    ρ = 2 − 3ē/L. At L = 3ē exactly ρ = 1: refused (a tie is not > 1); at L a hair above,
    accepted with ρ > 1."""
    boxes = [[(Fraction(1), Fraction(1)), (Fraction(0), Fraction(0))],
             [(Fraction(0), Fraction(0)), (Fraction(0), Fraction(0))]]
    tie = 3 * INV_E_UPPER
    for L, ok in ((tie, False), (tie * (1 + Fraction(1, 10 ** 12)), True)):
        B = [[L, Fraction(0)], [Fraction(0), Fraction(1)]]
        dv, why = divergence_discrete(Fraction(1), B, Fraction(0), Fraction(3), boxes, 30)
        assert (dv is not None) == ok, why
        if ok:
            assert dv.rho > 1 and dv.L == L
        else:
            assert "≤ 1" in why


def test_mu_dt_at_most_2_is_refused():
    boxes = [[(Fraction(5), Fraction(5)), (Fraction(0), Fraction(0))]]
    I2 = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    dv, why = divergence_discrete(Fraction(1), I2, Fraction(0), Fraction(2), boxes, 20)
    assert dv is None and "μΔt > 2" in why
    dv, _ = divergence_discrete(Fraction(1), I2, Fraction(0), Fraction(201, 100), boxes, 20)
    assert dv is not None and dv.rho > 1  # one token: ρ = γ = 1.01 at h = 2.01


def test_at_mu_dt_two_nothing_is_claimed():
    """μΔt = 2: T9's discrete form needs μΔt < 2, T11 needs μΔt > 2 (both named)."""
    v = certify(example_at("discrete_contracting", "2"), "8.5", digits=12,
                max_seconds=None, t_max=8)
    assert v.verdict == "undecided" and "μΔt > 2" in v.reason and "μΔt < 2" in v.reason


def test_between_1_and_2_t11_is_not_tried_and_t9_is():
    """μΔt = 3/2 within 12 layers: T9's step-size condition is the reason (not T11)."""
    v = certify(example_at("discrete_contracting", "3/2"), "8.5", digits=12,
                max_seconds=None, t_max=18)
    assert v.verdict == "undecided" and "T9" in v.reason and "step-size condition" in v.reason
    assert "T11" not in v.reason
