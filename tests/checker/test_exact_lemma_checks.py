"""The checker's rules for the lemmas solved exactly to t = ∞ (S0, S1, S2: Lemmas C9, C9b,
C19), word for word where a whole-module mutation run of ``exact_lemmas.py`` found a rule
no other test reads: the field a refusal names, the null a verdict implies for the other
object, and which lemma a valid audit says it re-checked."""

from __future__ import annotations

import copy

import pytest

from certified.checker import _check_claims_only, digest

from .tamper import claims_outcome


def _refusal(cert: dict, edit) -> str:
    """The claims-only checker's line on a copy of ``cert`` changed by ``edit``, digest
    recomputed (a refusal is compared word for word: "VALID …" never equals one)."""
    c = copy.deepcopy(cert)
    edit(c)
    c["digest"] = digest(c)
    return claims_outcome(c)


def test_valid_audits_name_how_their_lemma_was_rechecked(certs):
    # S0 encloses the constant P; S1 and S2 run their own quadrature to t = ∞
    assert _check_claims_only(certs["audit_theorem_5_2_third_party"]) == (
        "valid: Lemma S0 re-checked (exact setting, constant P enclosed); 3 claim verdicts "
        "re-judged")
    message = _check_claims_only(certs["audit_theorem_2_1_middle_token"])
    assert message.startswith("valid: Lemma S2 re-checked (exact setting, own quadrature "
                              "and limits); "), message


@pytest.mark.parametrize("name, other, key, verdict", [
    ("s0_52", "evidence", "entry", "certified"),
    ("s0_85_ref", "limit", "attention_rank", "refuted")])
def test_s0_verify_the_object_the_verdict_excludes_must_be_null(certs, name, other, key,
                                                                verdict):
    """A certified S0 verdict has no evidence, a refuted one no limit (C9b)."""
    long = {key: "y" * 80}  # an object with a key the schema knows; its repr is cut at 60
    assert _refusal(certs[name], lambda c: c.update({other: long})) == (
        f"{other}: Expected null (the verdict is {verdict!r}). Got {repr(long)[:60]}.")
    assert len(repr(long)) > 61


def test_s0_verify_lemma_with_an_unknown_field_is_refused_naming_it(certs):
    # a field the schema knows (other lemmas' time), S0 has none
    assert _refusal(certs["s0_52"], lambda c: c["tail_lemma"].update(T="1")) == (
        "tail_lemma.T: Expected no such field (the checker cannot re-derive it). Got '1'.")


def _s0_audit_refusal(certs, edit) -> str:
    return _refusal(certs["audit_theorem_5_2_third_party"], edit)  # Lemma S0, two tokens


def test_s0_audit_limit_objects_are_closed_and_one_per_token(certs):
    three = lambda c: c["limit"]["clusters"].append(c["limit"]["clusters"][0])  # noqa: E731
    assert _s0_audit_refusal(certs, three) == (
        "limit.clusters: Expected 2 clusters, one per token (the lemma gives every token's "
        "limit). Got [{'center': [['0', '0'], ['1', '1']], 'members': [0]}, {'cen.")
    assert _s0_audit_refusal(certs, lambda c: c["limit"]["clusters"][0].update(
        is_zero=False)) == ("limit.clusters[0].is_zero: Expected no such field (the checker "
                            "cannot re-derive it). Got False.")
    assert _s0_audit_refusal(certs, lambda c: c["limit"].update(leaders=[0, 1])) == (
        "limit.leaders: Expected no such field (the checker cannot re-derive it). Got [0, 1].")
    # a cluster without its centre: the schema leaves `center` optional, the lemma needs it
    assert _s0_audit_refusal(certs, lambda c: c["limit"]["clusters"][0].pop("center")) == (
        "limit.clusters[0]: Expected members [i] and center = token 0's initial position as "
        "its limit. Got {'members': [0]}.")
    assert _s0_audit_refusal(certs, lambda c: c["tail_lemma"].update(T="1")) == (
        "tail_lemma.T: Expected no such field (the checker cannot re-derive it). Got '1'.")


