"""The checker on Lemma T11 (C22: Theorem 8.5 refuted in discrete time for μΔt > 2):
each claimed field edited, with the digest recomputed, is rejected naming it (the stored
fixture t11_85_discrete, so the mutation run of benchmarks/mutation_checker.py can use
these tests), and hand-built lemmas at the edges of each inequality."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from certified.checker import CheckFailure, Malformed, check_certificate
from certified.checker.divergence import E_LOWER, T11_STATEMENT, check_t11, check_t11_verdict
from certified.checker.energy import quadratic_form

from . import tamper
from .producer import load


def redigest(c: dict) -> dict:
    c["digest"] = tamper.digest(c)
    return c


@pytest.fixture(scope="module")
def cert():
    c = load("t11_85_discrete")  # examples/discrete_divergent.json (Δt = 3), 8 digits
    assert check_certificate(json.loads(json.dumps(c))).valid
    return c


def _rejected(bad: dict, field: str) -> str:
    rep = check_certificate(redigest(bad))
    assert not rep.valid and rep.message.startswith(field), rep.message
    return rep.message


@pytest.mark.parametrize("key, value, field", [
    ("h", "2", "tail_lemma.h"),
    ("h", "4", "tail_lemma.h"),
    ("mu", "2", "tail_lemma.mu"),
    ("mu", "-1", "tail_lemma.mu"),
    ("rho_lower", lambda r: str(Fraction(r) * Fraction(101, 100)), "tail_lemma.rho_lower"),
    ("rho_lower", "1", "tail_lemma.rho_lower"),
    ("M2_lower", lambda m: str(Fraction(m) * Fraction(101, 100)), "tail_lemma.M2_lower"),
    ("M2_lower", "0", "tail_lemma.M2_lower"),
    ("inv_e_upper", "0.3678", "tail_lemma.inv_e_upper"),
    ("q_at_T_lower", lambda q: [str(Fraction(q[0]) * 2)] + q[1:], "tail_lemma.q_at_T_lower[0]"),
    ("q_at_T_lower", lambda q: q[:-1], "tail_lemma.q_at_T_lower"),
    ("boxes_at_T", lambda b: [[[hi, hi] for lo, hi in row] for row in b],
     "tail_lemma.boxes_at_T"),
    ("boxes_at_T", lambda b: b[:-1], "tail_lemma.boxes_at_T"),
])
def test_tampered_fields_are_rejected_naming_them(cert, key, value, field):
    bad = json.loads(json.dumps(cert))
    old = bad["tail_lemma"][key]
    bad["tail_lemma"][key] = value(old) if callable(value) else value
    _rejected(bad, field)


@pytest.mark.parametrize("edit, field", [
    (lambda c: c.update(verdict="certified"), "verdict"),
    (lambda c: c.update(theorem="3.1", hypotheses_hold=None), "verdict"),
    (lambda c: c.update(limit={"attention_rank": 1}), "limit"),
    (lambda c: c["evidence"]["diverges"].update(statement="x_i -> infinity"),
     "evidence.diverges.statement"),
    (lambda c: c["evidence"]["diverges"].update(rho_lower="3/2"),
     "evidence.diverges.rho_lower"),
    (lambda c: c["evidence"]["diverges"].update(M2_lower="1000"),
     "evidence.diverges.M2_lower"),
    (lambda c: c["evidence"]["diverges"].update(M2_lower=1000),
     "evidence.diverges.M2_lower"),
    (lambda c: c["evidence"].pop("diverges"), "evidence.diverges.statement"),
    (lambda c: c["timescale"].update(T_first="0"), "timescale.T_first"),
    (lambda c: c["tail_lemma"].update(layer=0), "tail_lemma.T"),
])
def test_tampered_claims_are_rejected_naming_them(cert, edit, field):
    bad = json.loads(json.dumps(cert))
    edit(bad)
    _rejected(bad, field)


def test_an_unknown_evidence_field_is_refused_by_the_schema(cert):
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["diverges"]["extra"] = "1"
    with pytest.raises(Malformed, match="evidence"):
        check_certificate(redigest(bad))


def test_evidence_that_matches_a_tampered_lemma_is_still_rejected(cert):
    """ρ moved above its bound in both places (lemma and evidence agree): the lemma's
    inequality rejects it, naming tail_lemma.rho_lower."""
    bad = json.loads(json.dumps(cert))
    rho = str(Fraction(bad["tail_lemma"]["rho_lower"]) + 1)
    bad["tail_lemma"]["rho_lower"] = rho
    bad["evidence"]["diverges"]["rho_lower"] = rho
    _rejected(bad, "tail_lemma.rho_lower")


def test_a_non_positive_definite_form_is_rejected(cert):
    """K edited to make QᵀK = diag(1, −1) (the digest recomputed): T11's setting fails."""
    bad = json.loads(json.dumps(cert))
    bad["instance"]["K"] = [["1", "0"], ["0", "-1"]]
    msg = _rejected(bad, "")
    assert "positive definite" in msg or "hypotheses_hold" in msg, msg


