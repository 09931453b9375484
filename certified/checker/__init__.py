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
from .balls import BallError, const, scaled
from .dynamics import Field
from .errors import CheckFailure, Malformed
from .lemmas import (_contains, check_centre_flags, check_enclosure_at_T,
                     check_leader_follower, check_t4_verdict)
from .paranormal import (check_paranormal, check_paranormal_enclosure,
                         check_paranormal_verdict)
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


@dataclass
class _Ctx:
    """What every rule reads: the certificate, its exact instance and derived data."""

    obj: dict
    V: list
    B: list
    X0: list
    lam: Fraction | None
    lemma: dict | None
    integ: dict | None
    audit: dict | None
    progress: Callable[[int, Fraction], None] | None
    workers: int
    steps_checked: int = 0

    @property
    def n(self) -> int:
        return len(self.X0)

    @property
    def d(self) -> int:
        return len(self.V)

    def judge(self, facts: dict | None = None) -> None:
        """Re-judge an audit's claims from the proved facts (conclusion only by default)."""
        if self.audit is not None:
            judge_claims(self.audit["record"], self.audit["claims"],
                         dict(facts or {}, conclusion=(self.obj["theorem"], self.obj["verdict"])))


@dataclass(frozen=True)
class _Rule:
    """One tail lemma: ``prepare`` checks the lemma on its stored data and the verdict it
    implies (cheap, before the replay) and returns the parsed lemma; ``at_T`` checks the
    stored boxes against the replayed enclosure at T; ``finish`` re-judges audit claims
    and returns the report's message."""

    variable: str | None  # the integration variable the lemma is about (None: any)
    needs_scalar_V: bool
    prepare: Callable[[_Ctx], dict]
    at_T: Callable[[_Ctx, dict, Any], None]
    finish: Callable[[_Ctx, dict], str]


def _replayed(ctx: _Ctx, what: str) -> str:
    t_end = ctx.integ["replay"]["t_end"]
    return (f"valid: {ctx.steps_checked} steps re-verified to t = {Fraction(t_end)}{what}; "
            f"verdict {ctx.obj['verdict']!r} for Theorem {ctx.obj['theorem']}")


# -- Lemma T4 (V = λI, in z) ------------------------------------------------------------------

def _t4_prepare(ctx: _Ctx) -> dict:
    lf = check_leader_follower(ctx.lemma, ctx.lam, ctx.B, ctx.n)
    check_t4_verdict(ctx.obj, lf, ctx.X0, ctx.B)
    return lf


def _t4_finish(ctx: _Ctx, lf: dict) -> str:
    n = ctx.n
    P = [[Fraction(int(j == lf["leader"][i])) for j in range(n)] for i in range(n)]
    ctx.judge({"clusters": len(set(lf["leader"])), "P_star": P})
    return _replayed(ctx, "; Lemma T4 re-checked")


# -- Lemma T6 (V = −μI, B symmetric positive definite, in x) -----------------------------------

def _t6_prepare(ctx: _Ctx) -> dict:
    if ctx.obj["verdict"] != "undecided":
        raise CheckFailure("verdict", "'undecided' (no lemma proves a limit here)",
                           repr(ctx.obj["verdict"]))
    return {"T": Fraction(ctx.lemma["T"])}


def _t6_at_T(ctx: _Ctx, parsed: dict, S: Any) -> None:
    _check_t6(ctx.lemma, ctx.lam, ctx.B, ctx.n, S, Fraction(ctx.integ["replay"]["t_end"]),
              ctx.integ.get("variable", "z"))


def _t6_finish(ctx: _Ctx, parsed: dict) -> str:
    ctx.judge()
    return _replayed(ctx, "; Lemma T6 bound re-checked")


# -- Lemma T7 (Theorem 4.2's coordinate, V ≠ λI, in x) ----------------------------------------

def _t7_prepare(ctx: _Ctx) -> dict:
    pb = check_projected(ctx.lemma, ctx.V, ctx.B, ctx.n)
    _check_t7_verdict(ctx.obj, pb)
    return pb


