"""Lemma T8's F–G cross terms (checker/paranormal.py, ``_check_cross``) against an
independent oracle, on a synthetic instance that the shipped fixtures do not reach:
λ = 3/2 (every fixture has λ = 1, where e^{−2λT} and e^{−2T/λ} agree), two G coordinates
(so B'_FG has columns k and k + 1 to mix up), a non-symmetric B (h_FG ≠ h_GF), and a
cluster of three tokens (c_k − 1 = 2 in (HΔ)).

The oracle recomputes tail.md's bounds (Lemma T8, the combined margin) in mpmath: κ, κ_μ
and Δ₀ at 300 bits, and the margin μ of (Hμ̂) in mpmath's interval arithmetic, with the
cross vectors c_l = e^{−λT}·B'_FG·(W_l ± Δ₁). Each claim is then moved just inside and
just outside its bound (10⁻²⁵ relative, far outside the checker's own outward rounding at
200 bits). The cross vectors are tried with B'_FG and with −B'_FG, so that each end of
every widened G difference binds in one of the two.

Every claim is checked by a direct call of :func:`check_paranormal` (no certificate, no
replay): the instance is V = diag(3/2, 3/2, 1/2, 1/4), basis S = I (so B' = B), and B
below. The margins follow the interval evaluation the check states (C11: xᵀB_FF as one
interval vector, then its products with u and with c_l): a tighter sound enclosure would
move the edges, so these tests pin this rule, not every valid one.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
from fractions import Fraction as Q

import mpmath
import pytest
from mpmath import iv

from certified.checker import CheckFailure
from certified.checker.paranormal import check_paranormal

PREC = 300
LAM, T = Q(3, 2), Q(2)
V = [[LAM, Q(0), Q(0), Q(0)], [Q(0), LAM, Q(0), Q(0)],
     [Q(0), Q(0), Q(1, 2), Q(0)], [Q(0), Q(0), Q(0), Q(1, 4)]]
#: B = QᵀK with F–G blocks of both signs, B_FG ≠ B_GFᵀ
B = [[Q(1), Q(1, 5), Q(1, 2), Q(-1, 3)],
     [Q(-1, 10), Q(3, 4), Q(1, 5), Q(2, 7)],
     [Q(-1, 4), Q(1, 6), Q(1, 2), Q(1, 7)],
     [Q(1, 3), Q(-1, 8), Q(-1, 9), Q(1, 3)]]
N_TOKENS = 5


def _s(x: Q | int) -> str:
    return str(Q(x))


def _ivs(row: list) -> list:
    return [[_s(a), _s(b)] for a, b in row]


def _flip_fg(B: list) -> list:
    """B with its F–G block negated (the G–F block kept)."""
    return [[-x if i < 2 <= j else x for j, x in enumerate(r)] for i, r in enumerate(B)]


def _mirror(rows: list, on: bool) -> list:
    """The F boxes, negated when ``on`` (x ↦ −x keeps every margin of B_FF and flips the
    sign of xᵀc_l: the other end of each cross vector binds)."""
    return [[(-b, -a) for a, b in row] for row in rows] if on else rows


def _zero_gf(B: list) -> list:
    """B with its G–F block zero (h_GF = 0: only B'_FG couples, and the record still needs
    the combined margin)."""
    return [[Q(0) if i >= 2 > j else x for j, x in enumerate(r)] for i, r in enumerate(B)]


def lemma_for(B: list, metric: bool = False, mirrored: bool = False) -> dict:
    """A valid T8 record with cross terms for (V, B): tokens 0, 1, 2 one cluster (leader
    0) near (2, 1/2) in F, tokens 3 and 4 alone near (−2, −1) and (−2, 3); κ, κ_μ 3/2
    of their bounds, m, μ below their margins. With ``metric``: the quadratic norm
    P = diag(2, 3) on G. With ``mirrored``: the F boxes and differences negated."""
    boxes = _mirror([[(Q(19, 10), Q(21, 10)), (Q(2, 5), Q(3, 5))],
                     [(Q(17, 10), Q(2)), (Q(1, 4), Q(1, 2))],
                     [(Q(2), Q(23, 10)), (Q(1, 2), Q(7, 10))],
                     [(Q(-21, 10), Q(-19, 10)), (Q(-11, 10), Q(-9, 10))],
                     [(Q(-21, 10), Q(-19, 10)), (Q(29, 10), Q(31, 10))]], mirrored)
    gb = [[(Q(-1, 2), Q(3, 5)), (Q(-1, 3), Q(1, 4))]] * 3 + [[(Q(-1, 5), Q(1, 5)), (Q(0), Q(1, 2))]] * 2
    d1, d2 = _mirror([[(Q(-11, 20), Q(-9, 20)), (Q(-3, 10), Q(-1, 5))],
                      [(Q(-1, 2), Q(-2, 5)), (Q(-1, 4), Q(-3, 20))]], mirrored)
    lem = {"lemma": "T8", "T": _s(T), "lambda": _s(LAM), "leader_map": [0, 0, 0, 3, 4],
           "dim_F": 2, "basis": [[_s(int(i == j)) for j in range(4)] for i in range(4)],
           "B_FF": [[_s(x) for x in r[:2]] for r in B[:2]], "nu": "1/2",
           "g": _s(sum(abs(B[i][j]) for i in (2, 3) for j in (2, 3))),
           "Y": "3/5", "Z": "31/10", "G_boxes_at_T": [_ivs(r) for r in gb],
           "boxes_at_T": [_ivs(r) for r in boxes],
           "differences_at_T": {"1": _ivs(d1), "2": _ivs(d2)},
           # asymmetric about 0, so that W − Δ₁ and W + Δ₁ differ in size
           "G_differences_at_T": {"1": _ivs([(Q(1, 10), Q(3, 10)), (Q(-2, 5), Q(-1, 5))]),
                                  "2": _ivs([(Q(-1, 4), Q(1, 20)), (Q(1, 8), Q(1, 3))])},
           "delta": "1/20", "eta": "1/20", "delta0": "1/40", "eta0": "1/40", "D": "5",
           "Delta1": "1/10", "Delta0": "1/20", "m": "1", "mu": "1/5", "rate_constant": "1/5"}
    if metric:
        # P − I ≻ 0; ν²P − V_GᵀPV_G = diag(2(9/16 − 1/4), 3(9/16 − 1/16)) ≻ 0; Y² ≥ 1.0533
        lem.update(G_metric=[["2", "0"], ["0", "3"]], nu="3/4", Y="26/25")
    o = oracle(lem, B)
    lem["kappa"] = _s(Q(mpmath.nstr(3 * o["kappa"] / 2, 30)))
    lem["kappa_mu"] = _s(Q(mpmath.nstr(3 * o["kappa_mu"] / 2, 30)))
    return lem


def _m(q: Q | int | str) -> mpmath.mpf:
    q = Q(q)
    return mpmath.mpf(q.numerator) / q.denominator


def _i(q: Q | int | str) -> iv.mpf:
    """The rational q as a rigorous mpmath interval (outward at iv.prec)."""
    q = Q(q)
    return iv.mpf(q.numerator) / q.denominator


def _hull(lo: Q, hi: Q) -> iv.mpf:
    return iv.mpf([_i(lo).a, _i(hi).b])


def _end(x: iv.mpf, upper: bool) -> mpmath.mpf:
    """One end of an mpmath interval, as an mpf (exact: the interval's own end)."""
    return mpmath.mpf(x._mpi_[1 if upper else 0])


def _g_norm(row: list, P: list | None) -> mpmath.mpf:
    """The norm on G over a box: max |end|, or √(max over vertices of yᵀPy)."""
    ends = [(Q(a), Q(b)) for a, b in row]
    if P is None:
        return _m(max(max(abs(a), abs(b)) for a, b in ends))
    return mpmath.sqrt(max(sum(_m(v[i]) * _m(P[i][j]) * _m(v[j]) for i in range(len(v))
                               for j in range(len(v))) for v in itertools.product(*ends)))


@contextlib.contextmanager
def _iv_prec(bits: int):
    """mpmath's interval context at ``bits`` (it has no workprec of its own)."""
    old, iv.prec = iv.prec, bits
    try:
        yield
    finally:
        iv.prec = old


def oracle(lem: dict, B: list) -> dict:
    """tail.md's Lemma T8 bounds for the record, recomputed at 300 bits:
    κ ≥ 2ZY(h_FG + h_GF)e^{−λT} + 2gY²e^{−2λT};
    κ_μ ≥ Yh_GF(ε + η)e^{−λT} + gYΔ̄e^{−2λT}, Δ̄ = max_l N(W_l) + Δ₁;
    Δ₀ ≥ (ν/λ)·max_k [2(c_k − 1)Δ̄·t(μ) + 2(n − c_k)Y·t(m)], t(x) = e^{−xβ}/(xβ), β = e^{2λT};
    μ_margin = min over a in cluster k, follower l of k, of −sup(xᵀB_FF u + xᵀc_l) over
    x ∈ boxes_a ± (δ + η), u ∈ differences_l ± η, c_l = e^{−λT}B_FG(W_l ± Δ₁), evaluated
    as interval sums (the enclosure the lemma's check states); m_margin likewise for (Hm)."""
    with mpmath.workprec(PREC), _iv_prec(PREC):
        f = {k: Q(lem[k]) for k in ("lambda", "T", "Y", "Z", "g", "eta", "delta", "Delta1",
                                     "nu", "m")}
        f["mu"] = Q(lem["mu"]) if lem["mu"] is not None else None
        lam, T_, Y = f["lambda"], f["T"], f["Y"]
        k, d = lem["dim_F"], len(B)
        P = [[Q(x) for x in r] for r in lem["G_metric"]] if "G_metric" in lem else None
        h_fg = sum(abs(B[i][j]) for i in range(k) for j in range(k, d))
        h_gf = sum(abs(B[i][j]) for i in range(k, d) for j in range(k))
        e1, e2 = mpmath.exp(-_m(lam * T_)), mpmath.exp(-2 * _m(lam * T_))
        eps = max((abs(Q(v)) for r in lem["differences_at_T"].values() for p in r for v in p),
                  default=Q(0))  # no followers: ε = 0, Δ̄ = Δ₁
        dbar = max((_g_norm(r, P) for r in lem["G_differences_at_T"].values()),
                   default=mpmath.mpf(0)) + _m(f["Delta1"])
        kappa = 2 * _m(f["Z"] * Y * (h_fg + h_gf)) * e1 + 2 * _m(f["g"] * Y * Y) * e2
        kappa_mu = _m(Y * h_gf * (eps + f["eta"])) * e1 + _m(f["g"] * Y) * dbar * e2
        leader = lem["leader_map"]
        n = len(leader)
        beta = mpmath.exp(2 * _m(lam * T_))

        def t(x: Q) -> mpmath.mpf:
            return mpmath.exp(-_m(x) * beta) / (_m(x) * beta)
        delta0 = _m(f["nu"] / lam) * max(
            (2 * (leader.count(c) - 1) * dbar * t(f["mu"]) if leader.count(c) > 1 else 0)
            + 2 * (n - leader.count(c)) * _m(Y) * t(f["m"]) for c in set(leader))
        r_, eta, D1 = f["delta"] + f["eta"], f["eta"], f["Delta1"]
        X = [[_hull(Q(a) - r_, Q(b) + r_) for a, b in row] for row in lem["boxes_at_T"]]
        L = [[_hull(Q(a) - f["delta"], Q(b) + f["delta"]) for a, b in row]
             for row in lem["boxes_at_T"]]
        G = [[sum((_i(B[s][c]) * X[a][s] for s in range(k)), iv.mpf(0)) for c in range(k)]
             for a in range(n)]
        E = iv.exp(-_i(lam * T_))
        margin_m = min(_end(sum((G[a][c] * (L[leader[a]][c] - X[b][c]) for c in range(k)),
                           iv.mpf(0)), False)
                       for a in range(n) for b in range(n) if leader[b] != leader[a])
        sups = []
        for a in range(n):
            for j, diff in lem["differences_at_T"].items():
                if leader[int(j)] != leader[a]:
                    continue
                U = [_hull(Q(lo) - eta, Q(hi) + eta) for lo, hi in diff]
                W = [_hull(Q(lo) - D1, Q(hi) + D1) for lo, hi in lem["G_differences_at_T"][j]]
                c_l = [E * sum((_i(B[r][k + c]) * W[c] for c in range(d - k)), iv.mpf(0))
                       for r in range(k)]
                val = (sum((G[a][c] * U[c] for c in range(k)), iv.mpf(0))
                       + sum((X[a][r] * c_l[r] for r in range(k)), iv.mpf(0)))
                sups.append(_end(val, True))
        # interval ends as mpf: iv's ends at 300 bits, far inside the 10⁻²⁵ moves
        return {"kappa": kappa, "kappa_mu": kappa_mu, "Delta0": delta0,
                "mu_margin": -max(sups) - _m(lem["kappa_mu"]) if "kappa_mu" in lem and sups
                else None,
                "m_margin": margin_m - _m(lem["kappa"]) if "kappa" in lem else None}


def _near(x: mpmath.mpf, up: bool, rel: str = "1e-25") -> str:
    """A rational just above (``up``) or just below x, ``rel`` relative away."""
    with mpmath.workprec(PREC):
        s = 1 + mpmath.mpf(rel) if up else 1 - mpmath.mpf(rel)
        return _s(Q(mpmath.nstr(x * s, 60)))


def _outcome(lem: dict, B: list) -> str:
    try:
        check_paranormal(copy.deepcopy(lem), V, B, N_TOKENS)
    except CheckFailure as exc:
        return exc.where
    return "VALID"


#: (B, mirrored): with B'_FG and −B'_FG each end of each cross vector c_l and of each
#: widened G difference binds in one of the two; mirroring the tokens (x ↦ −x) gives the
#: same numbers as negating B'_FG, through the other sign paths of the interval products
#: (the cross sums' lower ends); and B'_GF = 0 (one block alone makes the cross terms)
BS = {"B": (B, False), "minus_B_FG": (_flip_fg(B), False), "B_mirrored": (B, True),
      "minus_B_FG_mirrored": (_flip_fg(B), True), "zero_G_F_block": (_zero_gf(B), False)}


@pytest.mark.parametrize("name", list(BS))
@pytest.mark.parametrize("metric", [False, True], ids=["max_norm", "G_metric"])
def test_the_record_is_valid_and_the_oracle_agrees_with_its_margins(name, metric):
    """The built record checks valid, and the checker's own margins (read from its
    refusals of μ and m just above them) agree with the oracle's: the oracle is a
    recomputation of the same bounds, not a looser one."""
    B_, mirrored = BS[name]
    lem = lemma_for(B_, metric, mirrored)
    assert _outcome(lem, B_) == "VALID"
    o = oracle(lem, B_)
    assert o["mu_margin"] > _m(lem["mu"]) and o["m_margin"] > _m(lem["m"])
    with pytest.raises(CheckFailure) as exc:
        check_paranormal(dict(lem, mu=_near(o["mu_margin"], True, "1e-12")), V, B_, N_TOKENS)
    got = mpmath.mpf(str(exc.value).split("mu <= ")[1].split(" ")[0])
    assert abs(got - o["mu_margin"]) <= 1e-15 * abs(o["mu_margin"])


# (field, oracle key, the field refused when the claim is moved to the wrong side)
EDGES = [("kappa", "kappa", "tail_lemma.kappa"), ("kappa_mu", "kappa_mu", "tail_lemma.kappa_mu"),
         ("Delta0", "Delta0", "tail_lemma.Delta0"), ("mu", "mu_margin", "tail_lemma.mu"),
         ("m", "m_margin", "tail_lemma.m")]


@pytest.mark.parametrize("name", list(BS))
@pytest.mark.parametrize("metric", [False, True], ids=["max_norm", "G_metric"])
@pytest.mark.parametrize("field,key,refused", EDGES, ids=[e[0] for e in EDGES])
def test_each_claim_at_its_edge(name, metric, field, key, refused):
    """A lower bound (κ, κ_μ, Δ₀) just above the oracle's value is accepted and just below
    it refused; a margin (m, μ) just below the oracle's is accepted and just above it
    refused. With the quadratic norm the checker rounds √ up at 64 bits (Δ̄ in κ_μ and
    Δ₀), so there the moves are 10⁻¹² relative."""
    B_, mirrored = BS[name]
    lem = lemma_for(B_, metric, mirrored)
    # m or μ moved up to its margin: c = min(m, μ) and Δ₀ (recomputed for the new m, μ)
    # follow; δ₀ and η₀ may stay, since T4's tails only shrink as m and μ grow
    rel = "1e-12" if metric else "1e-25"
    value = oracle(lem, B_)[key]
    lower_bound = field in ("kappa", "kappa_mu", "Delta0")
    inside, outside = (_near(value, lower_bound, rel), _near(value, not lower_bound, rel))
    for claim, want in ((inside, "VALID"), (outside, refused)):
        edited = dict(lem, **{field: claim})
        if field in ("m", "mu"):
            edited["rate_constant"] = _s(min(Q(edited["m"]), Q(edited["mu"])))
            edited["Delta0"] = _near(oracle(edited, B_)["Delta0"], True, rel)
        assert _outcome(edited, B_) == want, (field, claim)


def test_the_cluster_of_three_sets_delta0():
    """Δ₀'s bound is the cluster of three's: (ν/λ)·[2(c_k − 1)Δ̄t(μ) + 2(n − c_k)Yt(m)]
    with c_k = 3, where the t(m) terms (and the tokens alone, 2·4·Y·t(m)) are hundreds of
    orders smaller (m = 5μ, β = e⁶). A count of c_k off by one, or counting the other
    clusters' tokens (c_k = 4 for a token alone among five), moves the bound."""
    lem = lemma_for(B)
    o = oracle(lem, B)
    with mpmath.workprec(PREC):
        beta = mpmath.exp(2 * _m(LAM * T))
        mu, Y, nu = (_m(lem[k]) for k in ("mu", "Y", "nu"))
        dbar = mpmath.mpf("0.4") + mpmath.mpf("0.1")  # max |W_l| + Δ₁
        cluster = nu / _m(LAM) * 2 * 2 * dbar * mpmath.exp(-mu * beta) / (mu * beta)
        assert abs(o["Delta0"] - cluster) <= mpmath.mpf("1e-60") * cluster
    for ck, want in ((3, "VALID"), (2, "tail_lemma.Delta0")):
        # Δ₀ just above the bound a check counting c_k would compute
        with mpmath.workprec(PREC):
            claim = _near(o["Delta0"] * (ck - 1) / 2, True)
        assert _outcome(dict(lem, Delta0=claim), B) == want, ck


def _delta0_edges(lem: dict) -> None:
    """Δ₀ just above the oracle's bound is accepted, just below it refused."""
    with mpmath.workprec(PREC):
        need = oracle(lem, B)["Delta0"]
    assert _outcome(dict(lem, Delta0=_near(need, True)), B) == "VALID"
    assert _outcome(dict(lem, Delta0=_near(need, False)), B) == "tail_lemma.Delta0"


def test_the_tokens_alone_set_delta0_when_m_is_the_smaller_margin():
    """With m = 1/6 < μ = 1/5 the far term 2(n − c_k)Y·t(m) dominates Δ₀'s bound (t(m) is
    e^{13} times t(μ)), the largest for a token alone (c_k = 1: 2·4·Y·t(m)); the edges then
    test that term's factor."""
    lem = dict(lemma_for(B), m="1/6", rate_constant="1/6")
    with mpmath.workprec(PREC):
        beta = mpmath.exp(2 * _m(LAM * T))
        far = 2 * 4 * _m(lem["Y"]) * mpmath.exp(-beta / 6) / (beta / 6) * _m(Q(1, 3))
        assert abs(oracle(lem, B)["Delta0"] - far) <= mpmath.mpf("1e-60") * far
    _delta0_edges(lem)


def test_no_followers():
    """Three tokens each alone (tokens 0, 3 and 4 of the record): no μ, ε = 0 and
    Δ̄ = Δ₁ in κ_μ's bound (κ_μ is still a claim of the combined margin), and Δ₀'s bound
    2(n − 1)Y·t(m)·ν/λ."""
    full = lemma_for(B)
    keep = [0, 3, 4]
    lem = dict(full, leader_map=[0, 1, 2], mu=None, rate_constant="1",
               differences_at_T={}, G_differences_at_T={},
               boxes_at_T=[full["boxes_at_T"][i] for i in keep],
               G_boxes_at_T=[full["G_boxes_at_T"][i] for i in keep])

    def outcome(edited: dict) -> str:
        try:
            check_paranormal(copy.deepcopy(edited), V, B, 3)
        except CheckFailure as exc:
            return exc.where
        return "VALID"
    o = oracle(lem, B)
    assert o["mu_margin"] is None
    with mpmath.workprec(PREC):
        Y, h_gf, eta, g = _m(lem["Y"]), _m(Q(1, 4) + Q(1, 6) + Q(1, 3) + Q(1, 8)), _m(
            lem["eta"]), _m(lem["g"])
        want = Y * h_gf * eta * mpmath.exp(-3) + g * Y * _m(lem["Delta1"]) * mpmath.exp(-6)
        assert abs(o["kappa_mu"] - want) <= mpmath.mpf("1e-60") * want
        beta = mpmath.exp(2 * _m(LAM * T))
        far = 2 * 2 * Y * mpmath.exp(-beta) / beta * _m(Q(1, 3))
        assert abs(o["Delta0"] - far) <= mpmath.mpf("1e-60") * far
    assert outcome(lem) == "VALID"
    for key, field in (("kappa_mu", "tail_lemma.kappa_mu"), ("Delta0", "tail_lemma.Delta0")):
        assert outcome(dict(lem, **{key: _near(o[key], True)})) == "VALID", key
        assert outcome(dict(lem, **{key: _near(o[key], False)})) == field, key


def test_cross_vectors_use_both_G_columns():
    """The cross vectors sum over both G coordinates: with B'_FG's second column zeroed the
    margin μ changes (a check that read column k only, or k − c for k + c, would not see
    the difference)."""
    B2 = [[x if j != 3 or i >= 2 else Q(0) for j, x in enumerate(r)] for i, r in enumerate(B)]
    a, b = oracle(lemma_for(B), B)["mu_margin"], oracle(lemma_for(B2), B2)["mu_margin"]
    assert b > a + mpmath.mpf("1e-3")  # column k + 1 lowers the margin here
    lem = lemma_for(B)
    assert _outcome(dict(lem, mu=_near(b, False)), B) == "tail_lemma.mu"


def test_B_FF_is_compared_in_the_cross_form():
    """The F block of SᵀBS is compared entry by entry, word for word in the refusal."""
    lem = lemma_for(B)
    lem["B_FF"] = [["1", "1/5"], ["-1/10", "4/5"]]
    with pytest.raises(CheckFailure) as exc:
        check_paranormal(lem, V, B, N_TOKENS)
    assert str(exc.value) == (
        "tail_lemma.B_FF: Expected SᵀBS's F block [[Fraction(1, 1), Fraction(1, 5)], "
        "[Fraction(-1, 10), Fraction(3, 4)]] (S = basis). Got [['1', '1/5'], ['-1/10', '4/5']].")


UNREADABLE = [
    ("Z", "tail_lemma.Z"), ("kappa_mu", "tail_lemma.kappa_mu"), ("Delta1", "tail_lemma.Delta1"),
    ("Delta0", "tail_lemma.Delta0"), ("eta", "tail_lemma.eta"),
    (("boxes_at_T", 3, 1, 0), "tail_lemma.boxes_at_T[3]"),
    (("differences_at_T", "2", 0, 1), "tail_lemma.differences_at_T"),
    (("G_differences_at_T", "2", 1, 0), "tail_lemma.G_differences_at_T[2]"),
    (("B_FF", 1, 0), "tail_lemma.B_FF"),
]


@pytest.mark.parametrize("where,field", UNREADABLE, ids=[f for _, f in UNREADABLE])
def test_an_unreadable_number_is_refused_under_its_own_name(where, field):
    lem = lemma_for(B)
    if isinstance(where, str):
        lem[where] = "one"
    else:
        node = lem
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = "one"
    with pytest.raises(CheckFailure) as exc:
        check_paranormal(lem, V, B, N_TOKENS)
    assert exc.value.where == field
