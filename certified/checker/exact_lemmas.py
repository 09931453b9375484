"""The lemmas solved exactly to t = ∞ — S0 (stationary), S1 (symmetric pair), S2 (the
middle token) — re-checked in audit certificates (Lemma C9) and in ``verify`` certificates
(Lemmas C19, C19b). ``ctx`` is the checker's per-certificate context (``checker._Ctx``:
obj, V, B, X0, d, lemma, audit)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .audits import (check_stationary, check_symmetric, judge_claims, rank, same,
                     stationary_expected)
from .errors import CheckFailure
from .claims import THEOREMS
from .lemmas import _q, _t4_expected, closed

_Ctx = Any  # checker._Ctx (defined above this module: no import back)


def _continuous(ctx: _Ctx) -> None:
    """What the lemmas and the replay are about: continuous time, no variant."""
    inst = ctx.obj["instance"]
    if inst.get("time", "continuous") != "continuous" or inst.get("variant") is not None:
        raise CheckFailure("instance", "continuous time without variant (for the "
                           "integration and lemmas claimed)", "another setting")


#: the audit lemmas' titles (compared verbatim)
AUDIT_LEMMAS = {"S0": "S0 (stationary configuration, proofs_notes/audits.md)",
                "S1": "S1 (symmetric pair, proofs_notes/audits.md)",
                "S2": "S2 (odd-symmetric triple in d = 1, proofs_notes/audits.md)"}


def _check_exact(ctx: _Ctx, code: str) -> str:
    """Lemmas S0, S1, S2: the audit's setting decided exactly, no integration."""
    _continuous(ctx)
    if ctx.lemma.get("lemma") != AUDIT_LEMMAS[code]:
        raise CheckFailure("tail_lemma.lemma", repr(AUDIT_LEMMAS[code]),
                           repr(ctx.lemma.get("lemma")))
    facts = _check_exact_audit(ctx.obj, ctx.lemma, code, ctx.V, ctx.B, ctx.X0)
    judge_claims(ctx.audit["record"], ctx.audit["claims"], facts)
    how = ("exact setting, constant P enclosed" if code == "S0" else
           "exact setting, own quadrature and limits")
    return (f"valid: Lemma {code} re-checked ({how}); {len(ctx.audit['claims'])} claim "
            "verdicts re-judged")


def _symmetric_expected(code: str, theorem: str, X0: list, d: int) -> str:
    """The verdict Lemma S1's or S2's limits imply (C19): S1 is Lemma T4's situation with
    the leader map [0, 1]; S2 (d = 1, tokens −a, 0, a) has limits −a', 0, a', outer rows
    of P* their own unit vectors and middle row (1/3, 1/3, 1/3): certified for 2.1 (one
    exceptional row), 3.1, 4.2 and 5.2, refuted for 8.5."""
    if code == "S1":
        return _t4_expected(theorem, {"leader": [0, 1]}, X0, d)[0]
    return "refuted" if theorem == "8.5" else "certified"


