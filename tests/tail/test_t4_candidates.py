"""Lemma T4's inflations δ, η are searched for (``CANDIDATES``), not fixed.

A follower that approaches its leader almost orthogonally to Bᵀx has a within-cluster
margin μ that is a small fraction of its distance ε, so (Hμ) survives only a small η. The
original candidate (tails at half the margins, doubled) can then fail at a T where a
tighter candidate closes the bootstrap. The geometry below: B = I, λ = 1, leader (1, 0),
follower (1 − κε, ε), so μ ≈ κε − ε² and (Hμ) loses about η.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

import certified.tail.t4_leader_follower as t4
from certified.checker.lemmas import check_leader_follower
from certified.enclose.arith import get_backend

BK = get_backend("flint")
I2 = [[F(1), F(0)], [F(0), F(1)]]
TINY = F(1, 10 ** 30)


def _case(kappa: F, eps: F) -> tuple[list, dict]:
    z0, z1 = (1 - kappa * eps, eps), (F(1), F(0))
    boxes = [[(c - TINY, c + TINY) for c in z0], [(c - TINY, c + TINY) for c in z1]]
    diffs = {0: [(a - b - TINY, a - b + TINY) for a, b in zip(z0, z1)]}
    return boxes, diffs


def _run(T: F, kappa: F, eps: F, candidates) -> tuple:
    boxes, diffs = _case(kappa, eps)
    saved = t4.CANDIDATES
    t4.CANDIDATES = candidates
    try:
        with BK.workprec(200):
            return t4.leader_follower(BK, F(1), I2, T, boxes, diffs, [1, 1])
    finally:
        t4.CANDIDATES = saved


@pytest.mark.parametrize("kappa,eps,T", [(F(1, 5), F(1, 100), F(31, 8)),
                                         (F(1, 10), F(1, 100), F(17, 4))])
def test_a_tighter_candidate_closes_where_the_original_fails(kappa, eps, T):
    lf0, why0 = _run(T, kappa, eps, t4.CANDIDATES[:1])
    assert lf0 is None and why0 == "margins do not survive the inflation by the tail bounds"
    lf, why = _run(T, kappa, eps, t4.CANDIDATES)
    assert lf is not None, why
    # the witnesses are tight: η below the follower's distance and both tails below them
    assert 0 < lf.eta0 < lf.eta < eps / 10 and 0 < lf.delta0 < lf.delta
    # and the independent checker (mpmath, exact rationals) accepts the stored pair
    got = check_leader_follower(lf.to_json(30), F(1), I2, 2)
    assert got["leader"] == [1, 1]
    assert got["delta0"] <= lf.delta0 * (1 + F(1, 10 ** 6))


def test_the_search_keeps_every_earlier_pass_and_only_moves_the_first_pass_earlier():
    """At every T of a grid, the search passes where the original candidate passes (with
    the very same δ, η: it is tried first), and the first T where it passes is earlier."""
    kappa, eps = F(1, 5), F(1, 100)
    first_orig = first_search = None
    for k in range(24, 40):
        T = F(k, 8)
        lf0, _ = _run(T, kappa, eps, t4.CANDIDATES[:1])
        lf, _ = _run(T, kappa, eps, t4.CANDIDATES)
        if lf0 is not None:
            assert lf is not None and (lf.delta, lf.eta) == (lf0.delta, lf0.eta)
            first_orig = first_orig or T
        if lf is not None:
            first_search = first_search or T
    assert first_orig == 4 and first_search == F(31, 8)


def test_a_real_failure_is_still_reported():
    """Far too early (T = 1) no candidate closes; the original candidate's reason is kept."""
    lf, why = _run(F(1), F(1, 5), F(1, 100), t4.CANDIDATES)
    assert lf is None and why == "margins do not survive the inflation by the tail bounds"
