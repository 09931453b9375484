"""Fast claim checks (no step replay): the suite the mutation run uses
(benchmarks/mutation_checker.py). Every fixture's claims pass; every tamper case on a claim
field (tail_lemma, limit, evidence, timescale, hypotheses, verdict, theorem, audit) whose
edit is rejected before the replay is rejected naming the field. Each test takes
milliseconds to a second, so a mutant is killed or survives within minutes."""

from __future__ import annotations

import os

import pytest

from certified.checker import CheckFailure, Malformed, _check_claims_only

from . import tamper
from .producer import load, names

CLAIMS = ("tail_lemma", "limit", "evidence", "timescale", "hypotheses_hold", "verdict",
          "theorem", "audit")
EVERY = os.environ.get("CERTIFIED_TAMPER_ALL") == "1"
#: the S1/S2 audits re-run their quadrature (3 s) on every check: by default only their
#: tail_lemma fields (the limit, audit and hypotheses fields with CERTIFIED_TAMPER_ALL=1)
_QUADRATURE = ("audit_remark_7_9_eps_1_10", "audit_theorem_2_1_middle_token")
CASES = [(n, p) for n, p in tamper.cases({n: load(n) for n in names()}, every=EVERY)
         if p[0] in CLAIMS and (EVERY or n not in _QUADRATURE or p[0] == "tail_lemma")]


@pytest.mark.parametrize("name", names())
def test_fixture_claims_pass(certs, name):
    msg = _check_claims_only(certs[name])
    assert msg.startswith("claims checked") or msg.startswith("valid"), msg


def _outcome(cert: dict, path: tuple, new) -> str:
    with tamper.edited(cert, path, new) as c:
        try:
            return "VALID " + _check_claims_only(c)
        except CheckFailure as exc:
            return str(exc)
        except Malformed as exc:
            return f"malformed: {exc}"


@pytest.mark.parametrize("name,path", CASES,
                         ids=[f"{n}:{tamper.pattern(p)}:{p}" for n, p in CASES])
def test_claim_edit_rejected_or_left_to_the_replay(certs, name, path):
    """Each edit is rejected naming the field, or accepted (a weaker claim, or a box the
    replay at T must catch: test_tamper.py covers those with the replay)."""
    cert = certs[name]
    field = tamper.must_name(path).lower()
    outs = [_outcome(cert, path, new) for new in tamper.edits_at(path, tamper.get(cert, path))]
    for out in outs:
        assert out.startswith("VALID") or ("Expected" in out and field in out.lower()) \
            or out.startswith("malformed"), (path, outs)
    boxes = any(k in p for p in path if isinstance(p, str)
                for k in ("boxes_at_T", "differences_at_T", "G_boxes_at_T"))
    at_T = boxes or path[:2] == ("tail_lemma", "q_at_T_upper") or (  # compared at T, or
        path[0] == "audit" and cert.get("integration") is not None)  # judged after the replay
    witness = tamper.pattern(path) in tamper.WITNESSES
    if not at_T and not witness and "delta0_at_T_used" not in path and not (
            path[0] == "limit" and "exposing_functional" in path):
        assert any(not o.startswith("VALID") for o in outs), (path, outs)