def _check_symmetric_verify(ctx: _Ctx, code: str) -> str:
    """Lemma S1 or S2 in a ``verify`` certificate (no audit, no integration; Lemma C19):
    the lemma re-checked as for an audit (C9), and the verdict its limits imply: certified
    with C9's limit checks, refuted (8.5) with an entry of P* that is not 1/n, or
    undecided (S1, 4.2 in d ≥ 2) with no limit."""
    _continuous(ctx)
    if ctx.lemma.get("lemma") != AUDIT_LEMMAS[code]:
        raise CheckFailure("tail_lemma.lemma", repr(AUDIT_LEMMAS[code]),
                           repr(ctx.lemma.get("lemma")))
    _no_time_scale(ctx)
    theorem, verdict = ctx.obj["theorem"], ctx.obj["verdict"]
    if theorem not in THEOREMS:
        raise CheckFailure("theorem", "one of " + ", ".join(THEOREMS), repr(theorem)[:60])
    closed(ctx.lemma, _LEMMA_KEYS[code], "tail_lemma")
    expected = _symmetric_expected(code, theorem, ctx.X0, ctx.d)
    if verdict != expected:
        raise CheckFailure("verdict", f"{expected!r} (what Lemma {code}'s limits imply for "
                           f"Theorem {theorem})", repr(verdict))
    other = "evidence" if verdict == "certified" else "limit"
    if ctx.obj.get(other) is not None:
        raise CheckFailure(other, f"null (the verdict is {verdict!r})",
                           repr(ctx.obj[other])[:60])
    if verdict == "certified":
        _check_exact_audit(ctx.obj, ctx.lemma, code, ctx.V, ctx.B, ctx.X0)
    else:
        facts = check_symmetric(ctx.lemma, ctx.V, ctx.B, ctx.X0)
        ev = ctx.obj.get("evidence")
        if verdict == "undecided" and ev is not None:
            raise CheckFailure("evidence", "null (nothing is claimed)", repr(ev)[:60])
        if verdict == "refuted":
            P, n = facts["P_star"], len(ctx.X0)
            ev = closed(ev or {}, {"entry", "attention_limit"}, "evidence")
            e = ev.get("entry")
            if not (isinstance(e, list) and len(e) == 2 and all(
                    isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n for x in e)
                    and P[e[0]][e[1]] != Fraction(1, n)):
                raise CheckFailure("evidence.entry", f"[i, j] with P*_ij ≠ 1/{n} "
                                   f"(P* = {[[str(x) for x in row] for row in P]})", repr(e))
            if "attention_limit" in ev and [[_q(x, "evidence.attention_limit") for x in row]
                                            for row in ev["attention_limit"]] != P:
                raise CheckFailure("evidence.attention_limit",
                                   repr([[str(x) for x in row] for row in P]),
                                   repr(ev["attention_limit"]))
    return (f"valid: Lemma {code} re-checked (exact setting, own quadrature and limits); "
            f"verdict {verdict!r} for Theorem {theorem}")


def _no_time_scale(ctx: _Ctx) -> None:
    """A lemma solved exactly to t = ∞ (S0, S1, S2) has no time T: no timescale is
    claimed."""
    if ctx.obj.get("timescale") is not None:
        raise CheckFailure("timescale", "null (the lemma holds from t = 0, no integration)",
                           repr(ctx.obj["timescale"])[:60])


#: Lemma S0's fields in a ``verify`` certificate
_S0_KEYS = {"lemma", "limits_z", "clusters", "bits", "attention_constant"}


def _check_stationary_verify(ctx: _Ctx) -> str:
    """Lemma S0 in a ``verify`` certificate (no audit, no integration; Lemma C9b): the
    lemma re-checked as for an audit (C9), and the verdict, limit and evidence its exact
    limits imply for the theorem, each re-derived and compared exactly."""
    _continuous(ctx)
    lemma = closed(ctx.lemma, _S0_KEYS, "tail_lemma")
    if lemma.get("lemma") != AUDIT_LEMMAS["S0"]:
        raise CheckFailure("tail_lemma.lemma", repr(AUDIT_LEMMAS["S0"]),
                           repr(lemma.get("lemma")))
    check_stationary(lemma, ctx.V, ctx.B, ctx.X0, None)
    _no_time_scale(ctx)
    theorem, verdict = ctx.obj["theorem"], ctx.obj["verdict"]
    want, limit, evidence = stationary_expected(theorem, ctx.V, ctx.X0)
    if verdict != want:
        raise CheckFailure("verdict", f"{want!r} (what Lemma S0's exact limits imply for "
                           f"Theorem {theorem})", repr(verdict))
    for name, value in (("limit", limit), ("evidence", evidence)):
        if value is None and ctx.obj.get(name) is not None:
            raise CheckFailure(name, f"null (the verdict is {verdict!r})",
                               repr(ctx.obj[name])[:60])
        if value is not None:
            same(ctx.obj.get(name), value, name)
    return ("valid: Lemma S0 re-checked (the tokens never move); verdict "
            f"{verdict!r} for Theorem {theorem} re-derived from the exact limits")