def test_continuous_time_cannot_carry_the_lemma(cert):
    bad = json.loads(json.dumps(cert))
    bad["instance"].pop("time")
    rep = check_certificate(redigest(bad))
    assert not rep.valid


# -- hand-built lemmas: the edges of each inequality, exactly ---------------------------------

I2 = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]


def _lemma(**kw) -> dict:
    """Two tokens, x_0 = (2, 0), x_1 = 0, B = I, μ = 1, Δt = 3: q_0 = 4, L = 4,
    bound = 2 − 3·ē/4."""
    base = {"mu": "1", "h": "3", "boxes_at_T": [[["2", "2"], ["0", "0"]], [["0", "0"], ["0", "0"]]],
            "q_at_T_lower": ["4", "0"], "M2_lower": "4", "inv_e_upper": "3679/10000",
            "rho_lower": "1.7"}
    base.update(kw)
    return base


def test_hand_built_lemma_passes_and_its_edges_are_exact():
    lam, dt = Fraction(-1), Fraction(3)
    bound = 2 - 3 * Fraction(3679, 10000) / 4
    got = check_t11(_lemma(rho_lower=str(bound)), lam, I2, 2, dt)  # ρ = bound: accepted
    assert got["rho"] == bound and got["L"] == 4
    with pytest.raises(CheckFailure, match="rho_lower"):
        check_t11(_lemma(rho_lower=str(bound + Fraction(1, 10 ** 30))), lam, I2, 2, dt)
    # q at its lower end exactly: accepted; above: rejected
    check_t11(_lemma(q_at_T_lower=["4", "0"]), lam, I2, 2, dt)
    with pytest.raises(CheckFailure, match=r"q_at_T_lower\[0\]"):
        check_t11(_lemma(q_at_T_lower=["4.000000001", "0"]), lam, I2, 2, dt)
    # L = max q exactly: accepted; L above the max (the max, not the sum or the first)
    check_t11(_lemma(q_at_T_lower=["0", "4"], boxes_at_T=[[["0", "0"], ["0", "0"]],
                                                          [["2", "2"], ["0", "0"]]]),
              lam, I2, 2, dt)
    with pytest.raises(CheckFailure, match="M2_lower"):
        check_t11(_lemma(q_at_T_lower=["3", "0"]), lam, I2, 2, dt)
    # h just above 2 accepted (ρ ≤ 1 + 1/100 − small), h = 2 rejected
    far = dict(boxes_at_T=[[["20", "20"], ["0", "0"]], [["0", "0"], ["0", "0"]]],
               q_at_T_lower=["400", "0"], M2_lower="400")
    check_t11(_lemma(h="201/100", rho_lower="1.001", **far), lam, I2, 2, Fraction(201, 100))
    with pytest.raises(CheckFailure, match="tail_lemma.h"):
        check_t11(_lemma(h="2", rho_lower="1.001", **far), lam, I2, 2, Fraction(2))


