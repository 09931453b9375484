"""Tamper cases generated from a certificate and the checker's declared fields.

For every leaf of a certificate (every field; for long arrays the first and last element,
for replay records the first record) the generator yields edits that strengthen or change
the claim: a number moved by more than its magnitude up and down, an interval [lo, hi]
shifted off itself both ways, an integer ±1, a boolean flipped, a word changed. The digest
is recomputed after each edit. A field passes when at least one of its edits is rejected
with an "Expected … Got …" line naming it (the other direction may be a weaker, still valid
claim: an upper bound moved up).

Fields that are not claims (prose, producer's method parameters) are listed in
INFORMATIONAL with the reason; proofs_notes/checker.md has the same list.
"""

from __future__ import annotations

import copy
import re
from fractions import Fraction
from typing import Any, Iterator

from certified.checker import CheckFailure, Malformed, _check_claims_only, digest

#: path patterns ([] = any index, * = any dict key) that are not claims, with the reason
INFORMATIONAL = {
    "reason": "prose",
    "software.*": "producer's name and version",
    "wall_seconds": "producer's run time",
    "precision.*": "producer's working precision (bits sets the checker's finer scale only)",
    "timescale.meaning": "prose",
    "timescale.delta0_at_first": "δ₀ at an earlier time than the replayed one (not replayed)",
    "integration.backend": "producer's arithmetic library",
    "integration.precision_attempts": "producer's precision escalation log",
    "integration.order": "producer's default order (each record carries its own, replayed)",
    "integration.bits": "producer's precision (the checker's scale is finer, any value works)",
    "integration.replay_note": "prose (discrete time: why there are no replay records)",
    "instance.format": "file-format tag of the instance (the matrices are compared)",
    "instance.version": "file-format version of the instance",
    "instance.name": "prose",
    "tail_lemma.coordinates": "prose (T8)",
    "tail_lemma.integrand": "prose (S1, S2)",
    "tail_lemma.U": "producer's quadrature split point (the checker chooses its own)",
    "tail_lemma.bits": "producer's precision (S0–S2)",
    "limit.F": "prose (T7, T8)",
    "limit.not_proved": "prose (T7, T8)",
    "limit.functional.meaning": "prose (T7)",
    "audit.record.name": "prose",
    "audit.record.source": "prose",
    "audit.record.format": "file-format tag",
    "audit.record.version": "file-format version",
    "audit.record.float64.*": "the record's float64 simulation settings (not a claim)",
    "audit.record.precision.*": "the record's requested budget",
    "audit.record.claims[].statement": "prose (the claim's content is its reading)",
    "audit.record.instance.*": "compared as a whole with the certificate's instance",
    # A replayed step's method data: re-derived by the replay itself; an edit either fails
    # at its step or leaves another true enclosure (tests/test_checker.py tampers steps).
    "integration.replay.records[].order": "the step's Taylor order (a method parameter)",
    "integration.replay.records[].velocity": "the a-priori form's velocity (a method hint)",
    "integration.replay.records[].set.A": "the set's basis: another basis with the same r "
                                          "may be another true enclosure",
    # A defect step's search data (Lemma C20): any value whose consequences the replay
    # verifies is valid; an edit fails at its step or is another valid search result.
    "integration.replay.records[].pieces": "the defect step's number of pieces",
    "integration.replay.records[].R": "the defect step's tube half-width",
    "integration.replay.records[].guard_bits": "the checker's extra bits for the jets (a hint)",
}

