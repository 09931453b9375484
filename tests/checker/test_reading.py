"""Reading a certificate before any mathematics (``checker/reading.py``), each rule at its
edges and each refusal word for word: the schema's rules for the bulk (steps and replay
records, written out because jsonschema takes seconds on them), the size of exponents,
exact numbers, the JSON types, the nesting and the matrices. Written from a whole-module
mutation run, in which these rules were reached only through whole certificates."""

from __future__ import annotations

import hashlib
import json
import sys
from fractions import Fraction as F

import pytest

from certified.checker.errors import CheckFailure, Malformed
from certified.checker.limits import MAX_ORDER
from certified.checker.reading import (MAX_DEPTH, MAX_EXPONENT, MAX_FILE_BYTES,
                                       MAX_STR_DIGITS, JsonFloat, _bulk_check,
                                       _long_numbers, _matrix, _number_sizes_check, _scalar,
                                       _schema_check, _split_bulk, _strings, _too_large,
                                       digest, exact_number, float_text_is, loads_exact,
                                       types_check)


def _defect(**edits) -> dict:
    rec = {"method": "defect", "order": 22, "rho": "1/4", "pieces": 8, "R": "1/1024",
           "guard_bits": 48, "set": {"c": ["0", "1"], "A": [["1", "0"], ["0", "1"]],
                                     "r": [["0", "1/8"], ["0", "1/8"]]}}
    rec.update(edits)
    return rec


def _taylor(**edits) -> dict:
    rec = {"order": 12, "rho": "1/8", "velocity": ["1", "-1"],
           "apriori": [["-1", "1", "-2", "2"]],
           "set": {"c": ["0", "1"], "A": [["1", "0"], ["0", "1"]], "r": [["0", "1/8"]]}}
    rec.update(edits)
    return rec


def _bulk_message(steps: list, records: list) -> str:
    with pytest.raises(Malformed) as exc:
        _bulk_check(steps, records)
    return str(exc.value)


AT = "integration/replay/records/0"


def test_honest_bulk_is_accepted():
    _bulk_check([["0", "1/2"], ["1/2", "1/2"]], [_defect(), _taylor()])
    _bulk_check([], [])
    rec = _taylor()
    del rec["velocity"]  # optional
    _bulk_check([], [rec])
    _bulk_check([], [_defect(pieces=1, guard_bits=0), _defect(pieces=4096, guard_bits=4096)])
    _bulk_check([], [_taylor(order=1), _taylor(order=MAX_ORDER)])


@pytest.mark.parametrize("steps, message", [
    ([["0"]], "schema: at integration/steps/0: expected an array of 2 strings"),
    ([["0", "1", "2"]], "schema: at integration/steps/0: expected an array of 2 strings"),
    ([["0", 1]], "schema: at integration/steps/0: expected an array of 2 strings"),
    ([["0", "1"], "0 1"], "schema: at integration/steps/1: expected an array of 2 strings")])
def test_a_step_is_two_strings(steps, message):
    assert _bulk_message(steps, []) == message


@pytest.mark.parametrize("edits, message", [
    ({"pieces": 0}, f"schema: at {AT}/pieces: 0 is less than the minimum of 1"),
    ({"pieces": 4097}, f"schema: at {AT}/pieces: 4097 is greater than the maximum of 4096"),
    ({"pieces": True}, f"schema: at {AT}/pieces: True is not of type 'integer'"),
    ({"pieces": "8"}, f"schema: at {AT}/pieces: '8' is not of type 'integer'"),
    ({"guard_bits": -1}, f"schema: at {AT}/guard_bits: -1 is less than the minimum of 0"),
    ({"guard_bits": 4097},
     f"schema: at {AT}/guard_bits: 4097 is greater than the maximum of 4096"),
    ({"guard_bits": 48.0}, f"schema: at {AT}/guard_bits: 48.0 is not of type 'integer'"),
    ({"R": 0}, f"schema: at {AT}/R: expected a string"),
    ({"order": 0}, f"schema: at {AT}/order: 0 is less than the minimum of 1"),
    ({"order": MAX_ORDER + 1},
     f"schema: at {AT}/order: {MAX_ORDER + 1} is greater than the maximum of {MAX_ORDER}"),
    ({"rho": 0.25}, f"schema: at {AT}/rho: expected a string")])