def test_the_inverse_e_bound_is_checked_at_its_edge():
    """ē = 1/E_LOWER (the partial sum) is the smallest accepted value: 1/E_LOWER ≥ 1/e
    holds since E_LOWER ≤ e; anything below it is rejected."""
    lam, dt = Fraction(-1), Fraction(3)
    ebar = 1 / E_LOWER
    rho = 2 - 3 * ebar / 4
    check_t11(_lemma(inv_e_upper=str(ebar), rho_lower=str(rho)), lam, I2, 2, dt)
    with pytest.raises(CheckFailure, match="inv_e_upper"):
        check_t11(_lemma(inv_e_upper=str(ebar - Fraction(1, 10 ** 40)), rho_lower="1.1"),
                  lam, I2, 2, dt)
    assert Fraction(3678, 10000) * E_LOWER < 1 < Fraction(3679, 10000) * E_LOWER


def test_the_token_count_enters_the_bound():
    """n = 3 (a third token at 0): bound = 2 − 3·2ē/4, so the n = 2 value is rejected."""
    lam, dt = Fraction(-1), Fraction(3)
    two = 2 - 3 * Fraction(3679, 10000) / 4
    three = 2 - 6 * Fraction(3679, 10000) / 4
    lemma = _lemma(boxes_at_T=[[["2", "2"], ["0", "0"]], [["0", "0"], ["0", "0"]],
                               [["0", "0"], ["0", "0"]]], q_at_T_lower=["4", "0", "0"])
    check_t11(dict(lemma, rho_lower=str(three)), lam, I2, 3, dt)
    with pytest.raises(CheckFailure, match="rho_lower"):
        check_t11(dict(lemma, rho_lower=str(two)), lam, I2, 3, dt)


def test_quadratic_form_encloses_on_boxes_with_signs():
    """x ∈ [−1, 2] × [1, 1], B = [[1, 1], [1, 1]]: xᵀBx = (x₀ + 1)² ∈ [0, 9]. Term by term,
    x₀·x₀ ∈ [−2, 4] (the same interval twice: a valid, wider enclosure), x₀ twice in
    [−1, 2], and 1: the sum [−3, 9] ⊇ [0, 9]."""
    lo, hi = quadratic_form([(Fraction(-1), Fraction(2)), (Fraction(1), Fraction(1))],
                            [[Fraction(1)] * 2] * 2)
    assert lo <= 0 and hi >= 9
    assert (lo, hi) == (Fraction(-3), Fraction(9))


def test_verdict_rules_on_a_parsed_lemma():
    t11 = {"L": Fraction(4), "rho": Fraction(3, 2)}
    ok = {"theorem": "8.5", "verdict": "refuted", "limit": None,
          "evidence": {"diverges": {"statement": T11_STATEMENT, "M2_lower": "4",
                                    "rho_lower": "3/2"}}}
    check_t11_verdict(ok, t11)
    for key, val in (("M2_lower", "4.0000001"), ("rho_lower", "1.5000001")):
        bad = json.loads(json.dumps(ok))
        bad["evidence"]["diverges"][key] = val
        with pytest.raises(CheckFailure, match=key):
            check_t11_verdict(bad, t11)



# -- what the mutation run left: unreadable fields, shapes, the setting's edges ---------------

@pytest.mark.parametrize("key", ["mu", "h", "M2_lower", "inv_e_upper", "rho_lower"])
def test_an_unreadable_number_is_rejected_naming_its_field(key):
    with pytest.raises(CheckFailure) as exc:
        check_t11(_lemma(**{key: "abc"}), Fraction(-1), I2, 2, Fraction(3))
    assert str(exc.value).startswith(f"tail_lemma.{key}: Expected an exact number"), exc.value


def test_unreadable_entries_of_the_lists_name_their_index():
    with pytest.raises(CheckFailure, match=r"^tail_lemma\.q_at_T_lower\[1\]: Expected an exact"):
        check_t11(_lemma(q_at_T_lower=["4", "abc"]), Fraction(-1), I2, 2, Fraction(3))
    with pytest.raises(CheckFailure, match=r"^tail_lemma\.boxes_at_T\[1\]: Expected an exact"):
        check_t11(_lemma(boxes_at_T=[[["2", "2"], ["0", "0"]], [["0", "x"], ["0", "0"]]]),
                  Fraction(-1), I2, 2, Fraction(3))


