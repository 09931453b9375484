"""Generated tamper cases for numeric types and array lengths, on every fixture
certificate (claims only, no replay): every integer of a claim written as a float
(``3.0``) or, for 0 and 1, as a boolean, and every array of a claim with its last element
repeated, must be rejected (digest recomputed). The first leaf of each field pattern per
lemma and verdict is tampered, as in :mod:`tests.checker.tamper`.

(The audit claims' own arrays are judged after the replay: their duplicates are tested on
the full check in test_accepted_edits.py.)"""

from __future__ import annotations

import copy
import os
from typing import Any, Iterator

import pytest

from certified.checker import CheckFailure, Malformed, _check_claims_only, digest

from . import tamper
from .producer import load, names

#: the claims and the integration's counts (the replay's records have their own tests)
SECTIONS = ("limit", "evidence", "tail_lemma", "timescale", "integration", "precision",
            "hypotheses_hold", "verdict", "theorem")
#: certificates whose claims re-run a quadrature (3 s an edit): Lemma S2 and the S1/S2
#: audits, edited only with CERTIFIED_TAMPER_ALL=1 (S1's verify fixtures are cheap)
QUADRATURE = ("s2_31", "s2_85_ref", "audit_remark_7_9_eps_1_10",
              "audit_theorem_2_1_middle_token")
NAMES = [n for n in names() if n not in QUADRATURE or
         os.environ.get("CERTIFIED_TAMPER_ALL") == "1"]


def _lists(obj: Any, path: tuple = ()) -> Iterator[tuple]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _lists(v, path + (k,))
    elif isinstance(obj, list):
        yield path
        if obj:
            yield from _lists(obj[0], path + (0,))


def _edits(cert: dict) -> list[tuple[tuple, Any]]:
    out, seen = [], set()
    kind = tamper._kind(cert)
    for p in tamper.leaves(cert):
        v = tamper.get(cert, p)
        if p[0] not in SECTIONS or tamper.is_informational(p) or type(v) is not int:
            continue
        if (kind, tamper.pattern(p)) in seen:
            continue
        seen.add((kind, tamper.pattern(p)))
        out.append((p, float(v)))
        if v in (0, 1):
            out.append((p, bool(v)))
    for p in _lists(cert):
        if not p or p[0] not in SECTIONS or tamper.is_informational(p) or \
                p[:2] in (("integration", "steps"), ("integration", "replay")):
            continue
        v = tamper.get(cert, p)
        if v and ("list", kind, tamper.pattern(p)) not in seen:
            seen.add(("list", kind, tamper.pattern(p)))
            out.append((p, v + [copy.deepcopy(v[-1])]))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_inexact_types_and_extra_elements_are_rejected(name):
    cert = load(name)
    edits = _edits(cert)
    accepted = []
    for path, new in edits:
        c = copy.deepcopy(cert)
        tamper._set(c, path, new)
        c["digest"] = digest(c)
        try:
            _check_claims_only(c)
        except (CheckFailure, Malformed):
            continue
        accepted.append((path, new if not isinstance(new, list) else "one more element"))
    assert accepted == []
    # every fixture but the undecided layers and Lemma S3 (no integers in its claims) has some
    assert edits or name.startswith("s3_") or name == "t10_und"
