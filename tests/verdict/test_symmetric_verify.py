"""`verify` uses Lemma S1 (two tokens of equal norm, V = λI, QᵀK = βI): Remark 7.9's
instance, undecided before (Lemma T4 would need t ≈ 50), is decided for every theorem
without integrating, and the checker re-derives each verdict."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from certified import Instance
from certified.checker import check_certificate
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify
from tests.test_checker import failing_field, failing_field_after, redigest

EX = Path(__file__).resolve().parents[2] / "examples"
WANT = {"3.1": "certified", "5.2": "certified", "2.1": "certified", "4.2": "undecided",
        "8.5": "refuted"}


def _certs(inst: Instance, theorems, lemma: str) -> dict:
    """A verify certificate per theorem, each solved exactly by ``lemma`` (nothing
    integrated)."""
    out = {}
    for theorem in theorems:
        v = certify(inst, theorem, digits=20, max_seconds=None)
        assert v.trajectory is None and v.tail.lemma == lemma, theorem
        out[theorem] = json.loads(json.dumps(to_certificate(v)))
    return out


@pytest.fixture(scope="module")
def certs() -> dict:
    return _certs(Instance.load(EX / "remark_7_9.json"), WANT, "S1")


def test_each_theorem_decided_by_lemma_s1_and_rechecked(certs):
    for theorem, want in WANT.items():
        c = certs[theorem]
        assert c["verdict"] == want, (theorem, c["reason"])
        rep = check_certificate(copy.deepcopy(c))
        assert rep.valid and "Lemma S1 re-checked" in rep.message, rep.message
    lim = certs["3.1"]["limit"]
    assert lim["attention_limit"] == [[1, 0], [0, 1]] and len(lim["clusters"]) == 2
    # the limits: (1, ±δ) with δ = e^{−I(u₀)}/10 ≈ 2.566·10⁻²² (Lemma S1; audits.md)
    lo, hi = (float(x) for x in lim["clusters"][0]["center"][1])
    assert 2.5658e-22 < lo <= hi < 2.5659e-22 and hi - lo < 1e-40


@pytest.mark.parametrize("theorem,path,new,where", [
    ("3.1", ("verdict",), "refuted", "verdict"),
    ("3.1", ("limit", "clusters", 0, "center", 1), ["0", "0"], "limit.clusters[0]"),
    ("3.1", ("evidence",), {"entry": [0, 1]}, "evidence"),
    ("8.5", ("evidence", "entry"), [0, 2], "evidence.entry"),
    ("8.5", ("evidence", "entry"), [0, True], "evidence.entry[1]"),  # the type check's
    ("8.5", ("limit",), {"attention_rank": 2}, "limit"),
    ("4.2", ("verdict",), "certified", "verdict"),
])
def test_edited_claims_rejected(certs, theorem, path, new, where):
    assert failing_field_after(certs[theorem], path, new) == where


# -- Lemma S2: the middle token of Theorem 2.1 (d = 1, tokens −a, 0, a) ------------------------

WANT_S2 = {"2.1": "certified", "3.1": "certified", "4.2": "certified", "5.2": "certified",
           "8.5": "refuted"}


@pytest.fixture(scope="module")
def certs_s2() -> dict:
    return _certs(Instance.create(V=[[1]], Q=[[1]], K=[[1]], X0=[[1], [0], [-1]]), WANT_S2,
                  "S2")


def test_middle_token_decided_by_lemma_s2_and_rechecked(certs_s2):
    """Every theorem decided; the limits match the audit record's 30 digits
    (±0.843717658061873702144599624308 and 0, an mpmath.odefun cross-check in
    tests/studies/test_audit.py) and P* is the exact rank-3 matrix."""
    for theorem, want in WANT_S2.items():
        c = certs_s2[theorem]
        assert c["verdict"] == want, (theorem, c["reason"])
        rep = check_certificate(copy.deepcopy(c))
        assert rep.valid and "Lemma S2 re-checked" in rep.message, rep.message
    lim = certs_s2["2.1"]["limit"]
    assert lim["attention_limit"] == [["1", "0", "0"], ["1/3", "1/3", "1/3"], ["0", "0", "1"]]
    assert lim["attention_rank"] == 3
    lo, hi = (float(x) for x in lim["clusters"][0]["center"][0])
    assert 0.8437176580618736 <= hi and lo <= 0.8437176580618738 and hi - lo < 1e-18
    assert certs_s2["8.5"]["evidence"]["entry"] == [0, 1]


@pytest.mark.parametrize("theorem,path,new,where", [
    ("8.5", ("evidence", "entry"), [1, 1], "evidence.entry"),  # P*_11 = 1/3 = 1/n
    ("8.5", ("evidence", "attention_limit", 1, 1), "1", "evidence.attention_limit"),
    ("3.1", ("verdict",), "refuted", "verdict"),
    ("3.1", ("limit", "attention_rank"), 2, "limit.attention_rank"),
    ("2.1", ("timescale",), {"T_first": "0"}, "timescale"),
])
def test_s2_edited_claims_rejected(certs_s2, theorem, path, new, where):
    assert failing_field_after(certs_s2[theorem], path, new) == where


# -- edits an adversarial review found accepted (each must now be rejected) -------------------

def _edited(c: dict, edit) -> str:
    c = copy.deepcopy(c)
    edit(c)
    return failing_field(redigest(c))


@pytest.mark.parametrize("name", ["Theorem 8.5", "8.5 ", "7.9", ""])
def test_s2_theorem_must_be_a_theorem(certs_s2, name):
    def edit(c):
        c["theorem"], c["hypotheses_hold"] = name, None
    assert _edited(certs_s2["3.1"], edit) in ("theorem", "malformed")


@pytest.mark.parametrize("edit,where", [
    (lambda c: c["limit"]["clusters"].pop(), "limit.clusters"),
    (lambda c: c.__setitem__("limit", None), "limit"),
    (lambda c: c["limit"].__setitem__("attention_rank", 3.0), "limit.attention_rank"),
    (lambda c: c["limit"]["clusters"][0].__setitem__("members", [0.0]),
     "limit.clusters[0].members[0]"),  # named by the type check, element by element
    (lambda c: c["limit"].pop("attention_limit"), "limit.attention_limit"),
    (lambda c: c["tail_lemma"].__setitem__("witness_5_2",
                                           {"lambda": "-7", "projector_F": [["5"]]}),
     "tail_lemma.witness_5_2"),
    (lambda c: c["tail_lemma"].__setitem__("T", "0"), "tail_lemma.T"),
    (lambda c: c["tail_lemma"].__setitem__("clusters", 3.5), "tail_lemma.clusters"),
    (lambda c: c["tail_lemma"].__setitem__("clusters", "3"), "tail_lemma.clusters"),
])
def test_s2_limit_and_lemma_are_compared_in_full(certs_s2, edit, where):
    assert _edited(certs_s2["3.1"], edit) == where