@pytest.mark.parametrize("theorem, s1_d2, s1_d1, s2", [
    ("2.1", "certified", "certified", "certified"),
    ("3.1", "certified", "certified", "certified"),
    # V = λI in d ≥ 2 has no simple leading eigenvalue: Theorem 4.2 is undecided there
    ("4.2", "undecided", "certified", "certified"),
    ("5.2", "certified", "certified", "certified"),
    ("8.5", "refuted", "refuted", "refuted")])  # two or three distinct limits, not one
def test_the_verdict_each_symmetric_lemma_implies(theorem, s1_d2, s1_d1, s2):
    from fractions import Fraction as F

    from certified.checker.exact_lemmas import _symmetric_expected

    assert _symmetric_expected("S1", theorem, [[F(1), F(0)], [F(0), F(1)]], 2) == s1_d2
    assert _symmetric_expected("S1", theorem, [[F(1)], [F(-1)]], 1) == s1_d1
    assert _symmetric_expected("S2", theorem, [[F(-1)], [F(0)], [F(1)]], 1) == s2


@pytest.mark.parametrize("key", ["attention_limit", "attention_rank"])
def test_s2_audit_limit_must_state_p_star_and_its_rank(certs, key):
    assert _refusal(certs["audit_theorem_2_1_middle_token"],  # Lemma S2
                    lambda c: c["limit"].pop(key)) == (
        f"limit.{key}: Expected present (Lemmas S1, S2 prove it). Got missing.")


@pytest.mark.parametrize("name", ["s2_31", "s2_85_ref"])
def test_s1_s2_verify_lemma_with_an_unknown_field_is_refused_naming_it(certs, name):
    assert _refusal(certs[name], lambda c: c["tail_lemma"].update(G_metric=[["1"]])) == (
        "tail_lemma.G_metric: Expected no such field (the checker cannot re-derive it). Got "
        "[['1']].")


def test_s2_verify_names_an_unknown_theorem_cut_at_60_characters(certs):
    """s2_85_ref's hypotheses do not hold, so the lemma's own reading of the theorem is
    reached (the schema leaves the theorem a string)."""
    theorem = "9" * 70
    assert _refusal(certs["s2_85_ref"], lambda c: c.update(theorem=theorem)) == (
        f"theorem: Expected one of 2.1, 3.1, 4.2, 5.2, 8.5. Got {repr(theorem)[:60]}.")


@pytest.mark.parametrize("name, key", [("s1_21", "integral_I_u0"),
                                       ("s1_85_ref", "contraction_exp_minus_I"),
                                       ("s1_42_und", "distance_between_limits"),
                                       ("s2_31", "contraction_exp_minus_J")])
def test_s1_s2_intervals_are_exactly_two_numbers(certs, name, key):
    """A third element was accepted (only the first two were read): found by the generated
    type tests once S1 had a verify fixture."""
    pair = certs[name]["tail_lemma"][key]
    three = pair + [pair[1]]
    assert _refusal(certs[name], lambda c: c["tail_lemma"].update({key: three})) == (
        f"tail_lemma.{key}: Expected an interval [lo, hi]. Got "
        f"{repr(three)[:60]}.")


@pytest.mark.parametrize("name, n, d", [("s1_21", 2, 2), ("s1_85_ref", 2, 2),
                                        ("s2_85_ref", 3, 1)])
def test_s1_s2_limits_have_one_interval_per_token_and_coordinate(certs, name, n, d):
    lim = certs[name]["tail_lemma"]["limits_z"]
    for bad in (lim + [lim[0]], [row + [row[0]] for row in lim], lim[:-1],
                [lim[0][:-1]] + lim[1:]):
        assert _refusal(certs[name], lambda c: c["tail_lemma"].update(limits_z=bad)) == (
            f"tail_lemma.limits_z: Expected {n}×{d} intervals (one per token and "
            f"coordinate). Got {repr(bad)[:60]}.")