def _t7_at_T(ctx: _Ctx, pb: dict, S: Any) -> None:
    check_enclosure_at_T({"leader": list(range(ctx.n)), "boxes": pb["boxes"], "diffs": {}}, S)


def _t7_finish(ctx: _Ctx, pb: dict) -> str:
    ctx.judge()
    return _replayed(ctx, " (in x); Lemma T7 re-checked")


# -- Lemma T8 (Theorem 5.2, paranormal V, dim F ≥ 2, in x) -------------------------------------

def _t8_prepare(ctx: _Ctx) -> dict:
    pn = check_paranormal(ctx.lemma, ctx.V, ctx.B, ctx.n)
    check_paranormal_verdict(ctx.obj, pn, ctx.X0)
    return pn


def _t8_at_T(ctx: _Ctx, pn: dict, S: Any) -> None:
    check_paranormal_enclosure(pn, S, ctx.n, ctx.d)


def _t8_finish(ctx: _Ctx, pn: dict) -> str:
    ctx.judge()
    return _replayed(ctx, " (in x); Lemma T8 re-checked")


# -- no lemma: the replay alone, verdict undecided ----------------------------------------------

def _none_prepare(ctx: _Ctx) -> dict:
    if ctx.obj["verdict"] != "undecided":
        raise CheckFailure("verdict", "'undecided' (no lemma proves a limit here)",
                           repr(ctx.obj["verdict"]))
    return {"T": None}


def _none_at_T(ctx: _Ctx, parsed: dict, S: Any) -> None:
    return None


def _none_finish(ctx: _Ctx, parsed: dict) -> str:
    ctx.judge()
    return (f"valid: {ctx.steps_checked} steps re-verified to t = "
            f"{Fraction(ctx.integ['replay']['t_end'])}; verdict undecided")


#: The tail lemmas a replayed certificate may carry, by their code ("T4" …; None: no lemma).
LEMMAS: dict[str | None, _Rule] = {
    "T4": _Rule("z", True, _t4_prepare, lambda ctx, lf, S: check_enclosure_at_T(lf, S),
                _t4_finish),
    "T6": _Rule("x", True, _t6_prepare, _t6_at_T, _t6_finish),
    "T7": _Rule("x", False, _t7_prepare, _t7_at_T, _t7_finish),
    "T8": _Rule("x", False, _t8_prepare, _t8_at_T, _t8_finish),
    None: _Rule(None, False, _none_prepare, _none_at_T, _none_finish),
}


def _lemma_code(lemma: Any) -> str | None:
    if lemma is None:
        return None
    return str(lemma.get("lemma", "")).split(" ", 1)[0]


def _continuous(ctx: _Ctx) -> None:
    """What the lemmas and the replay are about: continuous time, no variant."""
    inst = ctx.obj["instance"]
    if inst.get("time", "continuous") != "continuous" or inst.get("variant"):
        raise CheckFailure("instance", "continuous time without variant (for the "
                           "integration and lemmas claimed)", "another setting")


def _check_exact(ctx: _Ctx, code: str) -> str:
    """Lemmas S0, S1, S2: the audit's setting decided exactly, no integration."""
    _continuous(ctx)
    facts = _check_exact_audit(ctx.obj, ctx.lemma, code, ctx.V, ctx.B, ctx.X0)
    judge_claims(ctx.audit["record"], ctx.audit["claims"], facts)
    how = ("exact setting, constant P enclosed" if code == "S0" else
           "exact setting, own quadrature and limits")
    return (f"valid: Lemma {code} re-checked ({how}); {len(ctx.audit['claims'])} claim "
            "verdicts re-judged")


def _check_unintegrated(ctx: _Ctx) -> str:
    """No integration: nothing is proved, so the verdict (and every claim) is undecided
    (in any time setting: e.g. discrete time or a variant)."""
    if ctx.lemma is not None:
        raise CheckFailure("integration", "the validated steps behind the lemma", "null")
    if ctx.obj["verdict"] != "undecided":
        raise CheckFailure("verdict", "'undecided' (nothing was integrated)",
                           repr(ctx.obj["verdict"]))
    ctx.judge()
    return "valid: no integration, no lemma, verdict undecided"


