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
tokens have exactly k distinct limits), ``{"attention_limit": P}`` (P(t) → P, a 0/1
matrix), ``{"attention_rank": r}``.

:func:`run_audit` decides each claim with a proved lemma — Lemma S1 (two tokens of equal
norm, :mod:`certified.symmetric_pair`) when it applies, otherwise Lemma T4 through
:func:`certified.certify.certify` — escalating the precision until every claim is decided
or the cap is reached, and runs a float64 simulation of the same instance side by side
(labelled approximate). Verdicts: ``holds``, ``fails``, ``undecided``.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .errors import InputError
from .instance import Instance
from .numbers import to_fraction

__all__ = ["FORMAT", "VERSION", "AuditRecord", "load_record", "run_audit", "shipped_records"]

FORMAT = "certified/audit"
VERSION = 1
_KEYS = {"format", "version", "name", "source", "instance", "claims", "precision", "float64"}
READINGS = ("clusters", "attention_limit", "attention_rank")


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
                                 "one of {\"clusters\": k}, {\"attention_limit\": P}, "
                                 "{\"attention_rank\": r}")
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
        self.raw = dict(obj)


def load_record(path: str | Path) -> AuditRecord:
    """Read and validate a record file."""
    from .numbers import loads_exact

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
    return sorted((Path(__file__).resolve().parent / "data" / "audits").glob("*.json"))


# -- judging claims from proved limit data ---------------------------------------------
def _judge(reading: Mapping[str, Any], clusters: int | None, P_star: list[list[int]] | None
           ) -> str:
    (kind, want), = reading.items()
    if kind == "clusters":
        return "undecided" if clusters is None else ("holds" if clusters == want else "fails")
    if P_star is None:
        return "undecided"
    if kind == "attention_limit":
        return "holds" if [list(map(int, r)) for r in want] == P_star else "fails"
    rank = int(np.linalg.matrix_rank(np.array(P_star, dtype=float)))  # 0/1 matrix: exact
    return "holds" if rank == int(want) else "fails"


def _float_run(inst: Instance, t_final: float) -> dict[str, Any]:
    """What a float64 simulation (RK4 in z) concludes — approximate, for comparison."""
    from .approx import approx_trajectory_float

    f = lambda m: [[float(x) for x in row] for row in m]  # noqa: E731
    h = min(1e-2, t_final / 200)
    tr = approx_trajectory_float(f(inst.V), f(inst.Q), f(inst.K), f(inst.X0), t_final, h=h)
    Z, P = tr.tokens[-1], tr.attention[-1]
    D = np.linalg.norm(Z[:, None, :] - Z[None, :, :], axis=-1)
    tol = 1e-12 * max(1.0, float(np.abs(Z).max()))
    groups = len({min(j for j in range(len(Z)) if D[i, j] <= tol) for i in range(len(Z))})
    return {"method": tr.method, "t_final": t_final,
            "max_distance_between_tokens": float(D.max()),
            "clusters_at_1e-12": groups,
            "attention_at_t_final": [[round(float(x), 12) for x in row] for row in P],
            "note": "approximate: float64 cannot resolve score gaps below ~1e-16 of the scores"}


def _by_symmetric_pair(rec: AuditRecord) -> dict[str, Any]:
    from .symmetric_pair import symmetric_pair_limit

    bits = 53
    while True:
        L = symmetric_pair_limit(rec.instance, bits)
        if L.distance > 0:  # proved positive: the two limits are distinct
            break
        bits *= 2
    verdicts = [_judge(c["reading"], 2, [[1, 0], [0, 1]]) for c in rec.claims]
    # Report at the record's precision (enclosures), after the decision at `bits`.
    shown = symmetric_pair_limit(rec.instance, max(bits, int(rec.digits * 3.33) + 16))
    return {"method": "Lemma S1 (symmetric pair, exact reduction to t = ∞)",
            "bits_needed": bits, "evidence": shown.to_json(rec.digits),
            "verdicts": verdicts, "lemma": shown}


def _by_certify(rec: AuditRecord) -> dict[str, Any]:
    from .certify import certify

    digits, spent = rec.digits, 0.0
    while True:
        t0 = time.perf_counter()
        v = certify(rec.instance, "auto", digits=digits, t_max=rec.t_max,
                    max_seconds=max(1.0, rec.max_seconds - spent))
        spent += time.perf_counter() - t0
        tail = v.tail if hasattr(v.tail, "attention_limit") else None  # Lemma T4 data
        clusters = P_star = None
        if tail is not None:
            P_star = tail.attention_limit()
            clusters = len(tail.clusters) if _centres_apart(tail) else None
        verdicts = [_judge(c["reading"], clusters, P_star) for c in rec.claims]
        if "undecided" not in verdicts or digits * 2 > rec.max_digits or \
                spent >= rec.max_seconds:
            ev: dict[str, Any] = {"verdict_of_certify": v.verdict, "reason": v.reason}
            if tail is not None and hasattr(tail, "to_json"):
                ev["tail_lemma"] = tail.to_json(rec.digits)
            return {"method": "Lemma T4 via certify()", "bits_needed":
                    int(math.ceil(digits * math.log2(10))) if "undecided" not in verdicts
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
    from .symmetric_pair import applies

    t0 = time.perf_counter()
    res = _by_symmetric_pair(rec) if applies(rec.instance) is None else _by_certify(rec)
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
    from . import __version__
    from .certificate import FORMAT as CFORMAT, VERSION as CVERSION, canonical_digest, \
        to_certificate

    res = result["_internal"]
    if "verification" in res:
        cert = to_certificate(res["verification"])
    else:
        lemma = res["lemma"]
        cert = {"format": CFORMAT, "version": CVERSION, "theorem": rec.source or rec.name,
                "hypotheses_hold": True, "verdict": "certified",
                "limit": {"clusters": [{"members": [0], "center": lemma.to_json(rec.digits)
                                        ["limits_z"][0]},
                                       {"members": [1], "center": lemma.to_json(rec.digits)
                                        ["limits_z"][1]}],
                          "attention_limit": [[1, 0], [0, 1]], "attention_rank": 2},
                "tail_lemma": lemma.to_json(rec.digits),
                "instance": rec.instance.to_json(),
                "precision": {"bits": lemma.bits},
                "software": {"certified": __version__}}
    cert["audit"] = {"record": rec.raw, "claims": [
        {"id": c["id"], "verdict": c["verdict"]} for c in result["claims"]]}
    cert["digest"] = canonical_digest(cert)
    return cert


def public(result: dict[str, Any]) -> dict[str, Any]:
    """The printable result (without the internal lemma objects)."""
    return {k: v for k, v in result.items() if k != "_internal"}

