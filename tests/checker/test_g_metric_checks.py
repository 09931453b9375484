"""The checker on Lemma T8's quadratic norm on G (C11, ``tail_lemma.G_metric``), on the
fixture t8_52_metric (V_G = the pair 3/5 ± 3i/5, P = (1025/1024)·I): each condition at
its edge — P − I ≻ 0, ν²P − V_GᵀPV_G ≻ 0 (ν² against 18/25, the pair's modulus²), and
Y² ≥ max yᵀPy over the G boxes' vertices — recomputed here with Fractions from the
statement in tail.md, and edits with the digest recomputed rejected naming the field."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest

from certified.checker import CheckFailure, _check_claims_only

from . import tamper
from .producer import load

Q = Fraction


def _claims(c: dict) -> str:
    c["digest"] = tamper.digest(c)
    return _check_claims_only(c)


@pytest.fixture(scope="module")
def cert():
    c = load("t8_52_metric")
    assert _claims(json.loads(json.dumps(c))).startswith("claims checked")
    return c


def _edit(c: dict, **fields) -> dict:
    bad = json.loads(json.dumps(c))
    bad["tail_lemma"].update(fields)
    return bad


def _fails(c: dict) -> str:
    with pytest.raises(CheckFailure) as e:
        _claims(c)
    return e.value.where


def _y_squared_needed(lemma: dict) -> Fraction:
    P = [[Q(x) for x in r] for r in lemma["G_metric"]]
    best = Q(0)
    for row in lemma["G_boxes_at_T"]:
        box = [(Q(lo), Q(hi)) for lo, hi in row]
        for v in itertools.product(*box):
            best = max(best, sum(v[i] * P[i][j] * v[j] for i in range(2) for j in range(2)))
    return best


def test_the_fixture_uses_the_quadratic_norm_with_a_rate_the_max_norm_cannot_give(cert):
    lemma = cert["tail_lemma"]
    assert lemma["G_metric"] == [["1025/1024", "0"], ["0", "1025/1024"]]
    nu = Q(lemma["nu"])
    assert Q(18, 25) < nu * nu and nu < 1 < Q(6, 5)  # ρ² = 18/25; ‖V_G‖∞ = 6/5 > λ = 1


def test_without_the_metric_the_max_norm_rate_is_rejected(cert):
    bad = json.loads(json.dumps(cert))
    del bad["tail_lemma"]["G_metric"]
    assert _fails(bad) == "tail_lemma.nu"


@pytest.mark.parametrize("scale, ok", [(Q(1), False), (Q(1025, 1024), True), (Q(1, 2), False)])
def test_P_minus_I_positive_definite_at_its_edge(cert, scale, ok):
    """P = s·I: P − I ≻ 0 iff s > 1 (s = 1 is the tie: rejected). Y is raised so that only
    this condition decides."""
    s = str(scale)
    P = [[s, "0"], ["0", s]]
    bad = _edit(cert, G_metric=P, Y=str(Q(cert["tail_lemma"]["Y"]) * 2))
    if ok:
        # a larger Y changes κ's need: checked only up to the G_metric condition
        try:
            _claims(bad)
        except CheckFailure as e:
            assert e.where not in ("tail_lemma.G_metric", "tail_lemma.nu"), e
    else:
        assert _fails(bad) == "tail_lemma.G_metric"


def test_asymmetric_or_misshapen_metric_rejected(cert):
    assert _fails(_edit(cert, G_metric=[["2", "1/8"], ["0", "2"]])) == "tail_lemma.G_metric"
    assert _fails(_edit(cert, G_metric=[["2", "0", "0"], ["0", "2", "0"], ["0", "0", "2"]])
                  ) == "tail_lemma.G_metric"
    assert _fails(_edit(cert, G_metric=[["2", "0"], ["0", "x"]])) == "tail_lemma.G_metric[1][1]"


@pytest.mark.parametrize("nu, ok", [("8486/10000", True), ("8485/10000", False),
                                    ("1/2", False), ("-60573/65536", False), ("0", False)])
def test_rate_at_the_pair_modulus_edge(cert, nu, ok):
    """With P = c·I, ν²P − V_GᵀPV_G = c(ν² − 18/25)I: positive definite iff ν² > 18/25
    (ν = 0.8486: ν² = 0.72012; ν = 0.8485: ν² = 0.71995). A smaller ν only shrinks the
    other needs (Δ₀ ∝ ν), so the accepted edit passes every claim check. The stored ν with
    its sign flipped meets ν²P − V_GᵀPV_G ≻ 0 too, and would pass ν ≤ λ, 2ν ≤ λ and
    (HΔ) trivially: rejected by ν > 0."""
    assert (Q(nu) > 0 and Q(nu) ** 2 > Q(18, 25)) == ok
    bad = _edit(cert, nu=nu)
    if ok:
        assert _claims(bad).startswith("claims checked")
    else:
        assert _fails(bad) == "tail_lemma.nu"


def test_Y_at_its_edge(cert):
    """Y² ≥ the exact maximum of yᵀPy over the G boxes' vertices: a Y just below √ of it
    is rejected naming Y; the stored Y is above it."""
    from math import isqrt

    lemma = cert["tail_lemma"]
    need = _y_squared_needed(lemma)
    assert Q(lemma["Y"]) ** 2 >= need
    below = Q(isqrt(need.numerator * 10 ** 60 // need.denominator), 10 ** 30)
    assert below * below <= need
    below -= Q(1, 10 ** 30)
    assert _fails(_edit(cert, Y=str(below))) == "tail_lemma.Y"


def test_P_minus_I_means_the_identity(cert):
    """P = diag(3, 1): P − I = diag(2, 0) is singular, so rejected (P minus the all-ones
    off-diagonal, [[3, −1], [−1, 1]], would be positive definite)."""
    assert _fails(_edit(cert, G_metric=[["3", "0"], ["0", "1"]])) == "tail_lemma.G_metric"


@pytest.mark.parametrize("raw", [
    "2",                                   # not a list
    [["2", "0"]],                          # one row for dim G = 2
    [["2", "0"], ["0"]],                   # a short row
    [["2", "0"], "0"],                     # a row that is not a list
])
def test_misshapen_metric_message_word_for_word(cert, raw):
    with pytest.raises(CheckFailure) as e:
        _claims(_edit(cert, G_metric=raw))
    assert str(e.value) == (f"tail_lemma.G_metric: Expected a 2×2 matrix (dim G = 2, at most "
                            f"8). Got {repr(raw)[:60]}.")


def _diag(values) -> list:
    m = len(values)
    return [[Q(values[i]) if i == j else Q(0) for j in range(m)] for i in range(m)]


@pytest.mark.parametrize("m, ok", [(1, True), (8, True), (9, False)])
def test_metric_dimensions_one_to_eight(m, ok):
    """_metric on V' = diag(1, (1/2)I_m), P = 2I_m, ν = 1 (ν²P − V_GᵀPV_G = (3/2)I ≻ 0):
    accepted for 1 ≤ dim G ≤ 8, a vertex count of at most 2⁸; rejected above."""
    from certified.checker.paranormal import _metric

    Vp = _diag([1] + [Q(1, 2)] * m)
    lemma = {"G_metric": [["2" if i == j else "0" for j in range(m)] for i in range(m)],
             "nu": "1"}
    if ok:
        assert _metric(lemma, Vp, 1, m + 1, Q(1)) == _diag([2] * m)
    else:
        with pytest.raises(CheckFailure, match=r"^tail_lemma\.G_metric: Expected a 9×9 matrix "
                                               r"\(dim G = 9, at most 8\)"):
            _metric(lemma, Vp, 1, m + 1, Q(1))


def test_vertex_max_and_norm_bound_against_a_direct_enumeration():
    """_vertex_max is the largest yᵀPy over the box's vertices (an asymmetric box, a
    non-diagonal P: the maximum is at one vertex only); _norm_up is the integer-square-root
    bound (⌊√(a·b·4⁶⁴)⌋ + 1)/(b·2⁶⁴) of it, above √q by at most 1/(b·2⁶⁴)."""
    from math import isqrt

    from certified.checker.paranormal import _norm_up, _vertex_max

    P = [[Q(2), Q(1, 2)], [Q(1, 2), Q(1)]]
    box = [(Q(-1, 3), Q(2)), (Q(-3, 2), Q(1, 4))]
    vals = {v: v[0] * v[0] * 2 + v[0] * v[1] + v[1] * v[1] for v in itertools.product(*box)}
    top = max(vals.values())
    assert sorted(vals.values())[-2] < top == _vertex_max(P, box)
    up = _norm_up(P, box)
    assert up == Q(isqrt(top.numerator * top.denominator * 4 ** 64) + 1,
                   top.denominator * 2 ** 64)
    assert up * up > top and (up - Q(1, top.denominator * 2 ** 64)) ** 2 <= top
    assert _norm_up(None, box) == Q(2)          # the max-norm: max |end|
    assert _norm_up(None, []) == 0 and _vertex_max(P, []) == 0


def test_long_metrics_are_quoted_to_sixty_characters(cert):
    """The 'Got' part of both G_metric messages is the first 60 characters of the value."""
    tiny = [["1/2000000000000000000000", "0"], ["0", "1/3000000000000000000000"]]
    with pytest.raises(CheckFailure) as e:
        _claims(_edit(cert, G_metric=tiny))
    assert str(e.value) == ("tail_lemma.G_metric: Expected a symmetric P with P − I positive "
                            f"definite (Sylvester, exact). Got {repr(tiny)[:60]}.")
    wide = [["2", "0", "0000000000000000000000000000000"]] * 3
    with pytest.raises(CheckFailure) as e:
        _claims(_edit(cert, G_metric=wide))
    assert str(e.value) == ("tail_lemma.G_metric: Expected a 2×2 matrix (dim G = 2, at most 8)."
                            f" Got {repr(wide)[:60]}.")


@pytest.mark.parametrize("nu", ["-60573/65536", "0"])
def test_non_positive_rate_message_word_for_word(cert, nu):
    """ν ≤ 0 is rejected by its own rule, before ν²P − V_GᵀPV_G ≻ 0 (which −ν meets)."""
    with pytest.raises(CheckFailure) as e:
        _claims(_edit(cert, nu=nu))
    assert str(e.value) == f"tail_lemma.nu: Expected > 0 (the growth rate in G_metric's norm). Got {nu}."