#: (certificate, path): single-field edits of these can only make another true claim
ALWAYS_TRUE = {
    ("t4_85_ref", ("evidence", "entry", 0)): "P*_i1 = 0 for every row i (token 1 follows 2)",
    # Lemma S1's P* = I has no entry 1/2; S2's P*_0j ∈ {0, 1} for every j ≠ 1/3: the edits
    # 0 → 1 and 1 → 0, 2 stay in range and name another true witness
    ("s1_85_ref", ("evidence", "entry", 0)): "P* = I: every entry differs from 1/2",
    ("s2_85_ref", ("evidence", "entry", 1)): "row 0 of P* is (1, 0, 0): no entry is 1/3",
    ("audit_remark_7_9_eps_1_10", ("audit", "record", "claims", 0, "reading", "clusters")):
        "the claim's verdict is 'undecided': it claims nothing whatever its reading",
    ("audit_remark_7_9_eps_1_10", ("audit", "record", "claims", 2, "reading",
                                   "attention_rank")):
        "the claim's verdict is 'undecided': it claims nothing whatever its reading",
}
#: certificates whose only claim is that the layer map runs: any tokens give another valid
#: (vacuous) certificate — an undecided discrete-time run stores no enclosure to compare
VACUOUS_X0 = {"t10_und": "undecided, discrete: 'layers 0..L are enclosed' holds for any X0"}
#: instance entries that do not enter a certificate's claim: an edit gives another instance
#: with the same (true) claim
FREE_ENTRIES = {
    "s0_85_ref": ({("instance", m, a, b) for m in ("Q", "K") for a in (0, 1) for b in (0, 1)}
                  | {("instance", "V", 0, 0), ("instance", "V", 1, 0)},
                  "8.5 refuted by Lemma S0: x_0 ≡ z_0 = (0, 1) ≠ 0 needs only V z_0 = 0 "
                  "(V's second column), whatever Q, K and V's first column"),
    **{name: ({("instance", m, a) for m in ("Q", "K", "X0") for a in (0, 1)}
              | {("instance", m, a, b) for m in ("Q", "K", "X0") for a in (0, 1)
                 for b in (0, 1)},
              "4.2 certified by Lemma S3's tied or complex reading: it needs only V and "
              "n = 2, whatever Q, K and the two tokens")
       for name in ("s3_42_tied", "s3_42_complex")},
}
#: witnesses: any value whose consequences the checker verifies is valid (an edit is
#: rejected, naming a consequence, or is another valid witness)
WITNESSES = {"tail_lemma.norm_S[][]": "T7's norm: any invertible S with the stored bounds",
             "tail_lemma.norm_S[]": "T7's norm (a row read as an interval)",
             # Lemma S3 (negative case): any Lyapunov data satisfying its exact matrix
             # inequalities; Delta², M², A and p are checked against the stored values
             "tail_lemma.P[][]": "S3's Lyapunov matrix P",
             "tail_lemma.P[]": "S3's Lyapunov matrix P (a row)",
             "tail_lemma.ell": "S3's ℓ < λ_min(P)",
             "tail_lemma.c": "S3's decay rate c in the P-norm",
             "tail_lemma.L_squared": "S3's L² ≥ ‖V‖²_P",
             "tail_lemma.A_upper": "S3's bound A on the scores (p is checked against it)",
             # Lemma T8's quadratic norm on G: any P with P − I ≻ 0 and ν²P − V_GᵀPV_G ≻ 0;
             # Y and the G-differences' norm are checked with the stored P
             "tail_lemma.G_metric[][]": "T8's quadratic norm on G",
             "tail_lemma.G_metric[]": "T8's quadratic norm on G (a row)"}

_NUM = re.compile(r"\s*[+-]?(\d+(/\d+)?|\d*\.\d*([eE][+-]?\d+)?|\d+[eE][+-]?\d+)\s*")


def pattern(path: tuple) -> str:
    out = ""
    for p in path:
        if isinstance(p, int):
            out += "[]"
        else:
            out += ("." if out else "") + p
    return out


def is_informational(path: tuple) -> bool:
    pat = pattern(path)
    for key in INFORMATIONAL:
        if key == pat or pat.startswith(key + "[") or \
                (key.endswith(".*") and pat.startswith(key[:-1])):
            return True
    return False


def must_name(path: tuple) -> str:
    """What the failure line must mention: the field's name; for a replay record the
    record (its replay names the record), for a step the integration, and nothing for the
    instance (every claim is about it: any rejection counts)."""
    if path[0] == "instance" or pattern(path) in WITNESSES:
        return ""
    if path[0] == "audit":  # a claim's id or reading: its verdict is re-judged
        return "audit.claims"
    if path[:3] == ("integration", "replay", "records"):
        return "integration.replay["
    if path[:2] == ("integration", "steps"):
        return "integration"
    return name_of(path)


def name_of(path: tuple) -> str:
    """The field's name as a failure must mention it: the last component that is an
    identifier (not an index, a dict key such as '1', '+' or '-')."""
    for p in reversed(path):
        if isinstance(p, str) and re.fullmatch(r"[A-Za-z_][\w ]*|sup_\{.*", p):
            return p
    return str(path[0])


