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

import json
import os
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from .audits import judge_claims, render_claims, same_record
from .balls import BallError, scaled
from .dynamics import Field
from .energy import (check_t6_at_T, check_t6_data, check_t6_limit, check_t9_data,
                     check_t9_limit)
from .errors import CheckFailure, Malformed, NotAnAudit
from .limits import check_limits
from .two_tokens import check_two_tokens
from .exact_lemmas import (_check_exact, _check_stationary_verify, _check_symmetric_verify,
                           _continuous)
from .hypotheses import decide, is_positive_definite
from .claims import THEOREMS, check_timescale, nothing_claimed
from .discrete import check_discrete
from .lemmas import (T4_KEYS, check_enclosure_at_T, check_leader_follower, check_t4_verdict,
                     closed)
from .selftest import ArithmeticUnfit, arithmetic_selftest
from .paranormal import (T8_KEYS, T8_TITLE, check_paranormal, check_paranormal_enclosure,
                         check_paranormal_verdict)
from .projected import T7_KEYS, T7_TITLE, check_projected, check_t7_verdict
from .reading import (  # re-exported: tests and callers use these names here
    MAX_FILE_BYTES,
    _long_numbers,
    exact_number,
    types_check,
    loads_exact,
    _matrix,
    _number_sizes_check,
    _scalar,
    _schema_check,
    digest,
)
from .replay import replay_steps

#: the fields of an instance (instance.schema.json): prose (name, format, version), the
#: matrices, and the time setting and variant, which the lemmas must match
_INSTANCE_KEYS = {"format", "version", "name", "V", "Q", "K", "X0", "time", "variant"}

__all__ = ["ArithmeticUnfit", "CheckFailure", "LEMMAS", "Malformed", "Report", "check_certificate", "check_file", "digest"]


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



def check_certificate(obj: Any, progress: Callable[[int, Fraction], None] | None = None,
                      workers: int = 1, run_chunks: Callable | None = None,
                      record: Any = None) -> Report:
    """Re-verify a parsed certificate. Raises :class:`Malformed` if it cannot be read;
    returns a :class:`Report` (invalid with the first failure, or valid).

    ``workers`` > 1 replays contiguous chunks of the steps in that many processes
    (:func:`.replay.replay_steps`, Lemma C12): a valid report is proved whatever the
    chunks, and an invalid certificate names the same first failure as with 1.
    ``run_chunks(fn, payloads)``, if given, runs those chunks elsewhere (e.g. on Dask:
    :meth:`certified.studies.engine.Engine.map_unordered`), with the same guarantees.
    ``record``, if given, is a parsed counterexample record: the certificate must be an
    audit of exactly that record (:func:`.audits.same_record`), which ties each claim's
    statement to the reading the checker judges."""
    arithmetic_selftest()  # raises ArithmeticUnfit (a Malformed: exit 2) on a bad FPU mode
    with _long_numbers():
        return _check_certificate(obj, progress, workers, run_chunks=run_chunks,
                                  record=record)


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
    run_chunks: Callable | None = None  # an external executor for the chunks (Dask)
    steps_checked: int = 0
    replay: bool = True  # False only in _check_claims_only (tests): never a valid report

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

    title: str | None  # the lemma's full name, compared verbatim
    keys: frozenset  # the fields of its tail_lemma object (closed)
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

def _energy_setting(ctx: _Ctx, code: str) -> None:
    """Lemmas T6 and T9 differentiate x_iᵀBx_i: they need B = Bᵀ ≻ 0 (exactly)."""
    if not is_positive_definite(ctx.B):
        raise CheckFailure("tail_lemma", f"Lemma {code}'s hypothesis QᵀK symmetric positive "
                           "definite (exact)", "another QᵀK")


def _t6_prepare(ctx: _Ctx) -> dict:
    _energy_setting(ctx, "T6")
    check_t6_limit(ctx.obj, ctx.lemma)
    _t6_data(ctx)
    return {"T": Fraction(ctx.lemma["T"])}


def _t6_data(ctx: _Ctx) -> None:
    integ = ctx.integ
    check_t6_data(ctx.lemma, ctx.lam, Fraction(integ["replay"]["t_end"]),
                  integ.get("variable", "z"))


def _t6_at_T(ctx: _Ctx, parsed: dict, S: Any) -> None:
    check_t6_at_T(ctx.lemma, ctx.B, ctx.n, S)


