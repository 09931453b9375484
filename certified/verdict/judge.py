"""Judging a theorem's conclusion from Lemma T4's conclusions (``proofs_notes/tail.md``).

:func:`judge_leader_follower` turns a verified :class:`LeaderFollowerBound` into the
verdict on a theorem's limit statement (certified, refuted or undecided), its reason,
the spec's limit data (clusters, P*, rank, rate) and, for a refutation, the evidence.
Hull vertices are verified on the centre boxes by Lemma G1.
"""

from __future__ import annotations

from certified.errors import InputError
from certified.exact.hypotheses import THEOREMS
from certified.exact.instance import Instance
from certified.exact.rationals import bounds_to_json, fraction_to_str
from certified.logic import Truth, Verdict, truth_to_json
from certified.tail.g1_hull import excludes_origin, exposing_functional
from certified.tail.t4_leader_follower import LeaderFollowerBound

__all__ = ["RATE_STATEMENT", "RATE_STATEMENT_DISCRETE", "center_json", "judge_leader_follower"]


def center_json(b: list, digits: int) -> list[list[str]]:
    return [bounds_to_json(lo, hi, digits) for lo, hi in b]


def _clusters_json(inst: Instance, lf: LeaderFollowerBound, digits: int) -> list[dict]:
    out = []
    cl = lf.clusters
    boxes = lf.centers
    for idx, (k, members) in enumerate(cl):
        # Lemma T4 (iv): a = Bᵀ c_k exposes c_k; verified again on the centre boxes (G1).
        mid = [(lo + hi) / 2 for lo, hi in boxes[idx]]
        hint = [sum(inst.B[r][c] * mid[r] for r in range(inst.d)) for c in range(inst.d)]
        functional = exposing_functional(idx, boxes, hint)
        # G1 proves a vertex with a witness; without one nothing is proved either way.
        vertex = Truth.TRUE if functional is not None else Truth.UNDECIDED
        # T4 (iv): centres are non-zero when there are ≥ 2 clusters.
        zero = Truth.FALSE if len(cl) >= 2 or excludes_origin(boxes[idx]) else Truth.UNDECIDED
        item = {"leader": k, "members": members, "center": center_json(boxes[idx], digits),
                "is_hull_vertex": truth_to_json(vertex), "is_zero": truth_to_json(zero)}
        if functional is not None and len(cl) >= 2:
            # Lemma G1's witness, so that a checker re-verifies the claim exactly.
            item["exposing_functional"] = [fraction_to_str(x) for x in functional]
        out.append(item)
    return out


#: The rate statements of Lemma T4 (continuous time) and T10 (layers k of the map).
RATE_STATEMENT = "for t >= T: |P_ij(t) - P*_ij| <= (n-1) exp(-c e^{lambda t})"
RATE_STATEMENT_DISCRETE = ("for layers k >= K: |P_ij - P*_ij| <= (n-1) "
                           "exp(-c (1 + lambda dt)^k)")


def _lf_limit(inst: Instance, lf: LeaderFollowerBound, digits: int) -> dict:
    P = lf.attention_limit()
    return {"clusters": _clusters_json(inst, lf, digits), "attention_limit": P,
            "attention_rank": len(lf.clusters),
            "rate": {"statement": RATE_STATEMENT if lf.dt is None else RATE_STATEMENT_DISCRETE,
                     "c_lower_bound": lf.to_json(digits)["rate_constant"]}}


def _rows_outside(lf: LeaderFollowerBound, allowed: set[int]) -> list[int]:
    return [i for i, k in enumerate(lf.leader) if k not in allowed]


def judge_leader_follower(theorem: str, inst: Instance, lf: LeaderFollowerBound, digits: int
              ) -> tuple[str, str, dict | None, dict | None]:
    """(verdict, reason, limit, evidence) for a theorem's conclusion, given Lemma T4."""
    n, d = inst.n, inst.d
    limit = _lf_limit(inst, lf, digits)
    clusters = lf.clusters
    T = lf.T
    if theorem in ("3.1", "5.2"):
        return (Verdict.CERTIFIED, f"Lemma {lf.lemma} holds at T = {T}: every token converges to the limit "
                f"of its leader; the {len(clusters)} limits are vertices of their hull "
                f"(exposed by Bᵀc_k, {lf.lemma} (iv))", limit, None)
    if theorem == "2.1":
        if d == 1:
            xs = [inst.X0[i][0] for i in range(n)]
            extremes = {xs.index(min(xs)), xs.index(max(xs))}
        else:  # "two leaders": the two most populated clusters
            sizes = sorted(clusters, key=lambda c: -len(c[1]))
            extremes = {k for k, _ in sizes[:2]}
        bad = _rows_outside(lf, extremes)
        limit = dict(limit, leaders=sorted(set(lf.leader)),
                     rate_constant=limit["rate"]["c_lower_bound"])
        if len(bad) <= 1:
            return (Verdict.CERTIFIED, f"Lemma {lf.lemma} holds at T = {T}: P(t) → P* Boolean, every row "
                    f"but at most one the unit vector e_l of a token l in "
                    f"{{{', '.join(map(str, sorted(extremes)))}}}, "
                    f"rank {len(clusters)}, doubly-exponential rate", limit, None)
        return (Verdict.REFUTED, f"Lemma {lf.lemma} holds at T = {T}: rows {bad} of P* attend to tokens "
                f"outside {{{', '.join(map(str, sorted(extremes)))}}}; P* has rank {len(clusters)}", None,
                {"attention_limit": lf.attention_limit(), "attention_rank": len(clusters),
                 "rows_outside_two_leaders": bad, "clusters": limit["clusters"]})
    if theorem == "4.2":
        if d != 1:
            return (Verdict.UNDECIDED, "Theorem 4.2's conclusion needs a simple dominant "
                    "eigenvalue; V = λI_d with d ≥ 2 has none (φ₁* is not defined)",
                    None, None)
        cl_of = {k: idx for idx, (k, _) in enumerate(clusters)}
        coord = [center_json(lf.centers[cl_of[lf.leader[i]]], digits) for i in range(n)]
        values = [center_json(b, digits) for b in lf.centers]
        lim = dict(limit, coordinate_limits=[c[0] for c in coord],
                   hyperplane_values=[v[0] for v in values])
        if len(clusters) <= 2:
            return (Verdict.CERTIFIED, f"Lemma {lf.lemma} holds at T = {T}: φ₁*(z_i) = z_i converges to "
                    f"{len(clusters)} value(s), the limits of min and max", lim, None)
        return (Verdict.REFUTED, f"{len(clusters)} distinct non-zero limits ({lf.lemma} (iv))", None,
                {"hyperplane_values": [v[0] for v in values]})
    if theorem == "8.5":
        off = [(i, j) for i in range(n) for j in range(n) if lf.leader[i] != j]
        if n >= 2 and off:
            i, j = off[0]
            return (Verdict.REFUTED, f"Lemma {lf.lemma} holds at T = {T}: P(t) → P* with P*[{i}][{j}] = 0, "
                    f"not 1/{n}; tokens do not all tend to 0", None,
                    {"attention_limit": lf.attention_limit(), "entry": [i, j],
                     "clusters": limit["clusters"]})
        return (Verdict.UNDECIDED, "n = 1: P = (1) trivially", None, None)
    raise InputError("theorem", f"{theorem!r} is not a theorem", "one of " + ", ".join(THEOREMS))
