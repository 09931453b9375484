"""Re-checking audit certificates: Lemmas S0, S1, S2 and the verdict on every claim.

The lemmas (``proofs_notes/audits.md``) reduce the dynamics to exact algebra plus one
integral; the checker re-decides the setting exactly (Fractions), re-encloses the integral
with its own quadrature (:mod:`.quadrature`, Lemma C8), recomputes the limits, and then
re-judges each claim of the record from the proved limit objects (Lemma C9 of
``proofs_notes/checker.md``).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from mpmath import libmp as L

from .balls import (EXP_ARG_MAX, Ball, add_down, add_up, const, div_down, div_up, exp_down, exp_up,
                    mpf_down, mpf_up, scale)
from .errors import CheckFailure
from .reading import exact_number
from .hypotheses import dominant, paranormal, rank  # rank re-exported: the verdict code uses it
from .lemmas import _iv, _q  # the one reader of a stored number and of an interval [lo, hi]
from .quadrature import Series, integrate

__all__ = ["check_symmetric", "check_stationary", "judge_claims", "rank"]

Mat = list[list[Fraction]]


def _inside(pair: list, b: Ball, where: str) -> None:
    lo, hi = _iv(pair, where)
    if not (lo <= b.lo_q() and b.hi_q() <= hi):
        raise CheckFailure(where, f"an interval containing the recomputed {b!r}",
                           f"[{pair[0]}, {pair[1]}]")


def _inside_mpf(pair: list, lo: tuple, hi: tuple, where: str) -> None:
    """The stored [pair] contains the recomputed mpf interval [lo, hi] (compared through
    mpfs rounded so that success proves the inclusion)."""
    a, b = _iv(pair, where)
    if not (L.mpf_cmp(mpf_up(a), lo) <= 0 and L.mpf_cmp(hi, mpf_down(b)) <= 0):
        raise CheckFailure(where, "an interval containing the recomputed "
                           f"[{L.to_str(lo, 25)}, {L.to_str(hi, 25)}]",
                           f"[{pair[0]}, {pair[1]}]")


def _scalar(M: Mat) -> Fraction | None:
    d = len(M)
    if len(M[0]) != d:
        return None
    s = M[0][0]
    return s if all(M[i][j] == (s if i == j else 0) for i in range(d) for j in range(d)) \
        else None


# -- the two integrands (Lemma C8: series, and sup bounds on disks in Re u > 0) ------------

def _pair_series(c: Ball, L: Fraction, N: int) -> Series:
    u = Series.variable(c, L, N)
    e = Series.exp_linear(c, Fraction(2), L, N)
    return (u * (e - Series.constant(const(1), N))).recip()


def _pair_sup(c: Fraction, R: Fraction) -> Fraction:
    # |u| ≥ x and |e^{2u} − 1| ≥ e^{2x} − 1 for Re u ≥ x = c − R > 0
    x = c - R
    return (const(x) * ((const(2 * x)).exp() - const(1))).recip().hi_q()


def _triple_series(c: Ball, L: Fraction, N: int) -> Series:
    u = Series.variable(c, L, N)
    ep = Series.exp_linear(c, Fraction(1), L, N)
    em = Series.exp_linear(c, Fraction(-1), L, N)
    num = Series.constant(const(1), N) + em + em
    den = (u + u) * (ep - em)
    return num * den.recip()


def _triple_sup(c: Fraction, R: Fraction) -> Fraction:
    # |1 + 2e^{−u}| ≤ 1 + 2e^{−x}, |2u| ≥ 2x, |e^u − e^{−u}| ≥ e^x − e^{−x}
    x = const(c - R)
    num = const(1) + (-x).exp() * const(2)
    den = x * const(2) * (x.exp() - (-x).exp())
    return (num * den.recip()).hi_q()


def _disk_radius(u: Fraction) -> Fraction:
    """The radius of the disk around a piece's centre u > 0: min(u/2, 4), so that
    Re ≥ u/2 > 0 on the disk, where both integrands are analytic and the sup bounds hold."""
    return min(u / 2, Fraction(4))


def _integral(kind: str, u0: Fraction, where: str) -> Ball:
    """I(u₀) (pair) or J(u₀) (triple) on [u₀, ∞), at the current scale."""
    return _integral_at(kind, u0, where, scale())


def _quadrature(kind: str, u0: Fraction, where: str, bits: int) -> Ball:
    """I(u₀) (pair) or J(u₀) (triple) on [u₀, ∞): quadrature to U, proven tail after
    (``bits`` is the scale the caller runs at, part of the cache key only)."""
    U = max(Fraction(64), 2 * (u0.__floor__()) + 2)
    series, sup = (_pair_series, _pair_sup) if kind == "pair" else (_triple_series, _triple_sup)
    body = integrate(series, sup, u0, U, _disk_radius, where)
    Ub = const(U)
    if kind == "pair":  # ∫_U^∞ ≤ e^{−2U}/(2U(1 − e^{−2U}))
        tail = (-(Ub * const(2))).exp() * (Ub * const(2) * (const(1) - (-(Ub * const(2))).exp())).recip()
    else:  # ∫_U^∞ ≤ (1 + 2e^{−U})e^{−U}/(2U(1 − e^{−2U}))
        tail = (const(1) + (-Ub).exp() * const(2)) * (-Ub).exp() * \
            (Ub * const(2) * (const(1) - (-(Ub * const(2))).exp())).recip()
    return body + Ball.from_ends(0, tail.hi())


# One quadrature costs 1–2 s at 256 bits; an audit of many records, or a session checking
# many certificates of one setting, asks for the same integral again. The value is a pure
# function of the key (the scale included), balls are immutable, and a failure raises and
# is never cached. (Not a decorator: mutation testing skips decorated functions.)
_integral_at = lru_cache(maxsize=32)(_quadrature)


def check_symmetric(lemma: dict, V: Mat, B: Mat, X0: Mat) -> dict:
    """Lemma S1 (pair) or S2 (odd triple): setting decided exactly, integral and limits
    recomputed, stored enclosures must contain them. Returns the proved facts."""
    kind = "pair" if str(lemma["lemma"]).startswith("S1") else "triple"
    lam, beta = _scalar(V), _scalar(B)
    n, d = len(X0), len(V)
    if lam is None or lam <= 0 or beta is None or beta <= 0:
        raise CheckFailure("instance", "V = λI and QᵀK = βI with λ, β > 0 (Lemmas S1, S2)",
                           "another V or B")
    if kind == "pair":
        if n != 2 or sum(a * a for a in X0[0]) != sum(a * a for a in X0[1]) or X0[0] == X0[1]:
            raise CheckFailure("instance.X0", "two distinct tokens of equal norm (Lemma S1)",
                               "another configuration")
        x1, x2 = X0
        m = [(a + b) / 2 for a, b in zip(x1, x2)]
        w0 = [(a - b) / 2 for a, b in zip(x1, x2)]
        if [_q(x, "tail_lemma.m") for x in lemma["m"]] != m or \
                [_q(x, "tail_lemma.w0") for x in lemma["w0"]] != w0:
            raise CheckFailure("tail_lemma.m", f"m = {m}, w0 = {w0}",
                               f"m = {lemma['m']}, w0 = {lemma['w0']}")
        u0 = beta * sum(a * a for a in w0)
        key, fac_key = "integral_I_u0", "contraction_exp_minus_I"
    else:
        xs = sorted(x[0] for x in X0)
        if d != 1 or n != 3 or not (xs[0] == -xs[2] and xs[1] == 0 and xs[2] > 0):
            raise CheckFailure("instance.X0", "d = 1 and tokens {−a, 0, a}, a > 0 (Lemma S2)",
                               "another configuration")
        a0 = xs[2]
        if _q(lemma["a0"], "tail_lemma.a0") != a0:
            raise CheckFailure("tail_lemma.a0", str(a0), str(lemma["a0"]))
        u0 = beta * a0 * a0
        key, fac_key = "integral_J_u0", "contraction_exp_minus_J"
    if _q(lemma["u0"], "tail_lemma.u0") != u0:
        raise CheckFailure("tail_lemma.u0", str(u0), str(lemma["u0"]))
    I = _integral(kind, u0, "tail_lemma." + key)
    _inside(lemma[key], I, "tail_lemma." + key)
    fac = (-I).exp()
    _inside(lemma[fac_key], fac, "tail_lemma." + fac_key)
    limits = lemma["limits_z"]
    if not (isinstance(limits, list) and len(limits) == n and
            all(isinstance(row, list) and len(row) == d for row in limits)):
        raise CheckFailure("tail_lemma.limits_z", f"{n}×{d} intervals (one per token and "
                           "coordinate)", repr(limits)[:60])
    if kind == "pair":
        for i, sgn in ((0, 1), (1, -1)):
            for c in range(d):
                _inside(limits[i][c], const(m[c]) + const(sgn * w0[c]) * fac,
                        f"tail_lemma.limits_z[{i}][{c}]")
        dist = const(sum(a * a for a in w0)).sqrt() * fac * const(2)
        P = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
        clusters = 2
    else:
        for i in range(3):
            _inside(limits[i][0], const(X0[i][0]) * fac, f"tail_lemma.limits_z[{i}][0]")
        dist = const(a0) * fac
        mid = next(i for i in range(3) if X0[i][0] == 0)
        P = [[Fraction(int(j == i)) if i != mid else Fraction(1, 3) for j in range(3)]
             for i in range(3)]
        clusters = 3
    _inside(lemma["distance_between_limits"], dist, "tail_lemma.distance_between_limits")
    stored_P = [[_q(x, "tail_lemma.attention_limit") for x in row]
                for row in lemma["attention_limit"]]
    if stored_P != P:
        raise CheckFailure("tail_lemma.attention_limit", f"P* = {P}",
                           f"{lemma['attention_limit']}")
    same(lemma["clusters"], clusters, "tail_lemma.clusters")
    return {"clusters": clusters, "P_star": P}


def check_stationary(lemma: dict, V: Mat, B: Mat, X0: Mat, witness: dict | None) -> dict:
    """Lemma S0: V(z_j − z_i) = 0 for all i, j (exact) ⇒ z(t) ≡ z(0); if also Vz_i = 0,
    P(t) ≡ P(0), enclosed here. Returns the proved facts."""
    n, d = len(X0), len(V)
    Vz = [[sum((V[a][b] * X0[i][b] for b in range(d)), Fraction(0)) for a in range(d)]
          for i in range(n)]
    if any(Vz[i] != Vz[0] for i in range(n)):
        raise CheckFailure("instance", "V(z_j − z_i) = 0 for all tokens (Lemma S0)",
                           "a moving configuration")
    lim = [[_q(x, "tail_lemma.limits_z") for x in row] for row in lemma["limits_z"]]
    if lim != X0:
        raise CheckFailure("tail_lemma.limits_z", "the initial tokens (they never move)",
                           repr(lemma["limits_z"]))
    distinct = len({tuple(r) for r in X0})
    facts: dict[str, Any] = {"clusters": distinct}
    same(lemma["clusters"], distinct, "tail_lemma.clusters")
    constant = all(v == 0 for row in Vz for v in row)  # x ≡ z: P(t) ≡ P(0)
    if "attention_constant" in lemma and not constant:
        raise CheckFailure("tail_lemma.attention_constant", "absent (P is not constant: "
                           "V z_i ≠ 0 for some token)", "present")
    if constant and "attention_constant" in lemma:
        P = lemma["attention_constant"]
        if not (isinstance(P, list) and len(P) == n and all(
                isinstance(row, list) and len(row) == n and all(
                    isinstance(p, list) and len(p) == 2 for p in row) for row in P)):
            raise CheckFailure("tail_lemma.attention_constant", f"{n}×{n} intervals [lo, hi]",
                               repr(P)[:60])
        boolean = True
        for i in range(n):
            s = [sum((X0[i][a] * B[a][b] * X0[j][b] for a in range(d) for b in range(d)),
                     Fraction(0)) for j in range(n)]
            for j in range(n):
                # P_ij = 1/Σ_k e^{s_k − s_j}, bounded in mpmath floats with directed
                # rounding: relative precision, since an entry may be e^{−200} or smaller,
                # below what a fixed-point ball resolves.
                if max(abs(s[k] - s[j]) for k in range(n)) > EXP_ARG_MAX:
                    # mpmath's exp costs time with the argument's size (a DoS on the
                    # checker): such scores are refused, as Ball.exp refuses them
                    raise CheckFailure(f"tail_lemma.attention_constant[{i}][{j}]",
                                       "score differences within ±2^16 (Lemma C19b)",
                                       "larger ones")
                tot_lo, tot_hi = L.fzero, L.fzero
                for k in range(n):
                    tot_lo = add_down(tot_lo, exp_down(mpf_down(s[k] - s[j])))
                    tot_hi = add_up(tot_hi, exp_up(mpf_up(s[k] - s[j])))
                p_lo, p_hi = div_down(L.fone, tot_hi), div_up(L.fone, tot_lo)
                _inside_mpf(lemma["attention_constant"][i][j], p_lo, p_hi,
                            f"tail_lemma.attention_constant[{i}][{j}]")
                if L.mpf_cmp(p_lo, L.fzero) > 0 and L.mpf_cmp(p_hi, L.fone) < 0:
                    boolean = False
        facts["boolean"] = boolean if not boolean else None
    if witness is not None:
        facts["thm_5_2"] = _theorem_5_2_on_limits(V, X0, witness)
    return facts


def _theorem_5_2_on_limits(V: Mat, Z: Mat, w: dict) -> bool:
    """Theorem 5.2's conclusion on exact limits, from a witness (λ, P_F): verified to be
    the spectral projector of a dominant semisimple eigenvalue λ > 0 (Lemma C9)."""
    d = len(V)
    lam = _q(w["lambda"], "witness.lambda")
    P = [[_q(x, "witness.projector_F") for x in row] for row in w["projector_F"]]
    mul = lambda A, B: [[sum((A[i][k] * B[k][j] for k in range(d)), Fraction(0))  # noqa
                         for j in range(d)] for i in range(d)]
    I = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    VmL = [[V[i][j] - lam * I[i][j] for j in range(d)] for i in range(d)]
    if lam <= 0 or mul(P, P) != P or mul(V, P) != mul(P, V) or \
            any(x != 0 for row in mul(VmL, P) for x in row):
        raise CheckFailure("witness.projector_F", "P² = P, VP = PV, (V − λ)P = 0, λ > 0 "
                           f"for λ = lambda = {lam}",
                           "a matrix that is not")
    if rank([[VmL[i][j] + P[i][j] for j in range(d)] for i in range(d)]) != d:
        raise CheckFailure("witness.projector_F", "V − λ invertible on ker P", "singular")
    # dominance: ‖(V(I − P))^k‖∞ < λ^k for some k ≤ 64 bounds the other moduli below λ
    G = mul(V, [[I[i][j] - P[i][j] for j in range(d)] for i in range(d)])
    Gk = G
    for k in range(1, 65):
        if max(sum(abs(x) for x in row) for row in Gk) < lam ** k:
            break
        Gk = mul(Gk, G)
    else:
        raise CheckFailure("witness.lambda", "a dominant eigenvalue", "no norm bound below λ^k")
    if rank(P) != 1:
        raise CheckFailure("witness.projector_F", "dim F = 1 (version 1)", f"rank {rank(P)}")
    comps = {tuple(sum((P[a][b] * z[b] for b in range(d)), Fraction(0)) for a in range(d))
             for z in Z}
    nonzero = {c for c in comps if any(c)}
    return len(nonzero) <= 2


def stationary_expected(theorem: str, V: Mat, X0: Mat) -> tuple[str, Any, Any]:
    """(verdict, limit, evidence) that Lemma S0's exact limits (the initial tokens) imply for
    the theorem's conclusion in a ``verify`` certificate, decided exactly here (Lemma C9b,
    the rules of ``audits.md``, "Lemma S0 in verify"). Exact numbers are Fractions; where
    the checker cannot decide a spectral condition only "undecided" is accepted."""
    n, d = len(X0), len(V)
    clusters = {"clusters": [{"members": [i], "center": [[x, x] for x in z]}
                             for i, z in enumerate(X0)]}
    if theorem == "3.1":  # the hull lies in an affine subspace of dimension < d: ∂K = K
        diffs = [[a - b for a, b in zip(z, X0[0])] for z in X0[1:]]
        return ("certified", clusters, None) if not diffs or rank(diffs) < d else \
            ("undecided", None, None)
    if theorem == "2.1":  # d = 1: P constant, entries in (0, 1) for n ≥ 2
        if d != 1:
            return "undecided", None, None
        if n == 1:
            return "certified", clusters, None
        return "refuted", None, {"rows_outside_two_leaders": list(range(n))}
    if theorem == "4.2":  # φ₁* vanishes on ker V: one value on every token
        dom = dominant(V)
        ok = dom is not None and dom["real_positive"] and dom["mult"] == 1
        return ("certified", clusters, None) if ok else ("undecided", None, None)
    if theorem == "5.2":  # P_F vanishes on ker V: one F-component on every token
        return ("certified", clusters, None) if paranormal(V) is True else \
            ("undecided", None, None)
    if theorem == "8.5":
        for i, z in enumerate(X0):
            Vz = [sum((V[a][b] * z[b] for b in range(d)), Fraction(0)) for a in range(d)]
            if any(z) and not any(Vz):  # x_i(t) = z_i ≠ 0 for all t
                return "refuted", None, {"token_not_to_zero": i}
        lam = V[0][0] if all(V[a][b] == (V[0][0] if a == b else 0) for a in range(d)
                             for b in range(d)) else None
        if all(not any(z) for z in X0) or (lam is not None and lam < 0):
            return "certified", {"attention_limit": [[Fraction(1, n)] * n] * n}, None
        return "undecided", None, None
    raise CheckFailure("theorem", "one of 2.1, 3.1, 4.2, 5.2, 8.5", repr(theorem))


def same(got: Any, want: Any, where: str) -> None:
    """``got`` (JSON) equals ``want`` exactly: Fractions against exact numbers, lists item
    by item, objects key by key (closed), integers as integers."""
    if isinstance(want, Fraction):
        if isinstance(got, bool) or _q(got, where) != want:
            raise CheckFailure(where, str(want), repr(got)[:60])
    elif isinstance(want, dict):
        if not isinstance(got, dict) or set(got) != set(want):
            raise CheckFailure(where, f"an object with the fields {sorted(want)}",
                               repr(got)[:60])
        for k in want:
            same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            raise CheckFailure(where, f"a list of {len(want)}", repr(got)[:60])
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{where}[{i}]")
    elif isinstance(got, bool) or got != want or type(got) is not type(want):
        raise CheckFailure(where, repr(want), repr(got)[:60])


def _truth(value: Any, cid: Any) -> bool:
    """A Boolean reading's value: JSON true or false, nothing else (the string "true" is
    not read as one, so the judgement and its rendering cannot differ)."""
    if not isinstance(value, bool):
        raise CheckFailure(f"audit.record.claims[{cid}].reading", "true or false",
                           repr(value)[:60])
    return value


def judge_claims(record: dict, claims: list, facts: dict) -> None:
    """Each claim's "holds"/"fails" must be what the proved facts imply; "undecided" is
    accepted for any claim (it asserts nothing) (Lemma C9)."""
    want = {c["id"]: c for c in record["claims"]}
    # one verdict per claim, one to one: a second claim with an id already used would
    # otherwise hide the first from the judgement (the dict keeps the last)
    ids = [c["id"] for c in record["claims"]]
    if len(set(ids)) != len(ids):
        raise CheckFailure("audit.record.claims", "claims with distinct ids", repr(ids)[:80])
    judged = [c["id"] for c in claims]
    if len(set(judged)) != len(judged):
        raise CheckFailure("audit.claims", "one verdict per claim id", repr(judged)[:80])
    if sorted(want) != sorted(c["id"] for c in claims):
        raise CheckFailure("audit.claims", f"one verdict per claim {sorted(want)}",
                           repr([c["id"] for c in claims]))
    P = facts.get("P_star")
    for c in claims:
        (kind, value), = want[c["id"]]["reading"].items()
        got: bool | None
        if kind == "clusters":
            got = None if facts.get("clusters") is None else facts["clusters"] == int(str(value))
        elif kind == "attention_limit":
            got = None if P is None else \
                [[_q(x, "reading") for x in row] for row in value] == P
        elif kind == "attention_rank":
            got = None if P is None else rank(P) == int(str(value))
        elif kind == "attention_rank_at_most":
            got = None if P is None else rank(P) <= int(str(value))
        elif kind == "attention_boolean":
            b = facts.get("boolean")
            if b is None and P is not None:
                b = all(x in (0, 1) for row in P for x in row)
            got = None if b is None else b == _truth(value, c["id"])
        elif kind == "theorem_5_2_conclusion":
            t = facts.get("thm_5_2")
            got = None if t is None else t == _truth(value, c["id"])
        elif kind == "theorem_conclusion":
            conc = facts.get("conclusion")
            got = None if conc is None or conc[0] != str(value) else \
                {"certified": True, "refuted": False}.get(conc[1])
        else:
            raise CheckFailure(f"audit.record.claims[{c['id']}].reading", "a known reading",
                               kind)
        expected = "undecided" if got is None else ("holds" if got else "fails")
        # "undecided" claims nothing, so it is never wrong; "holds"/"fails" must be proved.
        if c["verdict"] != expected and c["verdict"] != "undecided":
            raise CheckFailure(f"audit.claims[{c['id']}].verdict", repr(expected),
                               repr(c["verdict"]))


def render_reading(reading: dict) -> str:
    """The checker's own words for a claim's formal reading — what it actually judged,
    whatever the claim's ``statement`` says (the statement is prose; no program can tie
    it to the reading, so ``check`` prints the reading and ``check --record`` ties the
    whole record to the file the user reviewed). ``reading`` has one key (C9)."""
    (kind, value), = reading.items()
    if kind == "clusters":
        return f"number of distinct limits of z = {_q(value, 'reading')}"
    if kind == "attention_limit":
        rows = "; ".join(", ".join(str(_q(x, "reading")) for x in row) for row in value)
        return f"lim P = [{rows}]"
    if kind == "attention_rank":
        return f"rank lim P = {_q(value, 'reading')}"
    if kind == "attention_rank_at_most":
        return f"rank lim P <= {_q(value, 'reading')}"
    if kind == "attention_boolean":
        return "lim P is Boolean" if _truth(value, "?") else "lim P is not Boolean"
    if kind == "theorem_5_2_conclusion":
        return ("Theorem 5.2's conclusion holds" if _truth(value, "?") else
                "Theorem 5.2's conclusion fails")
    if kind == "theorem_conclusion":
        return f"the conclusion of Theorem {value} holds"
    raise CheckFailure("audit.record.claims.reading", "a known reading", repr(kind)[:60])


def render_claims(audit: dict) -> str:
    """``id [reading]: verdict`` for every claim judged, in the record's order."""
    verdict = {c["id"]: c["verdict"] for c in audit["claims"]}
    return "; ".join(f"{c['id']} [{render_reading(c['reading'])}]: {verdict[c['id']]}"
                     for c in audit["record"]["claims"])


