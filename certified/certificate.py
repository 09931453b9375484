"""Certificates (``certified/certificate``, version 1): serialization and digest.

A certificate records the claim, the verdict, the instance, the precision, the software
version, every validated step of the integration (start time and step size), and the
data of the tail lemma exactly as it was checked (exact rational boxes). ``digest`` is
the SHA-256 of the canonical JSON text (sorted keys, no spaces) of every other field, so
any edit of a certificate is detected by :func:`verify_digest`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from . import __version__
from .numbers import fraction_to_str

__all__ = ["FORMAT", "VERSION", "to_certificate", "canonical_digest", "verify_digest"]

FORMAT = "certified/certificate"
VERSION = 1


def canonical_digest(obj: dict[str, Any]) -> str:
    """SHA-256 hex digest of the canonical JSON of ``obj`` without its ``digest`` key."""
    body = {k: v for k, v in obj.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def verify_digest(obj: dict[str, Any]) -> bool:
    """True when ``obj["digest"]`` matches its content."""
    return obj.get("digest") == canonical_digest(obj)


def to_certificate(v: Any) -> dict[str, Any]:
    """The JSON object of a :class:`~certified.certify.Verification`."""
    traj = v.trajectory
    integration = None
    if traj is not None:
        integration = {
            "variable": "x" if getattr(traj, "variable", "z") == "x" else "z",
            "certified_until": fraction_to_str(traj.certified_until),
            "bits": traj.bits, "order": traj.order, "backend": v.backend,
            "steps": [[fraction_to_str(s.t0), fraction_to_str(s.h)] for s in traj.steps],
            "precision_attempts": list(getattr(traj, "attempts", [])),
        }
    cert: dict[str, Any] = {
        "format": FORMAT, "version": VERSION,
        "theorem": v.theorem,
        "hypotheses_hold": v.hypotheses_hold,
        "verdict": v.verdict,
        "reason": v.reason,
    }
    if v.limit is not None:
        cert["limit"] = v.limit
    if v.evidence is not None:
        cert["evidence"] = v.evidence
    cert.update({
        "timescale": v.timescale,
        "instance": v.instance.to_json(),
        "precision": {"digits": v.digits, "backend": v.backend},
        "software": {"name": "certified", "version": __version__},
        "integration": integration,
        "tail_lemma": v.tail.to_json(v.digits) if v.tail is not None else None,
        "wall_seconds": round(v.wall_seconds, 3),
    })
    cert["digest"] = canonical_digest(cert)
    from .schema import check_output

    check_output(cert, "certificate")
    return cert
