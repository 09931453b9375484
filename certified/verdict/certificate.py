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
from fractions import Fraction
from typing import Any

from certified import __version__
from certified.exact.instance import Discrete
from certified.exact.rationals import bounds_to_json, fraction_to_str
from certified.exact.schema import check_output

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


def _replay(v: Any, traj: Any) -> dict[str, Any]:
    """What :mod:`certified.checker` needs to re-verify every step up to the lemma's time.

    Per step: the Taylor order, the half-side ρ of the complex time square, the complex
    a-priori box C (Lemma I6) as [re_lo, re_hi, im_lo, im_hi] rounded outward — or, for a
    defect step (Lemma I10), ``method: "defect"``, the disk radius ρ, the number of
    pieces m, the tube half-width R and the jets' guard bits — and the output Lohner set {c + A·r}: c and A exactly, r widened by 1/8 of its radius (plus
    2^-30 of the largest radius and 2^-bits) and rounded outward. The checker carries its
    own enclosure in the stored coordinates (c, A) and requires its r inside the stored r
    at every step; the widening leaves room for its own arithmetic and never compounds
    (the checker continues with its own r). Steps are those of the run whose set the tail
    lemma used; if that run was abandoned for more precision, there is no replay.
    """
    steps = traj.steps
    last = len(steps)
    if isinstance(v.instance.time, Discrete):
        return {"replay": None, "replay_note": "discrete time: the checker iterates the "
                "layer map itself (Lemma C21); no step data are needed"}
    if getattr(v, "lemma_set", None) is not None:
        idx = [k for k, s in enumerate(steps) if s.output_set is v.lemma_set]
        if not idx:
            return {"replay": None, "replay_note": "the tail lemma's boxes came from a run "
                    "abandoned for more precision; its steps are not recorded"}
        last = idx[0] + 1
    if any(s.rho is None for s in steps[:last]):
        return {"replay": None, "replay_note": "discrete-time steps are not replayable"}
    bk = traj.backend
    # Digits from the working *bits*: a complex box of a token of size 3 may be 1e-18
    # wide, and rounding it at a fixed number of significant digits would widen it enough
    # to break its own Picard inclusion (seen: 18 digits at 82 bits).
    keep = v.precision.replay_digits(traj.bits)
    slack_floor = Fraction(1, 2 ** traj.bits)  # room for a radius that is exactly 0
    records = []
    with bk.workprec(traj.bits):
        for s in steps[:last]:
            defect = getattr(s, "method", "picard") == "defect"
            apri = []
            for w in ([] if defect else s.complex_box):
                re, im = bk.re_im(w)
                apri.append(bounds_to_json(*bk.bounds(re), keep)
                            + bounds_to_json(*bk.bounds(im), keep))
            out = s.output_set
            rb = [bk.bounds(x) for x in out.r]
            # 2^-30 of the largest radius: the checker's Jacobian enclosure may leak a
            # little more of a large coordinate into a small one than Arb's did.
            big = max((hi - lo for lo, hi in rb), default=Fraction(0)) / 2 ** 31
            r = []
            for lo, hi in rb:
                slack = (hi - lo) / 16 + big + slack_floor
                r.append(bounds_to_json(lo - slack, hi + slack, keep))
            rec_velocity = {} if s.velocity is None else {
                "velocity": [fraction_to_str(bk.bounds(x)[0]) for x in s.velocity]}
            # A defect step (Lemma I10) has no a-priori box: the checker re-derives its
            # disk, circle and pieces from ρ, m, R (and takes the jets' guard bits as a hint).
            head = {"method": "defect", "pieces": s.pieces, "R": fraction_to_str(s.R),
                    "guard_bits": s.guard_bits} if defect else \
                {**rec_velocity, "apriori": apri}
            records.append({
                **head,
                "order": s.order, "rho": fraction_to_str(s.rho),
                "set": {"c": [fraction_to_str(bk.bounds(x)[0]) for x in out.c],
                        "A": [[fraction_to_str(bk.bounds(x)[0]) for x in row] for row in out.A],
                        "r": r}})
    return {"replay": {"steps": len(records),
                       "t_end": fraction_to_str(steps[last - 1].t0 + steps[last - 1].h)
                       if last else "0",
                       "records": records}}


def to_certificate(v: Any) -> dict[str, Any]:
    """The JSON object of a :class:`~certified.verdict.certify.Verification`."""
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
        integration.update(_replay(v, traj))
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
    })
    cert["digest"] = canonical_digest(cert)

    check_output(cert, "certificate")
    return cert