def _t6_finish(ctx: _Ctx, parsed: dict) -> str:
    ctx.judge()
    return _replayed(ctx, "; Lemma T6 bound re-checked")


# -- Lemma T9 (Theorem 8.5 at t = ∞: T6's data and the energy decay, in x) ---------------------

def _t9_prepare(ctx: _Ctx) -> dict:
    _energy_setting(ctx, "T9")
    _t6_data(ctx)
    t9 = check_t9_data(ctx.lemma, ctx.n, ctx.d)
    check_t9_limit(ctx.obj, ctx.lemma, t9["c"], ctx.n, ctx.d)
    return {"T": Fraction(ctx.lemma["T"])}  # what the dispatcher reads (T6's check at T)


def _t9_finish(ctx: _Ctx, parsed: dict) -> str:
    n = ctx.n
    ctx.judge({"clusters": 1, "P_star": [[Fraction(1, n)] * n for _ in range(n)]})
    return _replayed(ctx, "; Lemma T9 re-checked")


# -- Lemma T7 (Theorem 4.2's coordinate, V ≠ λI, in x) ----------------------------------------

def _t7_prepare(ctx: _Ctx) -> dict:
    pb = check_projected(ctx.lemma, ctx.V, ctx.B, ctx.n)
    check_t7_verdict(ctx.obj, pb)
    return pb


def _t7_at_T(ctx: _Ctx, pb: dict, S: Any) -> None:
    check_enclosure_at_T({"leader": list(range(ctx.n)), "boxes": pb["boxes"], "diffs": {}}, S)


def _t7_finish(ctx: _Ctx, pb: dict) -> str:
    ctx.judge()
    return _replayed(ctx, " (in x); Lemma T7 re-checked")


# -- Lemma T8 (Theorem 5.2, paranormal V; with dim F = 1 also 4.2, in x) ------------------------

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
    nothing_claimed(ctx.obj)
    return {}  # no lemma, no T: the replay's own end is all that is claimed


def _none_at_T(ctx: _Ctx, parsed: dict, S: Any) -> None:
    return None


def _none_finish(ctx: _Ctx, parsed: dict) -> str:
    ctx.judge()
    return (f"valid: {ctx.steps_checked} steps re-verified to t = "
            f"{Fraction(ctx.integ['replay']['t_end'])}; verdict undecided")


#: The tail lemmas a replayed certificate may carry, by their code ("T4" …; None: no lemma).
LEMMAS: dict[str | None, _Rule] = {
    "T4": _Rule("T4 (leader-follower, V = λI)", T4_KEYS, "z", True, _t4_prepare, lambda ctx, lf, S: check_enclosure_at_T(lf, S),
                _t4_finish),
    "T6": _Rule("T6 (energy bound, V = −μI, B symmetric positive definite)",
                frozenset({"lemma", "T", "mu", "q_at_T_upper", "log_n_upper", "sup_q_upper"}),
                "x", True, _t6_prepare, _t6_at_T, _t6_finish),
    "T9": _Rule("T9 (energy decay, V = −μI, B symmetric positive definite)",
                frozenset({"lemma", "T", "mu", "q_at_T_upper", "log_n_upper", "sup_q_upper",
                           "E_T_upper", "rank_bound", "kappa_lower", "c_lower"}),
                "x", True, _t9_prepare, _t6_at_T, _t9_finish),
    "T7": _Rule(T7_TITLE, T7_KEYS, "x", False, _t7_prepare, _t7_at_T, _t7_finish),
    "T8": _Rule(T8_TITLE, T8_KEYS,
                "x", False, _t8_prepare, _t8_at_T, _t8_finish),
    None: _Rule(None, frozenset(), None, False, _none_prepare, _none_at_T, _none_finish),
}


def _lemma_code(lemma: Any) -> str | None:
    if lemma is None:
        return None
    return str(lemma.get("lemma", "")).split(" ", 1)[0]


