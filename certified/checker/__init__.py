"""The independent checker: re-verify a certificate without trusting the code that wrote it.

It imports nothing from the integrator, the vector field, the tail lemmas or Arb: its
arithmetic is Python's integers and fractions plus mpmath's directed rounding
(:mod:`.balls`), its dynamics a separate implementation (:mod:`.dynamics`), its step
replay (:mod:`.replay`) and lemma checks (:mod:`.lemmas`) its own. What it trusts and
why each check suffices: ``proofs_notes/checker.md``.

Order of checks (the first failure is reported as "Expected … Got …"): format and
schema, digest, instance, every replayed step (chained in time, each inside its claimed
box), the tail lemma's hypotheses and conclusions on the replayed enclosure, the verdict
and limit objects.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Any, Callable, Iterator

from .audits import check_stationary, check_symmetric, judge_claims, rank
from .balls import BallError, const, set_scale
from .dynamics import Field
from .errors import CheckFailure, Malformed
from .lemmas import (
    _contains,
    check_centre_flags,
    check_enclosure_at_T,
    check_leader_follower,
    check_t4_verdict,
)
from .paranormal import check_paranormal, check_paranormal_enclosure, check_paranormal_verdict
from .projected import check_projected
from .replay import replay_steps

__all__ = ["CheckFailure", "Malformed", "Report", "check_certificate", "check_file", "digest"]


@dataclass
class Report:
    """Outcome of a check: ``valid`` with what was re-verified, or the first failure."""

    valid: bool
    message: str
    steps_checked: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {"valid": self.valid, "message": self.message,
                "steps_checked": self.steps_checked, "seconds": round(self.seconds, 3)}


def digest(obj: dict) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no spaces, ASCII) without ``digest``."""
    body = {k: v for k, v in obj.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _schema_check(obj: Any) -> None:
    import jsonschema

    if not isinstance(obj, dict) or obj.get("format") != "certified/certificate":
        raise Malformed("not a certificate: 'format' must be \"certified/certificate\"")
    if obj.get("version") != 1:
        raise Malformed(f"certificate version {obj.get('version')!r} is not supported (1)")
    schema = json.loads(resources.files("certified").joinpath(
        "schemas/certificate.schema.json").read_text(encoding="utf-8"))
    try:
        jsonschema.validate(obj, schema)
    except jsonschema.ValidationError as exc:
        path = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise Malformed(f"schema: at {path}: {exc.message}") from None


#: Largest decimal exponent accepted in an exact-number string. Fraction("1e999999999")
#: would build a 3-gigabit integer: one such string must not hang the checker.
MAX_EXPONENT = 100_000
# A whole string in the decimal-with-exponent form Fraction() accepts (not a hex digest or a
# name that merely ends in "e" and digits).
_EXPONENT = re.compile(r"\s*[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)[eE]([+-]?\d[\d_]*)\s*")


def _number_sizes_check(obj: Any, where: str = "") -> None:
    """Malformed if any string carries a decimal exponent beyond ±MAX_EXPONENT (walked
    before anything is parsed; strings without 'e'/'E' cost one test each)."""
    stack = [(obj, where)]
    while stack:
        x, at = stack.pop()
        if isinstance(x, str):
            if "e" in x or "E" in x:
                m = _EXPONENT.fullmatch(x)
                digits = m.group(1).lstrip("+-").replace("_", "") if m else ""
                if len(digits) > 6 or (digits and int(digits) > MAX_EXPONENT):
                    raise Malformed(f"{at or '(top level)'}: the number {x[:40]!r} has a "
                                    f"decimal exponent beyond ±{MAX_EXPONENT}")
        elif isinstance(x, dict):
            stack.extend((v, f"{at}.{k}" if at else str(k)) for k, v in x.items())
        elif isinstance(x, list):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(x))


def _matrix(inst: dict, key: str) -> list[list[Fraction]]:
    try:
        return [[Fraction(str(x)) for x in row] for row in inst[key]]
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise CheckFailure(f"instance.{key}", "a matrix of exact numbers", "something else") from exc


