"""Lemma T8 on a line: Theorems 5.2 and 4.2 with dim F = 1 where Lemma T7 cannot apply
(⟨Qφ₁, Kφ₁⟩ ≤ 0). The choice between T7 and T8 decided exactly, and the stored
certificates of examples/thm5_2_form_negative.json (fixtures t8_52_line, t8_42_line)
against an independent float64 integration of the flow (containment and width)."""

from __future__ import annotations

import json
from fractions import Fraction
from fractions import Fraction as F

import numpy as np
import pytest

from certified import Instance
from certified.checker import check_certificate
from certified.verdict.certify import _line_split, certify

from ..checker.producer import ROOT, load


def _example() -> Instance:
    return Instance.load(str(ROOT / "examples" / "thm5_2_form_negative.json"))


def test_line_split_only_where_t7_cannot_apply():
    inst = _example()
    split, why = _line_split(inst)
    assert why == "" and split is not None and split.dim_f == 1 and split.lam == 1
    assert split.BFG is not None  # K has F–G entries: the combined margin
    # the same V with K₁₁ > 0: T7's business, no line split
    pos = Instance.create(V=inst.V, Q=inst.Q, K=[["12/25", "1/20"], ["-9/100", "97/100"]],
                          X0=inst.X0)
    assert _line_split(pos) == (None, "")
    # K₁₁ = 0 exactly is a tie, ≤ 0: the line split
    tie = Instance.create(V=inst.V, Q=inst.Q, K=[["0", "1/20"], ["-9/100", "97/100"]],
                          X0=inst.X0)
    assert _line_split(tie)[0] is not None


def test_an_irrational_line_has_no_split_and_says_why():
    """V = [[1, 1], [1, 0]]: λ₁ = (1 + √5)/2, irrational: T8 needs a rational λ."""
    inst = Instance.create(V=[[1, 1], [1, 0]], Q=[[1, 0], [0, 1]], K=[[-1, 0], [0, 1]],
                           X0=[[1, 0], [0, 1]])
    split, why = _line_split(inst)
    assert split is None and "no rational eigenvalue" in why