def test_a_defect_records_fields_at_their_edges(edits, message):
    assert _bulk_message([], [_defect(**edits)]) == message


@pytest.mark.parametrize("rec", [
    _defect(method="taylor"), _defect(extra=1),
    {k: v for k, v in _defect().items() if k != "guard_bits"}])
def test_a_defect_record_has_exactly_its_fields(rec):
    assert _bulk_message([], [rec]) == (
        f"schema: at {AT}: expected a defect step's fields method ('defect'), order, rho, "
        "pieces, R, guard_bits, set, no others")


@pytest.mark.parametrize("rec", [
    "a record", [], {k: v for k, v in _taylor().items() if k != "apriori"},
    {k: v for k, v in _taylor().items() if k != "rho"}, _taylor(pieces=8)])
def test_a_taylor_record_has_its_fields(rec):
    assert _bulk_message([], [rec]) == (
        f"schema: at {AT}: expected the fields order, rho, apriori, set (and velocity), no "
        "others")


@pytest.mark.parametrize("edits, message", [
    ({"order": True}, f"schema: at {AT}/order: True is not of type 'integer'"),
    ({"order": 3.0}, f"schema: at {AT}/order: 3.0 is not of type 'integer'"),
    ({"order": -5}, f"schema: at {AT}/order: -5 is less than the minimum of 1"),
    ({"rho": None}, f"schema: at {AT}/rho: expected a string"),
    ({"velocity": ["1", 2]},
     f"schema: at {AT}/velocity: expected an array of any number of strings"),
    ({"velocity": "1"}, f"schema: at {AT}/velocity: expected an array of any number of strings"),
    ({"apriori": "[]"}, f"schema: at {AT}/apriori: expected an array"),
    ({"apriori": [["-1", "1", "-2"]]},
     f"schema: at {AT}/apriori/0: expected an array of 4 strings"),
    ({"apriori": [["-1", "1", "-2", "2"], ["-1", "1", "-2", "2", "3"]]},
     f"schema: at {AT}/apriori/1: expected an array of 4 strings"),
    ({"set": []}, f"schema: at {AT}/set: expected exactly the fields c, A, r"),
    ({"set": {"c": [], "A": []}}, f"schema: at {AT}/set: expected exactly the fields c, A, r"),
    ({"set": {"c": [], "A": [], "r": [], "x": []}},
     f"schema: at {AT}/set: expected exactly the fields c, A, r"),
    ({"set": {"c": [0], "A": [], "r": []}},
     f"schema: at {AT}/set/c: expected an array of any number of strings"),
    ({"set": {"c": [], "A": {}, "r": []}}, f"schema: at {AT}/set: expected arrays A and r"),
    ({"set": {"c": [], "A": [], "r": "0"}}, f"schema: at {AT}/set: expected arrays A and r"),
    ({"set": {"c": [], "A": [["1"], ["0", 1]], "r": []}},
     f"schema: at {AT}/set/A/1: expected an array of any number of strings"),
    ({"set": {"c": [], "A": [], "r": [["0", "1"], ["0"]]}},
     f"schema: at {AT}/set/r/1: expected an array of 2 strings")])
def test_a_taylor_records_fields_word_for_word(edits, message):
    assert _bulk_message([], [_taylor(**edits)]) == message


def test_the_second_record_is_named():
    assert _bulk_message([], [_taylor(), _taylor(rho=1)]) == (
        "schema: at integration/replay/records/1/rho: expected a string")


def test_split_bulk_takes_out_steps_and_records_only_when_both_are_lists():
    steps, recs = [["0", "1"]], [_defect()]
    obj = {"a": 1, "integration": {"steps": steps, "bits": 64,
                                   "replay": {"t_end": "1", "records": recs}}}
    shallow, bulk = _split_bulk(obj)
    assert bulk == (steps, recs)
    assert shallow == {"a": 1, "integration": {"steps": [], "bits": 64,
                                               "replay": {"t_end": "1", "records": []}}}
    assert obj["integration"]["steps"] is steps  # the certificate is not changed
    for integ in (None, {"steps": steps, "replay": None},
                  {"steps": "x", "replay": {"records": recs}},
                  {"steps": steps, "replay": {"records": {}}}):
        o = {"integration": integ}
        assert _split_bulk(o) == (o, ([], []))


