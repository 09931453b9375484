"""Edits at the edge of each inequality the checker decides, for the edge test modules
(``test_edges_*.py``).

A case is a fixture, an edit of its claims (a function on a copy of the certificate; the
digest is recomputed after it) and what must come out: ``"VALID"`` (a claim exactly at, or
just inside, the bound the lemma needs is accepted) or the field the rejection names (just
outside it). The bounds the edits move to are computed in the test from the lemma's
statement (exact rationals, or mpmath at 60 digits), not read from the checker.

Every outcome is also stored word for word (``data/edge_messages.json.gz``): the line is
what a user reads, so a change is a change to review, and a mutant that only changes a
failure's text is caught (benchmarks/mutation_checker.py runs these modules). Rewrite the
file after a reviewed change with ``python -m tests.checker.edges --update``.
"""

from __future__ import annotations

import copy
import gzip
import importlib
import json
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import pytest

from . import tamper
from .producer import load

MESSAGES = Path(__file__).resolve().parent / "data" / "edge_messages.json.gz"
#: the modules whose CASES the stored file holds
MODULES = ("tests.checker.test_edges_paranormal", "tests.checker.test_edges_projected",
           "tests.checker.test_edges_lemmas", "tests.checker.test_edges_energy",
           "tests.checker.test_edges_verdicts")


@dataclass(frozen=True)
class Case:
    """One edit: ``fixture``'s certificate changed by ``edit`` must come out ``expect``
    (``"VALID"``, or the start of the rejecting line: the field it names)."""

    id: str
    fixture: str
    edit: Callable[[dict], Any]
    expect: str


_CERTS: dict[str, dict] = {}


def cert(name: str) -> dict:
    """The fixture certificate (loaded once; callers copy it)."""
    if name not in _CERTS:
        _CERTS[name] = load(name)
    return _CERTS[name]


def outcome(case: Case) -> str:
    """The checker's line on the edited certificate (:func:`.tamper.claims_outcome`)."""
    c = copy.deepcopy(cert(case.fixture))
    case.edit(c)
    c["digest"] = tamper.digest(c)
    return tamper.claims_outcome(c)


def instance_matrices(name: str) -> tuple[list[list[Fraction]], list[list[Fraction]]]:
    """The fixture's V and B = QᵀK, exact (for the direct calls of the lemma checks)."""
    inst = cert(name)["instance"]
    V, Qm, K = ([[Fraction(str(x)) for x in row] for row in inst[k]] for k in ("V", "Q", "K"))
    d = len(V)
    return V, [[sum((Qm[k][i] * K[k][j] for k in range(d)), Fraction(0)) for j in range(d)]
               for i in range(d)]


def stored() -> dict[str, str]:
    return json.loads(gzip.decompress(MESSAGES.read_bytes())) if MESSAGES.exists() else {}


def parametrized(cases: list[Case]) -> Callable[..., None]:
    """The edge test of a module: every case of ``cases`` checked against the stored
    outcomes (the ``edge_messages`` fixture, tests/checker/conftest.py)."""
    @pytest.mark.parametrize("case", cases, ids=[c.id for c in cases])
    def test_edge(case: Case, edge_messages: dict[str, str]) -> None:
        check(case, edge_messages)
    return test_edge


def check(case: Case, messages: dict[str, str]) -> None:
    """The assertion every edge test makes: the expected kind of outcome, and the stored
    line word for word."""
    out = outcome(case)
    if case.expect == "VALID":
        assert out.startswith("VALID"), (case.id, out)
    else:
        assert out.startswith(case.expect) and ("Expected" in out or out.startswith(
            "malformed")), (case.id, case.expect, out)
    assert out == messages.get(case.id), f"{case.id}: stored {messages.get(case.id)!r}, now {out!r}"


def set_in(path: tuple, value: Any) -> Callable[[dict], None]:
    """An edit setting one field (``value`` may be a function of the old value)."""
    def edit(c: dict) -> None:
        obj = c
        for p in path[:-1]:
            obj = obj[p]
        obj[path[-1]] = value(obj[path[-1]]) if callable(value) else value
    return edit


def both(*edits: Callable[[dict], Any]) -> Callable[[dict], None]:
    """Several edits in order."""
    def edit(c: dict) -> None:
        for e in edits:
            e(c)
    return edit


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.checker.edges --update")
    table = {}
    for mod in MODULES:
        for case in importlib.import_module(mod).CASES:
            assert case.id not in table, case.id
            table[case.id] = outcome(case)
    MESSAGES.write_bytes(gzip.compress(json.dumps(table, sort_keys=True, indent=0).encode(),
                                       mtime=0))
    print(f"{len(table)} cases written to {MESSAGES}")
