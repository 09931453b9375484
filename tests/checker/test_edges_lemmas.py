"""Lemma T4's data (checker/lemmas.py, C4–C6) at the edge of each inequality, on the
fixture t4_21 (d = 1, V = Q = K = 1, three tokens, leader_map [0, 2, 2]: token 1 follows
token 2). In d = 1 every margin is a product of two independent intervals, so the
checker's interval evaluation is the exact extremum and the edges are computed here by
enumerating corners: (Hm) m ≤ min x(y − w) over x ∈ Z_a⁺ʳ, y ∈ Z_k⁺ᵟ, w ∈ Z_b⁺ʳ for
tokens a, b with different leaders (k = a's leader, r = δ + η), (Hμ) μ ≤ min −xu over
x ∈ Z_a⁺ʳ, u ∈ E_j⁺ᵑ for a follower j of a's leader, (T1) D ≥ the diameter of the boxes."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import mpmath
import pytest

from . import edges
from .edges import Case, set_in

mpmath.mp.dps = 60
Q = Fraction
TL = "tail_lemma"
F = "t4_21"


def _lem() -> dict:
    return edges.cert(F)[TL]


def _exact_margins() -> tuple[Fraction, Fraction, Fraction]:
    """(m, μ, D) at their exact bounds for t4_21 (B = 1, d = 1)."""
    lem = _lem()
    leader = lem["leader_map"]
    delta, eta = Q(lem["delta"]), Q(lem["eta"])
    box = [(Q(row[0][0]), Q(row[0][1])) for row in lem["boxes_at_T"]]
    r = delta + eta
    X = [(lo - r, hi + r) for lo, hi in box]
    Lk = [(lo - delta, hi + delta) for lo, hi in box]
    n = len(box)
    m = min(x * (y - w) for a in range(n) for b in range(n) if leader[b] != leader[a]
            for x, y, w in product(X[a], Lk[leader[a]], X[b]))
    diffs = {int(j): (Q(row[0][0]) - eta, Q(row[0][1]) + eta)
             for j, row in lem["differences_at_T"].items()}
    mu = min(-x * u for a in range(n) for j in diffs if leader[j] == leader[a]
             for x, u in product(X[a], diffs[j]))
    D = max(hi for _, hi in box) - min(lo for lo, _ in box)
    return m, mu, D


_M, _MU, _D = _exact_margins()
_TINY = Q(1, 10 ** 30)


def _rate(scale: str) -> str:
    """min(m, μ)·e^{λT} (λ = 1) times ``scale``, as a decimal with 40 digits."""
    lem = _lem()
    base, T = min(Q(lem["m"]), Q(lem["mu"])), Q(lem["T"])
    v = mpmath.mpf(base.numerator) / base.denominator * mpmath.exp(
        mpmath.mpf(T.numerator) / T.denominator) * mpmath.mpf(scale)
    return mpmath.nstr(v, 40)


def _mp(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _bootstrap(name: str) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(δ₀, η₀) of the bootstrap from the stored m, μ, D, η and differences: Lemma T4's
    (Hb) (continuous: tail(x) = e^{−xβ}/(xβ), β = e^{2λT}; δ₀ = max_k [(n − c_k)D·tail(m)/2
    + Σ_k tail(μ)], η₀ = max_k [(n − c_k)D·tail(m) + 2Σ_k tail(μ)]) or Lemma T10's (Hb′)
    (discrete: q = 1 + λΔt, α = λΔt/q, C = e^{−mq^{2K}}(1 + 1/(2mq^{2K}α)),
    A = e^{−μq^{2K}}(1 + 1/(μq^{2K}α)); δ₀ = α max_k [Σ_k A + (n − c_k)DC],
    η₀ = λΔt max_k [2Σ_k A + 2(n − c_k)DC]), with Σ_k = Σ over k's followers l of
    (max|differences_at_T[l]| + η)."""
    lem = edges.cert(name)[TL]
    m, mu, D, eta, lam, T = (Q(lem[k]) for k in ("m", "mu", "D", "eta", "lambda", "T"))
    leader = lem["leader_map"]
    n = len(leader)
    eps = {int(j): max(abs(Q(v)) for p in row for v in p)
           for j, row in lem["differences_at_T"].items()}
    if "dt" in lem:
        dt = Q(lem["dt"])
        q, K = 1 + lam * dt, int(T / Q(lem["dt"]))
        alpha = _mp(lam * dt / q)
        far = mpmath.exp(-_mp(m * q ** (2 * K))) * (1 + 1 / (2 * _mp(m * q ** (2 * K)) * alpha))
        near = mpmath.exp(-_mp(mu * q ** (2 * K))) * (1 + 1 / (_mp(mu * q ** (2 * K)) * alpha))
        wd, we, fd, fe = alpha, _mp(lam * dt), 1, 2
    else:
        beta = mpmath.exp(2 * _mp(lam * T))
        far = mpmath.exp(-_mp(m) * beta) / (_mp(m) * beta)
        near = mpmath.exp(-_mp(mu) * beta) / (_mp(mu) * beta)
        wd, we, fd, fe = 1, 1, mpmath.mpf(1) / 2, 1
    d0 = e0 = mpmath.mpf(0)
    for k in set(leader):
        sig = _mp(sum((eps[j] + eta for j in range(n) if leader[j] == k and j != k), Q(0)))
        out = n - leader.count(k)
        d0 = max(d0, wd * (fd * out * _mp(D) * far + sig * near))
        e0 = max(e0, we * (fe * out * _mp(D) * far + 2 * sig * near))
    return d0, e0


