"""Lemma T8's constants (checker/paranormal.py, C11) at the edge of each inequality: the
fixtures t8_52 (plain margin reduction, λ = 1, ν = λ/2), t8_52_cross (F–G cross terms:
the combined margin) and t8_52_discrete (Δt = 1/10, the layer K = 53) with one claim moved
exactly onto, just inside or just outside its bound (edges.py). The bounds are recomputed
here from tail.md's statement of Lemma T8: κ ≥ 2gY²e^{−2λT} (discrete: 2gY²(1 + λΔt)^{−2K}),
‖V_G‖∞ ≤ ν ≤ λ/2 (discrete: (1 + νΔt)² ≤ 1 + λΔt), g ≥ Σ|B'_GG|, Y ≥ max|G box|, and with
cross terms κ ≥ 2ZY(h_FG + h_GF)e^{−λT} + 2gY²e^{−2λT}, κ_μ ≥ Yh_GF(ε + η)e^{−λT} +
gYΔ̄e^{−2λT}, (ν/λ)·max_k[…] ≤ Δ₀ < Δ₁ (these three by the oracle of
test_cross_terms_oracle.py)."""

from __future__ import annotations

import copy
from fractions import Fraction

import mpmath
import pytest

from certified.checker import CheckFailure
from certified.checker.paranormal import check_paranormal, check_paranormal_verdict

from . import edges
from .test_cross_terms_oracle import oracle
from .edges import Case, both, set_in

mpmath.mp.dps = 60
Q = Fraction
TL = "tail_lemma"


def _f(x) -> Fraction:
    return Q(str(x))


def M(q: Fraction | int) -> mpmath.mpf:
    q = Q(q)
    return mpmath.mpf(q.numerator) / q.denominator


def _mq(x: mpmath.mpf, up: bool) -> str:
    """A rational just above (``up``) or just below the mpf x, 10⁻²⁵ relative away: far
    inside any slack a claim could have, and outside the checker's own rounding, which is
    outward at 200 bits (10⁻⁶⁰; balls._P) — at 53 bits these cases could not tell the
    bound from its rounding."""
    s = mpmath.mpf(1) + (mpmath.mpf(10) ** -25 if up else -mpmath.mpf(10) ** -25)
    return str(Q(mpmath.nstr(x * s, 50)))


def _lem(name: str) -> dict:
    return edges.cert(name)[TL]


def _ymin(lemma: dict) -> Fraction:
    return max(abs(_f(v)) for row in lemma["G_boxes_at_T"] for p in row for v in p)


def _kappa_plain(lemma: dict) -> mpmath.mpf:
    g, Y, lam, T = (_f(lemma[k]) for k in ("g", "Y", "lambda", "T"))
    return 2 * M(g) * M(Y) ** 2 * mpmath.exp(-2 * M(lam * T))


def _kappa_discrete(lemma: dict) -> Fraction:
    g, Y, lam, T, dt = (_f(lemma[k]) for k in ("g", "Y", "lambda", "T", "dt"))
    return 2 * g * Y * Y / (1 + lam * dt) ** (2 * int(T / dt))


def _cross_needs(lemma: dict) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """κ, κ_μ and Δ₀'s lower bounds for t8_52_cross from the stored m, μ (tail.md, the
    combined margin), by the cross-term oracle of test_cross_terms_oracle.py on
    B' = SᵀBS."""
    S = [[_f(x) for x in row] for row in lemma["basis"]]
    B = edges.instance_matrices(X)[1]
    d = len(S)
    Bp = [[sum(S[p][i] * B[p][q] * S[q][j] for p in range(d) for q in range(d))
           for j in range(d)] for i in range(d)]
    o = oracle(lemma, Bp)
    return o["kappa"], o["kappa_mu"], o["Delta0"]


P, X, D = "t8_52", "t8_52_cross", "t8_52_discrete"
_YP = _ymin(_lem(P))
_KD = _kappa_discrete(_lem(D))
_NEED = _cross_needs(_lem(X))


def _drop(key: str):
    return lambda c: c[TL].pop(key)


