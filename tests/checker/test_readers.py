"""The checker's small decision functions on hand-made inputs, outcome and message exactly:
the verdict Lemma T4's data imply for each theorem (every branch, with leader maps where the
branches disagree), the reading of a stored interval, the closing of an object, and the
covering of recomputed intervals. Fast: part of the mutation run's test selection."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath.libmp as L
import pytest

from certified.checker.balls import scaled
from certified.checker.energy import (_check_proved, check_t6_data, check_t6_limit,
                                      check_t9_data, check_t9_limit)
from certified.checker.errors import CheckFailure
from certified.checker.lemmas import _t4_expected, check_leader_follower, closed
from certified.checker.projected import _covers
from certified.checker.replay import _pair

LINE = [[F(-2)], [F(1)], [F(2)]]
FOUR = [[F(0)], [F(1)], [F(2)], [F(3)]]


@pytest.mark.parametrize("theorem,leader,X0,d,want", [
    ("3.1", [0, 0, 2], LINE, 1, ("certified", [])),
    ("5.2", [1, 1, 1], LINE, 1, ("certified", [])),
    # 2.1, d = 1: the leaders must be the extreme tokens; at most one row elsewhere
    ("2.1", [0, 0, 2], LINE, 1, ("certified", [])),
    ("2.1", [0, 1, 2], LINE, 1, ("certified", [1])),
    ("2.1", [1, 1, 2], LINE, 1, ("refuted", [0, 1])),
    # d = 1 where the two largest clusters are not the extremes: the d = 1 rule decides
    ("2.1", [0, 1, 1, 3], FOUR, 1, ("refuted", [1, 2])),
    # d ≥ 2: the two largest clusters (not the smallest indices) are the leaders
    ("2.1", [0, 3, 3, 3, 5, 5], [[F(0), F(0)]] * 6, 2, ("certified", [0])),
    ("2.1", [0, 0, 2, 3], [[F(0), F(0)]] * 4, 2, ("certified", [3])),
    ("4.2", [0, 0, 2], LINE, 1, ("certified", [])),
    ("4.2", [0, 1, 2], LINE, 1, ("refuted", [])),
    ("4.2", [0, 0, 2], [[F(0), F(0)]] * 3, 2, ("undecided", [])),
    ("8.5", [0, 0], LINE[:2], 1, ("refuted", [])),
    ("8.5", [0], LINE[:1], 1, ("undecided", [])),
])
def test_t4_expected_verdicts(theorem, leader, X0, d, want):
    assert _t4_expected(theorem, {"leader": leader}, X0, d) == want


def test_t4_expected_unknown_theorem_named():
    with pytest.raises(CheckFailure) as exc:
        _t4_expected("9.9", {"leader": [0]}, LINE[:1], 1)
    assert str(exc.value) == "theorem: Expected one of 2.1, 3.1, 4.2, 5.2, 8.5. Got '9.9'."


def test_pair_reads_exact_intervals_and_names_bad_ones():
    assert _pair(["1/3", "1/2"], "f") == (F(1, 3), F(1, 2))
    assert _pair(["2", "2"], "f") == (F(2), F(2))  # a point is an interval
    assert _pair(["-1e-3", "0.5"], "f") == (F(-1, 1000), F(1, 2))
    cases = [(["1", "x"], "f: Expected an interval [lo, hi] of exact numbers. Got ['1', 'x']."),
             (["1"], "f: Expected an interval [lo, hi] of exact numbers. Got ['1']."),
             (None, "f: Expected an interval [lo, hi] of exact numbers. Got None."),
             (["3", "2"], "f: Expected lo <= hi. Got [3, 2].")]
    for pair, msg in cases:
        with pytest.raises(CheckFailure) as exc:
            _pair(pair, "f")
        assert str(exc.value) == msg


def test_closed_names_the_object_and_the_unknown_field():
    assert closed({"a": 1}, {"a", "b"}, "w") == {"a": 1}
    long = {"a": 1, "zz": "x" * 100}
    with pytest.raises(CheckFailure) as exc:
        closed(long, {"a"}, "w")
    assert str(exc.value) == ("w.zz: Expected no such field (the checker cannot re-derive it). "
                              f"Got {repr('x' * 100)[:60]}.")
    with pytest.raises(CheckFailure) as exc:
        closed(["y" * 100], {"a"}, "w")
    assert str(exc.value) == f"w: Expected an object. Got {repr(['y' * 100])[:60]}."


def test_covers_needs_one_interval_each_containing():
    vals = [(F(0), F(1)), (F(2), F(3))]
    _covers([["0", "1"], ["1", "4"]], vals, "w")
    for stored, msg in [([["0", "1"]], "w: Expected 2 intervals. Got [['0', '1']]."),
                        ("x" * 100, f"w: Expected 2 intervals. Got {repr('x' * 100)[:60]}.")]:
        with pytest.raises(CheckFailure) as exc:
            _covers(stored, vals, "w")
        assert str(exc.value) == msg
    with pytest.raises(CheckFailure) as exc:
        _covers([["0", "1"], ["2.5", "3"]], vals, "w")
    assert str(exc.value).startswith("w[1]: Expected")


# -- Lemma T9's constants and the energy lemmas' limit objects (checker/energy.py) ---------

def _t9_lemma(**kw):
    lemma = {"q_at_T_upper": ["1/2", "1/4"], "E_T_upper": "3/4", "rank_bound": 1,
             "mu": "2", "kappa_lower": None, "c_lower": None}
    E = F(3, 4)
    # e^{−3/2} rounded down to 53 bits: at most the checker's lower end at its P ≥ 53 bits
    low = L.mpf_exp(L.from_rational(-3, 2, 53, L.round_floor), 53, L.round_floor)
    lemma["kappa_lower"] = str(F(*L.to_rational(low)))
    lemma["c_lower"] = str(2 * F(lemma["kappa_lower"]) * E / (2 * 1))  # μκE/(nr), n = 2
    lemma.update(kw)
    return lemma


def test_t9_constants_at_their_limits_accepted():
    """E_T equal to Σq, κ just below e^{−2E_T}, c equal to μκE/(nr): accepted
    (every comparison is the one the lemma needs, boundary included); r = 1 for n = 2
    whatever d."""
    assert check_t9_data(_t9_lemma(), 2, 3) == {"c": F(_t9_lemma()["c_lower"])}


@pytest.mark.parametrize("edit,n,d,msg", [
    ({"E_T_upper": "1/2"}, 2, 3,
     "tail_lemma.E_T_upper: Expected >= 0.75 (the sum of q_at_T_upper). Got 1/2."),
    ({"rank_bound": 2}, 2, 3,
     "tail_lemma.rank_bound: Expected 1 (max(1, min(d, n - 1))). Got 2."),
    ({"rank_bound": 1}, 4, 3,
     "tail_lemma.rank_bound: Expected 3 (max(1, min(d, n - 1))). Got 1."),
    ({"rank_bound": "1"}, 2, 3,
     "tail_lemma.rank_bound: Expected 1 (max(1, min(d, n - 1))). Got '1'."),
    ({"kappa_lower": "0"}, 2, 3, None),
    ({"c_lower": "0"}, 2, 3, None),
])
def test_t9_constants_rejected_naming_the_field(edit, n, d, msg):
    with pytest.raises(CheckFailure) as exc:
        check_t9_data(_t9_lemma(**edit), n, d)
    field = "tail_lemma." + next(iter(edit))
    assert str(exc.value).startswith(field + ": Expected"), str(exc.value)
    if msg is not None:
        assert str(exc.value) == msg


def test_t9_kappa_and_c_just_above_rejected():
    lemma = _t9_lemma()
    # κ above e^{−3/2} (κ is within 2⁻⁵³ of it), c above μκE/(nr) by 10⁻³⁰ relative
    for key, up in (("kappa_lower", F(1, 2 ** 40)), ("c_lower", F(1, 10 ** 30))):
        bumped = _t9_lemma(**{key: str(F(lemma[key]) * (1 + up))})
        with pytest.raises(CheckFailure) as exc:
            check_t9_data(bumped, 2, 3)
        assert exc.value.where == f"tail_lemma.{key}"


def test_energy_limit_objects_closed_and_evidence_null():
    t6 = {"verdict": "undecided", "theorem": "3.1", "evidence": {}}
    with pytest.raises(CheckFailure) as exc:
        check_t6_limit(t6, {})
    assert str(exc.value) == "evidence: Expected null. Got {}."
    t6 = {"verdict": "undecided", "theorem": "3.1", "limit": {"rate": {}}}
    with pytest.raises(CheckFailure) as exc:
        check_t6_limit(t6, {})
    assert str(exc.value) == ("limit.rate: Expected no such field (the checker cannot "
                              "re-derive it). Got {}.")
    with pytest.raises(CheckFailure) as exc:
        _check_proved({"proved": {"zz": 1}}, {})
    assert str(exc.value) == ("limit.proved.zz: Expected no such field (the checker cannot "
                              "re-derive it). Got 1.")
    t9 = {"verdict": "certified", "theorem": "8.5", "evidence": {}}
    with pytest.raises(CheckFailure) as exc:
        check_t9_limit(t9, {}, F(1), 2, 2)
    assert str(exc.value) == "evidence: Expected null. Got {}."


def test_t6_data_setting_and_log_bound_at_their_limits():
    """T6 needs x, V = −μI with μ > 0 (λ = 0 or λ > 0 or the variable z rejected), and
    e^L ≥ n: L = 0 for n = 1 (e^0 = 1 = n exactly) is accepted."""
    lemma = {"mu": "1", "T": "1", "q_at_T_upper": ["2"], "log_n_upper": "0",
             "sup_q_upper": "2"}
    check_t6_data(lemma, F(-1), F(1), "x")
    for lam, variable in ((F(0), "x"), (F(1, 2), "x"), (F(-1), "z")):
        bad = dict(lemma, mu=str(-lam))
        with pytest.raises(CheckFailure) as exc:
            check_t6_data(bad, lam, F(1), variable)
        assert str(exc.value) == (f"tail_lemma: Expected T6 data for V = −μI in x at T = 1. "
                                  f"Got mu = {-lam}, T = 1.")


def test_t4_verdict_fields_named_when_not_numbers_and_rate_at_its_limit(certs):
    """A rate constant that is not a number is named; one equal to the lower end of the
    checker's enclosure of min(m, μ)·e^{λT} is accepted (the claim is c ≤ that)."""
    from certified.checker import _check_claims_only

    from . import tamper

    cert = certs["t4_21"]
    for path in (("limit", "rate_constant"), ("limit", "rate", "c_lower_bound")):
        with tamper.edited(cert, path, "abc") as c:
            with pytest.raises(CheckFailure) as exc:
                _check_claims_only(c)
        assert exc.value.where == ".".join(path), str(exc.value)
    lemma = cert["tail_lemma"]
    with scaled(int(cert["integration"]["bits"]) + 64):  # the checker's own scale
        lf = check_leader_follower(lemma, F(lemma["lambda"]), [[F(1)]], 3)
    for path in (("limit", "rate_constant"), ("limit", "rate", "c_lower_bound")):
        with tamper.edited(cert, path, str(lf["rate_lo"])) as c:
            assert _check_claims_only(c).startswith("claims checked")