def _check_hypotheses(ctx: _Ctx, code: str | None) -> None:
    """``hypotheses_hold`` re-decided exactly (Lemma C16): ``true`` must be proved,
    ``false`` must not be disproved, ``null`` claims nothing. For the audit lemmas S0–S2
    the hypotheses are the lemma's setting, decided exactly by its own check below (a
    ``false`` there is disproved by it)."""
    claim = ctx.obj.get("hypotheses_hold")
    if claim is None:
        return
    audit_lemma = ctx.audit is not None and code in ("S0", "S1", "S2")
    if audit_lemma:
        truth: bool | None = True  # or the lemma's check fails
    else:
        truth = decide(str(ctx.obj["theorem"]), ctx.V, ctx.B, ctx.X0)
    if claim is True and truth is not True:
        raise CheckFailure("hypotheses_hold", "false or null (the checker " + (
            f"disproves the hypotheses of theorem {ctx.obj['theorem']} exactly)" if truth is False
            else f"cannot confirm the hypotheses of theorem {ctx.obj['theorem']})"), "true")
    if claim is False and truth is True:
        raise CheckFailure("hypotheses_hold", "true (" + (
            f"the setting of Lemma {code}, which its check decides exactly" if audit_lemma else
            f"the hypotheses of theorem {ctx.obj['theorem']} proved exactly by the checker")
            + ")", "false")


def _check_unintegrated(ctx: _Ctx) -> str:
    """No integration: nothing is proved, so the verdict (and every claim) is undecided
    (in any time setting: e.g. discrete time or a variant)."""
    if ctx.lemma is not None:
        raise CheckFailure("integration", "the validated steps behind the lemma", "null")
    nothing_claimed(ctx.obj)
    ctx.judge()
    return "valid: no integration, no lemma, verdict undecided"


def _check_replayed(ctx: _Ctx, code: str | None) -> str:
    """A tail lemma (or none) on top of replayed steps: the lemma's rule first (cheap),
    then every step in the checker's own arithmetic, the lemma's boxes at T last."""
    _continuous(ctx)
    if str(ctx.obj.get("theorem")) not in THEOREMS:  # what the verdict is about
        raise CheckFailure("theorem", "one of " + ", ".join(THEOREMS) + " (a theorem whose "
                           "conclusion the replayed steps and lemma are about)",
                           repr(ctx.obj.get("theorem")))
    if code not in LEMMAS:
        raise CheckFailure("tail_lemma.lemma", "T4, T6, T7, T8 or T9",
                           repr(ctx.lemma.get("lemma")))
    rule = LEMMAS[code]
    if rule.title is not None:
        if ctx.lemma.get("lemma") != rule.title:
            raise CheckFailure("tail_lemma.lemma", repr(rule.title), repr(ctx.lemma.get("lemma")))
        closed(ctx.lemma, set(rule.keys), "tail_lemma")
        if not isinstance(ctx.lemma.get("coordinates", ""), str):
            raise CheckFailure("tail_lemma.coordinates", "a string", "another type")
    if ctx.lam is None and rule.needs_scalar_V:
        raise CheckFailure("instance.V", "V = λI (or Lemma T7's or T8's data in x for "
                           "another V)", "another V")
    integ = ctx.integ
    replay = integ.get("replay")
    if replay is None:  # before the lemma's rule, which reads the replay's end
        raise CheckFailure("integration.replay", "replay data for every step",
                           integ.get("replay_note", "none"))
    parsed = rule.prepare(ctx)
    t_end = Fraction(replay["t_end"])
    variable = integ.get("variable", "z")
    if rule.variable is not None and variable != rule.variable:
        raise CheckFailure("integration.variable", f"{rule.variable!r} (Lemma {code} is about "
                           f"{rule.variable})", repr(variable))
    if rule.variable is not None and parsed["T"] != t_end:
        raise CheckFailure("tail_lemma.T", f"the end of the replay, integration.replay.t_end "
                           f"= {t_end} (in "
                           f"{rule.variable})", str(ctx.lemma["T"]))
    if ctx.lam is None and variable != "x":  # a lemma T7/T8 run that stopped undecided, say
        raise CheckFailure("integration.variable", "'x' (the checker's field for V ≠ λI "
                           "is in the original variable)", repr(variable))
    field = (Field(None, ctx.B, ctx.n, "x", V=ctx.V) if ctx.lam is None
             else Field(ctx.lam, ctx.B, ctx.n, variable))
    records = replay["records"]
    _check_integration_claims(ctx, t_end, parsed)
    if not ctx.replay:
        return "claims checked; steps NOT replayed"
    replay_steps(field, ctx.X0, integ["steps"], records, t_end, ctx.progress, ctx.workers,
                 lambda S: rule.at_T(ctx, parsed, S), run_chunks=ctx.run_chunks)
    ctx.steps_checked = len(records)
    return rule.finish(ctx, parsed)


