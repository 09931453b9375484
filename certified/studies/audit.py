"""Counterexample records (``certified/audit``, version 1) and their replay.

A record names a claim from the literature, its formal reading, the instance and the
precision policy::

    {"format": "certified/audit", "version": 1,
     "name": "...", "source": "paper, place",
     "instance": {... an instance object ...},
     "claims": [{"id": "one-cluster", "statement": "the literal words",
                 "reading": {"clusters": 1}}, ...],
     "precision": {"digits": 30, "max_digits": 120, "t_max": "8", "max_seconds": 60},
     "float64": {"t_final": "20"}}

Readings (what the claim asserts about the limit t → ∞ in z): ``{"clusters": k}`` (the
tokens have exactly k distinct limits), ``{"attention_limit": P}`` (P(t) → P, exact
entries), ``{"attention_rank": r}``, ``{"attention_rank_at_most": r}``,
``{"attention_boolean": true|false}`` (every entry of lim P is 0 or 1),
``{"theorem_5_2_conclusion": true|false}`` (the F-components of the limits lie in ∂K ∪ {0}
for a bounded convex polytope K ⊂ F), ``{"theorem_conclusion": "2.1"}`` (the theorem's
conclusion as :func:`certified.verdict.certify.certify` judges it: holds when certified, fails
when refuted).

:func:`run_audit` decides each claim with a proved lemma — Lemma S1 (two tokens of equal
norm) or S2 (the odd-symmetric triple in d = 1) of :mod:`certified.tail.s1_symmetric` when one
applies, otherwise Lemma T4 through
:func:`certified.verdict.certify.certify` — escalating the precision until every claim is decided
or the cap is reached, and runs a float64 simulation of the same instance side by side
(labelled approximate). Verdicts: ``holds``, ``fails``, ``undecided``.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from certified import __version__
from certified.approx.float64 import approx_trajectory_float
from certified.errors import InputError, UndecidedError
from certified.exact.instance import Instance
from certified.exact.linalg import to_fmpq_mat
from certified.exact.rationals import float_matrix, loads_exact, to_fraction
from certified.exact.schema import check_input, check_output
from certified.precision import bits_of_digits, digits_to_bits
from certified.tail.s0_stationary import (
    applies_stationary,
    dominant_projector,
    stationary_limit,
    theorem_5_2_holds,
)
from certified.tail.s1_symmetric import (
    find_lemma,
    symmetric_pair_limit,
    symmetric_triple_limit,
)
from certified.tail.t4_leader_follower import LeaderFollowerBound
from certified.verdict.certificate import FORMAT as CFORMAT
from certified.verdict.certificate import VERSION as CVERSION
from certified.verdict.certificate import canonical_digest, to_certificate
from certified.verdict.certify import certify

__all__ = ["FORMAT", "VERSION", "AuditRecord", "load_record", "run_audit", "shipped_records"]

FORMAT = "certified/audit"
VERSION = 1
_KEYS = {"format", "version", "name", "source", "instance", "claims", "precision", "float64"}
#: Precision cap of the symmetric lemmas' escalation.
MAX_BITS = 4096
READINGS = ("clusters", "attention_limit", "attention_rank", "attention_rank_at_most",
            "attention_boolean", "theorem_5_2_conclusion", "theorem_conclusion")


class AuditRecord:
    """A validated audit record (see the module docstring for the format)."""

    def __init__(self, obj: Any) -> None:

        if not isinstance(obj, Mapping):
            raise InputError("record", "is not a JSON object", "an audit record object")
        unknown = sorted(set(obj) - _KEYS)
        if unknown:
            raise InputError(unknown[0], "unknown key", "keys " + ", ".join(sorted(_KEYS)))
        if obj.get("format", FORMAT) != FORMAT:
            raise InputError("format", f"{obj['format']!r} is not an audit record", repr(FORMAT))
        if str(obj.get("version", VERSION)) != str(VERSION):
            raise InputError("version", f"{obj['version']!r} is not supported", str(VERSION))
        for key in ("instance", "claims"):
            if key not in obj:
                raise InputError(key, "missing", "an instance object and a list of claims")
        self.name = str(obj.get("name", ""))
        self.source = str(obj.get("source", ""))
        self.instance = Instance.from_json(obj["instance"])
        claims = obj["claims"]
        if not isinstance(claims, list) or not claims:
            raise InputError("claims", "is not a non-empty list", "a list of claims")
        self.claims = []
        for i, c in enumerate(claims):
            where = f"claims[{i}]"
            if not isinstance(c, Mapping) or not {"id", "statement", "reading"} <= set(c):
                raise InputError(where, "malformed", "an object with id, statement, reading")
            r = c["reading"]
            if not isinstance(r, Mapping) or len(r) != 1 or next(iter(r)) not in READINGS:
                raise InputError(f"{where}.reading", f"{r!r}",
                                 "one key of " + ", ".join(READINGS))
            self.claims.append(dict(c))
        p = obj.get("precision", {})
        self.digits = int(p.get("digits", 30))
        self.max_digits = int(p.get("max_digits", 4 * self.digits))
        self.t_max = to_fraction(p.get("t_max", "8"), "precision.t_max")
        self.max_seconds = float(p.get("max_seconds", 120))
        if self.digits < 5 or self.max_digits < self.digits:
            raise InputError("precision.digits", f"{self.digits}..{self.max_digits}",
                             "5 <= digits <= max_digits")
        self.float_t = float(to_fraction(obj.get("float64", {}).get("t_final", "20"),
                                         "float64.t_final"))
        # The hand-written checks above name fields the way users write them; the schema
        # is the backstop for everything else (types, extra keys inside claims, ...).
        check_input(obj, "audit")
        self.raw = dict(obj)


def load_record(path: str | Path) -> AuditRecord:
    """Read and validate a record file."""

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"cannot be read ({exc.__class__.__name__})",
                         "a readable UTF-8 JSON file") from None
    try:
        obj = loads_exact(text)
    except json.JSONDecodeError as exc:
        raise InputError(str(path), f"not valid JSON ({exc.msg} at line {exc.lineno})",
                         "a JSON audit record") from None
    return AuditRecord(obj)


def shipped_records() -> list[Path]:
    """The records shipped in the package (``certified/data/audits``)."""
    return sorted((Path(__file__).resolve().parents[1] / "data" / "audits").glob("*.json"))


# -- judging claims from proved limit data ---------------------------------------------
def _rank(P: list[list[Fraction]]) -> int:

    return int(to_fmpq_mat(P).rank())


def _judge(reading: Mapping[str, Any], facts: Mapping[str, Any]) -> str:
    """The verdict on one reading from proved limit data.

    ``facts`` may hold ``clusters`` (int), ``P_star`` (exact matrix), ``boolean`` (bool)
    and ``thm_5_2`` (bool); a missing or None fact leaves the claim undecided.
    """
    (kind, want), = reading.items()
    if kind == "theorem_conclusion":
        got = facts.get("conclusion")  # (theorem, verdict of certify) or None
        if got is None or got[0] != str(want):
            return "undecided"
        return {"certified": "holds", "refuted": "fails"}.get(got[1], "undecided")
    P = facts.get("P_star")
    if kind == "clusters":
        got = facts.get("clusters")
        # int(): record numbers arrive as exact JSON numbers, not Python ints
        return "undecided" if got is None else ("holds" if got == int(want) else "fails")
    if kind == "theorem_5_2_conclusion":
        got = facts.get("thm_5_2")
        return "undecided" if got is None else ("holds" if got == bool(want) else "fails")
    if kind == "attention_boolean":
        got = facts.get("boolean")
        if got is None and P is not None:
            got = all(x in (0, 1) for row in P for x in row)
        return "undecided" if got is None else ("holds" if got == bool(want) else "fails")
    if P is None:
        return "undecided"
    if kind == "attention_limit":
        claimed = [[to_fraction(x, "reading.attention_limit") for x in row] for row in want]
        ok = claimed == P
    elif kind == "attention_rank":
        ok = _rank(P) == int(want)
    else:
        ok = _rank(P) <= int(want)
    return "holds" if ok else "fails"


def _float_run(inst: Instance, t_final: float) -> dict[str, Any]:
    """What a float64 simulation (RK4 in z) concludes — approximate, for comparison."""


    h = min(1e-2, t_final / 200)
    tr = approx_trajectory_float(*(float_matrix(getattr(inst, k), k) for k in
                                   ("V", "Q", "K", "X0")), t_final, h=h)
    Z, P = tr.tokens[-1], tr.attention[-1]
    D = np.linalg.norm(Z[:, None, :] - Z[None, :, :], axis=-1)
    tol = 1e-12 * max(1.0, float(np.abs(Z).max()))
    groups = len({min(j for j in range(len(Z)) if D[i, j] <= tol) for i in range(len(Z))})
    return {"method": tr.method, "t_final": t_final,
            "max_distance_between_tokens": float(D.max()),
            "clusters_at_1e-12": groups,
            "attention_at_t_final": [[round(float(x), 12) for x in row] for row in P],
            "note": "approximate: float64 cannot resolve score gaps below ~1e-16 of the scores"}


def _by_symmetric(rec: AuditRecord, lemma: str) -> dict[str, Any]:

    solve = symmetric_pair_limit if lemma == "S1" else symmetric_triple_limit
    bits = 53
    while True:
        L = solve(rec.instance, bits)
        if L.distance > 0:  # proved positive: the limits are distinct
            break
        if bits > MAX_BITS:  # the distance is > 0 in theory; never loop for ever
            raise UndecidedError(f"Lemma {lemma}: the distance between the limits was not "
                                 f"proved positive within {MAX_BITS} bits")
        bits *= 2
    if lemma == "S1":
        clusters, P = 2, [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    else:
        clusters, P = 3, L.attention_limit
    verdicts = [_judge(c["reading"], {"clusters": clusters, "P_star": P}) for c in rec.claims]
    # Report at the record's precision (enclosures), after the decision at `bits`.
    shown = solve(rec.instance, max(bits, digits_to_bits(rec.digits)))
    name = ("Lemma S1 (symmetric pair, exact reduction to t = ∞)" if lemma == "S1" else
            "Lemma S2 (odd-symmetric triple in d = 1, exact reduction to t = ∞)")
    return {"method": name, "bits_needed": bits, "evidence": shown.to_json(rec.digits),
            "verdicts": verdicts, "lemma": shown}


def _by_stationary(rec: AuditRecord) -> dict[str, Any]:

    L = stationary_limit(rec.instance, max(128, digits_to_bits(rec.digits)))
    facts = {"clusters": L.clusters, "boolean": L.attention_boolean,
             "thm_5_2": theorem_5_2_holds(rec.instance, L.limits)}
    ev = L.to_json(rec.digits)
    ev["theorem_5_2_conclusion"] = facts["thm_5_2"]
    return {"method": "Lemma S0 (stationary configuration: z(t) = z(0) exactly)",
            "bits_needed": L.bits if L.P_constant is not None else 0, "evidence": ev,
            "verdicts": [_judge(c["reading"], facts) for c in rec.claims], "lemma": L,
            "stationary": True}


def _by_certify(rec: AuditRecord) -> dict[str, Any]:

    theorem = next((str(c["reading"]["theorem_conclusion"]) for c in rec.claims
                    if "theorem_conclusion" in c["reading"]), "auto")
    # Deterministic: digits double up to the record's max_digits; the record's
    # max_seconds is only the outer wall-clock cap of each run.
    digits = rec.digits
    while True:
        v = certify(rec.instance, theorem, digits=digits, t_max=rec.t_max,
                    max_seconds=rec.max_seconds)
        tail = v.tail if isinstance(v.tail, LeaderFollowerBound) else None  # Lemma T4 data
        clusters = P_star = None
        if tail is not None:
            P_star = [[Fraction(x) for x in row] for row in tail.attention_limit()]
            clusters = len(tail.clusters) if _centres_apart(tail) else None
        facts = {"clusters": clusters, "P_star": P_star, "conclusion": (v.theorem, v.verdict)}
        verdicts = [_judge(c["reading"], facts) for c in rec.claims]
        if "undecided" not in verdicts or digits * 2 > rec.max_digits:
            ev: dict[str, Any] = {"verdict_of_certify": v.verdict, "reason": v.reason}
            if tail is not None:
                ev["tail_lemma"] = tail.to_json(rec.digits)
            return {"method": "Lemma T4 via certify()", "bits_needed":
                    bits_of_digits(digits) if "undecided" not in verdicts
                    else None, "evidence": ev, "verdicts": verdicts, "verification": v}
        digits *= 2


def _centres_apart(tail: Any) -> bool:
    """The leaders' limit boxes are pairwise disjoint (so their limits are distinct)."""
    boxes = tail.centers
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            if all(not (lo1 > hi2 or lo2 > hi1) for (lo1, hi1), (lo2, hi2)
                   in zip(boxes[a], boxes[b])):
                return False
    return True


