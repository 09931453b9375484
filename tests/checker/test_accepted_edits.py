"""The seven classes of certificate edits an adversarial review found accepted, and the
edits that made the checker work for hours or gigabytes: each is now rejected naming the
field (digest recomputed where the edit is a claim), before any step is replayed.

Each test fails on the checker before these fixes (each class was accepted, or the
blow-up edit was read and worked on)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction as F

import numpy as np
import pytest

from certified.checker import (CheckFailure, Malformed, _check_claims_only, check_certificate,
                               check_file, digest)
from certified.checker import selftest
from certified.checker.limits import MAX_ORDER, bits_cap
from certified.checker.reading import MAX_DEPTH, MAX_FILE_BYTES


def _redigest(c: dict) -> dict:
    c["digest"] = digest(c)
    return c


def _rejected_at(cert: dict, where: str) -> None:
    with pytest.raises(CheckFailure) as exc:
        _check_claims_only(cert)
    # the field, or an element of it (the type check names the element)
    assert exc.value.where == where or exc.value.where.startswith(where + "["), str(exc.value)


# -- class 1: Lemma S0's audits compare the limit's P* and rank ------------------------------

def test_s0_audit_limit_may_not_state_a_p_star_the_lemma_does_not_give(certs):
    """Two distinct stationary tokens: S0 encloses P, it does not give P* exactly."""
    for key, value in (("attention_limit", [["1", "0"], ["0", "1"]]),
                       ("attention_rank", 1)):
        c = copy.deepcopy(certs["audit_theorem_5_2_third_party"])
        c["limit"][key] = value
        _rejected_at(_redigest(c), f"limit.{key}")


def test_s0_audit_p_star_of_equal_tokens_is_compared_exactly():
    from certified.checker.exact_lemmas import _s0_attention

    X0 = [[F(1), F(2)]] * 3
    _s0_attention({"attention_limit": [["1/3"] * 3] * 3, "attention_rank": 1}, X0)
    with pytest.raises(CheckFailure, match="limit.attention_rank"):
        _s0_attention({"attention_rank": 2}, X0)
    with pytest.raises(CheckFailure, match=r"limit.attention_limit\[0\]\[0\]"):
        _s0_attention({"attention_limit": [["1/2", "1/4", "1/4"]] + [["1/3"] * 3] * 2}, X0)


# -- class 2: every array has its exact length -------------------------------------------------

def test_t8_centre_with_an_extra_coordinate_is_rejected(certs):
    c = copy.deepcopy(certs["t8_52"])
    c["limit"]["clusters"][0]["center"].append(["0", "0"])
    _rejected_at(_redigest(c), "limit.clusters[0].center")


@pytest.mark.parametrize("name,where", [("t4_21", "limit"), ("t8_52", "limit"),
                                        ("t4_85_ref", "evidence")])
def test_an_exposing_functional_with_an_extra_entry_is_rejected(certs, name, where):
    c = copy.deepcopy(certs[name])
    cl = next(k for k, x in enumerate(c[where]["clusters"]) if "exposing_functional" in x)
    c[where]["clusters"][cl]["exposing_functional"].append("1000")
    _rejected_at(_redigest(c), f"{where}.clusters[{cl}].exposing_functional")


def test_steps_that_are_not_replayed_or_go_backwards_are_rejected(certs):
    c = copy.deepcopy(certs["t4_21"])
    te = F(c["integration"]["replay"]["t_end"])
    c["integration"]["steps"] += [[str(te), "1/8"], [str(te + F(1, 8)), "-1/8"]]
    _rejected_at(_redigest(c), "integration.steps")
    rep = check_certificate(c)
    assert not rep.valid and rep.message.startswith("integration.steps")


# -- class 3: audit claims one to one ---------------------------------------------------------

def test_a_second_claim_with_an_existing_id_is_rejected(certs):
    c = copy.deepcopy(certs["audit_remark_7_9_eps_1_10"])
    claims = c["audit"]["record"]["claims"]
    twin = dict(copy.deepcopy(claims[0]), reading={"clusters": 7})
    claims.insert(0, twin)  # judged: only the last of the two ids (before the fix)
    _rejected_at(_redigest(c), "audit.record.claims")


def _record(name: str) -> dict:
    from importlib import resources

    from certified.checker.reading import loads_exact

    return loads_exact((resources.files("certified") / "data" / "audits" /
                        f"{name}.json").read_bytes())


def _reading_swapped(cert: dict) -> dict:
    """Claim "boolean" read the other way round, its verdict flipped to stay consistent:
    the statement ("P* is Boolean") is unchanged."""
    c = copy.deepcopy(cert)
    c["audit"]["record"]["claims"][1]["reading"] = {"attention_boolean": False}
    c["audit"]["claims"][1]["verdict"] = "holds"
    return _redigest(c)


def test_a_changed_reading_is_shown_by_check_and_refused_against_the_record(certs):
    """Class 3b. No program can tell whether a reading formalises a statement, so the
    checker (i) says in its own words what it judged, and (ii) with the record the user
    reviewed, refuses a certificate whose record differs from it in any field."""
    honest = certs["audit_theorem_2_1_middle_token"]
    record = _record("theorem_2_1_middle_token")
    rep = check_certificate(honest, record=record)
    assert rep.valid, rep.message
    assert rep.message.endswith(
        "claims: generic-rank [rank lim P <= 2]: fails; boolean [lim P is Boolean]: fails; "
        "row-structure [lim P = [1, 0, 0; 1/3, 1/3, 1/3; 0, 0, 1]]: holds; three-limits "
        "[number of distinct limits of z = 3]: holds"), rep.message
    forged = _reading_swapped(honest)
    rep = check_certificate(forged)  # valid as a certificate: about another reading ...
    assert rep.valid and "boolean [lim P is not Boolean]: holds" in rep.message, rep.message
    rep = check_certificate(forged, record=record)  # ... which is not the record's
    assert not rep.valid
    assert rep.message == ("audit.record.claims[1].reading.attention_boolean: Expected True. "
                           "Got False."), rep.message
    # another record altogether, and a certificate that is not an audit
    rep = check_certificate(honest, record=_record("theorem_5_2_third_party"))
    assert not rep.valid and rep.message.startswith("audit.record.name: "), rep.message
    rep = check_certificate(certs["t4_21"], record=record)
    assert not rep.valid and rep.message.startswith("audit: Expected an audit certificate")


@pytest.mark.parametrize("got, want, ok", [
    ("30", 30, True), (30, "30", True), ("1/2", 0.5, True), ("30", "30.0", False),
    (1, True, False), (True, 1, False), (None, "x", False), ("x", None, False),
    ([1], [1, 2], False), ({"a": 1}, {"a": 1, "b": 2}, False), ("a", "a", True),
    ("0.3", 0.1 + 0.2, False)])
def test_same_record_compares_numbers_exactly_and_prose_verbatim(got, want, ok):
    from certified.checker.audits import same_record

    if ok:
        same_record(got, want)
    else:
        with pytest.raises(CheckFailure):
            same_record(got, want)


@pytest.mark.parametrize("reading, words", [
    ({"clusters": "2"}, "number of distinct limits of z = 2"),
    ({"attention_limit": [["1", "0"], ["1/2", "1/2"]]}, "lim P = [1, 0; 1/2, 1/2]"),
    ({"attention_rank": 1}, "rank lim P = 1"),
    ({"attention_rank_at_most": "2"}, "rank lim P <= 2"),
    ({"attention_boolean": True}, "lim P is Boolean"),
    ({"attention_boolean": False}, "lim P is not Boolean"),
    ({"theorem_5_2_conclusion": True}, "Theorem 5.2's conclusion holds"),
    ({"theorem_5_2_conclusion": False}, "Theorem 5.2's conclusion fails"),
    ({"theorem_conclusion": "2.1"}, "the conclusion of Theorem 2.1 holds")])
def test_each_reading_is_rendered_in_the_checkers_words(reading, words):
    from certified.checker.audits import render_reading

    assert render_reading(reading) == words
    with pytest.raises(CheckFailure, match="a known reading"):
        render_reading({"clusters_at_least": 2})


def test_check_record_option_on_the_command_line(certs, tmp_path, capsys):
    from certified.cli import main

    cert = tmp_path / "c.json"
    cert.write_text(json.dumps(_reading_swapped(certs["audit_theorem_2_1_middle_token"])))
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(_record("theorem_2_1_middle_token")))
    assert main(["check", str(cert), "--record", str(rec), "--workers", "1"]) == 1
    assert "audit.record.claims[1].reading.attention_boolean" in capsys.readouterr().out
    assert main(["check", str(cert), "--record", str(tmp_path / "none")]) == 2
    assert "cannot read" in capsys.readouterr().err


# -- class 4: duplicate keys are rejected at parse time ---------------------------------------

def test_duplicate_keys_are_rejected_by_the_checker_and_the_instance_reader(certs, tmp_path):
    c = certs["t4_21"]
    text = json.dumps(c)
    assert c["verdict"] == "certified"
    forged = text.replace('"verdict": "certified"',
                          '"verdict": "refuted", "verdict": "certified"', 1)
    path = tmp_path / "dup.json"
    path.write_text(forged)
    with pytest.raises(Malformed, match="duplicate key 'verdict'"):
        check_file(str(path))
    from certified import Instance
    from certified.errors import InputError

    with pytest.raises(InputError, match="V: appears twice"):
        Instance.loads('{"V": [["1"]], "V": [["2"]], "Q": [[1]], "K": [[1]], "X0": [[1]]}')


# -- class 5: nothing after the replay is certified -------------------------------------------

def test_steps_after_the_replay_cannot_extend_certified_until(certs):
    c = copy.deepcopy(certs["t4_21"])
    integ = c["integration"]
    end = F(integ["certified_until"])
    for k in range(20):  # twenty fabricated steps of 1/8, never replayed
        integ["steps"].append([str(end + F(k, 8)), "1/8"])
    integ["certified_until"] = str(end + F(20, 8))
    _rejected_at(_redigest(c), "integration.steps")  # twenty steps without a record
    c = copy.deepcopy(certs["t4_21"])  # the claim alone, one step's worth later
    c["integration"]["certified_until"] = str(end + F(1, 8))
    _rejected_at(_redigest(c), "integration.certified_until")


# -- class 6: variant instances ---------------------------------------------------------------

def test_a_variant_instance_is_never_a_certificate(certs):
    """No integration, no lemma, hypotheses_hold true: was accepted as 'undecided'."""
    c = copy.deepcopy(certs["s0_52"])
    assert c["integration"] is None and c["hypotheses_hold"] is True
    c.update(tail_lemma=None, verdict="undecided", timescale=None, reason="nothing proved")
    c.pop("limit", None)
    c["instance"]["variant"] = {"kind": "feedforward", "activation": "tanh"}
    _rejected_at(_redigest(c), "instance.variant")


# -- class 7: exact types and numbers ---------------------------------------------------------

@pytest.mark.parametrize("path,value,where", [
    (("limit", "attention_rank"), 2.0, "limit.attention_rank"),
    (("limit", "attention_limit"), "bools", "limit.attention_limit"),
    (("limit", "leaders"), [0.0, 2.0], "limit.leaders"),
])
def test_inexact_types_are_rejected(certs, path, value, where):
    c = copy.deepcopy(certs["t4_21"])
    if value == "bools":
        value = [[bool(x) for x in row] for row in c["limit"]["attention_limit"]]
    assert json.loads(json.dumps(value)) == c["limit"][path[1]]  # equal as Python numbers
    c["limit"][path[1]] = value
    _rejected_at(_redigest(c), where)


def test_a_float_literal_is_read_from_its_text(certs, tmp_path):
    """A literal that rounds to the stored float (the digest is unchanged) but denotes
    another number is not the float the checker recomputes."""
    c = certs["t4_21"]
    want = c["timescale"]["T_first_float"]
    text = json.dumps(c)
    needle = f'"T_first_float": {json.dumps(want)}'
    assert needle in text
    longer = repr(want) + ("" if "e" in repr(want) else "0000000000000000001")
    assert float(longer) == want and longer != repr(want)
    path = tmp_path / "float.json"
    path.write_text(text.replace(needle, f'"T_first_float": {longer}', 1))
    rep = check_file(str(path))
    assert not rep.valid and rep.message.startswith("timescale.T_first_float"), rep.message
    path.write_text(text)  # the honest text checks valid through the same reader
    assert check_file(str(path)).valid


# -- blow-ups: bounded by the stated precision, before any work -------------------------------

def test_working_bits_beyond_what_the_digits_need_are_rejected(certs):
    c = copy.deepcopy(certs["t4_21"])
    digits = c["precision"]["digits"]
    c["integration"]["bits"] = bits_cap(digits) + 1
    _rejected_at(_redigest(c), "integration.bits")
    c["integration"]["bits"] = 10 ** 6
    _rejected_at(_redigest(c), "integration.bits")


def test_a_record_of_order_a_million_is_rejected(certs):
    for order in (10 ** 6, MAX_ORDER + 1):  # the schema's bulk check: before any work
        c = copy.deepcopy(certs["t4_21"])
        c["integration"]["replay"]["records"][0]["order"] = order
        with pytest.raises(Malformed, match=f"records/0/order: {order} is greater than the "
                                            f"maximum of {MAX_ORDER}"):
            check_certificate(_redigest(c))


def test_defect_pieces_and_integration_order_are_bounded(certs):
    from certified.checker.limits import MAX_PIECES, check_limits

    c = copy.deepcopy(certs["t4_21"])
    rec = next(r for r in c["integration"]["replay"]["records"] if "pieces" in r)
    k = c["integration"]["replay"]["records"].index(rec)
    check_limits(c)
    rec["pieces"] = MAX_PIECES + 1
    with pytest.raises(CheckFailure, match=rf"records\[{k}\].pieces"):
        check_limits(c)
    c = copy.deepcopy(certs["t4_21"])
    c["integration"]["order"] = MAX_ORDER + 1
    with pytest.raises(CheckFailure, match="integration.order"):
        check_limits(c)
    c["integration"]["order"] = MAX_ORDER
    c["precision"] = {"bits": 100}  # an integration needs the digits that bound its work
    with pytest.raises(CheckFailure, match="precision.digits"):
        check_limits(c)


def test_digits_must_be_an_integer_in_the_producer_range(certs):
    for bad in (10 ** 6, 30.0, True, "30"):
        c = copy.deepcopy(certs["t4_21"])
        c["precision"]["digits"] = bad
        _rejected_at(_redigest(c), "precision.digits")


def test_a_file_over_the_size_limit_is_rejected_before_it_is_read(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:  # sparse: no bytes are written
        fh.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(Malformed, match="over the checker's limit"):
        check_file(str(path))


def test_deep_nesting_is_rejected(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2))
    with pytest.raises(Malformed, match="nesting"):
        check_file(str(path))
    path.write_text("[" * 100_000 + "]" * 100_000)  # past Python's recursion limit
    with pytest.raises(Malformed, match="nesting"):
        check_file(str(path))


# -- the producer runs the checker's arithmetic self-test -------------------------------------

def test_the_self_test_detects_a_blas_in_lower_precision(monkeypatch):
    real = np.array

    def float32_array(values, dtype=None):  # a BLAS that rounds its inputs to float32
        return real(real(values, dtype=np.float32), dtype=np.float64)

    assert selftest.failures() == []
    monkeypatch.setattr(selftest.np, "array", float32_array)
    assert any("BLAS" in b for b in selftest.failures())


def test_the_producer_exits_2_when_the_self_test_fails(monkeypatch, capsys):
    from certified.cli import main

    monkeypatch.setattr(selftest, "failures", lambda: ["round to nearest (python addition)"])
    assert main(["verify", "examples/thm2_1_one_dimensional.json"]) == 2
    assert "arithmetic self-test failed: round to nearest" in capsys.readouterr().err
    from certified.api import verify

    with pytest.raises(selftest.ArithmeticUnfit):
        verify("examples/thm2_1_one_dimensional.json")