def _num(x: Any) -> Fraction | None:
    if isinstance(x, str) and _NUM.fullmatch(x):
        return Fraction(x.strip())
    return None


def _is_interval(x: Any) -> bool:
    return (isinstance(x, list) and len(x) == 2 and all(_num(v) is not None for v in x)
            and _num(x[0]) <= _num(x[1]))


#: certificates whose replay takes seconds: by default only their claims are tampered
#: (tail_lemma, limit, evidence, …), their instance, steps and records only with every=True
#: (the same fields are tampered on the small Lemma T4 certificates by default)
LONG = {"t6_small", "t7_52", "t8_52", "t8_52_cross", "t8_52_line", "t8_42_line", "t8_52_metric", "t9_85",
        "audit_theorem_2_1_d2_boundary_183"}
_REPLAY_INPUTS = ("instance", "integration")


def _kind(cert: dict) -> tuple:
    """What a field pattern is tampered once per: the lemma, the verdict, whether it is an
    audit, and whether time is discrete (the layer map's checks read the same field names
    through other code: T9's E_T_upper in check_t9_data and in check_t9_discrete)."""
    lemma = cert.get("tail_lemma") or {}
    return (lemma.get("lemma", "").split(" ")[0], cert["verdict"],
            cert.get("audit") is not None, "dt" in lemma)


def cases(certs: dict[str, dict], every: bool = False) -> list[tuple[str, tuple]]:
    """The tamper cases: every non-informational leaf of every certificate, or (default)
    the first leaf of each field pattern per lemma and verdict (limit.clusters[].center[]
    once for Lemma T4's certified certificates, …)."""
    out, seen = [], set()
    for name, cert in certs.items():
        kind = _kind(cert)
        for p in leaves(cert):
            if is_informational(p) or (name, p) in ALWAYS_TRUE or \
                    (name in VACUOUS_X0 and p[:2] == ("instance", "X0")) or \
                    p in FREE_ENTRIES.get(name, (set(),))[0]:
                continue
            if pattern(p) == "limit.clusters[].exposing_functional[]" and p[-1] >= 1:
                continue  # G1's witness in d ≥ 2: a moved component may still separate

            if p == ("theorem",) and kind[0] in ("S0", "S1", "S2") and kind[2]:
                continue  # an audit's theorem is its citation (prose)
            if not every and name in LONG and p[0] in _REPLAY_INPUTS:
                continue
            if every or (kind, pattern(p)) not in seen:
                seen.add((kind, pattern(p)))
                out.append((name, p))
    return out


#: the key a structural edit adds to an object: no certificate kind declares it
UNKNOWN = "zz_unknown_claim"


def objects(certs: dict[str, dict], sections: tuple[str, ...]) -> list[tuple[str, tuple]]:
    """Structural tamper cases: the first object of each path pattern per lemma and verdict
    inside ``sections`` (the claims), for :func:`structural_edits`."""
    out, seen = [], set()
    for name, cert in certs.items():
        kind = _kind(cert)
        for p in _objects(cert):
            if p and p[0] in sections and not is_informational(p) \
                    and (kind, pattern(p)) not in seen:
                seen.add((kind, pattern(p)))
                out.append((name, p))
    return out


def _objects(obj: Any, path: tuple = ()) -> Iterator[tuple]:
    if isinstance(obj, dict):
        yield path
        for k, v in obj.items():
            yield from _objects(v, path + (k,))
    elif isinstance(obj, list) and obj:
        yield from _objects(obj[0], path + (0,))


def structural_edits(value: dict) -> list[Any]:
    """An object with a key no certificate declares, the object replaced by a string, and
    by an empty object: a claim the checker cannot read is an error, never ignored."""
    return [dict(value, **{UNKNOWN: "1"}), "x", {}]