CASES = [
    # κ ≥ 2gY²e^{−2λT}
    Case("t8.kappa.just_above", P, set_in((TL, "kappa"), _mq(_kappa_plain(_lem(P)), True)),
         "VALID"),
    Case("t8.kappa.just_below", P, set_in((TL, "kappa"), _mq(_kappa_plain(_lem(P)), False)),
         "tail_lemma.kappa"),
    Case("t8.kappa.absent", P, _drop("kappa"), "tail_lemma.kappa"),
    # ‖V_G‖∞ = 1/2 ≤ ν ≤ λ/2 = 1/2 (ν = 1/2 in the fixture: both ends at once)
    Case("t8.nu.below_norm", P, set_in((TL, "nu"), "49/100"), "tail_lemma.nu"),
    Case("t8.nu.combined_without_fields", P, set_in((TL, "nu"), "1"), "tail_lemma.nu"),
    Case("t8.nu.above_lambda", P, set_in((TL, "nu"), "101/100"), "tail_lemma.nu"),
    Case("t8.cross_field_without_cross_terms", P, set_in((TL, "Z"), "1"), "tail_lemma.Z"),
    # g ≥ Σ|B'_GG| = 1 (g = 1 in the fixture), Y ≥ max|G box|
    Case("t8.g.just_below", P, set_in((TL, "g"), str(1 - Q(1, 10 ** 30))), "tail_lemma.g"),
    Case("t8.Y.at_bound", P, set_in((TL, "Y"), str(_YP)), "VALID"),
    Case("t8.Y.just_below", P, set_in((TL, "Y"), str(_YP - Q(1, 10 ** 30))), "tail_lemma.Y"),
    Case("t8.G_boxes.one_row_short", P, set_in((TL, "G_boxes_at_T"), lambda b: b[:-1]),
         "tail_lemma.G_boxes_at_T"),
    Case("t8.G_boxes.row_too_long", P, set_in((TL, "G_boxes_at_T"),
                                              lambda b: [b[0] + b[0]] + b[1:]),
         "tail_lemma.G_boxes_at_T"),
    # the basis: shape, invertible, S⁻¹VS = diag(λI_k, V_G)
    Case("t8.basis.row_short", P, set_in((TL, "basis"), lambda S: [S[0], S[1], S[2][:2]]),
         "tail_lemma.basis"),
    Case("t8.basis.singular", P, set_in((TL, "basis"),
                                        [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "0"]]),
         "tail_lemma.basis"),
    Case("t8.basis.G_not_invariant", P,  # columns e₁, e₂, e₁ + e₃: (S⁻¹VS)₀₂ = 3/2
         set_in((TL, "basis"), [["1", "0", "1"], ["0", "1", "0"], ["0", "0", "1"]]),
         "tail_lemma.basis"),
    Case("t8.basis.F_block_not_lambda", P,  # columns e₁, e₃ | e₂: F block diag(1, −1/2)
         set_in((TL, "basis"), [["1", "0", "0"], ["0", "0", "1"], ["0", "1", "0"]]),
         "tail_lemma.basis"),
    Case("t8.B_FF.edited", P, set_in((TL, "B_FF"), [["1", "0"], ["0", "2"]]),
         "tail_lemma.B_FF"),
    # dim F = dim ker(V − λI) = 2, λ > 0
    Case("t8.dim_F.whole_space", P, set_in((TL, "dim_F"), 3), "tail_lemma.dim_F"),
    Case("t8.dim_F.smaller_than_kernel", P, set_in((TL, "dim_F"), 1), "tail_lemma.dim_F"),
    Case("t8.dim_F.bool", P, set_in((TL, "dim_F"), True), "tail_lemma.dim_F"),
    # V = I: F is the whole space (k = d, G empty: ν, g, Y have nothing to bound); the
    # stored boxes are then one column short of F
    Case("t8.F_whole_space", P, both(
        set_in(("instance", "V"), [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]),
        set_in((TL, "dim_F"), 3), set_in((TL, "nu"), "0"), set_in((TL, "g"), "0"),
        set_in((TL, "Y"), "0"), set_in((TL, "G_boxes_at_T"), [[], [], [], []]),
        set_in((TL, "B_FF"), [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]])),
        "tail_lemma.boxes_at_T"),
    Case("t8.lambda.zero", P, set_in((TL, "lambda"), "0"), "tail_lemma.dim_F"),
    Case("t8.lambda.not_an_eigenvalue", P, set_in((TL, "lambda"), "2"), "tail_lemma.dim_F"),
    # discrete: κ ≥ 2gY²(1 + λΔt)^{−2K} exactly, (1 + νΔt)² ≤ 1 + λΔt, T = KΔt
    Case("t8d.kappa.at_bound", D, set_in((TL, "kappa"), str(_KD)), "VALID"),
    Case("t8d.kappa.just_below", D, set_in((TL, "kappa"), str(_KD - Q(1, 10 ** 40))),
         "tail_lemma.kappa"),
    Case("t8d.kappa.g_two_just_below", D, both(set_in((TL, "g"), "2"), set_in(
        (TL, "kappa"), str(2 * _KD - Q(1, 10 ** 40)))), "tail_lemma.kappa"),
    Case("t8d.nu.inside_step_condition", D, set_in((TL, "nu"), "48/100"), "VALID"),
    Case("t8d.nu.outside_step_condition", D, set_in((TL, "nu"), "49/100"), "tail_lemma.nu"),
    Case("t8d.nu.below_norm", D, set_in((TL, "nu"), "24/100"), "tail_lemma.nu"),
    # cross terms: every constant at its edge
    Case("t8x.kappa.just_above", X, set_in((TL, "kappa"), _mq(_NEED[0], True)), "VALID"),
    Case("t8x.kappa.just_below", X, set_in((TL, "kappa"), _mq(_NEED[0], False)),
         "tail_lemma.kappa"),
    Case("t8x.kappa_mu.just_above", X, set_in((TL, "kappa_mu"), _mq(_NEED[1], True)),
         "VALID"),
    Case("t8x.kappa_mu.just_below", X, set_in((TL, "kappa_mu"), _mq(_NEED[1], False)),
         "tail_lemma.kappa_mu"),
    Case("t8x.Delta0.just_above", X, set_in((TL, "Delta0"), _mq(_NEED[2], True)), "VALID"),
    Case("t8x.Delta0.just_below", X, set_in((TL, "Delta0"), _mq(_NEED[2], False)),
         "tail_lemma.Delta0"),
    Case("t8x.Delta0.equal_to_Delta1", X, set_in((TL, "Delta0"), lambda _: _lem(X)["Delta1"]),
         "tail_lemma.Delta0"),
    Case("t8x.Delta1.zero", X, set_in((TL, "Delta1"), "0"), "tail_lemma.Delta1"),
    Case("t8x.Z.at_bound", X, set_in((TL, "Z"), lambda _: str(max(
        abs(_f(v)) for row in _lem(X)["boxes_at_T"] for p in row for v in p))), "VALID"),
    Case("t8x.Z.just_below", X, set_in((TL, "Z"), lambda _: str(max(
        abs(_f(v)) for row in _lem(X)["boxes_at_T"] for p in row for v in p)
        - Q(1, 10 ** 30))), "tail_lemma.Z"),
    Case("t8x.Z.absent", X, _drop("Z"), "tail_lemma.Z"),
    Case("t8x.leader_map.short", X, set_in((TL, "leader_map"), [0, 1]),
         "tail_lemma.leader_map"),
    Case("t8x.leader_map.out_of_range", X, set_in((TL, "leader_map"), [0, 1, 3]),
         "tail_lemma.leader_map"),
    Case("t8x.leader_map.bool", X, set_in((TL, "leader_map"), [0, True, 0]),
         "tail_lemma.leader_map"),
    Case("t8x.G_differences.extra_follower", X, set_in(
        (TL, "G_differences_at_T"), lambda w: dict(w, **{"1": w["2"]})),
        "tail_lemma.G_differences_at_T"),
    Case("t8x.G_differences.two_intervals", X, set_in(
        (TL, "G_differences_at_T"), lambda w: {"2": w["2"] * 2}), "tail_lemma.G_differences_at_T[2]"),
    Case("t8x.G_differences.interval_of_three", X, set_in(
        (TL, "G_differences_at_T"), lambda w: {"2": [w["2"][0] + ["0"]]}),
        "tail_lemma.G_differences_at_T[2]"),
    Case("t8x.nu.above_lambda", X, set_in((TL, "nu"), "101/100"), "tail_lemma.nu"),
    # ν raised from λ/2 to 7λ/10 (the combined margin covers λ/2 < ν ≤ λ): Δ₀'s bound
    # scales with ν/λ, so Δ₀ must follow it, and stays below Δ₁
    Case("t8x.nu.raised_Delta0_following", X, both(set_in((TL, "nu"), "7/10"), set_in(
        (TL, "Delta0"), _mq(_NEED[2] * M(Q(7, 5)), True))), "VALID"),
    Case("t8x.nu.raised_Delta0_not_following", X, both(set_in((TL, "nu"), "7/10"), set_in(
        (TL, "Delta0"), _mq(_NEED[2] * M(Q(7, 5)), False))), "tail_lemma.Delta0"),
]


