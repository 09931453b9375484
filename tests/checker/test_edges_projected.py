"""Lemma T7's data (checker/projected.py, C10) at the edge of each inequality: the
fixture t7_52 (V = diag(1, −1/2), Q = K = I₂, five tokens in the groups {0, 1, 2} and
{3, 4}) and t7_42_discrete (Δt = 1/10, the layer K = 22), one claim moved onto or across
its bound (edges.py). With V = diag(1, −1/2) everything is exact: det(xI − V) =
(x − 1)(x + 1/2), λ₁ = 1, the spectral projector is diag(1, 0), ψ = e₁* and φ₁ = e₁, so
⟨φ₁, Bφ₁⟩ = 1 and ψ(x) = x₁."""

from __future__ import annotations

from fractions import Fraction

import pytest

from . import edges
from .edges import Case, both, set_in

Q = Fraction
TL = "tail_lemma"
S, D = "t7_52", "t7_42_discrete"


def _lem(name: str) -> dict:
    return edges.cert(name)[TL]


def _omega(name: str) -> list[tuple[Fraction, Fraction]]:
    """ψ(x_i(T)) = x_i,1 on t7_52's boxes (ψ = e₁* exactly)."""
    return [(Q(row[0][0]), Q(row[0][1])) for row in _lem(name)["boxes_at_T"]]


def _box1(lo: str, hi: str):
    """Token 1's box with ψ(x) = x₁ ∈ [lo, hi] (its ω claim moved with it)."""
    return both(set_in((TL, "boxes_at_T", 1, 0), [lo, hi]),
                set_in((TL, "omega_at_T", 1), [lo, hi]))


def _one_group(c: dict) -> None:
    """Tokens 3 and 4 moved onto token 0 (box and ω): a single + group."""
    lem = c[TL]
    for i in (3, 4):
        lem["boxes_at_T"][i] = [list(p) for p in lem["boxes_at_T"][0]]
        lem["omega_at_T"][i] = list(lem["omega_at_T"][0])
    lem["groups"] = {"+": [0, 1, 2, 3, 4]}


_W = _omega(S)
_PLUS_MIN = min(_W[i][0] for i in (0, 1, 2))   # the + group's closest approach to 0
_MINUS_MAX = max(_W[i][1] for i in (3, 4))     # the − group's