def test_strings_of_any_length_or_an_exact_one():
    _strings([], "w")
    _strings(["a", "b"], "w", 2)
    for x, length, want in [(["a"], 2, "2"), (("a", "b"), 2, "2"), (["a", None], None,
                                                                    "any number of")]:
        with pytest.raises(Malformed) as exc:
            _strings(x, "w", length)
        assert str(exc.value) == f"schema: at w: expected an array of {want} strings"


def test_schema_check_reads_format_and_version_first():
    for obj, message in [
            ([], 'not a certificate: \'format\' must be "certified/certificate"'),
            ({"format": "certified/instance"},
             'not a certificate: \'format\' must be "certified/certificate"'),
            ({"format": "certified/certificate", "version": 2},
             "certificate version 2 is not supported (1)"),
            ({"format": "certified/certificate"},
             "certificate version None is not supported (1)")]:
        with pytest.raises(Malformed) as exc:
            _schema_check(obj)
        assert str(exc.value) == message


def test_schema_check_names_the_path_of_a_schema_error(certs):
    obj = json.loads(json.dumps(certs["t10_31"]))
    _schema_check(obj)
    obj["verdict"] = "proved"
    with pytest.raises(Malformed) as exc:
        _schema_check(obj)
    assert str(exc.value).startswith("schema: at verdict: 'proved' is not one of ")
    for edit, message in [
            (lambda o: o.update(zz_top=1), "schema: at (top level): Additional properties "
             "are not allowed ('zz_top' was unexpected)"),
            (lambda o: o["limit"]["clusters"][0].update(zz=1), "schema: at limit/clusters/0: "
             "Additional properties are not allowed ('zz' was unexpected)")]:
        o = json.loads(json.dumps(certs["t10_31"]))
        edit(o)
        with pytest.raises(Malformed) as exc:
            _schema_check(o)
        assert str(exc.value) == message
    obj = json.loads(json.dumps(certs["t4_21"]))
    _schema_check(obj)
    obj["integration"]["replay"]["records"][1]["pieces"] = 0  # the bulk, after the rest
    with pytest.raises(Malformed) as exc:
        _schema_check(obj)
    assert str(exc.value) == ("schema: at integration/replay/records/1/pieces: 0 is less "
                              "than the minimum of 1")


# -- exponents -----------------------------------------------------------------------------

@pytest.mark.parametrize("x, large", [
    ("1e100000", False), ("1e100001", True), ("1E-100001", True), ("1e+100001", True),
    ("-2.5e1_000_000", True), ("1e0999999", True),  # 7 digits: never parsed
    (".5e100001", True), ("1e99999", False), ("abc", False), ("3/4", False),
    ("deadbeefe1000001", False),  # a name or digest, not a number
    (" 1e100001 ", True), ("1e100000x", False), ("e100001", False),
    ("1e+100000", False), ("1e-100000", False),  # the sign is not a digit
    ("1e1_0_0_0", False), ("1e1_0_0_0_0_0_1", True),  # nor an underscore
    ("1e0000001", True)])  # seven digits are refused unread, even with leading zeros
def test_too_large_reads_the_exponent_of_a_decimal(x, large):
    assert _too_large(x) is large


def test_number_sizes_check_names_the_path():
    _number_sizes_check({"a": ["1e100000", "xe1000000"], "b": "1e99999"})
    _number_sizes_check({"a": 1e300, "b": [3, None]})
    for obj, at in [({"a": {"b": ["0", "1e100001"]}}, "a.b[1]"), (["1e100001"], "[0]"),
                    ("1E-1_000_000", "(top level)")]:
        with pytest.raises(Malformed) as exc:
            _number_sizes_check(obj)
        bad = "1e100001" if at != "(top level)" else "1E-1_000_000"
        assert str(exc.value) == (f"{at}: the number {bad!r} has a decimal exponent beyond "
                                  f"±{MAX_EXPONENT}")
    with pytest.raises(Malformed) as exc:
        _number_sizes_check({"a": "1e100001"}, where="cert")
    assert str(exc.value).startswith("cert.a: the number ")


