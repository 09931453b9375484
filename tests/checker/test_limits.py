"""The checker's resource limits (checker/limits.py) at their edges, word for word: the
bounds are derived from the stated digits before any work, and each refusal names the
field, the accepted range and why."""

from __future__ import annotations

import pytest

from certified.checker import CheckFailure
from certified.checker.limits import (MAX_DIGITS, MAX_ORDER, MAX_PIECES, bits_cap,
                                      check_limits, own_bits)


def test_own_bits_and_the_cap_at_known_digits():
    # ⌈D·log₂10⌉ + 16, computed by hand: 8·3.3219… = 26.6 → 27; 30 → 99.66 → 100
    assert [own_bits(d) for d in (1, 8, 30, 10_000)] == [20, 43, 116, 33_236]
    assert bits_cap(8) == 8 * (43 + 128) == 1368
    assert bits_cap(30) == 8 * (116 + 128) == 1952
    assert (MAX_DIGITS, MAX_ORDER, MAX_PIECES) == (10_000, 256, 1024)


def _cert(digits=8, bits=100, order=20, pieces=8, prec_bits=None) -> dict:
    prec = {"digits": digits} if digits is not None else {}
    if prec_bits is not None:
        prec["bits"] = prec_bits
    return {"precision": prec,
            "integration": {"bits": bits, "order": order,
                            "replay": {"records": [{"order": order, "pieces": pieces}, "x"]}}}


def _message(cert: dict) -> str:
    with pytest.raises(CheckFailure) as exc:
        check_limits(cert)
    return str(exc.value)


def test_every_value_at_its_edge_is_accepted():
    check_limits(_cert(bits=bits_cap(8), order=MAX_ORDER, pieces=MAX_PIECES))
    check_limits(_cert(digits=1, bits=2, order=1, pieces=1, prec_bits=2))
    check_limits(_cert(digits=MAX_DIGITS, bits=bits_cap(MAX_DIGITS)))
    check_limits({"precision": {"bits": bits_cap(MAX_DIGITS)}, "integration": None})
    check_limits({"precision": {"bits": 115}})  # an audit solved exactly: bits only


@pytest.mark.parametrize("cert,message", [
    (_cert(bits=1369), "integration.bits: Expected an integer in [2, 1368] (at most 8x the "
                       "producer's starting bits for 8 digits). Got 1369."),
    (_cert(bits=1), "integration.bits: Expected an integer in [2, 1368] (at most 8x the "
                    "producer's starting bits for 8 digits). Got 1."),
    (_cert(bits=100.0), "integration.bits: Expected an integer in [2, 1368] (at most 8x the "
                        "producer's starting bits for 8 digits). Got 100.0."),
    (_cert(bits=True), "integration.bits: Expected an integer in [2, 1368] (at most 8x the "
                       "producer's starting bits for 8 digits). Got True."),
    (_cert(prec_bits=1369), "precision.bits: Expected an integer in [2, 1368] (at most 8x "
                            "the producer's starting bits for 8 digits). Got 1369."),
    (_cert(order=257), "integration.order: Expected an integer in [1, 256] (the largest "
                       "Taylor order). Got 257."),
    (_cert(order=0), "integration.order: Expected an integer in [1, 256] (the largest "
                     "Taylor order). Got 0."),
    (_cert(pieces=1025), "integration.replay.records[0].pieces: Expected an integer in "
                         "[1, 1024] (the most pieces of a circle). Got 1025."),
    (_cert(pieces=0), "integration.replay.records[0].pieces: Expected an integer in "
                      "[1, 1024] (the most pieces of a circle). Got 0."),
    (_cert(digits=10_001), "precision.digits: Expected an integer in [1, 10000] (the "
                           "producer's range). Got 10001."),
    (_cert(digits=0), "precision.digits: Expected an integer in [1, 10000] (the producer's "
                      "range). Got 0."),
    (_cert(digits=None, prec_bits=100), "precision.digits: Expected an integer in [1, "
                                        "10000] (the precision the integration was run "
                                        "at). Got missing."),
    ({"precision": {}}, "precision: Expected digits (and/or bits: an audit's exact lemmas). "
                        "Got {}."),
    ({"precision": None}, "precision: Expected digits (and/or bits: an audit's exact "
                          "lemmas). Got None."),
    ({"precision": {"bits": bits_cap(MAX_DIGITS) + 1}},
     f"precision.bits: Expected an integer in [2, {bits_cap(MAX_DIGITS)}] (at most 8x the "
     f"producer's starting bits for 10000 digits). Got {bits_cap(MAX_DIGITS) + 1}."),
])
def test_each_refusal_word_for_word(cert, message):
    assert _message(cert) == message


def test_a_record_without_pieces_or_a_non_object_is_left_to_the_schema():
    cert = _cert()
    cert["integration"]["replay"]["records"] = [{"order": 3}, 7, None]
    check_limits(cert)
    cert["integration"]["replay"] = {"records": "not a list"}
    check_limits(cert)
    cert["integration"]["replay"] = None
    check_limits(cert)
    cert["integration"]["replay"] = {"records": [7, {"pieces": MAX_PIECES + 1}]}
    assert _message(cert).startswith("integration.replay.records[1].pieces: ")  # read on