CASES = [
    # λ₁'s isolating interval: 0 < lo < hi and det(xI − V) changes sign on it
    Case("t7.lambda1.from_zero", S, set_in((TL, "lambda1"), ["0", "2"]), "tail_lemma.lambda1"),
    Case("t7.lambda1.root_at_the_upper_end", S, set_in((TL, "lambda1"), ["1/2", "1"]),
         "tail_lemma.lambda1"),
    Case("t7.lambda1.root_at_the_lower_end", S, set_in((TL, "lambda1"), ["1", "2"]),
         "tail_lemma.lambda1"),
    Case("t7.lambda1.no_root_small_product", S,  # p(11/10)·p(6/5) = 0.054 > 0
         set_in((TL, "lambda1"), ["11/10", "6/5"]), "tail_lemma.lambda1"),
    Case("t7.lambda1.no_root_negative", S, set_in((TL, "lambda1"), ["-1", "-3/4"]),
         "tail_lemma.lambda1"),
    # ψ's row of the projector: 0 ≤ psi_row < d, Π_rr ≠ 0
    Case("t7.psi_row.d", S, set_in((TL, "psi_row"), 2), "tail_lemma.psi_row"),
    Case("t7.psi_row.negative", S, set_in((TL, "psi_row"), -1), "tail_lemma.psi_row"),
    Case("t7.psi_row.zero_diagonal", S, set_in((TL, "psi_row"), 1), "tail_lemma.psi_row"),
    # β = ⟨φ₁, Bφ₁⟩ = 1 exactly, but the checker evaluates φ₁ from the interval λ1, so it
    # confirms only β ≥ 1 − w (w > 0, the interval's effect): β_lower = 1, true, is not
    # confirmed. A conservative rejection (the claim is not proved from the stored data),
    # pinned here so that comparing with the upper end instead would show
    Case("t7.beta_lower.exact_value", S, set_in((TL, "beta_lower"), "1"),
         "tail_lemma.beta_lower"),
    Case("t7.beta_lower.zero", S, set_in((TL, "beta_lower"), "0"), "tail_lemma.beta_lower"),
    Case("t7.beta_lower.below", S, set_in((TL, "beta_lower"), "999/1000"), "VALID"),
    # β ≤ 0: QᵀK = diag(−1, 1), or diag(0, 1) (hypotheses_hold false: Theorem 5.2 needs
    # QᵀK ≻ 0, which the checker decides before the lemma)
    Case("t7.beta.negative", S, both(set_in(("instance", "K"), [["-1", "0"], ["0", "1"]]),
                                     set_in(("hypotheses_hold",), False)),
         "tail_lemma.beta_lower"),
    Case("t7.beta.zero", S, both(set_in(("instance", "K"), [["0", "0"], ["0", "1"]]),
                                 set_in(("hypotheses_hold",), False)),
         "tail_lemma.beta_lower"),
    # the norm's matrix
    Case("t7.norm_S.row_short", S, set_in((TL, "norm_S"), [["1", "0"], ["0"]]),
         "tail_lemma.norm_S"),
    Case("t7.norm_S.three_rows", S, set_in((TL, "norm_S"), [["1", "0"], ["0", "1"],
                                                            ["0", "0"]]),
         "tail_lemma.norm_S"),
    Case("t7.norm_S.singular", S, set_in((TL, "norm_S"), [["1", "0"], ["0", "0"]]),
         "tail_lemma.norm_S"),
    # the groups are the signs of ψ on the boxes
    Case("t7.groups.minus_missing", S, set_in((TL, "groups"), {"+": [0, 1, 2]}),
         "tail_lemma.groups"),
    Case("t7.groups.plus_missing", S, set_in((TL, "groups"), {"-": [3, 4]}),
         "tail_lemma.groups"),
    Case("t7.groups.token_moved", S, set_in((TL, "groups"), {"+": [0, 1], "-": [2, 3, 4]}),
         "tail_lemma.groups"),
    # δ keeps both groups off 0: p = min ψ₊ − δ > 0 and q = −max ψ₋ − δ > 0
    Case("t7.delta.past_the_minus_group", S,
         set_in((TL, "delta"), str((-_MINUS_MAX + _PLUS_MIN) / 2)), "tail_lemma.delta"),
    Case("t7.delta.past_both", S, set_in((TL, "delta"), str(_PLUS_MIN + 1)),
         "tail_lemma.delta"),
    Case("t7.delta.onto_the_minus_group", S, set_in((TL, "delta"), str(-_MINUS_MAX)),
         "tail_lemma.delta"),
    # the stored margin, leakage and limits
    Case("t7.m.zero", S, set_in((TL, "m"), "0"), "tail_lemma.m"),
    Case("t7.m.null_with_two_groups", S, set_in((TL, "m"), None), "tail_lemma.m"),
    Case("t7.delta0.negative", S, set_in((TL, "delta0"), "-1"), "tail_lemma.delta0"),
    Case("t7.delta0.equal_to_delta", S, set_in((TL, "delta0"), lambda _: _lem(S)["delta"]),
         "tail_lemma.delta0"),
    Case("t7.limits.group_missing", S, set_in((TL, "limits_psi_z"),
                                              lambda v: {"+": v["+"]}), "tail_lemma.limits_psi_z"),
    Case("t7.limits.not_an_object", S, set_in((TL, "limits_psi_z"), ["0", "1"]),
         "malformed: schema: at tail_lemma/limits_psi_z"),
    Case("t7.limits.plus_narrowed", S, set_in((TL, "limits_psi_z"), lambda v: dict(
        v, **{"+": [str((Q(v["+"][0]) + Q(v["+"][1])) / 2), v["+"][1]]})),
        "tail_lemma.limits_psi_z.+"),
    # the boxes' shape
    Case("t7.boxes.row_missing", S, set_in((TL, "boxes_at_T"), lambda b: b[:-1]),
         "tail_lemma.boxes_at_T"),
    Case("t7.boxes.three_intervals", S, set_in((TL, "boxes_at_T"),
                                               lambda b: [b[0] + b[0][:1]] + b[1:]),
         "tail_lemma.boxes_at_T"),
    # ν ≥ ‖S⁻¹WS‖₂ < λ₁ (W = V(I − Π) = diag(0, −1/2)): with S = [[1, 3], [0, 1]],
    # S⁻¹WS = [[0, 3/2], [0, −1/2]] has 2-norm √10/2 > 1
    Case("t7.norm_S.nu_above_lambda", S, set_in((TL, "norm_S"), [["1", "3"], ["0", "1"]]),
         "tail_lemma.nu"),
    # the sign groups at 0: ψ = x₁ on token 1's box
    Case("t7.groups.token_in_0_1", S, _box1("1/2", "1/2"), "tail_lemma.omega_at_T[1]"),
    Case("t7.groups.token_touching_0_from_above", S, _box1("0", "1"), "tail_lemma.groups"),
    Case("t7.groups.token_straddling_0", S, _box1("-1", "1"), "tail_lemma.groups"),
    Case("t7.groups.token_touching_0_from_below", S, _box1("-1", "0"), "tail_lemma.groups"),
    # δ with both groups off 0 (p ≈ 0.90, q ≈ 0.16) but no positive margin; δ = 27/20,
    # a positive margin below 1 whose leakage exceeds δ
    Case("t7.delta.both_off_0_no_margin", S, set_in((TL, "delta"), "37/10"), "tail_lemma.m"),
    Case("t7.delta.small_margin_large_leak", S, set_in((TL, "delta"), "27/20"),
         "tail_lemma.delta0"),
    Case("t7.m.half", S, set_in((TL, "m"), "1/2"), "VALID"),
    # one sign group: no cross-group margin, δ₀ ≥ 0 only, one limit
    Case("t7.one_group.m_claimed", S, _one_group, "tail_lemma.m"),
    Case("t7.one_group.m_null", S, both(_one_group, set_in((TL, "m"), None)),
         "tail_lemma.limits_psi_z"),
    Case("t7.one_group.delta0_zero", S, both(_one_group, set_in((TL, "m"), None),
                                             set_in((TL, "delta0"), "0")),
         "tail_lemma.limits_psi_z"),
    Case("t7.one_group.delta0_negative", S, both(_one_group, set_in((TL, "m"), None),
                                                 set_in((TL, "delta0"), "-1")),
         "tail_lemma.delta0"),
    # discrete time: T = KΔt
    Case("t7d.T.between_layers", D, both(set_in((TL, "T"), "221/100")), "tail_lemma.T"),
    Case("t7d.lambda1.no_root", D, set_in((TL, "lambda1"), ["3", "4"]), "tail_lemma.lambda1"),
]