@pytest.mark.parametrize("boxes", [
    [[["2", "2"], ["0", "0"], ["0", "0"]], [["0", "0"], ["0", "0"]]],  # a row of length 3
    [[["2", "2"]], [["0", "0"], ["0", "0"]]],  # a row of length 1
    [[["2", "2"], ["0", "0"]], "row"],  # a row that is not a list
])
def test_boxes_of_another_shape_are_rejected(boxes):
    with pytest.raises(CheckFailure) as exc:
        check_t11(_lemma(boxes_at_T=boxes), Fraction(-1), I2, 2, Fraction(3))
    assert str(exc.value) == ("tail_lemma.boxes_at_T: Expected 2×2 boxes. Got another "
                              "shape."), exc.value


def test_a_short_q_list_is_rejected_with_what_it_got():
    with pytest.raises(CheckFailure) as exc:
        check_t11(_lemma(q_at_T_lower=["4"]), Fraction(-1), I2, 2, Fraction(3))
    assert str(exc.value) == "tail_lemma.q_at_T_lower: Expected 2 bounds. Got ['4'].", exc.value


@pytest.mark.parametrize("lam, mu", [(None, "1"), (Fraction(1), "1"), (Fraction(0), "1"),
                                     (Fraction(-2), "1"), (Fraction(0), "0"),
                                     (Fraction(1, 2), "-1/2")])
def test_the_scalar_setting_v_minus_mu_i_is_required(lam, mu):
    """V not a multiple of I (λ None), λ ≥ 0 (also with μ = −λ, where h > 2 would fail
    later: the setting is rejected first, naming mu), or μ ≠ −λ."""
    with pytest.raises(CheckFailure, match="^tail_lemma.mu"):
        check_t11(_lemma(mu=mu), lam, I2, 2, Fraction(3))


def test_a_small_energy_below_1_is_accepted_when_rho_allows():
    """L = 1/2 with μΔt = 100: bound = 99 − 100·ē/(1/2) ≈ 25.4, so L ≤ 1 is no obstacle."""
    lam, dt = Fraction(-1), Fraction(100)
    half = dict(boxes_at_T=[[["1", "1"], ["0", "0"]], [["0", "0"], ["0", "0"]]],
                q_at_T_lower=["1/2", "0"], M2_lower="1/2", h="100", rho_lower="25")
    got = check_t11(_lemma(**half), lam, I2, 2, dt)
    assert got["L"] == Fraction(1, 2) and got["rho"] == 25


def test_a_refuted_verdict_with_a_limit_is_rejected_with_the_limit_shown():
    t11 = {"L": Fraction(4), "rho": Fraction(3, 2)}
    bad = {"theorem": "8.5", "verdict": "refuted", "limit": {"attention_rank": 1},
           "evidence": {"diverges": {"statement": T11_STATEMENT, "M2_lower": "4",
                                     "rho_lower": "3/2"}}}
    with pytest.raises(CheckFailure) as exc:
        check_t11_verdict(bad, t11)
    assert str(exc.value) == ("limit: Expected null (the verdict is 'refuted'). Got "
                              "{'attention_rank': 1}."), exc.value
    for where, key in (("evidence", "other"), ("evidence.diverges", "other")):
        worse = json.loads(json.dumps(dict(bad, limit=None)))
        (worse["evidence"] if where == "evidence" else worse["evidence"]["diverges"])[key] = 1
        with pytest.raises(CheckFailure, match=f"^{where}"):
            check_t11_verdict(worse, t11)
    worse = json.loads(json.dumps(dict(bad, limit=None)))
    worse["evidence"]["diverges"]["rho_lower"] = "abc"
    with pytest.raises(CheckFailure, match=r"^evidence\.diverges\.rho_lower: Expected an exact"):
        check_t11_verdict(worse, t11)