def _flow_z(inst: Instance, t_end: float, h: float = 1e-3) -> np.ndarray:
    """z = e^{−tV}x at t_end for V diagonal, by RK4 in z (float64; an oracle independent
    of the library: ż_i = e^{−tV}V Σ_j P_ij x_j − V z_i, x = e^{tV}z)."""
    V = np.array([[float(v) for v in r] for r in inst.V])
    B = np.array([[float(v) for v in r] for r in inst.B])
    lam = np.diag(V)

    def rhs(t: float, Z: np.ndarray) -> np.ndarray:
        X = Z * np.exp(t * lam)
        S = X @ B @ X.T
        P = np.exp(S - S.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        return (P @ X) * lam * np.exp(-t * lam) - Z * lam

    Z = np.array([[float(v) for v in r] for r in inst.X0])
    t = 0.0
    for _ in range(int(round(t_end / h))):
        k1 = rhs(t, Z)
        k2 = rhs(t + h / 2, Z + h / 2 * k1)
        k3 = rhs(t + h / 2, Z + h / 2 * k2)
        k4 = rhs(t + h, Z + h * k3)
        Z = Z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return Z


def test_the_stored_certificate_checks_and_contains_the_flow():
    """The fixture (verify at 8 digits) is valid; one cluster with every token; at t = 8
    the float64 flow's F-coordinates lie in the certified limit box (width below 10⁻²),
    and the followers are within e^{−(8 − T)}(ε_j + η₀) of the leader (Lemma T4 (2))."""
    c = load("t8_52_line")
    rep = check_certificate(json.loads(json.dumps(c)))
    assert rep.valid, rep.message
    tl = c["tail_lemma"]
    assert tl["dim_F"] == 1 and c["verdict"] == "certified" and c["theorem"] == "5.2"
    (cl,) = c["limit"]["clusters"]
    assert cl["members"] == [0, 1, 2]
    lo, hi = (float(Fraction(x)) for x in cl["center_F_coordinates"][0])
    assert 0 < hi - lo < 1e-2
    # the F-coordinate in the stored basis: u = S⁻¹x, so w = (S⁻¹ z)_0 (S = I here)
    assert tl["basis"] == [["1", "0"], ["0", "1"]]
    T = float(Fraction(tl["T"]))
    Z = _flow_z(_example(), 8.0)
    w = Z[:, 0]
    k = cl["leader"]
    assert lo <= w[k] <= hi
    eta0 = float(Fraction(tl["eta0"]))
    for j in range(3):
        if j != k:
            eps = max(abs(float(Fraction(a))) for pair in tl["differences_at_T"][str(j)]
                      for a in pair)
            assert abs(w[j] - w[k]) <= np.exp(-(8.0 - T)) * (eps + eta0) + 1e-9


@pytest.mark.slow
def test_verify_reproduces_the_fixture():
    """certify with the fixture's settings gives the same lemma data (a regenerated
    fixture is the same certificate up to the producer's wall time)."""
    v = certify(_example(), "5.2", digits=8, max_seconds=None, refine_t=0, t_max=8)
    assert v.verdict == "certified" and v.tail.split.dim_f == 1


def test_theorem_4_2_on_the_line_is_certified_with_its_coordinate_limits():
    """The 4.2 fixture: one cluster, so φ₁*(z_i) converges to one value b = a; every
    stored coordinate limit contains the float64 flow's F-coordinate at t = 8 up to the
    followers' proved distance, and the hyperplane value contains the leader's."""
    c = load("t8_42_line")
    rep = check_certificate(json.loads(json.dumps(c)))
    assert rep.valid, rep.message
    assert c["theorem"] == "4.2" and c["verdict"] == "certified" and c.get("evidence") is None
    assert c["hypotheses_hold"] is False  # ⟨Qφ₁, Kφ₁⟩ = −12/25: outside Definition 4.1
    lim = c["limit"]
    (hv,) = lim["hyperplane_values"]
    lo, hi = (float(Fraction(x)) for x in hv)
    w = _flow_z(_example(), 8.0)[:, 0]
    (cl,) = lim["clusters"]
    assert lo <= w[cl["leader"]] <= hi and hi - lo < 1e-2
    assert [list(p) for p in lim["coordinate_limits"]] == [hv] * 3


def test_theorem_4_2_on_the_line_needs_nu_below_lambda():
    """V_G = [[1/2, −1/2], [1/2, 1/2]] (eigenvalues (1 ± i)/2, of modulus 0.71 < λ = 1)
    has ν = |a| + |b| = 1 = λ in the bases tried (its real eigenvector basis; the Jordan
    basis needs a rational spectrum), so ν < λ is not proved: no line split, undecided
    before integrating, naming it."""
    inst = Instance.create(V=[[1, 0, 0], [0, "1/2", "-1/2"], [0, "1/2", "1/2"]],
                           Q=[[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                           K=[[-1, 0, 0], [0, 1, 0], [0, 0, 1]], X0=[[1, 0, 0], [0, 1, 0]])
    v = certify(inst, "4.2", digits=8, max_seconds=None, t_max=1)
    assert v.verdict == "undecided" and v.trajectory is None
    assert "ν = λ = 1: λ is not proved strictly dominant" in v.reason, v.reason


def test_a_jordan_block_below_lambda_gets_a_line_split():
    """V_G = [[1/2, 1/2], [0, 1/2]] (a Jordan block, ρ(V_G) = 1/2): ‖V_G‖∞ = 1 = λ in
    range(V − λI)'s columns, and 3/4 < λ in its Jordan basis scaled by ε = 1/4, so the
    line split exists with ν = 3/4 (the checker re-verifies any basis exactly)."""
    from certified.tail.t8_paranormal import paranormal_split

    V = [[F(1), F(0), F(0)], [F(0), F(1, 2), F(1, 2)], [F(0), F(0), F(1, 2)]]
    B = [[F(-1), F(0), F(0)], [F(0), F(1), F(0)], [F(0), F(0), F(1)]]
    sp, why = paranormal_split(V, B, min_dim=1)
    assert sp is not None and sp.dim_f == 1 and sp.nu == F(3, 4) < sp.lam, why