def _near(x: mpmath.mpf, rel: str) -> str:
    return mpmath.nstr(x * (1 + mpmath.mpf(rel)), 45)


_B4, _B10 = _bootstrap(F), _bootstrap("t10_31")
def _lem10() -> dict:
    lem = edges.cert("t10_31")[TL]
    assert (lem["lambda"], lem["dt"], lem["T"]) == ("1", "1/10", "3/2")  # q = 11/10, K = 15
    return lem


def _q2k() -> Fraction:
    lem = edges.cert("t10_31")[TL]
    lam, dt, T = Q(lem["lambda"]), Q(lem["dt"]), Q(lem["T"])
    return (1 + lam * dt) ** (2 * int(T / dt))


CASES = [
    # (Hb): δ₀, η₀ at least the bootstrap's bounds, continuous (T4) and discrete (T10)
    Case("t4.delta0.just_above_bootstrap", F, set_in((TL, "delta0"), _near(_B4[0], "1e-12")),
         "VALID"),
    Case("t4.delta0.just_below_bootstrap", F, set_in((TL, "delta0"), _near(_B4[0], "-1e-20")),
         "tail_lemma.delta0"),
    Case("t4.eta0.just_above_bootstrap", F, set_in((TL, "eta0"), _near(_B4[1], "1e-12")),
         "VALID"),
    Case("t4.eta0.just_below_bootstrap", F, set_in((TL, "eta0"), _near(_B4[1], "-1e-20")),
         "tail_lemma.eta0"),
    Case("t10.delta0.just_above_bootstrap", "t10_31",
         set_in((TL, "delta0"), _near(_B10[0], "1e-12")), "VALID"),
    Case("t10.delta0.just_below_bootstrap", "t10_31",
         set_in((TL, "delta0"), _near(_B10[0], "-1e-20")), "tail_lemma.delta0"),
    Case("t10.eta0.just_above_bootstrap", "t10_31",
         set_in((TL, "eta0"), _near(_B10[1], "1e-12")), "VALID"),
    Case("t10.eta0.just_below_bootstrap", "t10_31",
         set_in((TL, "eta0"), _near(_B10[1], "-1e-20")), "tail_lemma.eta0"),
    # T10's sums need m·q^{2K} ≥ 1/2: at 1/2 the sums hold (and δ₀ fails), below they do not
    # one cluster (T8 on a line, m = 1 stored): (Hm) is vacuous and m ≤ 1 is required
    Case("t8l.m.above_one", "t8_52_line", set_in((TL, "m"), "3/2"), "tail_lemma.m"),
    # T10's rate constant min(m, μ)·(1 + λΔt)^K is exact: at it, accepted
    Case("t10.rate.at_bound", "t10_31", set_in((TL, "rate_constant"), lambda _: str(
        min(Q(_lem10()["m"]), Q(_lem10()["mu"])) * Q(11, 10) ** 15)), "VALID"),
    Case("t10.rate.just_above", "t10_31", set_in((TL, "rate_constant"), lambda _: str(
        min(Q(_lem10()["m"]), Q(_lem10()["mu"])) * Q(11, 10) ** 15 + _TINY)),
        "tail_lemma.rate_constant"),
    Case("t10.m.sums_at_half", "t10_31", set_in((TL, "m"), lambda _: str(1 / (2 * _q2k()))),
         "tail_lemma.delta0"),
    Case("t10.m.sums_below_half", "t10_31",
         set_in((TL, "m"), lambda _: str(1 / (2 * _q2k()) - _TINY)), "tail_lemma.m"),
    # (Hm), (Hμ): the stored margins at most the exact ones
    Case("t4.m.at_bound", F, set_in((TL, "m"), str(_M)), "VALID"),
    Case("t4.m.just_above", F, set_in((TL, "m"), str(_M + _TINY)), "tail_lemma.m"),
    Case("t4.m.zero", F, set_in((TL, "m"), "0"), "tail_lemma.m"),
    Case("t4.mu.at_bound", F, set_in((TL, "mu"), str(_MU)), "VALID"),
    Case("t4.mu.just_above", F, set_in((TL, "mu"), str(_MU + _TINY)), "tail_lemma.mu"),
    Case("t4.mu.zero", F, set_in((TL, "mu"), "0"), "tail_lemma.mu"),
    Case("t4.mu.null_with_a_follower", F, set_in((TL, "mu"), None), "tail_lemma.mu"),
    # (T1): D at least the boxes' diameter
    Case("t4.D.at_bound", F, set_in((TL, "D"), str(_D)), "VALID"),
    Case("t4.D.just_below", F, set_in((TL, "D"), str(_D - _TINY)), "tail_lemma.D"),
    # (Hb): δ₀ < δ, η₀ < η
    Case("t4.delta0.equal_to_delta", F, set_in((TL, "delta0"), lambda _: _lem()["delta"]),
         "tail_lemma.delta0"),
    Case("t4.eta0.equal_to_eta", F, set_in((TL, "eta0"), lambda _: _lem()["eta"]),
         "tail_lemma.eta0"),
    # the rate constant: 0 < c ≤ min(m, μ)e^{λT}
    Case("t4.rate.zero", F, set_in((TL, "rate_constant"), "0"), "tail_lemma.rate_constant"),
    Case("t4.rate.just_below_bound", F, set_in((TL, "rate_constant"), _rate("0.999999999999")),
         "VALID"),
    Case("t4.rate.just_above_bound", F,
         set_in((TL, "rate_constant"), _rate("1.00000000000000000001")),
         "tail_lemma.rate_constant"),
    # λ is V's, the leader map idempotent with indices in 0..n−1
    Case("t4.lambda.other", F, set_in((TL, "lambda"), "2"), "tail_lemma.lambda"),
    Case("t4.leader_map.index_n", F, set_in((TL, "leader_map"), [0, 3, 3]),
         "tail_lemma.leader_map"),
    Case("t4.leader_map.negative", F, set_in((TL, "leader_map"), [0, -1, 2]),
         "tail_lemma.leader_map"),
    Case("t4.leader_map.float", F, set_in((TL, "leader_map"), [0, 2.0, 2]),
         "tail_lemma.leader_map"),
    Case("t4.leader_map.short", F, set_in((TL, "leader_map"), [0, 2]), "tail_lemma.leader_map"),
    Case("t4.leader_map.not_idempotent", F, set_in((TL, "leader_map"), [1, 2, 2]),
         "tail_lemma.leader_map"),
    # the boxes and differences: shapes and keys
    Case("t4.boxes.row_missing", F, set_in((TL, "boxes_at_T"), lambda b: b[:-1]),
         "tail_lemma.boxes_at_T"),
    Case("t4.boxes.two_intervals", F, set_in((TL, "boxes_at_T"),
                                             lambda b: [b[0] * 2] + b[1:]),
         "tail_lemma.boxes_at_T"),
    Case("t4.differences.wrong_key", F, set_in((TL, "differences_at_T"),
                                               lambda w: {"0": w["1"]}),
         "tail_lemma.differences_at_T"),
    Case("t4.differences.two_intervals", F, set_in((TL, "differences_at_T"),
                                                   lambda w: {"1": w["1"] * 2}),
         "tail_lemma.differences_at_T[1]"),
]