test_edge = edges.parametrized(CASES)


def test_discrete_form_refuses_cross_terms():
    """T8's discrete form has no F–G cross terms: the cross lemma with a Δt is refused."""
    c = edges.cert(X)
    V, B = edges.instance_matrices(X)
    with pytest.raises(CheckFailure) as exc:
        check_paranormal(c[TL], V, B, 3, dt=Q(1, 10))
    assert str(exc.value) == ("tail_lemma.basis: Expected SᵀBS without F–G blocks (T8's "
                              "discrete form has no cross terms). Got a non-zero cross entry.")


def test_a_time_between_layers_is_refused_by_the_lemma_itself():
    """check_paranormal's own contract in discrete time: T = KΔt, K an integer (only a
    direct call reaches it: the certificate reader checks T = layer·Δt first)."""
    c = edges.cert(D)
    V, B = edges.instance_matrices(D)
    with pytest.raises(CheckFailure) as exc:
        check_paranormal(c[TL], V, B, 4, dt=Q(1, 7))
    assert str(exc.value) == "tail_lemma.T: Expected a layer time k·Δt (Δt = 1/7). Got 53/10."


def test_the_step_size_condition_at_equality_is_accepted():
    """(1 + νΔt)² ≤ 1 + λΔt at equality: Δt = 21/100, λ = 1 (1 + λΔt = (11/10)²),
    ν = 10/21. The condition holds, so the check moves on (and stops at T = 53/10, not a
    layer time of this Δt); ν a little larger fails the condition itself."""
    c = edges.cert(D)
    V, B = edges.instance_matrices(D)
    for nu, field in (("10/21", "tail_lemma.T"), ("101/210", "tail_lemma.nu")):
        with pytest.raises(CheckFailure) as exc:
            check_paranormal(dict(c[TL], nu=nu), V, B, 4, dt=Q(21, 100))
        assert exc.value.where == field, str(exc.value)