# -- Lemmas S1 and S2 in a verify certificate: the verdict and the objects it allows ------

_LONG = {"statement": "y" * 80}  # an evidence or limit object the schema admits


@pytest.mark.parametrize("name, other, verdict", [
    ("s1_21", "evidence", "certified"), ("s2_31", "evidence", "certified"),
    ("s1_85_ref", "limit", "refuted")])
def test_s1_s2_verify_the_object_the_verdict_excludes_must_be_null(certs, name, other,
                                                                   verdict):
    assert _refusal(certs[name], lambda c: c.update({other: _LONG})) == (
        f"{other}: Expected null (the verdict is {verdict!r}). Got {repr(_LONG)[:60]}.")


def test_s1_undecided_claims_no_evidence(certs):
    """Theorem 4.2 with V = λI in d = 2: S1 gives every limit, the verdict is undecided
    (Lemma C19), and nothing may be claimed."""
    assert _refusal(certs["s1_42_und"], lambda c: c.update(evidence=_LONG)) == (
        f"evidence: Expected null (nothing is claimed). Got {repr(_LONG)[:60]}.")


_S1 = {"2.1": "s1_21", "4.2": "s1_42_und", "8.5": "s1_85_ref"}  # one pair, three theorems
_S1_LINE = {"2.1": "s1_21_line", "4.2": "s1_42_line"}  # tokens ±1 in d = 1


@pytest.mark.parametrize("name, theorem, want", [
    ("s1_42_und", "2.1", "certified"), ("s1_85_ref", "2.1", "certified"),
    ("s1_21", "4.2", "undecided"), ("s1_21", "8.5", "refuted")])
def test_the_verdict_s1_implies_is_that_of_its_leader_map(certs, name, theorem, want):
    """S1 is Lemma T4's situation with the leader map [0, 1] (two tokens in d = 2): a
    verdict other than T4's for that map is refused, naming what S1 implies (the
    hypotheses' flag taken from the fixture of that theorem)."""
    c, hyp = certs[name], certs[_S1[theorem]]["hypotheses_hold"]
    assert _refusal(c, lambda c: c.update(theorem=theorem, hypotheses_hold=hyp)) == (
        f"verdict: Expected {want!r} (what Lemma S1's limits imply for Theorem {theorem}). "
        f"Got {c['verdict']!r}.")


@pytest.mark.parametrize("name", ["s1_85_ref", "s2_85_ref"])
def test_s1_s2_refutation_evidence_is_closed_and_its_entry_an_index_pair(certs, name):
    n = len(certs[name]["instance"]["X0"])
    assert _refusal(certs[name], lambda c: c["evidence"].update(statement="x")) == (
        "evidence.statement: Expected no such field (the checker cannot re-derive it). Got "
        "'x'.")
    for e in ([-1, 1], [n, 0], [0, n], [0], [0, 1, 2], "0 1"):
        assert _refusal(certs[name], lambda c: c["evidence"].update(entry=e)).startswith(
            f"evidence.entry: Expected [i, j] with P*_ij ≠ 1/{n} (P* = "), e
    # an entry of P* equal to 1/n is no witness (S2's middle row is 1/3)
    if name == "s2_85_ref":
        assert _refusal(certs[name], lambda c: c["evidence"].update(entry=[1, 1])) == (
            "evidence.entry: Expected [i, j] with P*_ij ≠ 1/3 (P* = [['1', '0', '0'], "
            "['1/3', '1/3', '1/3'], ['0', '0', '1']]). Got [1, 1].")


@pytest.mark.parametrize("name, theorem, want", [
    ("s1_21_line", "4.2", "certified"), ("s1_42_line", "2.1", "certified")])