def leaves(obj: Any, path: tuple = ()) -> Iterator[tuple]:
    """Leaf paths (an interval [lo, hi] of numbers is one leaf); long arrays sampled."""
    if path and path[0] == "digest" or path in (("format",), ("version",)):
        return
    if path[:3] == ("integration", "replay", "records"):
        if len(path) == 3:  # the first record only (the replay has its own tests)
            if obj:
                yield from leaves(obj[0], path + (0,))
            return
    if _is_interval(obj):
        yield path
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, path + (k,))
    elif isinstance(obj, list):
        idx = range(len(obj)) if len(obj) <= 2 else (0, len(obj) - 1)
        for i in idx:
            yield from leaves(obj[i], path + (i,))
    elif obj is not None:
        yield path


def get(obj: Any, path: tuple) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def _set(obj: Any, path: tuple, value: Any) -> None:
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def edits_at(path: tuple, value: Any) -> list[Any]:
    """The edits of one field; a replay record's numbers are also scaled by 10³⁰ (a small
    move of a basis entry can leave a true, if different, enclosure)."""
    out = edits(value)
    q = _num(value)
    if path[:3] == ("integration", "replay", "records") and q is not None:
        out.append(str(q * 10 ** 30 + 10 ** 30))
    return out


def edits(value: Any) -> list[Any]:
    if _is_interval(value):
        lo, hi = _num(value[0]), _num(value[1])
        s = hi - lo + abs(lo) + abs(hi) + 1
        out = [[str(lo + s), str(hi + s)], [str(lo - s), str(hi - s)]]
        if hi > lo:  # one end moved in by 10⁻⁶ of the width: a tight claim must fail there
            w = (hi - lo) / 10 ** 6
            out += [[str(lo + w), str(hi)], [str(lo), str(hi - w)]]
        return out
    if isinstance(value, bool):
        return [not value]
    for enum in (("certified", "refuted", "undecided"), ("x", "z"), ("holds", "fails")):
        if value in enum:  # another value of the same enumeration (the schema admits it)
            return [v for v in enum if v != value]
    if value == "undecided":  # a centre flag: claim more
        return [True, False]
    if isinstance(value, int):
        return [value + 1, value - 1] if value not in (0, 1) else [1 - value, value + 1]
    if isinstance(value, float):
        return [value * 2 + 1, value / 2 - 1]
    q = _num(value)
    if q is not None:
        s = abs(q) + 1
        return [str(q + s), str(q - s)]
    if isinstance(value, str):
        return [value + " (edited)"]
    raise TypeError(repr(value))


def malformed_edits(value: Any) -> list[Any]:
    """Edits that no reading of the field accepts: a number that is not one ("x"), a
    division by zero, an interval with its ends swapped or one end not a number. The
    checker must reject each naming the field it was reading (the name it passes to its
    number readers is part of the message users see). Empty for a leaf that is not a
    number or an interval of numbers."""
    if _is_interval(value):
        lo, hi = _num(value[0]), _num(value[1])
        return [[str(hi + 1), str(lo)], ["x", value[1]], [value[0], "1/0"]]
    if isinstance(value, str) and _num(value) is not None:
        return ["x", "1/0"]
    return []


def tampered(cert: dict, path: tuple, new: Any) -> dict:
    c = copy.deepcopy(cert)
    _set(c, path, new)
    c["digest"] = digest(c)
    return c


def claims_outcome(cert: dict) -> str:
    """The claims-only checker's line on a certificate: "VALID …", the failure, or
    "malformed: …"; a crash is returned as "CRASH …" (recorded, then failed by the tests
    that use it)."""
    try:
        return "VALID " + _check_claims_only(cert)
    except CheckFailure as exc:
        return str(exc)
    except Malformed as exc:
        return f"malformed: {exc}"
    except Exception as exc:  # noqa: BLE001 - a crash on a malformed claim
        return f"CRASH {type(exc).__name__}: {exc}"


class edited:
    """``with edited(cert, path, new) as c:`` the certificate with one field changed and
    its digest recomputed, restored afterwards (no copy of a megabyte certificate)."""

    def __init__(self, cert: dict, path: tuple, new: Any) -> None:
        self.cert, self.path, self.new = cert, path, new

    def __enter__(self) -> dict:
        self.old, self.old_digest = get(self.cert, self.path), self.cert["digest"]
        _set(self.cert, self.path, copy.deepcopy(self.new))
        self.cert["digest"] = digest(self.cert)
        return self.cert

    def __exit__(self, *exc: object) -> None:
        _set(self.cert, self.path, self.old)
        self.cert["digest"] = self.old_digest