def _scalar(V: list[list[Fraction]]) -> Fraction | None:
    d = len(V)
    lam = V[0][0]
    ok = all(V[i][j] == (lam if i == j else 0) for i in range(d) for j in range(d))
    return lam if ok else None


#: Python (≥ 3.11) refuses int ↔ str conversions beyond 4300 digits by default; exact
#: numbers of a certificate at up to 10⁶ bits have up to ≈ 301,030 digits.
MAX_STR_DIGITS = 400_000


@contextmanager
def _long_numbers() -> Iterator[None]:
    """Allow integers of up to MAX_STR_DIGITS digits while a certificate is read and
    checked (forked workers inherit it), and restore the interpreter's limit after."""
    get = getattr(sys, "get_int_max_str_digits", None)
    old = get() if get is not None else 0
    if old:
        sys.set_int_max_str_digits(max(old, MAX_STR_DIGITS))
    try:
        yield
    finally:
        if old:
            sys.set_int_max_str_digits(old)


def check_certificate(obj: Any, progress: Callable[[int, Fraction], None] | None = None,
                      workers: int = 1) -> Report:
    """Re-verify a parsed certificate. Raises :class:`Malformed` if it cannot be read;
    returns a :class:`Report` (invalid with the first failure, or valid).

    ``workers`` > 1 replays contiguous chunks of the steps in that many processes
    (:func:`.replay.replay_steps`, Lemma C12); the outcome is the same as with 1."""
    with _long_numbers():
        return _check_certificate(obj, progress, workers)