def _check_replayed(ctx: _Ctx, code: str | None) -> str:
    """A tail lemma (or none) on top of replayed steps: the lemma's rule first (cheap),
    then every step in the checker's own arithmetic, the lemma's boxes at T last."""
    _continuous(ctx)
    if code not in LEMMAS:
        raise CheckFailure("tail_lemma.lemma", "T4, T6, T7 or T8", repr(ctx.lemma.get("lemma")))
    rule = LEMMAS[code]
    if ctx.lam is None and rule.needs_scalar_V:
        raise CheckFailure("instance.V", "V = λI (or Lemma T7's or T8's data in x for "
                           "another V)", "another V")
    parsed = rule.prepare(ctx)
    integ = ctx.integ
    replay = integ.get("replay")
    if replay is None:
        raise CheckFailure("integration.replay", "replay data for every step",
                           integ.get("replay_note", "none"))
    t_end = Fraction(replay["t_end"])
    variable = integ.get("variable", "z")
    if rule.variable is not None and (variable != rule.variable or parsed["T"] != t_end):
        raise CheckFailure("tail_lemma.T", f"the end of the replay, t = {t_end} (in "
                           f"{rule.variable})", str(ctx.lemma["T"]))
    if ctx.lam is None and variable != "x":  # a lemma T7/T8 run that stopped undecided, say
        raise CheckFailure("integration.variable", "'x' (the checker's field for V ≠ λI "
                           "is in the original variable)", repr(variable))
    field = (Field(None, ctx.B, ctx.n, "x", V=ctx.V) if ctx.lam is None
             else Field(ctx.lam, ctx.B, ctx.n, variable))
    records = replay["records"]
    replay_steps(field, ctx.X0, integ["steps"], records, t_end, ctx.progress, ctx.workers,
                 lambda S: rule.at_T(ctx, parsed, S))
    ctx.steps_checked = len(records)
    return rule.finish(ctx, parsed)


def _check_certificate(obj: Any, progress: Callable[[int, Fraction], None] | None,
                       workers: int) -> Report:
    t_start = time.perf_counter()
    _schema_check(obj)
    _number_sizes_check(obj)
    ctx = None
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
        d = len(V)
        B = [[sum((Q[r][a] * K[r][b] for r in range(len(Q))), Fraction(0)) for b in range(d)]
             for a in range(d)]
        ctx = _Ctx(obj, V, B, X0, _scalar(V), obj.get("tail_lemma"), obj.get("integration"),
                   audit, progress, workers)
        code = _lemma_code(ctx.lemma)
        # The balls' scale is module state: set for this check only (restored after), before
        # any ball is made. Finer than the producer's precision.
        bits = (int(ctx.integ["bits"]) + 64 if ctx.integ is not None else
                max(256, int((obj.get("precision") or {}).get("bits", 0)) + 64))
        with scaled(bits):
            if audit is not None and code in ("S0", "S1", "S2"):
                msg = _check_exact(ctx, code)
            elif ctx.integ is None:
                msg = _check_unintegrated(ctx)
            else:
                msg = _check_replayed(ctx, code)
    except CheckFailure as exc:
        return Report(False, str(exc), ctx.steps_checked if ctx else 0,
                      time.perf_counter() - t_start)
    except BallError as exc:  # the checker's arithmetic could not settle a quantity
        return Report(False, f"arithmetic: Expected enclosures the checker can evaluate. "
                      f"Got {exc}.", ctx.steps_checked if ctx else 0,
                      time.perf_counter() - t_start)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError) as exc:
        raise Malformed(f"certificate field missing or of the wrong type: {exc!r}") from None
    return Report(True, msg, ctx.steps_checked, time.perf_counter() - t_start)


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