test_edge = edges.parametrized(CASES)


@pytest.mark.parametrize("T, dt", [("3/2", Q(1, 7)), ("-1/10", Q(1, 10)), ("0", Q(1, 10))])
def test_a_layer_that_is_not_one_is_refused_by_the_lemma_itself(T, dt):
    """check_leader_follower's own contract in discrete time (Lemma T10): K = T/Δt an
    integer ≥ 0 (the certificate reader checks T = layer·Δt first; a direct call)."""
    import copy

    from certified.checker import CheckFailure
    from certified.checker.lemmas import check_leader_follower

    c = edges.cert("t10_31")
    lem = dict(copy.deepcopy(c[TL]), T=T)
    B = edges.instance_matrices("t10_31")[1]
    with pytest.raises(CheckFailure) as exc:
        check_leader_follower(lem, Q(1), B, 3, dt=dt)
    if T == "0":  # the layer 0 is one (the bootstrap then fails: the stored δ₀ is for K = 15)
        assert exc.value.where == "tail_lemma.delta0", str(exc.value)
    else:
        assert str(exc.value) == (f"tail_lemma.T: Expected a layer time K·Δt (Δt = {dt}). "
                                  f"Got {T}.")


def _two_leaders(mu):
    """A hand-made Lemma T4 in d = 1: two tokens at ∓2, each its own leader (no
    followers), m = 1 ≤ the margin 8 − O(δ + η), the bootstrap (Hb) satisfied with room:
    tail(1) = e^{−e²}/e² < 10⁻⁴, so δ₀, η₀ ≤ 4·10⁻⁴ < 10⁻³."""
    return {"lemma": "T4 (leader-follower, V = λI)", "T": "1", "lambda": "1",
            "leader_map": [0, 1], "boxes_at_T": [[["-2", "-2"]], [["2", "2"]]],
            "differences_at_T": {}, "D": "4", "m": "1", "mu": mu, "delta": "1/10",
            "eta": "1/5", "delta0": "1/1000", "eta0": "1/1000", "rate_constant": "1"}


