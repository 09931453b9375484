"""The checker on Lemma T9's discrete form (C18 with Δt): each claimed field edited, with
the digest recomputed, is rejected naming it (the stored fixture t9_85_discrete, so the
mutation run of benchmarks/mutation_checker.py can use these tests)."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

from certified.checker import CheckFailure, check_certificate
from . import tamper
from .producer import load


def redigest(c: dict) -> dict:
    c["digest"] = tamper.digest(c)
    return c


def _mp(q) -> mpmath.mpf:
    q = Fraction(str(q))
    return mpmath.mpf(q.numerator) / q.denominator


@pytest.fixture(scope="module")
def cert():
    c = load("t9_85_discrete")  # examples/discrete_contracting.json, 8 digits
    assert check_certificate(json.loads(json.dumps(c))).valid
    return c


@pytest.mark.parametrize("key, value, field", [
    ("h", "1/5", "tail_lemma.h"),
    ("epsilon", "19", "tail_lemma.epsilon"),  # h = 1/10: h(1 + ε) = 2, not < 2
    ("epsilon", "0", "tail_lemma.epsilon"),
    ("mu", "2", "tail_lemma.mu"),
    ("c_lower", lambda c: str(Fraction(c) * Fraction(101, 100)), "tail_lemma.c_lower"),
    ("kappa_lower", lambda k: str(Fraction(k) * Fraction(101, 100)), "tail_lemma.kappa_lower"),
    ("E_T_upper", lambda e: str(Fraction(e) * Fraction(99, 100)), "tail_lemma.E_T_upper"),
    ("q_at_T_upper", lambda q: [str(Fraction(q[0]) / 2)] + q[1:], "tail_lemma.q_at_T_upper[0]"),
    ("rank_bound", 1, "tail_lemma.rank_bound"),
    ("boxes_at_T", lambda b: [[[lo, lo] for lo, hi in row] for row in b],
     "tail_lemma.boxes_at_T"),
])
def test_tampered_fields_are_rejected_naming_them(cert, key, value, field):
    bad = json.loads(json.dumps(cert))
    old = bad["tail_lemma"][key]
    bad["tail_lemma"][key] = value(old) if callable(value) else value
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith(field), rep.message


def test_a_larger_energy_fails_the_step_size_condition_in_the_checker(cert):
    """E_T doubled and κ lowered to match (κ ≤ e^{−2E_T} still holds): 8hE_T e^{4E_T} >
    κ/r, rejected naming E_T_upper and the condition."""
    bad = json.loads(json.dumps(cert))
    E = Fraction(bad["tail_lemma"]["E_T_upper"]) * 2
    bad["tail_lemma"]["E_T_upper"] = str(E)
    with mpmath.workdps(30):
        bad["tail_lemma"]["kappa_lower"] = mpmath.nstr(mpmath.exp(-2 * _mp(E)) * (1 - mpmath.mpf(10) ** -9), 20)
    bad["tail_lemma"]["c_lower"] = "1/10000000000"
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith("tail_lemma.E_T_upper") and \
        "step-size condition" in rep.message, rep.message


def test_the_step_size_condition_is_checked_with_its_constants(cert):
    """ε = 1, E_T = 0.255 (≥ Σq), κ just below e^{−0.51}: 4h(1 + 1/ε)E_T e^{4E_T} = 0.566 >
    κ/r = 0.300, so rejected; without the factor 1 + 1/ε it would pass (0.283)."""
    bad = json.loads(json.dumps(cert))
    tl = bad["tail_lemma"]
    assert Fraction(tl["E_T_upper"]) < Fraction(255, 1000) and tl["rank_bound"] == 2
    tl["epsilon"] = "1"
    tl["E_T_upper"] = "0.255"
    with mpmath.workdps(30):
        tl["kappa_lower"] = mpmath.nstr(mpmath.exp(-_mp("0.51")) * (1 - mpmath.mpf(10) ** -9), 20)
    tl["c_lower"] = "1e-12"
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith("tail_lemma.E_T_upper") and \
        "step-size condition" in rep.message, rep.message


I2 = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]


def _synthetic(h_num: int, E: str, c: Fraction | None = None,
               eps: Fraction = Fraction(1)) -> tuple[dict, Fraction]:
    """A hand-built lemma: n = 5 tokens near (1/25, 1/100) in d = 2, B = I, V = −μI with
    μΔt = h_num/10000 (Δt = 1/10), ε = eps, E_T = E, κ = 98/100 (≤ e^{−2E} for
    E ≤ 1/100). Returns the lemma and the exact bound h·m·E_T/2 on c, with tail.md's
    m = min((2 − h(1 + ε))/E_T, κ/(nr))."""
    h = Fraction(h_num, 10000)
    box = [["1/25", "1/25"], ["1/100", "1/100"]]
    ET, kappa, n, r = Fraction(E), Fraction(98, 100), 5, 2
    m = min((2 - h * (1 + eps)) / ET, kappa / (n * r)) if ET > 0 else Fraction(0)
    bound = h * m * ET / 2
    lemma = {"lemma": "x", "T": "1", "dt": "1/10", "layer": 10, "mu": str(h * 10), "h": str(h),
             "epsilon": str(eps), "boxes_at_T": [box] * n, "q_at_T_upper": ["17/10000"] * n,
             "E_T_upper": E, "rank_bound": r, "kappa_lower": "98/100",
             "c_lower": str(c if c is not None else bound)}
    return lemma, bound


def test_the_rate_constant_takes_the_mean_branch_when_h_is_near_one():
    """h = 0.9999, E_T = 1/100: m = 2(1 − h)/E_T = 0.02 < κ/(nr) = 0.098. The bound is
    accepted exactly and exceeded by 10⁻⁶ rejected (with 2 in place of 2(1 − h) it would
    pass)."""
    from certified.checker.energy import check_t9_discrete

    I2 = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    lemma, bound = _synthetic(9999, "1/100")
    assert bound < Fraction(98, 100) / 10 * Fraction(9999, 10000) * Fraction(1, 100) / 2
    lam = -Fraction(9999, 1000)
    assert check_t9_discrete(lemma, lam, I2, 5, Fraction(1, 10))["c"] == bound
    lemma, _ = _synthetic(9999, "1/100", bound * (1 + Fraction(1, 10 ** 6)))
    with pytest.raises(CheckFailure, match="tail_lemma.c_lower"):
        check_t9_discrete(lemma, lam, I2, 5, Fraction(1, 10))


def test_mu_dt_of_two_is_rejected_naming_h():
    from certified.checker.energy import check_t9_discrete

    I2 = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    lemma, _ = _synthetic(20000, "1/100", Fraction(1, 10 ** 9), Fraction(1, 1000))
    with pytest.raises(CheckFailure, match=r"^tail_lemma.h: Expected μΔt = 2 and < 2"):
        check_t9_discrete(lemma, Fraction(-20), I2, 5, Fraction(1, 10))


@pytest.mark.parametrize("h_num, eps, ok", [
    (10000, Fraction(1), False), (10000, Fraction(999, 1000), True),  # h = 1: ε < 1
    (15000, Fraction(1, 3), False), (15000, Fraction(1, 6), True),    # h = 3/2: ε < 1/3
    (1000, Fraction(19), False), (1000, Fraction(18), True),          # h = 1/10: ε < 19
    (15000, Fraction(0), False), (15000, Fraction(-1, 6), False),
])
def test_epsilon_must_keep_the_mean_contracting(h_num, eps, ok):
    """h(1 + ε) < 2, exactly at the edge (tail.md, T9 in discrete time)."""
    from certified.checker.energy import check_t9_discrete

    lemma, _ = _synthetic(h_num, "1/100", Fraction(1, 10 ** 12), eps)
    lam = -Fraction(h_num, 1000)
    if ok:
        check_t9_discrete(lemma, lam, I2, 5, Fraction(1, 10))
    else:
        with pytest.raises(CheckFailure, match=r"^tail_lemma.epsilon: Expected 0 < ε < 2/h"):
            check_t9_discrete(lemma, lam, I2, 5, Fraction(1, 10))


def test_between_one_and_two_the_rate_constant_uses_epsilon():
    """h = 3/2, ε = 1/6, E_T = 1/100: m = min((2 − 7/4)/E_T, κ/(nr)) = min(25, 0.098);
    κ/(nr) wins, so c's bound is h·κ·E_T/(2nr). Accepted at the bound, rejected above it."""
    from certified.checker.energy import check_t9_discrete

    lemma, bound = _synthetic(15000, "1/100", None, Fraction(1, 6))
    assert bound == Fraction(3, 2) * Fraction(98, 1000) * Fraction(1, 100) / 2
    assert check_t9_discrete(lemma, Fraction(-15), I2, 5, Fraction(1, 10))["c"] == bound
    lemma, _ = _synthetic(15000, "1/100", bound + Fraction(1, 10 ** 30), Fraction(1, 6))
    with pytest.raises(CheckFailure, match="tail_lemma.c_lower"):
        check_t9_discrete(lemma, Fraction(-15), I2, 5, Fraction(1, 10))