def _check_certificate(obj: Any, progress: Callable[[int, Fraction], None] | None,
                       workers: int) -> Report:
    t_start = time.perf_counter()
    _schema_check(obj)
    _number_sizes_check(obj)
    steps_checked = 0
    try:
        if obj.get("digest") != digest(obj):
            raise CheckFailure("digest", digest(obj), repr(obj.get("digest")))
        inst = obj["instance"]
        V, Q, K, X0 = (_matrix(inst, k) for k in ("V", "Q", "K", "X0"))
        audit = obj.get("audit")
        if audit is not None:
            rinst = audit["record"]["instance"]
            if [_matrix(rinst, k) for k in ("V", "Q", "K", "X0")] != [V, Q, K, X0]:
                raise CheckFailure("audit.record.instance", "the certificate's instance",
                                   "another instance")
        def continuous() -> None:  # what the lemmas and the replay are about
            if inst.get("time", "continuous") != "continuous" or inst.get("variant"):
                raise CheckFailure("instance", "continuous time without variant (for the "
                                   "integration and lemmas claimed)", "another setting")
        n, d = len(X0), len(V)
        B = [[sum((Q[r][a] * K[r][b] for r in range(len(Q))), Fraction(0)) for b in range(d)]
             for a in range(d)]
        lam = _scalar(V)
        lemma = obj.get("tail_lemma")
        integ = obj.get("integration")
        # The balls' scale is module state: set it once here, before any ball is made, so
        # no check inherits it from an earlier one. Finer than the producer's precision.
        if integ is not None:
            set_scale(int(integ["bits"]) + 64)
        else:
            set_scale(max(256, int((obj.get("precision") or {}).get("bits", 0)) + 64))
        kind0 = str(lemma.get("lemma", "")) if isinstance(lemma, dict) else ""
        if audit is not None and kind0.startswith(("S0", "S1", "S2")):
            continuous()
            facts = _check_exact_audit(obj, lemma, kind0, V, B, X0)
            judge_claims(audit["record"], audit["claims"], facts)
            how = ("exact setting, constant P enclosed" if kind0.startswith("S0") else
                   "exact setting, own quadrature and limits")
            return Report(True, f"valid: Lemma {kind0[:2]} re-checked ({how}); "
                          f"{len(audit['claims'])} claim verdicts re-judged", 0,
                          time.perf_counter() - t_start)
        if integ is None:
            if lemma is not None:
                raise CheckFailure("integration", "the validated steps behind the lemma", "null")
            if obj["verdict"] != "undecided":
                raise CheckFailure("verdict", "'undecided' (nothing was integrated)",
                                   repr(obj["verdict"]))
            if audit is not None:  # nothing proved: every claim must be undecided
                judge_claims(audit["record"], audit["claims"],
                             {"conclusion": (obj["theorem"], obj["verdict"])})
            # (in any time setting: nothing is claimed, e.g. discrete time or a variant)
            return Report(True, "valid: no integration, no lemma, verdict undecided", 0,
                          time.perf_counter() - t_start)
        continuous()
        kind = str(lemma.get("lemma", "")) if lemma is not None else ""
        if lam is None and lemma is not None and not kind.startswith(("T7", "T8")):
            raise CheckFailure("instance.V", "V = λI (or Lemma T7's or T8's data in x for "
                               "another V)", "another V")
        if lemma is not None and not kind.startswith(("T4", "T6", "T7", "T8")):
            raise CheckFailure("tail_lemma.lemma", "T4, T6, T7 or T8", repr(lemma.get("lemma")))
        # Cheap checks first: the lemma on its stored data, and the verdict it implies.
        lf = pb = pn = None
        if kind.startswith("T8"):
            pn = check_paranormal(lemma, V, B, n)
            check_paranormal_verdict(obj, pn, X0)
        elif kind.startswith("T7"):
            pb = check_projected(lemma, V, B, n)
            _check_t7_verdict(obj, pb)
        elif kind.startswith("T4"):
            lf = check_leader_follower(lemma, lam, B, n)
            check_t4_verdict(obj, lf, X0, B)
        elif kind.startswith("T6") or lemma is None:
            if obj["verdict"] != "undecided":
                raise CheckFailure("verdict", "'undecided' (no lemma proves a limit here)",
                                   repr(obj["verdict"]))
        # Then every step, in the checker's own arithmetic.
        replay = integ.get("replay")
        if replay is None:
            raise CheckFailure("integration.replay", "replay data for every step",
                               integ.get("replay_note", "none"))
        records = replay["records"]
        t_end = Fraction(replay["t_end"])
        variable = integ.get("variable", "z")
        if (pb or pn) is not None and (variable != "x" or (pb or pn)["T"] != t_end):
            raise CheckFailure("tail_lemma.T", f"the end of the replay, t = {t_end} (in x)",
                               str(lemma["T"]))
        if lam is None and variable != "x":  # a lemma T7/T8 run that stopped undecided, say
            raise CheckFailure("integration.variable", "'x' (the checker's field for V ≠ λI "
                               "is in the original variable)", repr(variable))
        field = (Field(None, B, n, "x", V=V) if lam is None
                 else Field(lam, B, n, variable))
        if lf is not None and (field.variable != "z" or lf["T"] != t_end):
            raise CheckFailure("tail_lemma.T", f"the end of the replay, t = {t_end} (in z)",
                               str(lemma["T"]))

        def at_T(S: Any) -> None:
            """The lemma's boxes must contain the replayed enclosure at T."""
            if lf is not None:
                check_enclosure_at_T(lf, S)
            elif pn is not None:
                check_paranormal_enclosure(pn, S, n, d)
            elif pb is not None:
                check_enclosure_at_T({"leader": list(range(n)), "boxes": pb["boxes"],
                                      "diffs": {}}, S)
            elif kind.startswith("T6"):
                _check_t6(lemma, lam, B, n, S, t_end, field.variable)

        replay_steps(field, X0, integ["steps"], records, t_end, progress, workers, at_T)
        steps_checked = len(records)
        if lf is not None:
            if audit is not None:
                leaders = sorted(set(lf["leader"]))
                P = [[Fraction(int(j == lf["leader"][i])) for j in range(n)] for i in range(n)]
                judge_claims(audit["record"], audit["claims"],
                             {"clusters": len(leaders), "P_star": P,
                              "conclusion": (obj["theorem"], obj["verdict"])})
            msg = (f"valid: {steps_checked} steps re-verified to t = {t_end}; Lemma T4 "
                   f"re-checked; verdict {obj['verdict']!r} for Theorem {obj['theorem']}")
        elif pn is not None:
            if audit is not None:
                judge_claims(audit["record"], audit["claims"],
                             {"conclusion": (obj["theorem"], obj["verdict"])})
            msg = (f"valid: {steps_checked} steps re-verified to t = {t_end} (in x); Lemma T8 "
                   f"re-checked; verdict {obj['verdict']!r} for Theorem {obj['theorem']}")
        elif pb is not None:
            if audit is not None:
                judge_claims(audit["record"], audit["claims"],
                             {"conclusion": (obj["theorem"], obj["verdict"])})
            msg = (f"valid: {steps_checked} steps re-verified to t = {t_end} (in x); Lemma T7 "
                   f"re-checked; verdict {obj['verdict']!r} for Theorem {obj['theorem']}")
        elif kind.startswith("T6"):
            msg = (f"valid: {steps_checked} steps re-verified to t = {t_end}; Lemma T6 "
                   "bound re-checked; verdict 'undecided'")
        else:
            msg = f"valid: {steps_checked} steps re-verified to t = {t_end}; verdict undecided"
        if lf is None and pb is None and pn is None and audit is not None:  # T6 or no lemma: no limit object is proved
            judge_claims(audit["record"], audit["claims"],
                         {"conclusion": (obj["theorem"], obj["verdict"])})
    except CheckFailure as exc:
        return Report(False, str(exc), steps_checked, time.perf_counter() - t_start)
    except BallError as exc:  # the checker's arithmetic could not settle a quantity
        return Report(False, f"arithmetic: Expected enclosures the checker can evaluate. "
                      f"Got {exc}.", steps_checked, time.perf_counter() - t_start)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError) as exc:
        raise Malformed(f"certificate field missing or of the wrong type: {exc!r}") from None
    return Report(True, msg, steps_checked, time.perf_counter() - t_start)


