"""Lemma T9's discrete form (checker/energy.py, C21) at the edge of each inequality, on
the fixture t9_85_discrete (V = −I₂, Q = K = I₂, five tokens, Δt = 1/10, the layer 197):
one claim moved onto or across its bound (edges.py). With B = I, x_iᵀBx_i = |x_i|², whose
maximum on a box is Σ_c max(lo_c², hi_c²) exactly; the other bounds are tail.md's
statement of T9 in discrete time: E_T ≥ Σ q_i, r = max(1, min(d, n − 1)) = 2,
0 < κ ≤ e^{−2E_T}, 0 < ε with h(1 + ε) < 2, 4h(1 + 1/ε)E_T·e^{4E_T} ≤ κ/r,
0 < c ≤ h·min((2 − h(1 + ε))/E_T, κ/(nr))·E_T/2 (the fixture has ε = 171/10, h = 1/10)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from . import edges
from .edges import Case, both, set_in

mpmath.mp.dps = 60
Q = Fraction
TL = "tail_lemma"
F = "t9_85_discrete"
N, R = 5, 2
_TINY = Q(1, 10 ** 30)


def _lem() -> dict:
    return edges.cert(F)[TL]


def _M(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _q_exact() -> list[Fraction]:
    """max |x_i|² on each stored box (B = I)."""
    return [sum(max(Q(lo) ** 2, Q(hi) ** 2) for lo, hi in row) for row in _lem()["boxes_at_T"]]


def _c_bound(E: Fraction, kappa: Fraction, eps: Fraction | None = None) -> Fraction:
    h = Q(_lem()["h"])
    eps = Q(_lem()["epsilon"]) if eps is None else eps
    return h * min((2 - h * (1 + eps)) / E, kappa / (N * R)) * E / 2


def _rational(x: mpmath.mpf, rel: str) -> Fraction:
    return Q(mpmath.nstr(x * (1 + mpmath.mpf(rel)), 45))


_QS = _q_exact()
_E, _K = Q(_lem()["E_T_upper"]), Q(_lem()["kappa_lower"])
_TOTAL = sum(Q(q) for q in _lem()["q_at_T_upper"])
#: κ at e^{−2E_T} (just inside, just outside) and at the step-size condition's r·8hE·e^{4E}
_K_TOP = _M(_E) * -2
_K_IN, _K_OUT = _rational(mpmath.exp(_K_TOP), "-1e-20"), _rational(mpmath.exp(_K_TOP), "1e-20")
_H, _EPS = Q(_lem()["h"]), Q(_lem()["epsilon"])
_GROWTH = R * 4 * _M(_H * (1 + 1 / _EPS) * _E) * mpmath.exp(4 * _M(_E))
#: the largest ε the mean allows, 2/h − 1 (excluded), and just below it
_EPS_MAX = 2 / _H - 1
_G_IN, _G_OUT = _rational(_GROWTH, "1e-20"), _rational(_GROWTH, "-1e-20")


def _with(**fields) -> object:
    """Edits of the lemma's fields; a new c_lower also goes to the limit's rate, which
    restates it."""
    edits = [set_in((TL, k), str(v)) for k, v in fields.items()]
    if "c_lower" in fields:
        edits.append(set_in(("limit", "rate", "c_lower_bound"), str(fields["c_lower"])))
    return both(*edits)


CASES = [
    # q_i ≥ max x_iᵀBx_i on the box
    Case("t9d.q0.at_bound", F, set_in((TL, "q_at_T_upper"), lambda q: [str(_QS[0])] + q[1:]),
         "VALID"),
    Case("t9d.q0.just_below", F, set_in((TL, "q_at_T_upper"),
                                        lambda q: [str(_QS[0] - _TINY)] + q[1:]),
         "tail_lemma.q_at_T_upper[0]"),
    Case("t9d.q4.just_below", F, set_in((TL, "q_at_T_upper"),
                                        lambda q: q[:4] + [str(_QS[4] - _TINY)]),
         "tail_lemma.q_at_T_upper[4]"),
    Case("t9d.q.one_short", F, set_in((TL, "q_at_T_upper"), lambda q: q[:4]),
         "tail_lemma.q_at_T_upper"),
    # E_T ≥ Σ q_i (c follows E_T down: its bound is proportional to E_T here)
    Case("t9d.E.at_sum", F, _with(E_T_upper=_TOTAL, c_lower=_c_bound(_TOTAL, _K)), "VALID"),
    Case("t9d.E.just_below_sum", F, _with(E_T_upper=_TOTAL - _TINY), "tail_lemma.E_T_upper"),
    # 0 < κ ≤ e^{−2E_T}
    Case("t9d.kappa.just_inside", F, _with(kappa_lower=_K_IN), "VALID"),
    Case("t9d.kappa.just_outside", F, _with(kappa_lower=_K_OUT), "tail_lemma.kappa_lower"),
    Case("t9d.kappa.zero", F, _with(kappa_lower=0), "tail_lemma.kappa_lower"),
    # 0 < ε < 2/h − 1 (c follows ε: its mean branch shrinks to 0 at the edge)
    Case("t9d.epsilon.just_inside", F, _with(epsilon=_EPS_MAX - _TINY,
                                             c_lower=_c_bound(_E, _K, _EPS_MAX - _TINY)),
         "VALID"),
    Case("t9d.epsilon.at_edge", F, _with(epsilon=_EPS_MAX), "tail_lemma.epsilon"),
    Case("t9d.epsilon.zero", F, _with(epsilon=0), "tail_lemma.epsilon"),
    Case("t9d.epsilon.edge_with_the_old_c", F, _with(epsilon=_EPS_MAX - _TINY),
         "tail_lemma.c_lower"),
    Case("t9d.malformed.epsilon", F, _with(epsilon="x"), "tail_lemma.epsilon"),
    # the step-size condition 4h(1 + 1/ε)E_T·e^{4E_T} ≤ κ/r (c follows κ down)
    Case("t9d.growth.just_inside", F, _with(kappa_lower=_G_IN, c_lower=_c_bound(_E, _G_IN)),
         "VALID"),
    Case("t9d.growth.just_outside", F, _with(kappa_lower=_G_OUT,
                                             c_lower=_c_bound(_E, _G_OUT)),
         "tail_lemma.E_T_upper"),
    # 0 < c ≤ h·m·E_T/2, exact
    Case("t9d.c.at_bound", F, _with(c_lower=_c_bound(_E, _K)), "VALID"),
    Case("t9d.c.just_above", F, _with(c_lower=_c_bound(_E, _K) + _TINY),
         "tail_lemma.c_lower"),
    Case("t9d.c.limit_above_lemma", F, set_in(("limit", "rate", "c_lower_bound"),
                                              str(_c_bound(_E, _K) + _TINY)),
         "limit.rate.c_lower_bound"),
    Case("t9d.c.zero", F, _with(c_lower=0), "tail_lemma.c_lower"),
    # every token at the origin: Σ q_i = 0 allows E_T = 0, which the lemma excludes
    Case("t9d.E.zero_at_the_origin", F, both(
        set_in((TL, "boxes_at_T"), [[["0", "0"], ["0", "0"]]] * N),
        set_in((TL, "q_at_T_upper"), ["0"] * N), _with(E_T_upper=0)), "tail_lemma.E_T_upper"),
    # numbers that are not (each reader names its field; T9's continuous form reads the
    # same names through T6's data)
    Case("t9d.malformed.q", F, set_in((TL, "q_at_T_upper"), lambda q: ["x"] + q[1:]),
         "tail_lemma.q_at_T_upper[0]"),
    Case("t9d.malformed.E", F, _with(E_T_upper="x"), "tail_lemma.E_T_upper"),
    Case("t9d.malformed.kappa", F, _with(kappa_lower="x"), "tail_lemma.kappa_lower"),
    Case("t9d.malformed.c", F, set_in((TL, "c_lower"), "x"), "tail_lemma.c_lower"),
    # r, μ, h, the boxes' shape
    Case("t9d.rank_bound.three", F, set_in((TL, "rank_bound"), 3), "tail_lemma.rank_bound"),
    Case("t9d.rank_bound.one", F, set_in((TL, "rank_bound"), 1), "tail_lemma.rank_bound"),
    Case("t9d.rank_bound.bool", F, set_in((TL, "rank_bound"), True), "tail_lemma.rank_bound"),
    Case("t9d.mu.two", F, _with(mu=2), "tail_lemma.mu"),
    Case("t9d.mu.minus_one", F, _with(mu=-1), "tail_lemma.mu"),
    Case("t9d.h.other", F, _with(h=Q(1, 5)), "tail_lemma.h"),
    Case("t9d.boxes.row_missing", F, set_in((TL, "boxes_at_T"), lambda b: b[:-1]),
         "tail_lemma.boxes_at_T"),
    Case("t9d.boxes.row_short", F, set_in((TL, "boxes_at_T"), lambda b: [b[0][:1]] + b[1:]),
         "tail_lemma.boxes_at_T"),
]


test_edge = edges.parametrized(CASES)


@pytest.mark.parametrize("value, message", [
    ("x", "tail_lemma.q_at_T_upper: Expected a list of bounds. Got 'x'."),
    ([], "tail_lemma.q_at_T_upper: Expected a list of bounds. Got []."),
    (["1", "y"], "tail_lemma.q_at_T_upper[1]: Expected an exact number. Got 'y'."),
])
def test_the_bounds_list_is_read_naming_each_entry(value, message):
    """T6's and T9's q_at_T_upper: a list of exact numbers, each named in a failure."""
    from certified.checker import CheckFailure
    from certified.checker.energy import _bounds

    assert _bounds({"q_at_T_upper": ["1/2", "3"]}) == [Q(1, 2), Q(3)]
    with pytest.raises(CheckFailure) as exc:
        _bounds({"q_at_T_upper": value})
    assert str(exc.value) == message


# -- Lemma T6's bounds at T against the replayed set (check_t6_at_T), on exact balls --------

class _Set:
    """A stand-in for the replayed set at T: its box is given (n·d balls)."""

    def __init__(self, balls):
        import numpy as np

        self._box = np.array(balls, dtype=object)

    def box(self):
        return self._box


def test_t6_bounds_at_t_are_compared_with_the_replayed_box_at_their_edge():
    """B = I₁ and two tokens in the boxes [1, 2] and [−1/2, 1/4]: x_iᵀBx_i ≤ 4 and ≤ 1/4 on
    the box (the checker bounds x² of [−1/2, 1/4] by the product of the interval with
    itself, [−1/8, 1/4]). A bound equal to that maximum holds; one a hair less is refused,
    naming the token; a list of the wrong length is refused."""
    from certified.checker import CheckFailure
    from certified.checker.balls import interval, scaled
    from certified.checker.energy import check_t6_at_T

    with scaled(128):
        S = _Set([interval(Q(1), Q(2)), interval(Q(-1, 2), Q(1, 4))])
        B = [[Q(1)]]
        check_t6_at_T({"q_at_T_upper": ["4", "1/4"]}, B, 2, S)
        with pytest.raises(CheckFailure) as exc:
            check_t6_at_T({"q_at_T_upper": ["4", "1/5"]}, B, 2, S)
        assert str(exc.value) == ("tail_lemma.q_at_T_upper[1]: Expected >= 0.25 (x_iᵀBx_i on "
                                  "the replayed box). Got 1/5.")
        with pytest.raises(CheckFailure) as exc:
            check_t6_at_T({"q_at_T_upper": ["4"]}, B, 2, S)
        assert str(exc.value) == "tail_lemma.q_at_T_upper: Expected 2 bounds. Got 1."
        with pytest.raises(CheckFailure) as exc:
            check_t6_at_T({"q_at_T_upper": "4" * 70}, B, 2, S)
        assert str(exc.value) == ("tail_lemma.q_at_T_upper: Expected a list of bounds. Got "
                                  f"{repr('4' * 70)[:60]}.")


def test_is_q_reads_only_numbers():
    from certified.checker.energy import _is_q

    assert _is_q("1/2", Q(1, 2)) and not _is_q("1/3", Q(1, 2))
    assert not _is_q("half", Q(1, 2)) and not _is_q("1/0", Q(0))