def _check_integration_claims(ctx: _Ctx, t_end: Fraction, parsed: dict) -> None:
    """The integration's and the timescale's own claims: the replayed step count, the
    time the steps reach, and the lemma's time T."""
    integ, replay = ctx.integ, ctx.integ["replay"]
    if replay.get("steps") != len(replay["records"]):
        raise CheckFailure("integration.replay.steps", str(len(replay["records"])),
                           repr(replay.get("steps")))
    steps = integ["steps"]
    if len(steps) != len(replay["records"]):  # nothing is claimed that is not replayed
        raise CheckFailure("integration.steps", f"{len(replay['records'])} steps, one per "
                           "replay record", f"{len(steps)} steps")
    end = Fraction(steps[-1][0]) + Fraction(steps[-1][1]) if steps else Fraction(0)
    until = exact_number(integ.get("certified_until", str(end)), "integration.certified_until")
    # Nothing beyond the replay is certified: the steps end where the replay ends.
    if until != end or until != t_end:
        raise CheckFailure("integration.certified_until", f"{t_end} (the end of the replayed "
                           "steps, integration.replay.t_end, which the last of "
                           "integration.steps must end at; certificates written before "
                           "version 0.2 could carry unreplayed steps: verify again)",
                           str(integ.get("certified_until")))
    check_timescale(ctx, parsed)


def _check_claims_only(obj: Any) -> str:
    """For the mutation tests only: every check except the replay of the steps and the
    comparison of the lemma's boxes with the replayed set at T. Returns the message or
    raises CheckFailure; its outcome is never a certificate's verdict."""
    with _long_numbers():
        rep = _check_certificate(obj, None, 1, replay=False)
    if not rep.valid:
        raise CheckFailure(*_split_failure(rep.message))
    return rep.message


def _split_failure(message: str) -> tuple[str, str, str]:
    where, _, rest = message.partition(": Expected ")
    expected, _, got = rest.partition(". Got ")
    return where, expected, got.rstrip(".")


def _check_certificate(obj: Any, progress: Callable[[int, Fraction], None] | None,
                       workers: int, replay: bool = True,
                       run_chunks: Callable | None = None, record: Any = None) -> Report:
    t_start = time.perf_counter()
    _schema_check(obj)
    _number_sizes_check(obj)
    ctx = None
    try:
        check_limits(obj)  # sizes no honest certificate of its precision has: before work
        types_check(obj)  # floats and booleans only where the format writes them
        if obj.get("digest") != digest(obj):
            raise CheckFailure("digest", digest(obj), repr(obj.get("digest")))
        inst = obj["instance"]
        V, Q, K, X0 = (_matrix(inst, k) for k in ("V", "Q", "K", "X0"))
        audit = obj.get("audit")
        if record is not None:  # before any work: the user's record, or nothing to check
            if audit is None:
                raise NotAnAudit("the certificate is not an audit (no audit.record), so "
                                 "there is no record to compare with")
            same_record(audit["record"], record)
        if audit is not None:
            rinst = closed(audit["record"]["instance"], _INSTANCE_KEYS,
                           "audit.record.instance")
            if [_matrix(rinst, k) for k in ("V", "Q", "K", "X0")] != [V, Q, K, X0] or any(
                    rinst.get(k) != inst.get(k) for k in ("time", "variant")):
                raise CheckFailure("audit.record.instance", "the certificate's instance",
                                   "another instance")
        d = len(V)
        _shapes(V, Q, K, X0, inst)
        B = [[sum((Q[r][a] * K[r][b] for r in range(len(Q))), Fraction(0)) for b in range(d)]
             for a in range(d)]
        ctx = _Ctx(obj, V, B, X0, _scalar(V), obj.get("tail_lemma"), obj.get("integration"),
                   audit, progress, workers, run_chunks=run_chunks, replay=replay)
        code = _lemma_code(ctx.lemma)
        _check_hypotheses(ctx, code)
        # The balls' scale is module state: set for this check only (restored after), before
        # any ball is made. Finer than the producer's precision.
        bits = (int(ctx.integ["bits"]) + 64 if ctx.integ is not None else
                max(256, int((obj.get("precision") or {}).get("bits", 0)) + 64))
        tm = inst.get("time")
        discrete = isinstance(tm, dict) and "discrete" in tm and ctx.integ is not None
        if discrete:
            # the layer map is iterated as plain balls (no Lohner sets): twice the bits
            # leave room for its wrapping (C21)
            bits = 2 * int(ctx.integ["bits"]) + 64
        with scaled(bits):
            if discrete or code == "T10":
                msg = check_discrete(ctx)
            elif audit is not None and code in ("S0", "S1", "S2"):
                msg = _check_exact(ctx, code)
            elif code in ("S1", "S2") and ctx.integ is None:
                msg = _check_symmetric_verify(ctx, code)
            elif code == "S0" and ctx.integ is None:
                msg = _check_stationary_verify(ctx)
            elif code == "S3" and ctx.integ is None:
                msg = check_two_tokens(ctx)
            elif ctx.integ is None:
                msg = _check_unintegrated(ctx)
            else:
                msg = _check_replayed(ctx, code)
            if audit is not None and replay:  # what was judged, in the checker's words
                # (after the judgement, which a claims-only check of steps skips)
                msg += f"; claims: {render_claims(audit)}"
    except CheckFailure as exc:
        return Report(False, str(exc), ctx.steps_checked if ctx else 0,
                      time.perf_counter() - t_start)
    except BallError as exc:  # the checker's arithmetic could not settle a quantity
        return Report(False, f"arithmetic: Expected enclosures the checker can evaluate. "
                      f"Got {exc}.", ctx.steps_checked if ctx else 0,
                      time.perf_counter() - t_start)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError,
            AttributeError) as exc:
        raise Malformed(f"certificate field missing or of the wrong type: {exc!r}") from None
    return Report(True, msg, ctx.steps_checked, time.perf_counter() - t_start)