test_edge = edges.parametrized(CASES)


def test_a_time_between_layers_is_refused_by_the_lemma_itself():
    """check_projected's own contract in discrete time: T = KΔt with K an integer (the
    certificate reader checks T = layer·Δt first, so only a direct call reaches this)."""
    from certified.checker import CheckFailure
    from certified.checker.projected import check_projected

    c = edges.cert(D)
    V, B = edges.instance_matrices(D)
    with pytest.raises(CheckFailure) as exc:
        check_projected(dict(c[TL], T="221/100"), V, B, 5, dt=Q(1, 10))
    assert str(exc.value) == ("tail_lemma.T: Expected a layer time K·Δt (Δt = 1/10). "
                              "Got 221/100.")


def test_one_sign_group_has_no_cross_group_rate():
    """Lemma T7's verdict with a single sign group (a parsed lemma with m = None): the
    cross-group rate may be stated only with m null; with two groups, m at most the
    recomputed margin, equality included."""
    from certified.checker import CheckFailure
    from certified.checker.projected import T7_RATE_STATEMENT, check_t7_verdict

    lim = (Q(2), Q(3))
    pb = {"groups": {"+": [0, 1], "-": []}, "limits": {"+": lim}, "psi": [(Q(1), Q(1))],
          "phi": [(Q(1), Q(1))], "m": None}

    def cert(m):
        return {"theorem": "4.2", "verdict": "certified", "evidence": None, "limit": {
            "coordinate_limits": [["2", "3"], ["2", "3"]], "hyperplane_values": [["2", "3"]],
            "cross_group_rate": {"statement": T7_RATE_STATEMENT, "m": m}}}
    check_t7_verdict(cert(None), pb)
    with pytest.raises(CheckFailure) as exc:
        check_t7_verdict(cert("1"), pb)
    assert str(exc.value) == ("limit.cross_group_rate.m: Expected null (a single sign group "
                              "has no cross-group margin). Got '1'.")
    two = dict(pb, groups={"+": [0], "-": [1]}, limits={"+": lim, "-": (-lim[1], -lim[0])},
               m=Q(3, 2))
    c = cert("3/2")
    c["limit"].update(coordinate_limits=[["2", "3"], ["-3", "-2"]],
                      hyperplane_values=[["2", "3"], ["-3", "-2"]])
    check_t7_verdict(c, two)
    c["limit"]["cross_group_rate"]["m"] = "301/200"
    with pytest.raises(CheckFailure) as exc:
        check_t7_verdict(c, two)
    assert exc.value.where == "limit.cross_group_rate.m"