def test_the_verdict_s1_implies_in_one_dimension(certs, name, theorem, want):
    """In d = 1 Theorem 4.2's conclusion is certified by S1's two limits (undecided in
    d = 2), and 2.1's table reads the tokens' order."""
    c = certs[name]
    hyp = certs[_S1_LINE[theorem]]["hypotheses_hold"]
    assert _refusal(c, lambda c: c.update(theorem=theorem, hypotheses_hold=hyp,
                                          verdict="undecided")) == (
        f"verdict: Expected {want!r} (what Lemma S1's limits imply for Theorem {theorem}). "
        "Got 'undecided'.")


@pytest.mark.parametrize("name, instance, hyp, message", [
    ("s1_21", {"V": [["1", "0"], ["0", "2"]]}, False,
     "instance: Expected V = λI and QᵀK = βI with λ, β > 0 (Lemmas S1, S2). Got another V "
     "or B."),
    ("s1_21", {"X0": [["2", "1"], ["1", "-3"]]}, False,
     "instance.X0: Expected two distinct tokens of equal norm (Lemma S1). Got another "
     "configuration."),
    ("s1_21", {"X0": [["2", "1"], ["2", "1"]]}, False,
     "instance.X0: Expected two distinct tokens of equal norm (Lemma S1). Got another "
     "configuration."),
    ("s2_31", {"X0": [["1"], ["0"], ["-2"]]}, True,
     "instance.X0: Expected d = 1 and tokens {−a, 0, a}, a > 0 (Lemma S2). Got another "
     "configuration.")])
def test_s1_s2_setting_decided_exactly(certs, name, instance, hyp, message):
    """The setting each lemma is about, decided on the exact instance (the hypotheses'
    flag set to what the checker derives for the edited instance, so the lemma's own
    test is reached)."""
    assert _refusal(certs[name], lambda c: (c["instance"].update(instance),
                                            c.update(hypotheses_hold=hyp))) == message


@pytest.mark.parametrize("name", ["s0_52", "s1_21", "s2_31"])
def test_a_lemma_solved_to_infinity_claims_no_time_scale(certs, name):
    ts = {"T_first": "1", "meaning": "y" * 80}
    assert _refusal(certs[name], lambda c: c.update(timescale=ts)) == (
        "timescale: Expected null (the lemma holds from t = 0, no integration). Got "
        f"{repr(ts)[:60]}.")


def test_s1_refutation_attention_limit_entries_are_exact_numbers(certs):
    bad = [["x", "0"], ["0", "1"]]
    assert _refusal(certs["s1_85_ref"], lambda c: c["evidence"].update(attention_limit=bad)) \
        == "evidence.attention_limit: Expected an exact number. Got 'x'."
    half = [["1/2", "0"], ["0", "1"]]  # a number, but not S1's P* = I
    assert _refusal(certs["s1_85_ref"], lambda c: c["evidence"].update(attention_limit=half)) \
        == ("evidence.attention_limit: Expected [['1', '0'], ['0', '1']]. Got "
            "[['1/2', '0'], ['0', '1']].")


@pytest.mark.parametrize("name", ["s0_52", "s1_21", "s2_31"])
def test_lemmas_solved_to_infinity_are_about_continuous_time(certs, name):
    """S0, S1 and S2 solve the differential equation: in discrete time they are refused;
    "continuous", written or left to the default, is accepted."""
    assert _refusal(certs[name], lambda c: c["instance"].update(time={"discrete": "1/10"})) \
        == ("instance: Expected continuous time without variant (for the integration and "
            "lemmas claimed). Got another setting.")
    assert _refusal(certs[name], lambda c: c["instance"].update(time="continuous")).startswith(
        "VALID valid: Lemma S")
    assert _refusal(certs[name], lambda c: c["instance"].pop("time")).startswith(
        "VALID valid: Lemma S")  # no time field: continuous, the format's default