def _shapes(V: list, Q: list, K: list, X0: list, inst: dict) -> None:
    """The instance's shapes: V d×d (d ≥ 1), Q and K r×d with the same r ≥ 1, n ≥ 1
    tokens of d coordinates; ``variant`` absent or null (an object names a variant)."""
    d = len(V)
    if d < 1 or any(len(row) != d for row in V):
        raise CheckFailure("instance.V", "a d×d matrix, d >= 1", f"{d} rows")
    for name, M in (("Q", Q), ("K", K)):
        if len(M) != len(Q) or len(M) < 1 or any(len(row) != d for row in M):
            raise CheckFailure(f"instance.{name}", f"an r×{d} matrix (r >= 1, Q and K alike)",
                               "another shape")
    if len(X0) < 1 or any(len(row) != d for row in X0):
        raise CheckFailure("instance.X0", f"n >= 1 tokens of {d} coordinates", "another shape")
    if inst.get("variant") is not None:  # verify refuses the variants: no claim is about one
        raise CheckFailure("instance.variant", "absent or null (certificates are about the "
                           "paper's dynamics; a variant is simulated, never verified)",
                           repr(inst["variant"])[:60])


def check_file(path: str, progress: Callable[[int, Fraction], None] | None = None,
               workers: int = 1, run_chunks: Callable | None = None,
               record: str | None = None) -> Report:
    """Read and check a certificate file (:class:`Malformed` if it or the ``record`` file
    is not readable JSON); ``record`` names the counterexample record the certificate
    must be an audit of (:func:`check_certificate`)."""
    obj = _read_json(path)
    return check_certificate(obj, progress, workers, run_chunks,
                             record=None if record is None else _read_json(record))


def _read_json(path: str) -> Any:
    """A JSON file read exactly (:func:`.reading.loads_exact`), its size bounded first."""
    try:
        size = os.stat(path).st_size
        if size > MAX_FILE_BYTES:  # before reading a byte of it
            raise Malformed(f"{path} is {size} bytes, over the checker's limit of "
                            f"{MAX_FILE_BYTES} bytes")
        with open(path, "rb") as fh, _long_numbers():
            return loads_exact(fh.read(MAX_FILE_BYTES + 1))
    except OSError as exc:
        raise Malformed(f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Malformed(f"{path} is not JSON: {exc}") from None
    except ValueError as exc:  # an integer literal beyond MAX_STR_DIGITS digits
        raise Malformed(f"{path}: {exc}") from None