def test_the_mean_branch_of_the_rate_uses_epsilon():
    """h = 3/2, ε = 1/3 − 10⁻⁴, E_T = 1/100: 2 − h(1 + ε) = 3/20000, so
    m = (2 − h(1 + ε))/E_T = 0.015 < κ/(nr) = 0.098 (the mean's branch). Accepted at the
    bound, rejected 10⁻³⁰ above it."""
    from certified.checker.energy import check_t9_discrete

    eps = Fraction(1, 3) - Fraction(1, 10 ** 4)
    lemma, bound = _synthetic(15000, "1/100", None, eps)
    assert bound == Fraction(3, 2) * Fraction(3, 20000) / 2
    assert check_t9_discrete(lemma, Fraction(-15), I2, 5, Fraction(1, 10))["c"] == bound
    lemma, _ = _synthetic(15000, "1/100", bound + Fraction(1, 10 ** 30), eps)
    with pytest.raises(CheckFailure, match="tail_lemma.c_lower"):
        check_t9_discrete(lemma, Fraction(-15), I2, 5, Fraction(1, 10))


def test_the_step_size_condition_uses_epsilon():
    """h = 3/2, ε = 1/6, E_T = 1/100, κ = 98/100, r = 2: 4h(1 + 1/ε)E_T e^{4E_T} = 0.437 ≤
    κ/r = 0.49 passes; ε = 1/10 gives 0.687 > 0.49, rejected naming the condition (with
    8h for 4h(1 + 1/ε), as for h < 1, both would give 0.125 and pass)."""
    from certified.checker.energy import check_t9_discrete

    check_t9_discrete(_synthetic(15000, "1/100", Fraction(1, 10 ** 12), Fraction(1, 6))[0],
                      Fraction(-15), I2, 5, Fraction(1, 10))
    with pytest.raises(CheckFailure, match=r"^tail_lemma.E_T_upper.*step-size condition"):
        check_t9_discrete(_synthetic(15000, "1/100", Fraction(1, 10 ** 12),
                                     Fraction(1, 10))[0], Fraction(-15), I2, 5, Fraction(1, 10))