def test_no_followers_means_no_within_cluster_margin():
    """(Hμ) is about followers: with none, μ must be null (and the rate uses m alone)."""
    from certified.checker import CheckFailure
    from certified.checker.lemmas import check_leader_follower

    lf = check_leader_follower(_two_leaders(None), Q(1), [[Q(1)]], 2)
    assert lf["mu"] is None and lf["m"] == 1 and lf["leader"] == [0, 1]
    assert lf["rate_lo"] > 2  # m·e^{λT} = e, its lower end
    with pytest.raises(CheckFailure) as exc:
        check_leader_follower(_two_leaders("1/2"), Q(1), [[Q(1)]], 2)
    assert str(exc.value) == "tail_lemma.mu: Expected null (no followers). Got 1/2."


@pytest.mark.parametrize("box,ok", [
    (("1/2", "1"), True),      # inside (0, 1): excludes 0
    (("-1", "-1/3"), True),
    (("0", "1"), False),       # touches 0 from above: does not exclude it
    (("-1", "0"), False),      # touches 0 from below
    (("-1", "1"), False),
])
def test_is_zero_false_needs_a_centre_coordinate_excluding_zero(box, ok):
    """One cluster whose centre is claimed non-zero: some coordinate's interval must lie
    strictly on one side of 0 (an end exactly at 0 leaves 0 possible)."""
    from certified.checker import CheckFailure
    from certified.checker.lemmas import _check_clusters

    lo, hi = Q(box[0]), Q(box[1])
    lf = {"leader": [0, 0], "boxes": [[(lo, hi), (Q(-1), Q(1))]] * 2, "delta0": Q(0)}
    cl = {"leader": 0, "members": [0, 1], "center": [list(box), ["-1", "1"]],
          "is_hull_vertex": "undecided", "is_zero": False}
    if ok:
        _check_clusters([cl], lf, [[Q(1), Q(0)], [Q(0), Q(1)]], "limit.clusters")
    else:
        with pytest.raises(CheckFailure) as exc:
            _check_clusters([cl], lf, [[Q(1), Q(0)], [Q(0), Q(1)]], "limit.clusters")
        assert str(exc.value) == ("limit.clusters[0].is_zero: Expected a centre box excluding "
                                  "0. Got a box containing 0.")