def _check_t7_verdict(obj: dict, pb: dict) -> None:
    """Lemma T7 proves Theorem 4.2's conclusion (and 5.2's when dim F = 1); each stored
    limit interval must contain the one the checker proved for the token's group (C10)."""
    if obj["theorem"] not in ("4.2", "5.2") or obj["verdict"] != "certified":
        raise CheckFailure("verdict", "'certified' for Theorem 4.2 or 5.2 (what Lemma T7 "
                           "proves)", f"{obj['verdict']!r} for Theorem {obj['theorem']}")
    lim = obj.get("limit") or {}
    group_of = {i: g for g, members in pb["groups"].items() for i in members}
    coords = lim.get("coordinate_limits")
    if not isinstance(coords, list) or len(coords) != len(group_of):
        raise CheckFailure("limit.coordinate_limits", f"{len(group_of)} intervals", repr(coords))
    for i, pair in enumerate(coords):
        _contains(pair, pb["limits"][group_of[i]], f"limit.coordinate_limits[{i}]")
    values = lim.get("hyperplane_values", [])
    keys = sorted(pb["limits"])
    if len(values) != len(keys):
        raise CheckFailure("limit.hyperplane_values", f"{len(keys)} values", repr(values))
    for pair, key in zip(values, keys):
        _contains(pair, pb["limits"][key], f"limit.hyperplane_values ({key})")
    if obj["theorem"] == "5.2" or "clusters" in lim:
        # F = span φ (dimension 1): each cluster's centre must contain limit × φ, and the
        # ≤ 2 points of a segment are its vertices, neither 0 (the limits exclude 0).
        clusters = lim.get("clusters")
        if not isinstance(clusters, list) or len(clusters) != len(keys):
            raise CheckFailure("limit.clusters", f"{len(keys)} clusters", repr(clusters))
        for idx, (cl, key) in enumerate(zip(clusters, keys)):
            where = f"limit.clusters[{idx}]"
            if sorted(cl.get("members", [])) != pb["groups"][key]:
                raise CheckFailure(f"{where}.members", str(pb["groups"][key]),
                                   repr(cl.get("members")))
            lo, hi = pb["limits"][key]
            for c, (a, b) in enumerate(pb["phi"]):
                ps = (lo * a, lo * b, hi * a, hi * b)
                _contains(cl["center"][c], (min(ps), max(ps)), f"{where}.center[{c}]")
            check_centre_flags(cl, where)