def test_a_long_number_is_named_by_its_first_40_characters():
    long = "1" * 50 + "e100001"
    with pytest.raises(Malformed) as exc:
        _number_sizes_check({"a": long})
    assert str(exc.value) == (f"a: the number {long[:40]!r} has a decimal exponent beyond "
                              f"±{MAX_EXPONENT}")


def test_an_exponent_in_other_decimal_digits_is_caught_by_the_fast_path_too():
    """Fraction() reads any Unicode decimal digits: "1e١٠٠٠٠٠٠" (Arabic-Indic) is
    10^(10^6). The fast path scans the JSON text with non-ASCII kept (an escaped \\u0660
    would hide the run of six digits), so it is refused like its ASCII form."""
    big = "1e" + "\u0661" + "\u0660" * 6
    assert F("1e" + "\u0663") == 1000  # the reading the limit protects against
    with pytest.raises(Malformed) as exc:
        _number_sizes_check({"a": ["0", big]})
    assert str(exc.value) == (f"a[1]: the number {big!r} has a decimal exponent beyond "
                              f"±{MAX_EXPONENT}")
    _number_sizes_check({"a": "1e" + "\u0661" + "\u0660" * 4})  # 10^100000: accepted


# -- exact numbers and types ---------------------------------------------------------------

def test_exact_number_reads_text_integers_and_float_literals():
    assert exact_number("3/4", "w") == F(3, 4)
    assert exact_number(" -1e-3 ", "w") == F(-1, 1000)
    assert exact_number(7, "w") == 7
    assert exact_number(0.1, "w") == F(1, 10)  # a float from another reader: its repr
    lit = loads_exact("[0.99999999999999999999]")[0]
    assert float(lit) == 1.0 and exact_number(lit, "w") == F(99999999999999999999, 10 ** 20)
    for x in (True, None, [1], {"a": 1}, "x", "1/0", "", float("inf"), float("nan"),
              "y" * 100, ["z" * 100]):  # the repr cut at 60 characters
        with pytest.raises(CheckFailure) as exc:
            exact_number(x, "here")
        assert str(exc.value) == f"here: Expected an exact number. Got {repr(x)[:60]}."


def test_types_check_floats_and_booleans_only_where_the_format_has_them():
    types_check({"hypotheses_hold": True, "T_first_float": 0.5, "wall_seconds": 1.5,
                 "limit": {"clusters": [{"is_zero": False, "is_hull_vertex": True}]},
                 "x_float": [0.5, 1.0]})
    cases = [({"attention_rank": 3.0}, "attention_rank", "3.0"),
             ({"limit": {"P": [[1, True]]}}, "limit.P[0][1]", "True"),
             ({"a": [{"b": 0.5}]}, "a[0].b", "0.5"),
             ({"floating": 0.5}, "floating", "0.5"),
             (True, "(top level)", "True"), (0.5, "(top level)", "0.5")]
    for obj, at, got in cases:
        with pytest.raises(CheckFailure) as exc:
            types_check(obj)
        assert exc.value.where == at and str(exc.value).endswith(f"Got {got}.")
    with pytest.raises(CheckFailure) as exc:
        types_check({"x": 1.0})
    assert str(exc.value) == ("x: Expected an integer or an exact number written as a string "
                              "(floats only in *_float fields). Got 1.0.")
    with pytest.raises(CheckFailure) as exc:
        types_check({"x": False})
    assert str(exc.value) == (
        "x: Expected an integer or an exact number (a string): true/false only in "
        "attention_boolean, hypotheses_hold, is_hull_vertex, is_zero, "
        "theorem_5_2_conclusion. Got False.")
    with pytest.raises(CheckFailure) as exc:  # the literal's text, not the float
        types_check(loads_exact('{"x": 0.99999999999999999999}'))
    assert str(exc.value).endswith("Got 0.99999999999999999999.")
    long = "0." + "3" * 80  # cut at 60 characters
    with pytest.raises(CheckFailure) as exc:
        types_check(loads_exact('{"x": %s}' % long))
    assert str(exc.value).endswith(f"Got {long[:60]}.")


def test_float_text_is_compares_the_text_of_a_literal():
    assert float_text_is(loads_exact("[1.5]")[0], 1.5)
    assert not float_text_is(loads_exact("[1.50]")[0], 1.5)
    assert not float_text_is(loads_exact("[1.0000000000000000001]")[0], 1.0)
    assert float_text_is(1.5, 1.5) and not float_text_is(1.25, 1.5)
    for stored in (True, "1.5", None, [1.5]):
        assert not float_text_is(stored, 1.5)
    assert not float_text_is(1, 1.0)  # an integer is not a float literal


