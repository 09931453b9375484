"""Fast claim checks (no step replay): the suite the mutation run uses
(benchmarks/mutation_checker.py). Every fixture's claims pass; every tamper case on a claim
field (tail_lemma, limit, evidence, timescale, hypotheses, verdict, theorem, audit) whose
edit is rejected before the replay is rejected naming the field. Each test takes
milliseconds to a second, so a mutant is killed or survives within minutes."""

from __future__ import annotations

import gzip
import json
import os
import sys
from pathlib import Path

import pytest

from certified.checker import _check_claims_only

from . import tamper
from .producer import load, names

CLAIMS = ("tail_lemma", "limit", "evidence", "timescale", "hypotheses_hold", "verdict",
          "theorem", "audit")
EVERY = os.environ.get("CERTIFIED_TAMPER_ALL") == "1"
#: the S1/S2 audits re-run their quadrature (3 s) on every check: by default only their
#: tail_lemma fields (the limit, audit and hypotheses fields with CERTIFIED_TAMPER_ALL=1)
_QUADRATURE = ("audit_remark_7_9_eps_1_10", "audit_theorem_2_1_middle_token")
_CERTS = {n: load(n) for n in names()}
CASES = [(n, p) for n, p in tamper.cases(_CERTS, every=EVERY)
         if p[0] in CLAIMS and (EVERY or n not in _QUADRATURE or p[0] == "tail_lemma")]
IDS = [f"{n}:{tamper.pattern(p)}:{p}" for n, p in CASES]
#: the cases whose leaf is a number or an interval, for the malformed edits
#: (not on the certificates whose check re-runs a quadrature, 3 s an edit: Lemmas S1, S2;
#: an audit's theorem_conclusion reading is a theorem's label such as "2.1", not a number:
#: another label reads as a claim about no conclusion the audit settles, "undecided")
MALFORMED = [(n, p) for n, p in CASES if tamper.malformed_edits(tamper.get(_CERTS[n], p))
             and p[-1] != "theorem_conclusion" and n not in _QUADRATURE
             and not n.startswith("s2_")]
MALFORMED_IDS = [f"malformed:{n}:{tamper.pattern(p)}:{p}" for n, p in MALFORMED]
OBJECTS = tamper.objects(_CERTS, CLAIMS)
OBJECTS = [(n, p) for n, p in OBJECTS if n not in _QUADRATURE or p[:1] == ("tail_lemma",)]
OBJECT_IDS = [f"structure:{n}:{tamper.pattern(p)}:{p}" for n, p in OBJECTS]
#: every edit's full outcome (the checker's "At FIELD: Expected … Got …" line, or VALID),
#: as the checker printed it when the file was written: the lines are the checker's output
#: to its users, so a change in any of them is a change to review (and the mutation run's
#: mutants of a failure's text are killed). Rewrite after a reviewed change with
#: ``python -m tests.checker.test_claims_fast --update``.
MESSAGES = Path(__file__).resolve().parent / "data" / "claim_messages.json.gz"


def _messages() -> dict[str, list[str]]:
    return json.loads(gzip.decompress(MESSAGES.read_bytes())) if MESSAGES.exists() else {}


@pytest.fixture(scope="module")
def messages() -> dict[str, list[str]]:
    return _messages()


@pytest.mark.parametrize("name", names())
def test_fixture_claims_pass(certs, name):
    msg = _check_claims_only(certs[name])
    assert msg.startswith("claims checked") or msg.startswith("valid"), msg


def _outcome(cert: dict, path: tuple, new) -> str:
    with tamper.edited(cert, path, new) as c:
        return tamper.claims_outcome(c)


def _outcomes(cert: dict, path: tuple) -> list[str]:
    return [_outcome(cert, path, new) for new in tamper.edits_at(path, tamper.get(cert, path))]


def _malformed_outcomes(cert: dict, path: tuple) -> list[str]:
    return [_outcome(cert, path, new) for new in tamper.malformed_edits(tamper.get(cert, path))]


def _structural_outcomes(cert: dict, path: tuple) -> list[str]:
    value = tamper.get(cert, path)
    return [_outcome(cert, path, new) if path else "top level: not edited"
            for new in tamper.structural_edits(value)]