def test_q_between_the_ends_of_the_quadratic_form_is_rejected(cert):
    """q_0 below the upper end of x_0ᵀx_0 on the stored box but above its lower end."""
    bad = json.loads(json.dumps(cert))
    (a0, a1), (b0, b1) = [(Fraction(lo), Fraction(hi)) for lo, hi in
                          bad["tail_lemma"]["boxes_at_T"][0]]
    lo = min(a0 * a0, a1 * a1) + min(b0 * b0, b1 * b1)  # both coordinates keep their sign
    hi = max(a0 * a0, a1 * a1) + max(b0 * b0, b1 * b1)
    assert a0 * a1 > 0 and b0 * b1 > 0 and lo < hi
    bad["tail_lemma"]["q_at_T_upper"][0] = str((lo + hi) / 2)
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith("tail_lemma.q_at_T_upper[0]"), rep.message


def test_a_box_moved_to_its_upper_end_is_rejected(cert):
    bad = json.loads(json.dumps(cert))
    bad["tail_lemma"]["boxes_at_T"] = [[[hi, hi] for lo, hi in row]
                                       for row in bad["tail_lemma"]["boxes_at_T"]]
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith("tail_lemma.boxes_at_T"), rep.message


def test_an_indefinite_form_is_rejected_naming_the_lemmas_hypothesis(cert):
    """K = diag(1, −1): QᵀK indefinite. hypotheses_hold is set to what the checker decides,
    so the rejection is T9's own hypothesis (B ≻ 0), not the hypotheses flag."""
    bad = json.loads(json.dumps(cert))
    bad["instance"]["K"] = [["1", "0"], ["0", "-1"]]
    bad["hypotheses_hold"] = False
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith("tail_lemma"), rep.message
    assert "positive definite" in rep.message


