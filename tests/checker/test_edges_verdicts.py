"""The verdict checks (Lemma C6 for T4's limit and evidence objects, C10 for T7's) at their
edges: t4_21 (Theorem 2.1, d = 1, clusters led by tokens 0 and 2), t4_42 (Theorem 4.2
in d = 1), t4_85_ref (Theorem 8.5 refuted: P*₀₁ = 0 ≠ 1/3) and t7_52 (Theorem 5.2 from
Lemma T7: the + group {0, 1, 2} and the − group {3, 4}), one limit or evidence field
edited (edges.py). A claim must follow from the checked lemma: cluster flags only as a
lemma proves them (hull vertex true with a separating functional, or "undecided"; zero
false or "undecided"), rate constants at most the lemma's lower bound."""

from __future__ import annotations


from . import edges
from .edges import Case, both, set_in
from .test_edges_lemmas import _rate

A, R, E, S = "t4_21", "t4_42", "t4_85_ref", "t7_52"
N9, P8, L8, T10 = "t9_85_discrete", "t8_52", "t8_52_line", "t10_31"
CL = ("limit", "clusters")


def _cl(i: int, key: str) -> tuple:
    return CL + (i, key)


CASES = [
    # the verdict and which object carries the claims
    Case("t4v.verdict.refuted", A, set_in(("verdict",), "refuted"), "verdict"),
    Case("t4v.evidence.with_certified", A, set_in(("evidence",), {"entry": [0, 1]}),
         "evidence"),
    Case("t4v.limit.with_refuted", E, set_in(("limit",), {"attention_rank": 2}), "limit"),
    # P*, its rank, the leaders
    Case("t4v.attention_limit.row_moved", A, set_in(("limit", "attention_limit"),
                                                    [[1, 0, 0], [1, 0, 0], [0, 0, 1]]),
         "limit.attention_limit"),
    Case("t4v.attention_rank.three", A, set_in(("limit", "attention_rank"), 3),
         "limit.attention_rank"),
    Case("t4v.leaders.other", A, set_in(("limit", "leaders"), [0, 1]), "limit.leaders"),
    Case("t4v.leaders.missing_for_2_1", A, lambda c: c["limit"].pop("leaders"),
         "limit.leaders"),
    # the rate constant: 0 < c ≤ the lemma's (min(m, μ)e^{λT}, lower end)
    Case("t4v.rate_constant.just_below", A, set_in(("limit", "rate_constant"),
                                                   _rate("0.999999999999")), "VALID"),
    Case("t4v.rate_constant.just_above", A, set_in(("limit", "rate_constant"),
                                                   _rate("1.00000000000000000001")),
         "limit.rate_constant"),
    Case("t4v.rate_constant.zero", A, set_in(("limit", "rate_constant"), "0"),
         "limit.rate_constant"),
    Case("t4v.rate.c.just_above", A, set_in(("limit", "rate", "c_lower_bound"),
                                            _rate("1.00000000000000000001")),
         "limit.rate.c_lower_bound"),
    Case("t4v.rate.c.zero", A, set_in(("limit", "rate", "c_lower_bound"), "0"),
         "limit.rate.c_lower_bound"),
    Case("t4v.rate.statement", A, set_in(("limit", "rate", "statement"), "for t >= 0"),
         "limit.rate.statement"),
    # the clusters: count, leaders, members, centres
    Case("t4v.clusters.one_missing", A, set_in(CL, lambda v: v[:1]), "limit.clusters"),
    Case("t4v.clusters.leader", A, set_in(_cl(1, "leader"), 1), "limit.clusters[1].leader"),
    Case("t4v.clusters.members", A, set_in(_cl(1, "members"), [2]),
         "limit.clusters[1].members"),
    Case("t4v.clusters.center_two_intervals", A, set_in(_cl(0, "center"), lambda v: v * 2),
         "limit.clusters[0].center"),
    Case("t4v.clusters.center_not_a_list", A, set_in(_cl(0, "center"), "0"),
         "limit.clusters[0].center"),
    # flags and their witness (Lemma G1)
    Case("t4v.flags.hull_vertex_false", A, set_in(_cl(0, "is_hull_vertex"), False),
         "limit.clusters[0].is_hull_vertex"),
    Case("t4v.flags.is_zero_true", A, set_in(_cl(0, "is_zero"), True),
         "limit.clusters[0].is_zero"),
    Case("t4v.flags.undecided_vertex_with_witness", A,
         set_in(_cl(0, "is_hull_vertex"), "undecided"), "limit.clusters[0].exposing_functional"),
    Case("t4v.flags.undecided_vertex_without_witness", A, lambda c: (
        c["limit"]["clusters"][0].update(is_hull_vertex="undecided"),
        c["limit"]["clusters"][0].pop("exposing_functional")), "VALID"),
    Case("t4v.flags.vertex_without_witness", A, lambda c: c["limit"]["clusters"][0].pop(
        "exposing_functional"), "limit.clusters[0].exposing_functional"),
    Case("t4v.flags.witness_zero", A, set_in(_cl(0, "exposing_functional"), ["0"]),
         "limit.clusters[0].is_hull_vertex"),
    Case("t4v.flags.witness_wrong_side", A, set_in(_cl(0, "exposing_functional"), ["1"]),
         "limit.clusters[0].is_hull_vertex"),
    Case("t4v.flags.witness_not_a_number", A, set_in(_cl(0, "exposing_functional"), ["x"]),
         "limit.clusters[0].exposing_functional"),
    Case("t4v.flags.is_zero_undecided", A, set_in(_cl(0, "is_zero"), "undecided"), "VALID"),
    Case("t4v.flags.witness_on_a_box_overlapping_the_other", A, both(
        set_in(_cl(0, "center"), [["-2.0139348", "2"]]),
        set_in(_cl(0, "exposing_functional"), ["1"])), "limit.clusters[0].is_hull_vertex"),
    Case("t4v.clusters.a_T8_field", A, set_in(_cl(0, "center_F_coordinates"), [["0", "1"]]),
         "limit.clusters[0].center_F_coordinates"),
    # with two clusters is_zero = false is proved by T4 (4): c_kᵀB(c_k − c_k′) ≥ m > 0,
    # so c_k ≠ 0 whatever its box; a centre box widened across 0 is accepted
    Case("t4v.flags.is_zero_false_two_clusters_box_across_0", A,
         set_in(_cl(0, "center"), [["-2.0139348", "1/10"]]), "VALID"),
    Case("t4v.rate_constant.half", A, set_in(("limit", "rate_constant"), "1/2"), "VALID"),
    Case("t4v.leaders.wrong_on_4_2", R, set_in(("limit", "leaders"), [0, 1]), "limit.leaders"),
    # one cluster (T8 on a line): is_zero = false needs a centre box excluding 0
    Case("t8l.is_zero.box_across_0", L8, set_in(_cl(0, "center_F_coordinates"),
                                                [["-1", "1/10"]]), "limit.clusters[0].is_zero"),
    Case("t8l.is_zero.box_up_to_0", L8, set_in(_cl(0, "center_F_coordinates"), [["-1", "0"]]),
         "limit.clusters[0].is_zero"),
    Case("t8l.is_zero.box_below_0", L8, set_in(_cl(0, "center_F_coordinates"),
                                               [["-1", "-1/10"]]), "VALID"),
    Case("t8l.is_zero.undecided_across_0", L8, both(
        set_in(_cl(0, "center_F_coordinates"), [["-1", "1/10"]]),
        set_in(_cl(0, "is_zero"), "undecided")), "VALID"),
    # Theorem 4.2 in d = 2 from Lemma T10 (V = I): undecided, and then nothing is claimed
    Case("t4v.undecided_claims_nothing", T10, both(
        set_in(("theorem",), "4.2"), set_in(("hypotheses_hold",), False),
        set_in(("verdict",), "undecided")), "limit"),
    Case("t4v.coordinate_limits_in_d_2", T10, set_in(("limit", "coordinate_limits"),
                                                      [["0", "1"]] * 3),
         "limit.coordinate_limits"),
    # Theorem 4.2 in d = 1: each token's coordinate and each cluster's value
    Case("t4v.coordinate_limits.short", R, set_in(("limit", "coordinate_limits"),
                                                  lambda v: v[:2]), "limit.coordinate_limits"),
    Case("t4v.coordinate_limits.swapped", R, set_in(("limit", "coordinate_limits"),
                                                    lambda v: [v[1], v[0], v[2]]),
         "limit.coordinate_limits[0]"),
    Case("t4v.hyperplane_values.three", R, set_in(("limit", "hyperplane_values"),
                                                  lambda v: v + v[:1]),
         "limit.hyperplane_values"),
    Case("t4v.hyperplane_values.swapped", R, set_in(("limit", "hyperplane_values"),
                                                    lambda v: v[::-1]),
         "limit.hyperplane_values[0]"),
    # Theorem 8.5 refuted: an entry [i, j] with P*_ij = 0
    Case("t4v.entry.a_one", E, set_in(("evidence", "entry"), [1, 2]), "evidence.entry"),
    Case("t4v.entry.out_of_range", E, set_in(("evidence", "entry"), [0, 3]), "evidence.entry"),
    Case("t4v.entry.negative", E, set_in(("evidence", "entry"), [-1, 0]), "evidence.entry"),
    Case("t4v.entry.short", E, set_in(("evidence", "entry"), [0]), "evidence.entry"),
    Case("t4v.entry.other_zero", E, set_in(("evidence", "entry"), [2, 0]), "VALID"),
    Case("t4v.rows_outside.not_2_1", E, set_in(("evidence", "rows_outside_two_leaders"), []),
         "evidence.rows_outside_two_leaders"),
    # Lemma T7's verdict (Theorem 5.2 with dim F = 1)
    Case("t7v.verdict.refuted", S, set_in(("verdict",), "refuted"), "verdict"),
    Case("t7v.evidence.with_certified", S, set_in(("evidence",), {"entry": [0, 1]}),
         "evidence"),
    Case("t7v.not_proved.a_number", S, set_in(("limit", "not_proved"), 1), "limit.not_proved"),
    Case("t7v.F.a_list", S, set_in(("limit", "F"), ["x"]), "limit.F"),
    Case("t7v.coordinate_limits.short", S, set_in(("limit", "coordinate_limits"),
                                                  lambda v: v[:4]), "limit.coordinate_limits"),
    Case("t7v.hyperplane_values.missing", S, lambda c: c["limit"].pop("hyperplane_values"),
         "limit.hyperplane_values"),
    Case("t7v.functional.psi_short", S, set_in(("limit", "functional", "psi"),
                                               lambda v: v[:1]), "limit.functional.psi"),
    Case("t7v.functional.unknown_key", S, set_in(("limit", "functional", "phi"), ["1", "0"]),
         "malformed: schema: at limit/functional"),
    Case("t7v.groups.moved", S, set_in(("limit", "groups"), {"+": [0, 1], "-": [2, 3, 4]}),
         "limit.groups"),
    Case("t7v.rate.statement", S, set_in(("limit", "cross_group_rate", "statement"), "x"),
         "limit.cross_group_rate.statement"),
    Case("t7v.rate.m_zero", S, set_in(("limit", "cross_group_rate", "m"), "0"),
         "limit.cross_group_rate.m"),
    Case("t7v.rate.m_null", S, set_in(("limit", "cross_group_rate", "m"), None),
         "limit.cross_group_rate.m"),
    Case("t7v.rate.m_lemma", S, set_in(("limit", "cross_group_rate", "m"),
                                       lambda _: edges.cert(S)["tail_lemma"]["m"]), "VALID"),
    Case("t7v.clusters.one", S, set_in(CL, lambda v: v[:1]), "limit.clusters"),
    Case("t7v.clusters.members", S, set_in(_cl(0, "members"), [0, 1]),
         "limit.clusters[0].members"),
    Case("t7v.clusters.center_short", S, set_in(_cl(0, "center"), lambda v: v[:1]),
         "limit.clusters[0].center"),
    Case("t7v.clusters.unknown_key", S, set_in(_cl(0, "leader"), 0),
         "limit.clusters[0].leader"),
    # Lemma T9 (discrete): one cluster at the origin, P* = ones/n of rank 1, the rate
    Case("t9v.verdict.refuted", N9, set_in(("verdict",), "refuted"), "verdict"),
    Case("t9v.evidence.with_certified", N9, set_in(("evidence",), {"entry": [0, 1]}),
         "evidence"),
    Case("t9v.clusters.centre_moved", N9, set_in(_cl(0, "center"), [["0", "1"], ["0", "0"]]),
         "limit.clusters"),
    Case("t9v.clusters.member_missing", N9, set_in(_cl(0, "members"), [0, 1, 2, 3]),
         "limit.clusters"),
    Case("t9v.attention.entry_quarter", N9, set_in(("limit", "attention_limit", 0, 0), "1/4"),
         "limit.attention_limit"),
    Case("t9v.attention.entry_a_number", N9, set_in(("limit", "attention_limit", 0, 0), 0.2),
         "limit.attention_limit"),
    Case("t9v.attention.row_short", N9, set_in(("limit", "attention_limit", 4),
                                               ["1/5"] * 4), "limit.attention_limit"),
    Case("t9v.attention.rows_four", N9, set_in(("limit", "attention_limit"),
                                               lambda P: P[:4]), "limit.attention_limit"),
    Case("t9v.rank.two", N9, set_in(("limit", "attention_rank"), 2), "limit.attention_rank"),
    Case("t9v.rank.bool", N9, set_in(("limit", "attention_rank"), True), "limit.attention_rank"),
    Case("t9v.rate.statement", N9, set_in(("limit", "rate", "statement"), "x"),
         "limit.rate.statement"),
    Case("t9v.rate.c_zero", N9, set_in(("limit", "rate", "c_lower_bound"), "0"),
         "limit.rate.c_lower_bound"),
    Case("t9v.proved.in_discrete_time", N9, set_in(("limit", "proved"), {}), "limit.proved"),
    # Lemma T8's verdict (Theorem 5.2, dim F = 2)
    Case("t8v.theorem_4_2_with_dim_F_2", P8, set_in(("theorem",), "4.2"), "hypotheses_hold"),
    Case("t8v.theorem_4_2_outside_its_hypotheses", P8, both(
        set_in(("theorem",), "4.2"), set_in(("hypotheses_hold",), False)), "verdict"),
    Case("t8v.verdict.refuted", P8, set_in(("verdict",), "refuted"), "verdict"),
    Case("t8v.F.a_number", P8, set_in(("limit", "F"), 2), "limit.F"),
    Case("t8v.not_proved.a_list", P8, set_in(("limit", "not_proved"), ["x"]),
         "limit.not_proved"),
    Case("t8v.clusters.not_a_list", P8, set_in(CL, {}), "malformed: schema: at limit/clusters"),
    Case("t8v.clusters.G_centre_nonzero", P8, set_in(_cl(0, "center"),
                                                     lambda v: v[:2] + [["1/100", "1/50"]]),
         "limit.clusters[0].center[2]"),
    Case("t8v.clusters.F_coordinates_swapped", P8, set_in(
        _cl(0, "center_F_coordinates"), lambda v: v[::-1]),
        "limit.clusters[0].center_F_coordinates[0]"),
]


test_edge = edges.parametrized(CASES)
