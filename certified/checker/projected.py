"""Re-checking Lemma T7 (Theorem 4.2's coordinate, V ≠ λI) from a certificate's data.

Everything polynomial is recomputed in exact rational interval arithmetic (the isolating
interval of λ₁, S, B, V and the boxes are rationals): the spectral projector
Π = g(V)/p′(λ₁), ψ, φ, β, the norm bound ν, c₁, c₂, Y, Ω, D and the margin m. Square
roots are bounded above with integer square roots, exponentials with :mod:`.balls`.
Statement and proof: ``proofs_notes/tail.md``, Lemma T7; what is re-checked:
``proofs_notes/checker.md``, Lemma C10.
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt
from typing import Any

from mpmath import libmp as L

from .balls import const, exp_up, le_q, mpf_down, mpf_up, mul_up
from .errors import CheckFailure
from .hypotheses import charpoly
from .lemmas import Iv, _add, _contains, _dot, _iv, _mul, _q, check_centre_flags, closed

__all__ = ["T7_KEYS", "T7_TITLE", "check_projected", "check_t7_verdict", "group_limits",
           "layer_decay", "leakage_bound"]

#: Lemma T7's title and the fields of its ``tail_lemma`` block (the discrete form adds
#: ``dt`` and ``layer``).
T7_TITLE = "T7 (projected groups, simple dominant eigenvalue)"
T7_KEYS = frozenset({"lemma", "T", "lambda1", "psi_row", "psi", "norm_S", "nu", "c1", "c2", "Y",
                     "Omega", "D", "beta_lower", "groups", "m", "delta", "delta0",
                     "limits_psi_z", "omega_at_T", "boxes_at_T"})

Mat = list[list[Iv]]


def _pt(q: Fraction) -> Iv:
    return q, q


def _neg(a: Iv) -> Iv:
    return -a[1], -a[0]


def _recip(a: Iv, where: str) -> Iv:
    if a[0] <= 0 <= a[1]:
        raise CheckFailure(where, "an interval excluding 0", f"[{float(a[0])}, {float(a[1])}]")
    return 1 / a[1], 1 / a[0]


def _mm(A: Mat, B: Mat) -> Mat:
    return [[_dot(row, [B[k][c] for k in range(len(B))]) for c in range(len(B[0]))]
            for row in A]


def _absu(a: Iv) -> Fraction:
    return max(abs(a[0]), abs(a[1]))


def _sqrt_up(q: Fraction) -> Fraction:
    """An upper bound of √q (q ≥ 0), exact integers: ⌈√(⌈q·4^k⌉)⌉ / 2^k (k = 256, finer
    than the producer's arithmetic, so a margin it rounded down is not undercut)."""
    k = 256
    x = -((-q.numerator * 4 ** k) // q.denominator)
    r = isqrt(x)
    if r * r < x:
        r += 1
    return Fraction(r, 2 ** k)


def _inverse(S: list[list[Fraction]], where: str) -> list[list[Fraction]]:
    """Exact inverse by Gauss–Jordan (raises if singular)."""
    d = len(S)
    A = [list(row) + [Fraction(int(i == j)) for j in range(d)] for i, row in enumerate(S)]
    for c in range(d):
        p = next((r for r in range(c, d) if A[r][c] != 0), None)
        if p is None:
            raise CheckFailure(where, "an invertible matrix", "a singular one")
        A[c], A[p] = A[p], A[c]
        piv = A[c][c]
        A[c] = [x / piv for x in A[c]]
        for r in range(d):
            if r != c and A[r][c] != 0:
                f = A[r][c]
                A[r] = [x - f * y for x, y in zip(A[r], A[c])]
    return [row[d:] for row in A]


def _peval(a: list[Fraction], x: Fraction) -> Fraction:
    out = Fraction(0)
    for c in reversed(a):
        out = out * x + c
    return out



def leakage_bound(m: Fraction, D: Fraction, size: int, lam: Iv,
                  dt: Fraction | None = None) -> Any:
    """An upper bound (an mpf, rounded up) on T7's leakage δ₀ = size·D·e^{−m}·w.

    w = 1/(2m) in continuous time; in discrete time w = α + 1/(2m) with α = λ₁Δt/(1 + λ₁Δt)
    taken at λ_hi = ``lam[1]`` (α increases with λ₁). mpmath floats rounded upwards, not
    fixed-point balls: e^{−m} for a margin of m = 27,000 (a refined discrete run) is far
    below the balls' unit 2^−P.
    """
    w = Fraction(1, 2) / m
    if dt is not None:
        w += lam[1] * dt / (1 + lam[1] * dt)
    return mul_up(exp_up(L.mpf_neg(mpf_down(m))), mpf_up(Fraction(size) * D * w))


def layer_decay(lam: Iv, dt: Fraction, K: int) -> tuple[Fraction, Fraction]:
    """Exact ends of q^{−K}, q = 1 + λ₁Δt, over λ₁ ∈ ``lam``: ((1 + λ_hiΔt)^{−K},
    (1 + λ_loΔt)^{−K})."""
    return (1 + lam[1] * dt) ** -K, (1 + lam[0] * dt) ** -K


def group_limits(omega: list[Iv], plus: list[int], minus: list[int], delta0: Fraction,
                 ends: tuple[Fraction, Fraction]) -> dict[str, Iv]:
    """T7's limit intervals of ψ(z) per sign group: e·[m⁺ − δ₀, M⁺] for G⁺ and
    e·[m⁻, M⁻ + δ₀] for G⁻, with the decay factor e ∈ ``ends`` = (e_lo, e_hi), e_lo > 0.

    ``omega`` are the ψ(x_i(T)) intervals; G⁺'s ends are positive and G⁻'s negative, so
    each product end takes the matching end of e."""
    e_lo, e_hi = ends
    proved: dict[str, Iv] = {}
    if plus:
        lo, hi = min(omega[i][0] for i in plus) - delta0, max(omega[i][1] for i in plus)
        proved["+"] = (e_lo * lo, e_hi * hi)  # lo > 0
    if minus:
        lo, hi = min(omega[i][0] for i in minus), max(omega[i][1] for i in minus) + delta0
        proved["-"] = (e_hi * lo, e_lo * hi)  # hi < 0
    return proved


def check_projected(lemma: dict, V: list[list[Fraction]], B: list[list[Fraction]], n: int,
                    dt: Fraction | None = None) -> dict:
    """Re-verify Lemma T7's hypotheses and conclusions from the stored data at T.

    With ``dt`` (discrete time, T = K·Δt, checked by the caller): the discrete form's
    leakage bound |G|·D·e^{−m}(α + 1/(2m)), α ≤ λ_hiΔt/(1 + λ_hiΔt), and the limits of
    ψ(z) = q^{−K}ψ(x^{[K]}), q = 1 + λ₁Δt (Lemma C10, discrete time).

    Returns the parsed lemma (T, boxes, groups, proved limit intervals).
    """
    d = len(V)
    T = _q(lemma["T"], "tail_lemma.T")
    lam = _iv(lemma["lambda1"], "tail_lemma.lambda1")
    boxes = [[_iv(p, f"tail_lemma.boxes_at_T[{i}]") for p in row]
             for i, row in enumerate(lemma["boxes_at_T"])]
    if len(boxes) != n or any(len(r) != d for r in boxes):
        raise CheckFailure("tail_lemma.boxes_at_T", f"{n}×{d} boxes", "another shape")
    # Step 0: exactly one simple root of p in [lam_lo, lam_hi], λ₁ > 0.
    a = charpoly(V)  # Faddeev–LeVerrier, exact (one copy, in .hypotheses)
    if not (0 < lam[0] < lam[1]) or _peval(a, lam[0]) * _peval(a, lam[1]) >= 0:
        raise CheckFailure("tail_lemma.lambda1", "a positive interval on which det(xI − V) "
                           "changes sign", str(lemma["lambda1"]))
    dp = _pt(Fraction(0))
    for k in range(d, 0, -1):
        dp = _add(_mul(dp, lam), _pt(k * a[k]))
    inv_dp = _recip(dp, "tail_lemma.lambda1 (p′ on the interval)")
    b: list[Iv] = [_pt(Fraction(0))] * d
    b[d - 1] = _pt(a[d])
    for k in range(d - 1, 0, -1):
        b[k - 1] = _add(_pt(a[k]), _mul(lam, b[k]))
    Vi = [[_pt(x) for x in row] for row in V]

    def eye(s: Iv) -> Mat:
        return [[s if i == j else _pt(Fraction(0)) for j in range(d)] for i in range(d)]

    G = eye(b[d - 1])
    for k in range(d - 2, -1, -1):
        GV = _mm(G, Vi)
        G = [[_add(GV[i][j], b[k] if i == j else _pt(Fraction(0))) for j in range(d)]
             for i in range(d)]
    Pi = [[_mul(x, inv_dp) for x in row] for row in G]
    r = int(lemma["psi_row"])
    if not 0 <= r < d:
        raise CheckFailure("tail_lemma.psi_row", f"an index in 0..{d - 1}", str(r))
    psi = Pi[r]
    inv_rr = _recip(Pi[r][r], "tail_lemma.psi_row (Π_rr)")
    phi = [_mul(Pi[i][r], inv_rr) for i in range(d)]
    Bi = [[_pt(x) for x in row] for row in B]
    beta = _dot(phi, [_dot(Bi[i], phi) for i in range(d)])
    if beta[0] <= 0:
        raise CheckFailure("tail_lemma.beta_lower", "⟨Qφ₁, Kφ₁⟩ > 0", f"lower end {float(beta[0])}")
    beta_lower = _q(lemma["beta_lower"], "tail_lemma.beta_lower")
    if not 0 < beta_lower <= beta[0]:
        raise CheckFailure("tail_lemma.beta_lower", f"0 < beta_lower <= {float(beta[0])!r} "
                           "(recomputed ⟨φ₁, Bφ₁⟩)", str(lemma["beta_lower"]))
    try:
        _covers(lemma["psi"], psi, "tail_lemma.psi")
    except CheckFailure as exc:  # ψ is recomputed from psi_row: name both fields
        raise CheckFailure(exc.where, f"{exc.expected} (ψ = row psi_row = {r} of Π)",
                           exc.got) from None
    # The norm N(v) = |S⁻¹v|₂ and ν ≥ ‖S⁻¹WS‖₂, W = V(I − Π).
    S = [[_q(x, "tail_lemma.norm_S") for x in row] for row in lemma["norm_S"]]
    if len(S) != d or any(len(row) != d for row in S):
        raise CheckFailure("tail_lemma.norm_S", f"a {d}×{d} matrix", "another shape")
    Si = _inverse(S, "tail_lemma.norm_S")
    IP = [[_add(_pt(Fraction(int(i == j))), _neg(Pi[i][j])) for j in range(d)] for i in range(d)]
    W = _mm(Vi, IP)
    M = _mm(_mm([[_pt(x) for x in row] for row in Si], W), [[_pt(x) for x in row] for row in S])
    MtM = _mm([[M[j][i] for j in range(d)] for i in range(d)], M)
    nu = _sqrt_up(max(sum((_absu(x) for x in row), Fraction(0)) for row in MtM))
    if not nu < lam[0]:
        raise CheckFailure("tail_lemma.nu", f"a bound < λ₁ ≥ {float(lam[0])}", f"{float(nu)}")
    ST = [[_pt(S[j][i]) for j in range(d)] for i in range(d)]
    BT = [[Bi[j][i] for j in range(d)] for i in range(d)]
    v1 = [_dot(ST[i], [_dot(BT[k], phi) for k in range(d)]) for i in range(d)]
    v2 = [_dot(ST[i], [_dot(Bi[k], phi) for k in range(d)]) for i in range(d)]
    c1 = max(_sqrt_up(sum((_absu(x) ** 2 for x in v), Fraction(0))) for v in (v1, v2))
    SBS = [[sum((S[p][i] * B[p][q] * S[q][j] for p in range(d) for q in range(d)), Fraction(0))
            for j in range(d)] for i in range(d)]
    c2 = _sqrt_up(sum((x * x for row in SBS for x in row), Fraction(0)))
    Sii = [[_pt(x) for x in row] for row in Si]
    Y = Fraction(0)
    omega: list[Iv] = []
    for x in boxes:
        u = [_dot(Sii[i], [_dot(IP[k], x) for k in range(d)]) for i in range(d)]
        Y = max(Y, _sqrt_up(sum((_absu(v) ** 2 for v in u), Fraction(0))))
        omega.append(_dot(psi, x))
    plus = [i for i in range(n) if omega[i][0] > 0]
    minus = [i for i in range(n) if omega[i][1] < 0]
    groups = lemma["groups"]
    if sorted(groups.get("+", [])) != plus or sorted(groups.get("-", [])) != minus or \
            len(plus) + len(minus) != n:
        raise CheckFailure("tail_lemma.groups", f"'+': {plus}, '-': {minus} (every ψ(x_i(T)) "
                           "provably non-zero on boxes_at_T)", repr(groups))
    Omega = max(_absu(w) for w in omega)
    D = max(w[1] for w in omega) - min(w[0] for w in omega)
    # Upper bounds the lemma stores: each at least the checker's own value.
    for key, val in (("nu", nu), ("c1", c1), ("c2", c2), ("Y", Y), ("Omega", Omega), ("D", D)):
        if _q(lemma[key], f"tail_lemma.{key}") < val:
            raise CheckFailure(f"tail_lemma.{key}", f">= {float(val)!r} (recomputed"
                               + (" from boxes_at_T)" if key in ("Y", "Omega", "D") else ")"),
                               str(lemma[key]))
    _covers(lemma["omega_at_T"], omega, "tail_lemma.omega_at_T")
    leak = None  # the recomputed leakage bound δ₀ (an mpf, rounded up), with two groups
    m = None
    if plus and minus:
        delta = _q(lemma["delta"], "tail_lemma.delta")
        p = min(omega[i][0] for i in plus) - delta
        q = -(max(omega[i][1] for i in minus) + delta)
        if p <= 0 or q <= 0:
            raise CheckFailure("tail_lemma.delta", "an inflation keeping both groups off 0",
                               str(lemma["delta"]))
        m = min(beta[0] * w * g - Y * c1 * (2 * w + g) - 2 * c2 * Y * Y
                for w in (min(p, q), Omega) for g in (p + q, max(D, p + q)))
        if m <= 0:
            raise CheckFailure("tail_lemma.m", "a positive cross-group margin (H2) from "
                               "boxes_at_T, delta, beta_lower, c1, c2, Y",
                               f"{float(m)} recomputed")
        leak = leakage_bound(m, D, max(len(plus), len(minus)), lam, dt)
        if not L.mpf_cmp(leak, mpf_down(delta)) < 0:
            raise CheckFailure("tail_lemma.delta0", f"< δ = {float(delta)}",
                               f"{L.to_str(leak, 17)} recomputed")
        stored_m = _q(lemma["m"], "tail_lemma.m")
        if not 0 < stored_m <= m:
            raise CheckFailure("tail_lemma.m", f"0 < m <= {float(m)} (recomputed)",
                               str(lemma["m"]))
    elif lemma.get("m") is not None:
        raise CheckFailure("tail_lemma.m", "null (one group: no cross-group margin)",
                           str(lemma["m"]))
    # The stored δ₀ must be ≥ the recomputed bound (compared as mpf, so that e^{−m} with
    # m in the millions needs no rational of a million bits); the limits below are then
    # derived with the stored δ₀, a valid (perhaps wider) leakage bound.
    delta0 = _q(lemma["delta0"], "tail_lemma.delta0")
    if delta0 < 0 or (leak is not None and not le_q(leak, delta0)):
        raise CheckFailure("tail_lemma.delta0", (f">= {L.to_str(leak, 17)} (recomputed)"
                                                 if leak is not None else ">= 0"),
                           str(lemma["delta0"]))
    if leak is not None and not delta0 < delta:  # the bootstrap's δ₀ < δ, as claimed
        raise CheckFailure("tail_lemma.delta0", f"< delta = {float(delta)!r}",
                           str(lemma["delta0"]))
    if dt is None:
        decay = (-(const(T) * const(lam[0]))).exp()  # e^{−λ₁T} ≤ this, ≥ the one below
        decay_lo = (-(const(T) * const(lam[1]))).exp()
        ends = (decay_lo.lo_q(), decay.hi_q())
    else:
        K = T / dt
        if K.denominator != 1:
            raise CheckFailure("tail_lemma.T", f"a layer time K·Δt (Δt = {dt})", str(T))
        ends = layer_decay(lam, dt, int(K))
    proved = group_limits(omega, plus, minus, delta0, ends)
    stored = lemma["limits_psi_z"]
    if not isinstance(stored, dict) or sorted(stored) != sorted(proved):
        raise CheckFailure("tail_lemma.limits_psi_z", f"intervals for groups {sorted(proved)}",
                           repr(stored)[:60])
    for key, iv in proved.items():
        _contains(stored[key], iv, f"tail_lemma.limits_psi_z.{key}",
                  "recomputed from tail_lemma.delta0")
    return {"T": T, "boxes": boxes, "groups": {"+": plus, "-": minus}, "limits": proved,
            "phi": phi, "psi": psi, "m": m}


def _covers(stored: object, vals: list[Iv], where: str) -> None:
    """Stored intervals, one per recomputed interval, each containing it."""
    if not isinstance(stored, list) or len(stored) != len(vals):
        raise CheckFailure(where, f"{len(vals)} intervals", repr(stored)[:60])
    for i, (pair, iv) in enumerate(zip(stored, vals)):
        _contains(pair, iv, f"{where}[{i}]")


#: Lemma T7's cross-group statement, in continuous and in discrete time (compared verbatim).
T7_RATE_STATEMENT = ("for t >= T and i, l in different groups: P_il(t) <= "
                     "exp(-m e^{2 lambda1 (t - T)})")
T7_RATE_STATEMENT_DISCRETE = ("for layers k >= K = T/dt and i, l in different groups: "
                              "P_il <= exp(-m (1 + lambda1 dt)^{2(k - K)})")


def check_t7_verdict(obj: dict, pb: dict, dt: Fraction | None = None) -> None:
    """Lemma T7 proves Theorem 4.2's conclusion (and 5.2's when dim F = 1); each stored
    limit interval must contain the one the checker proved for the token's group, ψ's
    enclosure the recomputed ψ, the groups the recomputed ones, the rate m at most the
    recomputed margin (C10). ``dt``: the discrete form's rate statement."""
    if obj["theorem"] not in ("4.2", "5.2") or obj["verdict"] != "certified":
        raise CheckFailure("verdict", "'certified' for Theorem 4.2 or 5.2 (what Lemma T7 "
                           "proves)", f"{obj['verdict']!r} for Theorem {obj['theorem']}")
    if obj.get("evidence") is not None:
        raise CheckFailure("evidence", "null (the verdict is 'certified')",
                           repr(obj["evidence"])[:60])
    lim = closed(obj.get("limit") or {}, {"coordinate_limits", "hyperplane_values",
                                          "functional", "groups", "cross_group_rate",
                                          "not_proved", "F", "clusters"}, "limit")
    for key in ("not_proved", "F"):  # prose (not a claim)
        if not isinstance(lim.get(key, ""), str):
            raise CheckFailure(f"limit.{key}", "a string", "another type")
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
    if "functional" in lim:
        fn = closed(lim["functional"], {"psi", "meaning"}, "limit.functional")
        psi = fn.get("psi")
        if not isinstance(psi, list) or len(psi) != len(pb["psi"]):
            raise CheckFailure("limit.functional.psi", f"{len(pb['psi'])} intervals", repr(psi))
        for c, pair in enumerate(psi):
            _contains(pair, pb["psi"][c], f"limit.functional.psi[{c}]")
    if "groups" in lim:
        want = {k: v for k, v in pb["groups"].items() if v}
        got = lim["groups"]
        if not isinstance(got, dict) or {k: sorted(v) for k, v in got.items()} != want:
            raise CheckFailure("limit.groups", repr(want), repr(got))
    if "cross_group_rate" in lim:
        rate = closed(lim["cross_group_rate"], {"statement", "m"}, "limit.cross_group_rate")
        want_statement = T7_RATE_STATEMENT if dt is None else T7_RATE_STATEMENT_DISCRETE
        if rate.get("statement") != want_statement:
            raise CheckFailure("limit.cross_group_rate.statement", repr(want_statement),
                               repr(rate.get("statement")))
        m = pb["m"]
        if m is None:  # one sign group: there is no cross-group margin, so no rate claim
            if rate.get("m") is not None:
                raise CheckFailure("limit.cross_group_rate.m", "null (a single sign group "
                                   "has no cross-group margin)", repr(rate.get("m")))
        elif rate.get("m") is None or \
                not 0 < _q(rate.get("m"), "limit.cross_group_rate.m") <= m:
            raise CheckFailure("limit.cross_group_rate.m", f"0 < m <= {float(m)!r} "
                               "(the recomputed cross-group margin)", repr(rate.get("m")))
    if obj["theorem"] == "5.2" or "clusters" in lim:
        # F = span φ (dimension 1): each cluster's centre must contain limit × φ, and the
        # ≤ 2 points of a segment are its vertices, neither 0 (the limits exclude 0).
        clusters = lim.get("clusters")
        if not isinstance(clusters, list) or len(clusters) != len(keys):
            raise CheckFailure("limit.clusters", f"{len(keys)} clusters", repr(clusters))
        for idx, (cl, key) in enumerate(zip(clusters, keys)):
            where = f"limit.clusters[{idx}]"
            closed(cl, {"members", "center", "is_hull_vertex", "is_zero"}, where)
            if sorted(cl.get("members", [])) != pb["groups"][key]:
                raise CheckFailure(f"{where}.members", str(pb["groups"][key]),
                                   repr(cl.get("members")))
            lo, hi = pb["limits"][key]
            if len(cl["center"]) != len(pb["phi"]):
                raise CheckFailure(f"{where}.center", f"{len(pb['phi'])} intervals",
                                   repr(cl["center"])[:60])
            for c, (a, b) in enumerate(pb["phi"]):
                ps = (lo * a, lo * b, hi * a, hi * b)
                _contains(cl["center"][c], (min(ps), max(ps)), f"{where}.center[{c}]")
            check_centre_flags(cl, where)