@pytest.mark.parametrize("key, value", [("T_first", "0"), ("delta0_at_T_used", "-5")])
def test_timescale_claims_beyond_the_lemma_are_rejected(cert, key, value):
    bad = json.loads(json.dumps(cert))
    bad["timescale"][key] = value
    if key == "T_first":
        bad["timescale"]["T_first_float"] = 0.0
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith("timescale"), rep.message


def test_a_boolean_attention_rank_is_rejected(cert):
    bad = json.loads(json.dumps(cert))
    bad["limit"]["attention_rank"] = True
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith("limit.attention_rank"), rep.message


def _lemma(n: int, E: str, c: str, q: str = "17/10000", r: int | None = None) -> dict:
    """As :func:`_synthetic` with h = 1/10 and n tokens (r = max(1, min(2, n − 1)))."""
    lemma, _ = _synthetic(1000, E, Fraction(c))
    lemma.update(boxes_at_T=lemma["boxes_at_T"][:1] * n, q_at_T_upper=[q] * n,
                 rank_bound=max(1, min(2, n - 1)) if r is None else r)
    return lemma



@pytest.mark.parametrize("n, r", [(1, 1), (2, 1), (3, 2), (5, 2)])
def test_the_rank_bound_follows_n_and_d(n, r):
    from certified.checker.energy import check_t9_discrete

    ok = _lemma(n, "1/100", "1e-9")
    assert ok["rank_bound"] == r
    check_t9_discrete(ok, Fraction(-1), I2, n, Fraction(1, 10))
    with pytest.raises(CheckFailure, match=r"^tail_lemma.rank_bound"):
        check_t9_discrete(_lemma(n, "1/100", "1e-9", r=3 - r), Fraction(-1), I2, n,
                          Fraction(1, 10))


def test_an_energy_bound_equal_to_the_sum_of_q_is_accepted():
    from certified.checker.energy import check_t9_discrete

    check_t9_discrete(_lemma(5, "17/2000", "1e-9"), Fraction(-1), I2, 5, Fraction(1, 10))


@pytest.mark.parametrize("E, c, q, field", [
    ("0", "1e-9", "0", "tail_lemma.E_T_upper"),        # no energy: no rate to claim
    ("1/100", "0", "17/10000", "tail_lemma.c_lower"),  # a rate constant of 0 says nothing
])
def test_degenerate_constants_are_rejected(E, c, q, field):
    from certified.checker.energy import check_t9_discrete

    lemma = _lemma(5, E, c, q)
    if q == "0":
        lemma["boxes_at_T"] = [[["0", "0"], ["0", "0"]]] * 5
    with pytest.raises(CheckFailure, match="^" + field):
        check_t9_discrete(lemma, Fraction(-1), I2, 5, Fraction(1, 10))
