"""Re-checking Lemma T4 (leader–follower, V = λI) and the verdict it supports.

Margins are recomputed in *exact* rational interval arithmetic on the stored boxes (the
boxes, B and the inflations are rationals, and the expressions are polynomial), the tail
bounds with :mod:`.balls` (they need exp). Statement and proof: ``proofs_notes/tail.md``,
Lemma T4; what is re-checked here: ``proofs_notes/checker.md``, Lemma C6.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath.libmp as L
import numpy as np

from .balls import (
    Ball,
    add_up,
    const,
    div_up,
    exp_down,
    exp_up,
    le_q,
    mpf_down,
    mpf_fraction,
    mpf_up,
    mul_down,
    mul_up,
)
from .errors import CheckFailure
from .reading import exact_number
from .replay import LohnerSet

__all__ = ["check_enclosure_at_T", "check_leader_follower", "check_t4_verdict", "closed"]

Iv = tuple[Fraction, Fraction]


def _q(x: object, where: str) -> Fraction:
    """A stored exact number (:func:`.reading.exact_number`: from its text, never a bool)."""
    return exact_number(x, where)


def _iv(pair: list, where: str) -> Iv:
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:  # nothing stored is ignored
        raise CheckFailure(where, "an interval [lo, hi]", repr(pair)[:60])
    lo, hi = _q(pair[0], where), _q(pair[1], where)
    if lo > hi:
        raise CheckFailure(where, "lo <= hi", f"[{pair[0]}, {pair[1]}]")
    return lo, hi


def _add(a: Iv, b: Iv) -> Iv:
    return a[0] + b[0], a[1] + b[1]


def _mul(a: Iv, b: Iv) -> Iv:
    p = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return min(p), max(p)


def _scal(s: Fraction, a: Iv) -> Iv:
    return (s * a[0], s * a[1]) if s >= 0 else (s * a[1], s * a[0])


def _dot(u: list[Iv], v: list[Iv]) -> Iv:
    acc = (Fraction(0), Fraction(0))
    for a, b in zip(u, v):
        acc = _add(acc, _mul(a, b))
    return acc


def _margins(B: list[list[Fraction]], boxes: list[list[Iv]], diffs: dict[int, list[Iv]],
             leader: list[int], delta: Fraction, eta: Fraction,
             cross: dict[int, list[Iv]] | None = None
             ) -> tuple[Fraction | None, Fraction | None]:
    """Exact lower bounds of (Hm): x ∈ Z_a⁺ʳ, y ∈ Z_k⁺ᵟ, w ∈ Z_b⁺ʳ ⇒ xᵀB(y − w) ≥ m, and
    of (Hμ): u ∈ E_j⁺ᵑ ⇒ −xᵀBu ≥ μ (r = δ + η), by interval evaluation of the affine forms.
    With ``cross`` (Lemma T8 with F–G cross terms, (Hμ̂)): −xᵀ(Bu + c_j) ≥ μ for the
    interval vector c_j of follower j."""
    n, d = len(boxes), len(B)
    r = delta + eta
    X = [[(lo - r, hi + r) for lo, hi in row] for row in boxes]
    Lk = [[(lo - delta, hi + delta) for lo, hi in row] for row in boxes]
    G = [[(Fraction(0), Fraction(0)) for _ in range(d)] for _ in range(n)]
    for a in range(n):
        for c in range(d):
            acc = (Fraction(0), Fraction(0))
            for s in range(d):
                acc = _add(acc, _scal(B[s][c], X[a][s]))
            G[a][c] = acc
    followers = [j for j in range(n) if leader[j] != j]
    m = mu = None
    for a in range(n):
        k = leader[a]
        for b in range(n):
            if leader[b] == k:
                continue
            W = [(Lk[k][c][0] - X[b][c][1], Lk[k][c][1] - X[b][c][0]) for c in range(d)]
            lo = _dot(G[a], W)[0]
            m = lo if m is None else min(m, lo)
        for j in followers:
            if leader[j] != k:
                continue
            U = [(lo - eta, hi + eta) for lo, hi in diffs[j]]
            val = _dot(G[a], U)
            if cross is not None:  # + xᵀc_j over the same x region
                val = _add(val, _dot(X[a], cross[j]))
            hi = val[1]
            mu = -hi if mu is None else min(mu, -hi)
    return m, mu


def _tails(m: Fraction, mu: Fraction | None, lam: Fraction, T: Fraction, D: Fraction,
           leader: list[int], eps: dict[int, Fraction], eta: Fraction) -> tuple[tuple, tuple]:
    """Upper bounds of Lemma T4's (δ₀, η₀) (the bootstrap (Hb), via Lemma T3), as mpmath
    floats rounded up (relative precision: they may be far below the fixed-point unit):
    e^{−b}/b with b = m e^{2λT} is decreasing in b, so a lower bound of b gives an upper
    bound of the tail."""
    beta = exp_down(mpf_down(2 * lam * T))

    def tail(x: Fraction) -> tuple:  # ≥ e^{−xβ}/(xβ) for x > 0
        b = mul_down(mpf_down(x), beta)
        return div_up(exp_up(L.mpf_neg(b)), b)
    tail_b = tail(m)
    tail_a = tail(mu) if mu is not None else None
    return _bootstrap_max(leader, eps, eta, D, tail_b, tail_a, Fraction(1, 2), Fraction(1),
                          Fraction(1), Fraction(1))


def _bootstrap_max(leader: list[int], eps: dict[int, Fraction], eta: Fraction, D: Fraction,
                   far: tuple, near: tuple | None, far_d: Fraction, far_e: Fraction,
                   w_d: Fraction, w_e: Fraction) -> tuple[tuple, tuple]:
    """max over clusters k of w_d·[far_d·(n − c_k)D·far + Σ_k·near] and
    w_e·[far_e·(n − c_k)D·far + 2Σ_k·near] (Σ_k = Σ over followers l of k of (ε_l + η)),
    every operation rounded up: the shape shared by (Hb) of T4 and (Hb′) of T10."""
    n = len(leader)
    d0 = e0 = L.fzero
    for k in sorted(set(leader)):
        members = [i for i in range(n) if leader[i] == k]
        sig = sum((eps[j] + eta for j in members if j != k), Fraction(0))
        outside = n - len(members)
        dk = mul_up(mpf_up(far_d * outside * D), far)
        ek = mul_up(mpf_up(far_e * outside * D), far)
        if sig:
            if near is None:
                raise CheckFailure("tail_lemma.mu", "a within-cluster margin (followers exist)",
                                   "null")
            dk = add_up(dk, mul_up(mpf_up(sig), near))
            ek = add_up(ek, mul_up(mpf_up(2 * sig), near))
        if w_d != 1:
            dk = mul_up(mpf_up(w_d), dk)
        if w_e != 1:
            ek = mul_up(mpf_up(w_e), ek)
        d0, e0 = _larger(d0, dk), _larger(e0, ek)
    return d0, e0


def _tails_discrete(m: Fraction, mu: Fraction | None, lam: Fraction, dt: Fraction, K: int,
                    D: Fraction, leader: list[int], eps: dict[int, Fraction], eta: Fraction
                    ) -> tuple[tuple, tuple]:
    """Upper bounds of Lemma T10's (δ₀, η₀) (the bootstrap (Hb′)), as mpmath floats
    rounded up: with q = 1 + λΔt, α = λΔt/q, a = μq^{2K}, b = mq^{2K} (exact),
    A = e^{−a}(1 + 1/(aα)), C = e^{−b}(1 + 1/(2bα)); δ₀ = α max_k [Σ_k A + (n − c_k)DC],
    η₀ = λΔt max_k [2Σ_k A + 2(n − c_k)DC]. Requires b ≥ 1/2 (T10's sums)."""
    q = 1 + lam * dt
    alpha = lam * dt / q
    beta = q ** (2 * K)
    if m * beta < Fraction(1, 2):
        raise CheckFailure("tail_lemma.m", "m·(1 + λΔt)^(2K) >= 1/2 (Lemma T10's sums)",
                           f"{float(m * beta)!r}")

    def tail(x: Fraction, two: int) -> tuple:  # ≥ e^{−y}(1 + 1/(two·y·α)), y = xβ exact
        y = x * beta
        return mul_up(exp_up(mpf_up(-y)), mpf_up(1 + 1 / (two * y * alpha)))
    C = tail(m, 2)
    A = tail(mu, 1) if mu is not None else None
    return _bootstrap_max(leader, eps, eta, D, C, A, Fraction(1), Fraction(2), alpha, lam * dt)


def _larger(x: tuple, y: tuple) -> tuple:
    return x if L.mpf_cmp(x, y) >= 0 else y


#: Lemma T4's fields (closed; T8 and T10 add theirs).
T4_KEYS = frozenset({"lemma", "T", "lambda", "leader_map", "m", "mu", "delta", "eta", "delta0",
                      "eta0", "D", "rate_constant", "boxes_at_T", "differences_at_T"})


def check_leader_follower(lemma: dict, lam: Fraction, B: list[list[Fraction]], n: int,
                          kappa: Fraction = Fraction(0), dt: Fraction | None = None,
                          kappa_mu: Fraction | None = None,
                          cross: dict[int, list[Iv]] | None = None) -> dict:
    """Re-verify Lemma T4's hypotheses and conclusions from the stored data at T (with
    ``dt``: Lemma T10's, at the layer K = T/Δt of the map with step Δt).

    Returns the parsed lemma (leader map, boxes, differences, recomputed δ₀, m, μ) for
    the verdict check and for :func:`check_enclosure_at_T`, which must then confirm that
    the stored boxes contain the replayed enclosure. ``kappa`` (Lemma T8, verified by
    the caller) is subtracted from the recomputed margins before they are compared.
    """
    d = len(B)
    T = _q(lemma["T"], "tail_lemma.T")
    if _q(lemma["lambda"], "tail_lemma.lambda") != lam or lam <= 0:
        raise CheckFailure("tail_lemma.lambda", f"λ = {lam} > 0 (V = λI)", str(lemma["lambda"]))
    leader = lemma["leader_map"]
    if (not isinstance(leader, list) or len(leader) != n
            or any(not isinstance(x, int) or not 0 <= x < n for x in leader)):
        raise CheckFailure("tail_lemma.leader_map", f"a list of {n} token indices", repr(leader))
    if any(leader[leader[i]] != leader[i] for i in range(n)):
        raise CheckFailure("tail_lemma.leader_map", "an idempotent map (l(l(i)) = l(i))",
                           repr(leader))
    followers = [j for j in range(n) if leader[j] != j]
    boxes = [[_iv(p, f"tail_lemma.boxes_at_T[{i}]") for p in row]
             for i, row in enumerate(lemma["boxes_at_T"])]
    if len(boxes) != n or any(len(row) != d for row in boxes):
        raise CheckFailure("tail_lemma.boxes_at_T", f"{n}×{d} intervals", "another shape")
    raw = lemma["differences_at_T"]
    if not isinstance(raw, dict) or sorted(raw) != sorted(str(j) for j in followers):
        raise CheckFailure("tail_lemma.differences_at_T", f"boxes for the followers {followers} "
                           "of leader_map",
                           f"keys {sorted(raw)}" if isinstance(raw, dict) else repr(raw)[:60])
    diffs = {int(j): [_iv(p, f"tail_lemma.differences_at_T[{j}]") for p in row]
             for j, row in raw.items()}
    short = [j for j, row in diffs.items() if len(row) != d]
    if short:
        raise CheckFailure(f"tail_lemma.differences_at_T[{short[0]}]", f"{d} intervals",
                           f"{len(diffs[short[0]])}")
    # 2. (T1) hull diameter, then (Hm), (Hμ) on the inflated regions, then (Hb).
    D = _q(lemma["D"], "tail_lemma.D")
    Dmin = max(max(boxes[i][c][1] for i in range(n)) - min(boxes[i][c][0] for i in range(n))
               for c in range(d))
    if D < Dmin:
        raise CheckFailure("tail_lemma.D", f"D >= {float(Dmin)!r} (ℓ∞ diameter of boxes_at_T)",
                           str(lemma["D"]))
    m, delta, eta = (_q(lemma[k], f"tail_lemma.{k}") for k in ("m", "delta", "eta"))
    mu = None if lemma["mu"] is None else _q(lemma["mu"], "tail_lemma.mu")
    delta0, eta0 = _q(lemma["delta0"], "tail_lemma.delta0"), _q(lemma["eta0"], "tail_lemma.eta0")
    m_c, mu_c = _margins(B, boxes, diffs, leader, delta, eta, cross)
    if m_c is None:
        m_c = Fraction(1)  # one cluster: (Hm) is vacuous
    else:
        m_c -= kappa  # Lemma T8: the G-terms of the cross-cluster scores
    if mu_c is not None:
        mu_c -= kappa if kappa_mu is None else kappa_mu
    less = ", minus kappa" if kappa else ""
    if not (0 < m <= m_c):
        raise CheckFailure("tail_lemma.m", f"0 < m <= {float(m_c)!r} (the margin recomputed "
                           f"for leader_map from boxes_at_T, delta, eta{less})", str(lemma["m"]))
    if followers:
        less_mu = ", minus kappa_mu" if kappa_mu is not None else less
        if mu is None or not (0 < mu <= mu_c):
            raise CheckFailure("tail_lemma.mu", f"0 < mu <= {float(mu_c)!r} (recomputed from "
                               f"boxes_at_T, differences_at_T, eta{less_mu})",
                               str(lemma["mu"]))
    elif mu is not None:
        raise CheckFailure("tail_lemma.mu", "null (no followers)", str(lemma["mu"]))
    eps = {j: max(max(abs(lo), abs(hi)) for lo, hi in diffs[j]) for j in followers}
    if dt is None:
        d0, e0 = _tails(m, mu, lam, T, D, leader, eps, eta)
    else:
        K = T / dt
        if K.denominator != 1 or K < 0:
            raise CheckFailure("tail_lemma.T", f"a layer time K·Δt (Δt = {dt})", str(lemma["T"]))
        d0, e0 = _tails_discrete(m, mu, lam, dt, int(K), D, leader, eps, eta)
    if not (le_q(d0, delta0) and delta0 < delta):
        raise CheckFailure("tail_lemma.delta0", f"{L.to_str(d0, 17)} <= delta0 < delta = "
                           f"{float(delta)!r} (bootstrap (Hb) from m, mu, D, T, lambda, "
                           "differences_at_T, eta)", str(lemma["delta0"]))
    if not (le_q(e0, eta0) and eta0 < eta):
        raise CheckFailure("tail_lemma.eta0", f"{L.to_str(e0, 17)} <= eta0 < eta = "
                           f"{float(eta)!r} (bootstrap (Hb) from m, mu, D, T, lambda, "
                           "differences_at_T)", str(lemma["eta0"]))
    base = m if mu is None else min(m, mu)
    # the rate constant is a lower bound: compared with the lower end of the enclosure
    if dt is None:
        rate_lo, form = (const(base) * const(lam * T).exp()).lo_q(), "min(m, mu)·e^(λT)"
    else:  # T10 (3): c = min(m, μ)·q^K, exact
        rate_lo, form = base * (1 + lam * dt) ** int(T / dt), "min(m, mu)·(1 + λΔt)^K"
    rate = _q(lemma["rate_constant"], "tail_lemma.rate_constant")
    if not 0 < rate <= rate_lo:  # c ≤ 0 would make the rate statement empty
        raise CheckFailure("tail_lemma.rate_constant",
                           f"0 < c <= {float(rate_lo)!r} (<= {form})", str(rate))
    # Conclusion (1) uses the recomputed bound d0 (≤ the stored δ₀).
    return {"T": T, "leader": leader, "boxes": boxes, "diffs": diffs,
            "delta0": mpf_fraction(d0, delta0), "m": m, "mu": mu, "rate_lo": rate_lo}


def check_enclosure_at_T(lf: dict, S: LohnerSet) -> None:
    """The stored boxes and follower differences at T contain the replayed enclosure
    (differences as linear images of the set, Lemma C4)."""
    leader, boxes = lf["leader"], lf["boxes"]
    n, d = len(boxes), len(boxes[0])
    followers = [j for j in range(n) if leader[j] != j]
    # 1. The stored boxes contain the checker's own enclosure at T.
    own = S.box().reshape(n, d)
    E: dict[int, Any] = {}
    if followers:
        N = n * d
        Mdiff = np.empty((len(followers) * d, N), dtype=object)
        Mdiff.fill(Ball(0, 0))
        one = const(1)
        for r_, j in enumerate(followers):
            for c in range(d):
                Mdiff[r_ * d + c, j * d + c] = one
                Mdiff[r_ * d + c, leader[j] * d + c] = -one
        rows = S.linear_image(Mdiff).reshape(len(followers), d)
        E = {j: rows[r_] for r_, j in enumerate(followers)}
    check_stored_boxes(lf, own, E, "replayed")


def check_stored_boxes(lf: dict, own: Any, own_diffs: dict[int, Any], how: str) -> None:
    """The lemma's stored ``boxes_at_T`` (n × d) contain the checker's own balls ``own``
    and its ``differences_at_T`` contain ``own_diffs[j]`` (d balls per follower j);
    ``how`` names the checker's enclosure ("replayed", "iterated") in the failure."""
    boxes, diffs = lf["boxes"], lf["diffs"]
    n, d = len(boxes), len(boxes[0])
    pairs = [(f"boxes_at_T[{i}][{c}]", boxes[i][c], own[i, c])
             for i in range(n) for c in range(d)]
    pairs += [(f"differences_at_T[{j}][{c}]", diffs[j][c], own_diffs[j][c])
              for j in sorted(diffs) for c in range(d)]
    for where, (lo, hi), ball in pairs:
        stored_contains(f"tail_lemma.{where}", lo, hi, ball, how,
                        f"[{float(lo)!r}, {float(hi)!r}]")


def stored_contains(where: str, lo: Fraction, hi: Fraction, ball: Ball, how: str,
                    got: str) -> None:
    """The stored interval [lo, hi] contains the checker's own enclosure ``ball`` (named
    ``how``: "replayed", "iterated"), or CheckFailure showing the interval as ``got``.

    The failure is ``final`` when the two are disjoint: the enclosure contains the true
    value, so the stored interval misses it, and a finer enclosure (a retry at more
    bits, which contains the true value too) cannot change that."""
    if not (lo <= ball.lo_q() and ball.hi_q() <= hi):
        raise CheckFailure(where, f"an interval containing the {how} {ball!r}", got,
                           final=hi < ball.lo_q() or ball.hi_q() < lo)


def _contains(outer: list, inner: Iv, where: str, why: str = "recomputed") -> None:
    lo, hi = _iv(outer, where)
    if not (lo <= inner[0] and inner[1] <= hi):
        raise CheckFailure(where, f"an interval containing [{float(inner[0])!r}, "
                           f"{float(inner[1])!r}] ({why})", f"[{outer[0]}, {outer[1]}]")


def check_centre_flags(cl: dict, where: str) -> None:
    """A cluster may claim only what a lemma can prove: `is_hull_vertex` true or
    "undecided", `is_zero` false or "undecided" (nothing proves a zero centre or a
    non-vertex)."""
    if cl.get("is_hull_vertex") not in (True, "undecided"):
        raise CheckFailure(f"{where}.is_hull_vertex", "true or 'undecided'",
                           repr(cl.get("is_hull_vertex")))
    if cl.get("is_zero") not in (False, "undecided"):
        raise CheckFailure(f"{where}.is_zero", "false or 'undecided'", repr(cl.get("is_zero")))


def _check_clusters(clusters: list, lf: dict, B: list[list[Fraction]], where: str,
                    center: str = "center") -> None:
    leader, boxes, d0 = lf["leader"], lf["boxes"], lf["delta0"]
    leaders = sorted(set(leader))
    got = [c.get("leader") for c in clusters]
    if len(got) != len(leaders):
        raise CheckFailure(where, f"{len(leaders)} clusters, led by {leaders}", repr(got))
    for idx, (k, g) in enumerate(zip(leaders, got)):
        if g != k:
            raise CheckFailure(f"{where}[{idx}].leader", str(k), repr(g))
    centers = []
    for idx, (k, cl) in enumerate(zip(leaders, clusters)):
        members = [i for i, l in enumerate(leader) if l == k]
        if cl.get("members") != members:
            raise CheckFailure(f"{where}[{idx}].members", repr(members), repr(cl.get("members")))
        cen = [(lo - d0, hi + d0) for lo, hi in boxes[k]]
        if not isinstance(cl.get(center), list) or len(cl[center]) != len(cen):
            raise CheckFailure(f"{where}[{idx}].{center}", f"{len(cen)} intervals",
                               repr(cl.get(center))[:60])
        for c, pair in enumerate(cl[center]):
            _contains(pair, cen[c], f"{where}[{idx}].{center}[{c}]", "boxes_at_T ± delta0")
        centers.append([_iv(p, f"{where}[{idx}].{center}") for p in cl[center]])
    for idx, cl in enumerate(clusters):
        # Only `true` (with a witness) or "undecided" for hull vertices, and only `false` or
        # "undecided" for zero centres, are provable from Lemma T4 and G1.
        check_centre_flags(cl, f"{where}[{idx}]")
        if "exposing_functional" in cl and not (cl.get("is_hull_vertex") is True
                                                and len(clusters) >= 2):
            raise CheckFailure(f"{where}[{idx}].exposing_functional", "none (only a hull "
                               "vertex among ≥ 2 clusters carries one)",
                               repr(cl["exposing_functional"]))
        if cl.get("is_hull_vertex") is True and len(clusters) >= 2:
            a = cl.get("exposing_functional")
            if a is None:
                raise CheckFailure(f"{where}[{idx}].exposing_functional",
                                   "a witness for is_hull_vertex = true", "none")
            if not isinstance(a, list) or len(a) != len(centers[idx]):
                raise CheckFailure(f"{where}[{idx}].exposing_functional",
                                   f"{len(centers[idx])} numbers (one per coordinate)",
                                   repr(a)[:60])
            a = [_q(x, f"{where}[{idx}].exposing_functional") for x in a]
            lo_k = _dot([(x, x) for x in a], centers[idx])[0]
            for j, cen in enumerate(centers):
                if j != idx and not lo_k > _dot([(x, x) for x in a], cen)[1]:
                    raise CheckFailure(f"{where}[{idx}].is_hull_vertex",
                                       f"a·c_{idx} > a·c_{j} on the centre boxes for "
                                       "a = exposing_functional (Lemma G1)",
                                       "not separated")
        if cl.get("is_zero") is False and len(clusters) < 2:
            if not any(lo > 0 or hi < 0 for lo, hi in centers[idx]):
                raise CheckFailure(f"{where}[{idx}].is_zero", "a centre box excluding 0",
                                   "a box containing 0")


#: The statement of Lemma T4's rate, as the producer writes it (compared verbatim: the
#: checker proves this statement and no other).
RATE_STATEMENT = "for t >= T: |P_ij(t) - P*_ij| <= (n-1) exp(-c e^{lambda t})"
#: Lemma T10's (layers k of the discrete map), compared verbatim.
RATE_STATEMENT_DISCRETE = ("for layers k >= K: |P_ij - P*_ij| <= (n-1) "
                           "exp(-c (1 + lambda dt)^k)")
_CLUSTER_KEYS = {"leader", "members", "center", "is_hull_vertex", "is_zero",
                 "exposing_functional"}
_LIMIT_KEYS = {"clusters", "attention_limit", "attention_rank", "rate", "leaders",
               "rate_constant", "coordinate_limits", "hyperplane_values"}
_EVIDENCE_KEYS = {"clusters", "attention_limit", "attention_rank", "rows_outside_two_leaders",
                  "entry", "hyperplane_values"}


def closed(obj: object, allowed: set[str], where: str) -> dict:
    """``obj`` must be an object whose keys are all in ``allowed`` (a claim the checker
    cannot re-derive is an error, not an ignored field)."""
    if not isinstance(obj, dict):
        raise CheckFailure(where, "an object", repr(obj)[:60])
    extra = sorted(set(obj) - allowed)
    if extra:
        raise CheckFailure(f"{where}.{extra[0]}", "no such field (the checker cannot re-derive "
                           "it)", repr(obj[extra[0]])[:60])
    return obj


def _t4_expected(theorem: str, lf: dict, X0: list[list[Fraction]], d: int
                 ) -> tuple[str, list[int]]:
    """The verdict Lemma T4's data imply for the theorem, and (2.1) the rows of P* outside
    the two leaders."""
    leader = lf["leader"]
    n = len(leader)
    leaders = sorted(set(leader))
    if theorem in ("3.1", "5.2"):
        return "certified", []
    if theorem == "2.1":
        if d == 1:
            xs = [X0[i][0] for i in range(n)]
            extremes = {xs.index(min(xs)), xs.index(max(xs))}
        else:
            sizes = sorted(((k, sum(1 for l in leader if l == k)) for k in leaders),
                           key=lambda kc: -kc[1])
            extremes = {k for k, _ in sizes[:2]}
        bad = [i for i, k in enumerate(leader) if k not in extremes]
        return ("certified" if len(bad) <= 1 else "refuted"), bad
    if theorem == "4.2":
        return ("undecided" if d != 1 else
                ("certified" if len(leaders) <= 2 else "refuted")), []
    if theorem == "8.5":  # for n ≥ 2 some P*_ij = 0 ≠ 1/n (each row has a single 1)
        return ("refuted" if n >= 2 else "undecided"), []
    raise CheckFailure("theorem", "one of 2.1, 3.1, 4.2, 5.2, 8.5", repr(theorem))


def check_t4_verdict(cert: dict, lf: dict, X0: list[list[Fraction]],
                     B: list[list[Fraction]], cluster_keys: set[str] = _CLUSTER_KEYS,
                     center: str = "center", rate_statement: str = RATE_STATEMENT) -> None:
    """The verdict and every field of the limit (or, refuted, the evidence) object follow
    from the verified lemma (Lemma C6). Lower bounds are compared with the lower end of
    the checker's enclosure, upper bounds with the upper end."""
    theorem, verdict = cert["theorem"], cert["verdict"]
    leader = lf["leader"]
    n, d = len(leader), len(B)
    leaders = sorted(set(leader))
    expected, bad = _t4_expected(theorem, lf, X0, d)
    if verdict != expected:
        raise CheckFailure("verdict", f"{expected!r} (what the leader-follower lemma's data imply for "
                           f"Theorem {theorem})", repr(verdict))
    where, other = ("evidence", "limit") if verdict == "refuted" else ("limit", "evidence")
    if cert.get(other) is not None:
        raise CheckFailure(other, f"null (the verdict is {verdict!r})", repr(cert[other])[:60])
    src = closed(cert.get(where) or {}, _EVIDENCE_KEYS if where == "evidence" else _LIMIT_KEYS,
                 where)
    if verdict == "undecided" and src:
        raise CheckFailure(where, "null (nothing is claimed)", repr(src)[:60])
    Pstar = [[int(j == leader[i]) for j in range(n)] for i in range(n)]
    # (reading.types_check has refused floats and booleans: 3.0 and true never get here)
    if "attention_limit" in src and src["attention_limit"] != Pstar:
        raise CheckFailure(f"{where}.attention_limit", f"rows e_l(i): {Pstar}",
                           repr(src["attention_limit"]))
    if "attention_rank" in src and src["attention_rank"] != len(leaders):
        raise CheckFailure(f"{where}.attention_rank", str(len(leaders)),
                           repr(src["attention_rank"]))
    if "clusters" in src:
        for idx, cl in enumerate(src["clusters"]):
            closed(cl, cluster_keys, f"{where}.clusters[{idx}]")
        _check_clusters(src["clusters"], lf, B, f"{where}.clusters", center)
    rate_lo = lf["rate_lo"]
    if "rate_constant" in src and not \
            0 < _q(src["rate_constant"], f"{where}.rate_constant") <= rate_lo:
        raise CheckFailure(f"{where}.rate_constant", f"0 < c <= {float(rate_lo)!r} (a lower "
                           "bound of the lemma's rate constant)", str(src["rate_constant"]))
    if "rate" in src:
        rate = closed(src["rate"], {"statement", "c_lower_bound"}, f"{where}.rate")
        if rate.get("statement") != rate_statement:
            raise CheckFailure(f"{where}.rate.statement", repr(rate_statement),
                               repr(rate.get("statement")))
        if not 0 < _q(rate.get("c_lower_bound"), f"{where}.rate.c_lower_bound") <= rate_lo:
            raise CheckFailure(f"{where}.rate.c_lower_bound", f"0 < c <= {float(rate_lo)!r}",
                               str(rate.get("c_lower_bound")))
    if "leaders" in src and src["leaders"] != leaders:
        raise CheckFailure(f"{where}.leaders", repr(leaders), repr(src["leaders"]))
    if theorem == "2.1" and verdict == "certified" and src.get("leaders") != leaders:
        raise CheckFailure(f"{where}.leaders", repr(leaders), repr(src.get("leaders")))
    cen = {k: [(lo - lf["delta0"], hi + lf["delta0"]) for lo, hi in lf["boxes"][k]]
           for k in leaders}
    for key in ("coordinate_limits", "hyperplane_values"):
        if key not in src:
            continue
        vals = src[key]
        want = n if key == "coordinate_limits" else len(leaders)
        if d != 1 or not isinstance(vals, list) or len(vals) != want:
            raise CheckFailure(f"{where}.{key}", f"{want} intervals (d = 1: 4.2's coordinate "
                               "is z itself)", repr(vals)[:60])
        for i, pair in enumerate(vals):  # 4.2 in d = 1: each token's limit is its cluster's
            k = leader[i] if key == "coordinate_limits" else leaders[i]
            _contains(pair, cen[k][0], f"{where}.{key}[{i}]")
    if "rows_outside_two_leaders" in src:
        if theorem != "2.1":
            raise CheckFailure(f"{where}.rows_outside_two_leaders", "absent (a claim of "
                               f"Theorem 2.1's, not {theorem}'s)",
                               repr(src["rows_outside_two_leaders"]))
        if src["rows_outside_two_leaders"] != bad:
            raise CheckFailure(f"{where}.rows_outside_two_leaders", repr(bad),
                               repr(src["rows_outside_two_leaders"]))
    if "entry" in src:
        e = src["entry"]
        if (theorem != "8.5" or not isinstance(e, list) or len(e) != 2
                or any(not isinstance(x, int) or not 0 <= x < n for x in e)
                or leader[e[0]] == e[1]):
            raise CheckFailure(f"{where}.entry", "[i, j] with P*_ij = 0 ≠ 1/n (Theorem 8.5)",
                               repr(e))