def run_audit(rec: AuditRecord) -> dict[str, Any]:
    """Decide every claim of ``rec`` (spec output plus evidence and the float64 view)."""

    t0 = time.perf_counter()
    lemma = find_lemma(rec.instance)
    if any("theorem_conclusion" in c["reading"] for c in rec.claims):
        res = _by_certify(rec)  # only certify() judges a theorem's conclusion
    elif lemma is not None:
        res = _by_symmetric(rec, lemma)
    elif applies_stationary(rec.instance) is None:
        res = _by_stationary(rec)
    else:
        res = _by_certify(rec)
    out = {
        "record": rec.name, "source": rec.source, "method": res["method"],
        "claims": [{"claim": c["statement"], "id": c["id"], "reading": c["reading"],
                    "verdict": v, "evidence": res["evidence"]}
                   for c, v in zip(rec.claims, res["verdicts"])],
        "bits_needed": res["bits_needed"],
        "float64": _float_run(rec.instance, rec.float_t),
        "wall_seconds": round(time.perf_counter() - t0, 2),
    }
    out["_internal"] = res  # lemma objects for the certificate writer (dropped on output)
    return out


def audit_certificate(rec: AuditRecord, result: dict[str, Any]) -> dict[str, Any]:
    """A certificate for the audit (spec format; digest over canonical JSON)."""

    res = result["_internal"]
    if "verification" in res:
        cert = to_certificate(res["verification"])
    elif res.get("stationary"):
        data = res["lemma"].to_json(rec.digits)

        proj = dominant_projector(rec.instance)
        if proj is not None:  # the F-projector as a witness the checker verifies exactly
            data["witness_5_2"] = {"lambda": str(proj[0]),
                                   "projector_F": [[str(x) for x in row] for row in proj[1]]}
        cert = {"format": CFORMAT, "version": CVERSION, "theorem": rec.source or rec.name,
                "verdict": "certified",
                "limit": {"clusters": [{"members": [i], "center": [[c, c] for c in z]}
                                       for i, z in enumerate(data["limits_z"])]},
                "tail_lemma": data, "instance": rec.instance.to_json(),
                "precision": {"bits": res["lemma"].bits},
                "software": {"certified": __version__}}
    else:
        lemma = res["lemma"]
        data = lemma.to_json(rec.digits)
        P = data["attention_limit"]
        cert = {"format": CFORMAT, "version": CVERSION, "theorem": rec.source or rec.name,
                "hypotheses_hold": True, "verdict": "certified",
                "limit": {"clusters": [{"members": [i], "center": c}
                                       for i, c in enumerate(data["limits_z"])],
                          "attention_limit": P,
                          "attention_rank": _rank([[to_fraction(str(x), "P") for x in row]
                                                   for row in P])},
                "tail_lemma": data,
                "instance": rec.instance.to_json(),
                "precision": {"bits": lemma.bits},
                "software": {"certified": __version__}}
    cert["audit"] = {"record": rec.raw, "claims": [
        {"id": c["id"], "verdict": c["verdict"]} for c in result["claims"]]}
    cert["digest"] = canonical_digest(cert)

    check_output(cert, "certificate")
    return cert


def public(result: dict[str, Any]) -> dict[str, Any]:
    """The printable result (without the internal lemma objects)."""
    return {k: v for k, v in result.items() if k != "_internal"}