def same_record(got: Any, want: Any, where: str = "audit.record") -> None:
    """The certificate's record ``got`` is the record file ``want`` (both read by
    :func:`.reading.loads_exact`): the same keys and lengths, strings verbatim, booleans
    and null as themselves, and a JSON number equal, as an exact rational, to the number
    or numeric string in its place."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or set(got) != set(want):
            raise CheckFailure(where, f"an object with the fields {sorted(want)}",
                               repr(sorted(got) if isinstance(got, dict) else got)[:80])
        for k in want:
            same_record(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            raise CheckFailure(where, f"a list of {len(want)}", repr(got)[:60])
        for i, (g, w) in enumerate(zip(got, want)):
            same_record(g, w, f"{where}[{i}]")
    elif isinstance(want, bool) or want is None or isinstance(got, (bool, dict, list)) \
            or got is None:
        if got is not want:
            raise CheckFailure(where, repr(want), repr(got)[:60])
    elif isinstance(got, str) and isinstance(want, str):  # prose and numbers alike: verbatim
        if got != want:
            raise CheckFailure(where, repr(want)[:60], repr(got)[:60])
    else:  # a JSON number against a number or a numeric string: exact values
        try:
            equal = exact_number(got, where) == exact_number(want, where)
        except CheckFailure:
            equal = False
        if not equal:
            raise CheckFailure(where, repr(getattr(want, "text", want))[:60],
                               repr(getattr(got, "text", got))[:60])