def _centre_case(S: list[list[Q]]):
    """t8_52's parsed lemma with the basis read as S (only the centres use it), and the
    certificate with each centre set to S_F·(box ± δ₀) recomputed here from every product
    of an entry and an end (an oracle independent of the checker's sign rule)."""
    c = copy.deepcopy(edges.cert(P))
    V, B = edges.instance_matrices(P)
    X0 = [[Q(x) for x in r] for r in c["instance"]["X0"]]
    pb = dict(check_paranormal(copy.deepcopy(c[TL]), V, B, len(X0)), S=S)
    k, d0 = pb["k"], pb["delta0"]
    for cl in c["limit"]["clusters"]:
        box = [(lo - d0, hi + d0) for lo, hi in pb["boxes"][cl["leader"]]]
        cl["center"] = [[str(sum(min(S[r][j] * e for e in box[j]) for j in range(k))),
                         str(sum(max(S[r][j] * e for e in box[j]) for j in range(k)))]
                        for r in range(len(S))]
    return c, pb, X0


def test_centres_with_fractional_basis_entries():
    """Each centre contains S_F·(box ± δ₀), whose ends take each entry's sign into account:
    with entries in (0, 1) and negative ones (every fixture's basis has entries 0 and 1),
    the exact centre is accepted and a centre missing either end by 10⁻³⁰ is refused."""
    S = [[Q(1, 2), Q(-1, 3), Q(0)], [Q(1, 4), Q(3, 5), Q(0)], [Q(0), Q(0), Q(1)]]
    c, pb, X0 = _centre_case(S)
    check_paranormal_verdict(c, pb, X0)
    for end, move in ((0, Q(1, 10 ** 30)), (1, -Q(1, 10 ** 30))):
        for idx, r in ((0, 0), (1, 1)):
            bad = copy.deepcopy(c)
            iv = bad["limit"]["clusters"][idx]["center"][r]
            iv[end] = str(Q(iv[end]) + move)
            with pytest.raises(CheckFailure) as exc:
                check_paranormal_verdict(bad, pb, X0)
            assert exc.value.where == f"limit.clusters[{idx}].center[{r}]", (end, idx, r)


def test_a_centre_of_the_wrong_length_and_a_missing_cluster_are_refused_word_for_word():
    c, pb, X0 = _centre_case([[Q(1), Q(0), Q(0)], [Q(0), Q(1), Q(0)], [Q(0), Q(0), Q(1)]])
    short = copy.deepcopy(c)
    short["limit"]["clusters"][1]["center"] = short["limit"]["clusters"][1]["center"][:2]
    with pytest.raises(CheckFailure) as exc:
        check_paranormal_verdict(short, pb, X0)
    assert str(exc.value) == (
        "limit.clusters[1].center: Expected 3 intervals (one per coordinate of R^d). Got "
        + repr(short["limit"]["clusters"][1]["center"])[:60] + ".")
    # one cluster fewer: Lemma T4's verdict check refuses it first (the count check after
    # it is a second guard that no certificate reaches)
    fewer = copy.deepcopy(c)
    fewer["limit"]["clusters"] = fewer["limit"]["clusters"][:-1]
    with pytest.raises(CheckFailure) as exc:
        check_paranormal_verdict(fewer, pb, X0)
    assert str(exc.value) == ("limit.clusters: Expected 3 clusters, led by [0, 2, 3]. "
                              "Got [0, 2].")
