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
    from certified.checker.errors import NotAnAudit

    with pytest.raises(NotAnAudit):  # the wrong input (exit 2), not an invalid certificate
        check_certificate(certs["t4_21"], record=record)


def test_a_boolean_reading_must_be_true_or_false_not_a_string(certs):
    """Review finding: the judge read "true" as true while the rendering read it as not
    true, so the one line could state the opposite of what was judged."""
    c = copy.deepcopy(certs["audit_theorem_2_1_middle_token"])
    c["audit"]["record"]["claims"][1]["reading"] = {"attention_boolean": "true"}
    rep = check_certificate(_redigest(c))
    assert not rep.valid
    assert rep.message == ("audit.record.claims[boolean].reading: Expected true or false. "
                           "Got 'true'."), rep.message


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
    plain = tmp_path / "t4.json"
    plain.write_text(json.dumps(certs["t4_21"]))
    assert main(["check", str(plain), "--record", str(rec), "--workers", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("certified: bad input: --record: the certificate is not an "
                                 "audit (no audit.record), so there is no record to compare "
                                 "with\n")


#: same_record's refusals word for word (stored after review: the field, what the record
#: has, what the certificate has; reprs cut at 60 or 80 characters)
SAME_RECORD_FAILURES = [
    ('{"a": 1}',
     '{"a": 1, "b": 2}',
     "audit.record: Expected an object with the fields ['a', 'b']. Got ['a']."),
    ('[1]',
     '{"a": 1}',
     "audit.record: Expected an object with the fields ['a']. Got [1]."),
    ('[1, 2, 3]',
     '[1, 2]',
     'audit.record: Expected a list of 2. Got [1, 2, 3].'),
    ('{"x": [1, 2, 3]}',
     '{"x": [1, 2]}',
     'audit.record.x: Expected a list of 2. Got [1, 2, 3].'),
    ('"abc"',
     '1',
     "audit.record: Expected 1. Got 'abc'."),
    ('"30.0"',
     '"30"',
     "audit.record: Expected '30'. Got '30.0'."),
    ('1.50',
     '1.5000001',
     "audit.record: Expected '1.5000001'. Got '1.50'."),
    ('2',
     'true',
     'audit.record: Expected True. Got 2.'),
    ('null',
     '"x"',
     "audit.record: Expected 'x'. Got None."),
    ('{"v": "1/3"}',
     '{"v": 0.25}',
     "audit.record.v: Expected '0.25'. Got '1/3'."),
    ('"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"',
     '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
     "audit.record: Expected 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx. Got 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy."),
    ('[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]',
     '{"k": 1}',
     "audit.record: Expected an object with the fields ['k']. Got [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1."),
    ('{"key0": 1, "key1": 1, "key2": 1, "key3": 1, "key4": 1, "key5": 1, "key6": 1, "key7": 1, "key8": 1, "key9": 1, "key10": 1, "key11": 1, "key12": 1, "key13": 1, "key14": 1, "key15": 1, "key16": 1, "key17": 1, "key18": 1, "key19": 1, "key20": 1, "key21": 1, "key22": 1, "key23": 1, "key24": 1, "key25": 1, "key26": 1, "key27": 1, "key28": 1, "key29": 1}',
     '{"a": 1}',
     "audit.record: Expected an object with the fields ['a']. Got ['key0', 'key1', 'key10', 'key11', 'key12', 'key13', 'key14', 'key15', 'key16', ."),
    ('[[1, 2], [3, 4, 5]]',
     '[[1, 2], [3, 4]]',
     'audit.record[1]: Expected a list of 2. Got [3, 4, 5].'),
    ('[1, [2]]',
     '[1, 2]',
     'audit.record[1]: Expected 2. Got [2].'),
]


@pytest.mark.parametrize("got, want, message", SAME_RECORD_FAILURES)
def test_same_record_refusals_word_for_word(got, want, message):
    from certified.checker.audits import same_record
    from certified.checker.reading import loads_exact

    with pytest.raises(CheckFailure) as exc:
        same_record(loads_exact(got), loads_exact(want))
    assert str(exc.value) == message


@pytest.mark.parametrize("reading, message", [
    ({"clusters": "x"}, "reading: Expected an exact number. Got 'x'."),
    ({"attention_limit": [["1", "y"]]}, "reading: Expected an exact number. Got 'y'."),
    ({"attention_rank": "z"}, "reading: Expected an exact number. Got 'z'."),
    ({"attention_rank_at_most": [1]}, "reading: Expected an exact number. Got [1]."),
    ({"nope": 1}, "audit.record.claims.reading: Expected a known reading. Got 'nope'."),
    ({"n" * 80: 1}, "audit.record.claims.reading: Expected a known reading. Got '"
     + "n" * 59 + ".")])
def test_a_reading_that_is_not_one_is_refused_word_for_word(reading, message):
    from certified.checker.audits import render_reading

    with pytest.raises(CheckFailure) as exc:
        render_reading(reading)
    assert str(exc.value) == message


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


# -- mutation-testing follow-ups: edges and refusals word for word ----------------------------

def test_the_layer_maps_retry_ladder_is_derived_from_the_digits():
    from certified.checker.discrete import retry_ladder
    from certified.checker.limits import own_bits

    b = 2 * own_bits(30) + 64
    assert retry_ladder(100, 30) == [100, 4 * b, 16 * b, 64 * b]
    assert retry_ladder(4 * b, 30) == [4 * b, 16 * b, 64 * b]  # only finer rungs
    assert retry_ladder(64 * b, 30) == [64 * b]
    assert retry_ladder(4 * b - 1, 30) == [4 * b - 1, 4 * b, 16 * b, 64 * b]
    b5 = 2 * own_bits(5) + 64
    assert retry_ladder(1, 5) == [1, 4 * b5, 16 * b5, 64 * b5]


def test_nothing_claimed_refuses_a_limit_or_evidence_word_for_word():
    from certified.checker.claims import nothing_claimed

    nothing_claimed({"verdict": "undecided", "limit": None, "evidence": None})
    nothing_claimed({"verdict": "undecided"})
    for key in ("limit", "evidence"):
        with pytest.raises(CheckFailure) as exc:
            nothing_claimed({"verdict": "undecided", key: {"clusters": [1] * 40}})
        assert str(exc.value) == (f"{key}: Expected null (nothing is proved). Got "
                                  "{'clusters': [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                                  "1, 1.")
    with pytest.raises(CheckFailure) as exc:
        nothing_claimed({"verdict": "certified"})
    assert str(exc.value) == ("verdict: Expected 'undecided' (no lemma proves a limit "
                              "here). Got 'certified'.")


def test_s0_p_star_refusals_word_for_word_and_one_token():
    from certified.checker.exact_lemmas import _s0_attention

    _s0_attention({"attention_limit": [["1"]], "attention_rank": 1}, [[F(3), F(1)]])
    X0 = [[F(1)], [F(2)]]
    for key in ("attention_limit", "attention_rank"):
        with pytest.raises(CheckFailure) as exc:
            _s0_attention({key: "x" * 70}, X0)
        assert str(exc.value) == (f"limit.{key}: Expected absent (Lemma S0 states P* exactly "
                                  f"only for equal tokens). Got '{'x' * 59}.")
    with pytest.raises(CheckFailure) as exc:
        _s0_attention({"attention_rank": 2}, [[F(1)], [F(1)]])
    assert str(exc.value) == "limit.attention_rank: Expected 1. Got 2."


def test_loads_exact_size_edge_and_its_message(monkeypatch):
    from certified.checker import reading

    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 10)
    assert reading.loads_exact(" " * 8 + "12") == 12  # exactly the limit: read
    with pytest.raises(Malformed) as exc:
        reading.loads_exact(" " * 9 + "12")
    assert str(exc.value) == "the certificate is 11 bytes, over the checker's limit of 10 bytes"


@pytest.mark.parametrize("text", ['{"x_float": NaN}', '[Infinity]', '{"a": -Infinity}'])
def test_nan_and_infinity_are_refused_where_floats_may_stand(text):
    from certified.checker.reading import loads_exact

    with pytest.raises(Malformed):
        loads_exact(text)


def test_nesting_is_bounded_at_exactly_max_depth():
    from certified.checker.reading import loads_exact

    ok = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)  # containers at depths 0..MAX_DEPTH
    assert loads_exact(ok) is not None
    with pytest.raises(Malformed) as exc:
        loads_exact("[" + ok + "]")
    assert str(exc.value) == f"the JSON nesting is deeper than {MAX_DEPTH}"
    deep = '{"a": ' * MAX_DEPTH + "1" + "}" * MAX_DEPTH  # the 1 at depth MAX_DEPTH
    assert loads_exact(deep) is not None
    with pytest.raises(Malformed):
        loads_exact('{"a": ' + deep + "}")
    mixed = '[{"a": ' * (MAX_DEPTH // 2) + "1" + "}]" * (MAX_DEPTH // 2)
    assert loads_exact(mixed) is not None
    with pytest.raises(Malformed):
        loads_exact('[{"a": ' + mixed + "}]")


def test_a_float_literal_with_a_huge_exponent_is_refused_word_for_word():
    from certified.checker.reading import loads_exact

    with pytest.raises(Malformed) as exc:
        loads_exact('{"a_float": 1.0000000000000000000000000000000000000000000001e999999}')
    assert str(exc.value) == ("the number '1.00000000000000000000000000000000000000' has a "
                              "decimal exponent beyond ±100000")


def _ctx(ts, T="5/2"):
    from types import SimpleNamespace

    return SimpleNamespace(obj={"timescale": ts}, lemma={"T": T})


def test_timescale_edges_found_by_mutation():
    from certified.checker.claims import check_timescale
    from certified.checker.reading import loads_exact

    check_timescale(_ctx({"T_first": "0", "T_used": "5/2"}), {})  # T_first = 0 is a time
    check_timescale(_ctx({"T_used": "5/2", "T_float": 2.5}), {})  # T_float read from T_used
    check_timescale(_ctx({"T": "5/2", "delta0_at_T_used": "1/1000"}),
                    {"delta0": F(1, 1000)})  # equal to the recomputed δ₀: accepted
    with pytest.raises(CheckFailure) as exc:
        check_timescale(_ctx({"T": "5/2", "delta0_at_T_used": "999/1000000"}),
                        {"delta0": F(1, 1000)})
    assert str(exc.value) == ("timescale.delta0_at_T_used: Expected >= 0.001 (δ₀ recomputed "
                              "at T). Got '999/1000000'.")
    with pytest.raises(CheckFailure) as exc:
        check_timescale(_ctx({"T_first": "-1/100"}), {})
    assert str(exc.value) == "timescale.T_first: Expected a time in [0, 5/2]. Got '-1/100'."
    with pytest.raises(CheckFailure) as exc:
        check_timescale(_ctx(loads_exact('{"T_used": "5/2", "T_float": 2.50000000000000001}')),
                        {})
    assert str(exc.value) == "timescale.T_float: Expected 2.5. Got 2.50000000000000001."


def test_a_claim_about_facts_no_lemma_proved_may_only_be_undecided():
    """Mutation finding: with the number of clusters or P* unknown, a claim's "holds" or
    "fails" asserts what nothing proved."""
    from certified.checker.audits import judge_claims

    for reading in ({"clusters": 2}, {"attention_limit": [["1", "0"], ["0", "1"]]},
                    {"attention_rank": 2}, {"attention_rank_at_most": 2},
                    {"attention_boolean": True}):
        record = {"claims": [{"id": "c", "statement": "s", "reading": reading}]}
        judge_claims(record, [{"id": "c", "verdict": "undecided"}], {})
        for verdict in ("holds", "fails"):
            with pytest.raises(CheckFailure) as exc:
                judge_claims(record, [{"id": "c", "verdict": verdict}], {})
            assert str(exc.value) == (f"audit.claims[c].verdict: Expected 'undecided'. "
                                      f"Got '{verdict}'.")


def test_duplicate_claim_ids_are_refused_word_for_word():
    from certified.checker.audits import judge_claims

    one = {"id": "a", "statement": "s", "reading": {"clusters": 1}}
    with pytest.raises(CheckFailure) as exc:
        judge_claims({"claims": [one, dict(one)]}, [{"id": "a", "verdict": "undecided"}], {})
    assert str(exc.value) == ("audit.record.claims: Expected claims with distinct ids. "
                              "Got ['a', 'a'].")
    with pytest.raises(CheckFailure) as exc:
        judge_claims({"claims": [one]}, [{"id": "a", "verdict": "undecided"}] * 2, {})
    assert str(exc.value) == "audit.claims: Expected one verdict per claim id. Got ['a', 'a']."


@pytest.mark.parametrize("reading, facts, expected", [
    # the theorem's conclusion: holds when certified, fails when refuted, else undecided
    ({"theorem_conclusion": "2.1"}, {"conclusion": ("2.1", "certified")}, "holds"),
    ({"theorem_conclusion": "2.1"}, {"conclusion": ("2.1", "refuted")}, "fails"),
    ({"theorem_conclusion": "2.1"}, {"conclusion": ("2.1", "undecided")}, "undecided"),
    ({"theorem_conclusion": "3.1"}, {"conclusion": ("2.1", "certified")}, "undecided"),
    ({"theorem_conclusion": "2.1"}, {}, "undecided"),
    # Boolean P* read from P* itself when no lemma states it
    ({"attention_boolean": True}, {"P_star": [[F(1), F(0)], [F(0), F(1)]]}, "holds"),
    ({"attention_boolean": False}, {"P_star": [[F(1), F(0)], [F(0), F(1)]]}, "fails"),
    ({"attention_boolean": True}, {"P_star": [[F(1, 2)] * 2] * 2}, "fails"),
    ({"attention_boolean": True}, {"P_star": [[F(1), F(0)], [F(1), F(0)]]}, "holds"),
    ({"attention_boolean": True}, {"boolean": False, "P_star": [[F(1)]]}, "fails"),
    ({"theorem_5_2_conclusion": True}, {"thm_5_2": True}, "holds"),
    ({"theorem_5_2_conclusion": False}, {"thm_5_2": True}, "fails"),
    ({"theorem_5_2_conclusion": True}, {}, "undecided"),
    # ranks at their edges
    ({"attention_rank_at_most": 2}, {"P_star": [[F(1), F(0)], [F(0), F(1)]]}, "holds"),
    ({"attention_rank_at_most": 1}, {"P_star": [[F(1), F(0)], [F(0), F(1)]]}, "fails"),
    ({"attention_rank": 2}, {"P_star": [[F(1), F(0)], [F(0), F(1)]]}, "holds"),
    ({"attention_rank": 1}, {"P_star": [[F(1), F(0)], [F(0), F(1)]]}, "fails"),
    ({"attention_limit": [["1", "0"], ["0", "1"]]}, {"P_star": [[F(1), F(0)], [F(0), F(1)]]},
     "holds"),
    ({"attention_limit": [["1", "0"], ["1", "0"]]}, {"P_star": [[F(1), F(0)], [F(0), F(1)]]},
     "fails"),
    ({"clusters": 2}, {"clusters": 2}, "holds"),
    ({"clusters": 3}, {"clusters": 2}, "fails")])
def test_each_reading_is_judged_from_the_proved_facts(reading, facts, expected):
    """The verdict each reading implies is the only "holds"/"fails" accepted (mutation
    finding: the theorem-conclusion branch and the Boolean test on P* had no test)."""
    from certified.checker.audits import judge_claims

    record = {"claims": [{"id": "c", "statement": "s", "reading": reading}]}
    judge_claims(record, [{"id": "c", "verdict": expected}], facts)
    judge_claims(record, [{"id": "c", "verdict": "undecided"}], facts)  # never wrong
    for wrong in {"holds", "fails"} - {expected}:
        with pytest.raises(CheckFailure) as exc:
            judge_claims(record, [{"id": "c", "verdict": wrong}], facts)
        assert str(exc.value) == (f"audit.claims[c].verdict: Expected {expected!r}. "
                                  f"Got {wrong!r}.")


def test_mutation_survivors_of_the_readers_and_the_ladder():
    from certified.checker.discrete import retry_ladder
    from certified.checker.limits import own_bits
    from certified.checker.reading import float_text_is, loads_exact

    b = 2 * own_bits(30) + 64
    assert retry_ladder(10 * b, 30) == [10 * b, 16 * b, 64 * b]  # 4^k, not 4k
    # a stored float is compared by its text; anything else is never equal to a float
    assert float_text_is(loads_exact("2.5"), 2.5)
    assert not float_text_is(loads_exact("2.50000000000000001"), 2.5)
    assert not float_text_is("2.5", 2.5) and not float_text_is(True, 1.0)
    assert not float_text_is(None, 0.0) and not float_text_is([2.5], 2.5)
    with pytest.raises(Malformed) as exc:
        loads_exact('{"a_float": NaN}')
    assert str(exc.value) == "the JSON value NaN is not a number of the format"


def test_judge_claims_refusals_word_for_word():
    from certified.checker.audits import judge_claims

    def judged(reading):
        record = {"claims": [{"id": "k", "statement": "s", "reading": reading}]}
        with pytest.raises(CheckFailure) as exc:
            judge_claims(record, [{"id": "k", "verdict": "holds"}], {"thm_5_2": True})
        return str(exc.value)

    assert judged({"nope": 1}) == ("audit.record.claims[k].reading: Expected a known "
                                   "reading. Got nope.")
    assert judged({"theorem_5_2_conclusion": "yes"}) == (
        "audit.record.claims[k].reading: Expected true or false. Got 'yes'.")