def _check_t6(lemma: dict, lam: Fraction, B: list[list[Fraction]], n: int, S: Any,
              t_end: Fraction, variable: str) -> None:
    """Lemma T6's inputs: q_i(T) = x_iᵀBx_i ≤ stored bound on the replayed box, and
    exp(L) ≥ n for the stored L ≥ log n; sup bound = max of both (Lemma C7)."""
    if variable != "x" or lam >= 0 or -lam != Fraction(lemma["mu"]) or \
            Fraction(lemma["T"]) != t_end:
        raise CheckFailure("tail_lemma", f"T6 data for V = −μI in x at T = {t_end}",
                           f"mu = {lemma.get('mu')}, T = {lemma.get('T')}")
    d = len(B)
    box = S.box().reshape(n, d)
    Bb = [[const(x) for x in row] for row in B]
    qs = [Fraction(q) for q in lemma["q_at_T_upper"]]
    for i in range(n):
        val = sum((box[i, a] * Bb[a][b] * box[i, b] for a in range(d) for b in range(d)),
                  const(0))
        if val.hi_q() > qs[i]:
            raise CheckFailure(f"tail_lemma.q_at_T_upper[{i}]",
                               f">= {float(val.hi_q())!r} (x_iᵀBx_i on the replayed box)",
                               str(lemma["q_at_T_upper"][i]))
    L = Fraction(lemma["log_n_upper"])
    if const(L).exp().lo_q() < n:
        raise CheckFailure("tail_lemma.log_n_upper", f"L with e^L >= {n}", str(L))
    if Fraction(lemma["sup_q_upper"]) < max(max(qs), L):
        raise CheckFailure("tail_lemma.sup_q_upper", f">= {float(max(max(qs), L))!r}",
                           str(lemma["sup_q_upper"]))


def _check_exact_audit(obj: dict, lemma: dict, kind: str, V: list, B: list, X0: list
                       ) -> dict:
    """Lemmas S0/S1/S2 and the limit objects of the certificate (Lemma C9)."""
    if obj.get("verdict") != "certified":
        raise CheckFailure("verdict", "'certified' (the lemma proves the limits)",
                           repr(obj.get("verdict")))
    lim = obj.get("limit") or {}
    if kind.startswith("S0"):
        facts = check_stationary(lemma, V, B, X0, lemma.get("witness_5_2"))
        for i, cl in enumerate(lim.get("clusters", [])):  # the tokens never move
            lo_hi = [[Fraction(str(a)), Fraction(str(b))] for a, b in cl.get("center", [])]
            if cl.get("members") != [i] or lo_hi != [[x, x] for x in X0[i]]:
                raise CheckFailure(f"limit.clusters[{i}]", f"token {i}'s initial position "
                                   "as its limit", repr(cl)[:80])
        return facts
    facts = check_symmetric(lemma, obj["instance"], V, B, X0)
    for i, cl in enumerate(lim.get("clusters", [])):
        if cl.get("members") != [i] or cl.get("center") != lemma["limits_z"][i]:
            raise CheckFailure(f"limit.clusters[{i}]", "the lemma's limit of token "
                               f"{i} (checked above)", repr(cl)[:80])
    P = facts["P_star"]
    stored = lim.get("attention_limit")
    if stored is not None and [[Fraction(str(x)) for x in row] for row in stored] != P:
        raise CheckFailure("limit.attention_limit", repr(P), repr(stored))
    if lim.get("attention_rank") is not None and lim["attention_rank"] != rank(P):
        raise CheckFailure("limit.attention_rank", str(rank(P)), repr(lim["attention_rank"]))
    return facts


def check_file(path: str, progress: Callable[[int, Fraction], None] | None = None,
               workers: int = 1) -> Report:
    """Read and check a certificate file (:class:`Malformed` if it is not readable JSON)."""
    try:
        with open(path, encoding="utf-8") as fh, _long_numbers():
            obj = json.load(fh)
    except OSError as exc:
        raise Malformed(f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Malformed(f"{path} is not JSON: {exc}") from None
    except ValueError as exc:  # an integer literal beyond MAX_STR_DIGITS digits
        raise Malformed(f"{path}: {exc}") from None
    return check_certificate(obj, progress, workers)