def _check_exact_audit(obj: dict, lemma: dict, kind: str, V: list, B: list, X0: list
                       ) -> dict:
    """Lemmas S0/S1/S2 and the limit objects of the certificate (Lemma C9)."""
    if obj.get("verdict") != "certified":
        raise CheckFailure("verdict", "'certified' (the lemma proves the limits)",
                           repr(obj.get("verdict")))
    closed(lemma, _LEMMA_KEYS[kind[:2]], "tail_lemma")
    lim = closed(obj.get("limit"), {"clusters", "attention_limit", "attention_rank"},
                 "limit")
    n = len(X0)
    clusters = lim.get("clusters")
    if not isinstance(clusters, list) or len(clusters) != n:
        raise CheckFailure("limit.clusters", f"{n} clusters, one per token (the lemma "
                           "gives every token's limit)", repr(clusters)[:60])
    for i, cl in enumerate(clusters):
        closed(cl, {"members", "center"}, f"limit.clusters[{i}]")
        m = cl.get("members")
        if not (isinstance(m, list) and len(m) == 1 and type(m[0]) is int and m[0] == i):
            raise CheckFailure(f"limit.clusters[{i}].members", f"[{i}]", repr(m))
    if kind.startswith("S0"):
        facts = check_stationary(lemma, V, B, X0, lemma.get("witness_5_2"))
        _s0_attention(lim, X0)
        for i, cl in enumerate(clusters):  # the tokens never move
            lo_hi = [[Fraction(str(a)), Fraction(str(b))] for a, b in cl.get("center", [])]
            if cl.get("members") != [i] or lo_hi != [[x, x] for x in X0[i]]:
                raise CheckFailure(f"limit.clusters[{i}]", f"members [i] and center = token {i}'s initial position "
                                   "as its limit", repr(cl)[:80])
        return facts
    facts = check_symmetric(lemma, V, B, X0)
    for i, cl in enumerate(clusters):
        if cl.get("center") != lemma["limits_z"][i]:
            raise CheckFailure(f"limit.clusters[{i}]", "members [i] and center = the "
                               f"lemma's limit of token {i} (checked above)", repr(cl)[:80])
    P = facts["P_star"]
    # the S1/S2 limit states P* and its rank in full (what the lemma proves)
    want = {"attention_limit": [[x for x in row] for row in P], "attention_rank": rank(P)}
    for key in want:
        if key not in lim:
            raise CheckFailure(f"limit.{key}", "present (Lemmas S1, S2 prove it)", "missing")
    same(lim["attention_limit"], want["attention_limit"], "limit.attention_limit")
    same(lim["attention_rank"], want["attention_rank"], "limit.attention_rank")
    return facts


def _s0_attention(lim: dict, X0: list) -> None:
    """Lemma S0 gives P* exactly only when every token is the same point: every score of
    a row is then equal, so P ≡ ones/n (rank 1). Otherwise it encloses P (a constant P(0)
    with irrational entries, or none), and the limit may not state P* or its rank."""
    n = len(X0)
    if not {"attention_limit", "attention_rank"} & set(lim):
        return
    if any(row != X0[0] for row in X0):
        key = "attention_limit" if "attention_limit" in lim else "attention_rank"
        raise CheckFailure(f"limit.{key}", "absent (Lemma S0 states P* exactly only for "
                           "equal tokens)", repr(lim[key])[:60])
    if "attention_limit" in lim:
        same(lim["attention_limit"], [[Fraction(1, n)] * n for _ in range(n)],
             "limit.attention_limit")
    if "attention_rank" in lim:
        same(lim["attention_rank"], 1, "limit.attention_rank")


#: the fields each exactly solved lemma's ``tail_lemma`` may carry
_LEMMA_KEYS = {
    "S0": {"lemma", "limits_z", "clusters", "bits", "attention_constant", "witness_5_2"},
    "S1": {"lemma", "m", "w0", "integrand", "U", "u0", "integral_I_u0",
           "contraction_exp_minus_I", "limits_z", "distance_between_limits",
           "attention_limit", "clusters", "bits"},
    "S2": {"lemma", "a0", "integrand", "U", "u0", "integral_J_u0", "contraction_exp_minus_J",
           "limits_z", "distance_between_limits", "attention_limit", "clusters", "bits"},
}