# -- parsing -------------------------------------------------------------------------------

def test_loads_exact_refuses_what_two_readers_could_read_differently():
    assert loads_exact(b'{"a": [1, "2"], "b": {"c": null}}') == {"a": [1, "2"],
                                                                "b": {"c": None}}
    lit = loads_exact('{"x": 2.50}')["x"]
    assert isinstance(lit, JsonFloat) and lit.text == "2.50" and lit == 2.5
    for text, message in [
            ('{"v": "refuted", "v": "certified"}', "duplicate key 'v' in one JSON object"),
            ('{"a": {"b": 1, "b": 1}}', "duplicate key 'b' in one JSON object"),
            ('{"a": NaN}', "the JSON value NaN is not a number of the format"),
            ('[-Infinity]', "the JSON value -Infinity is not a number of the format"),
            ('[1e100001]', f"the number '1e100001' has a decimal exponent beyond "
                           f"±{MAX_EXPONENT}")]:
        with pytest.raises(Malformed) as exc:
            loads_exact(text)
        assert str(exc.value) == message


def test_loads_exact_bounds_size_and_depth():
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    loads_exact(ok)
    for text in ("[" * (MAX_DEPTH + 2) + "]" * (MAX_DEPTH + 2),
                 '{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1),
                 "[" * 100_000 + "]" * 100_000):  # beyond the parser's recursion limit
        with pytest.raises(Malformed) as exc:
            loads_exact(text)
        assert str(exc.value) == f"the JSON nesting is deeper than {MAX_DEPTH}"
    big = " " * (MAX_FILE_BYTES + 1)
    with pytest.raises(Malformed) as exc:
        loads_exact(big)
    assert str(exc.value) == (f"the certificate is {MAX_FILE_BYTES + 1} bytes, over the "
                              f"checker's limit of {MAX_FILE_BYTES} bytes")
    loads_exact(" " * (MAX_FILE_BYTES - 2) + "[]")  # exactly at the limit


# -- matrices, digest, long numbers ---------------------------------------------------------

def test_matrix_and_scalar():
    assert _matrix({"V": [["1/2", 0], ["0", "-3"]]}, "V") == [[F(1, 2), 0], [0, -3]]
    for inst, message in [
            ({"V": [["1", "x"]]}, "instance.V: Expected an exact number. Got 'x'."),
            ({}, "instance.V: Expected a matrix of exact numbers. Got something else."),
            ({"V": 3}, "instance.V: Expected a matrix of exact numbers. Got something else."),
            ({"V": [3]}, "instance.V: Expected a matrix of exact numbers. Got something else.")]:
        with pytest.raises(CheckFailure) as exc:
            _matrix(inst, "V")
        assert str(exc.value) == message
    assert _scalar([[F(2), 0], [0, F(2)]]) == 2
    assert _scalar([[F(0), 0], [0, F(0)]]) == 0
    assert _scalar([[F(2)]]) == 2
    for V in ([[F(2), 0], [0, F(3)]], [[F(2), F(1)], [0, F(2)]], [[F(2), 0], [F(1), F(2)]]):
        assert _scalar(V) is None


def test_digest_is_taken_over_the_canonical_text_without_itself():
    obj = {"b": [1, "é"], "a": 0.5, "digest": "x"}
    want = hashlib.sha256(b'{"a":0.5,"b":[1,"\\u00e9"]}').hexdigest()
    assert digest(obj) == want
    assert digest(dict(obj, digest="y")) == want
    assert digest({"a": 0.5, "b": [1, "é"]}) == want


def test_long_numbers_raises_the_limit_and_restores_it():
    old = sys.get_int_max_str_digits()
    with _long_numbers():
        assert sys.get_int_max_str_digits() == max(old, MAX_STR_DIGITS)
        assert len(str(10 ** 300_000)) == 300_001
    assert sys.get_int_max_str_digits() == old
    with pytest.raises(ZeroDivisionError), _long_numbers():
        1 / 0
    assert sys.get_int_max_str_digits() == old