@pytest.mark.parametrize("name,path", OBJECTS, ids=OBJECT_IDS)
def test_structure_edit_rejected(certs, messages, name, path):
    """An unknown key in any claim object, or the object replaced by a string, is
    rejected (malformed, or a failure naming the object); the outcomes are the stored ones."""
    outs = _structural_outcomes(certs[name], path)
    key = f"structure:{name}:{tamper.pattern(path)}:{path}"
    assert outs == messages.get(key), f"{key}: stored {messages.get(key)}, now {outs}"
    unknown, string = outs[0], outs[1]
    for out in (unknown, string):
        assert not out.startswith("VALID"), (path, outs)
        assert out.startswith("malformed") or "Expected" in out, (path, outs)


@pytest.mark.parametrize("name,path", MALFORMED, ids=MALFORMED_IDS)
def test_malformed_claim_rejected_naming_it(certs, messages, name, path):
    """A number that is not one, or an interval with swapped ends, is never read as a
    claim: rejected (malformed, or a failure naming the field), never a crash; the
    outcomes are the stored ones word for word, so the field each reader names is fixed."""
    outs = _malformed_outcomes(certs[name], path)
    key = f"malformed:{name}:{tamper.pattern(path)}:{path}"
    assert outs == messages.get(key), f"{key}: stored {messages.get(key)}, now {outs}"
    field = tamper.must_name(path).lower()
    for out in outs:
        assert out.startswith("malformed") or ("Expected" in out and field in out.lower()), \
            (path, outs)


@pytest.mark.parametrize("name,path", CASES, ids=IDS)
def test_claim_edit_rejected_or_left_to_the_replay(certs, messages, name, path):
    """Each edit is rejected naming the field, or accepted (a weaker claim, or a box the
    replay at T must catch: test_tamper.py covers those with the replay); and the
    outcomes are the stored ones, word for word (MESSAGES)."""
    cert = certs[name]
    field = tamper.must_name(path).lower()
    outs = _outcomes(cert, path)
    key = f"{name}:{tamper.pattern(path)}:{path}"
    if key in messages or not EVERY:  # the stored file has the default cases
        assert outs == messages.get(key), f"{key}: stored {messages.get(key)}, now {outs}"
    for k, out in enumerate(outs):
        # edits 0, 1 move the whole interval: the field itself is named. Edits 2, 3 move
        # one end in by 10⁻⁶ of the width (tamper.edits): a field another claim must equal
        # (an S2 limit and its cluster centre) may be named instead, or none (a loose claim)
        named = field in out.lower() or (k >= 2 and out.startswith(("limit.", "tail_lemma.")))
        assert out.startswith("VALID") or ("Expected" in out and named) \
            or out.startswith("malformed"), (path, outs)
    boxes = any(k in p for p in path if isinstance(p, str)
                for k in ("boxes_at_T", "differences_at_T", "G_boxes_at_T"))
    at_T = boxes or path[:2] == ("tail_lemma", "q_at_T_upper") or (  # compared at T, or
        path[0] == "audit" and cert.get("integration") is not None)  # judged after the replay
    witness = tamper.pattern(path) in tamper.WITNESSES
    if not at_T and not witness and "delta0_at_T_used" not in path and not (
            path[0] == "limit" and "exposing_functional" in path):
        assert any(not o.startswith("VALID") for o in outs), (path, outs)


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"] or EVERY:
        sys.exit("usage: python -m tests.checker.test_claims_fast --update "
                 "(without CERTIFIED_TAMPER_ALL)")
    certs = {n: load(n) for n in names()}
    table = {key: _outcomes(certs[n], p) for key, (n, p) in zip(IDS, CASES)}
    table |= {key: _structural_outcomes(certs[n], p) for key, (n, p) in zip(OBJECT_IDS, OBJECTS)}
    table |= {key: _malformed_outcomes(certs[n], p) for key, (n, p) in zip(MALFORMED_IDS, MALFORMED)}
    MESSAGES.write_bytes(gzip.compress(json.dumps(table, sort_keys=True, indent=0).encode(),
                                       mtime=0))
    print(f"{len(table)} cases written to {MESSAGES}")
