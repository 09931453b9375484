"""The arithmetic of Lemma T7's checker (continuous and discrete form) against exact
oracles, on intervals of λ₁ wide enough (±1/100) that taking the wrong end shows.

A producer's λ₁ is an interval of width ~10⁻⁷⁰, so a checker that took α at λ_lo, or the
q^{−K} ends swapped, would pass every real certificate; a hostile certificate may state a
wide interval, so these ends matter for soundness and are tested here.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from mpmath import libmp as L

from certified.checker.projected import group_limits, layer_decay, leakage_bound

LAM = (Fraction(4, 3) - Fraction(1, 100), Fraction(4, 3) + Fraction(1, 100))


def _mp(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


@pytest.mark.parametrize("m", [Fraction(1, 2), Fraction(6), Fraction(30), Fraction(2700)])
@pytest.mark.parametrize("dt", [None, Fraction(1, 10), Fraction(2)])
def test_the_leakage_bound_is_the_lemmas_at_the_upper_end_of_lambda(m, dt):
    """size·D·e^{−m}(α(λ_hi) + 1/(2m)) (discrete) or size·D·e^{−m}/(2m): contained, and
    within 10⁻¹⁴ relative (α at λ_lo is 0.7% smaller at Δt = 1/10, so it would fail)."""
    D, size = Fraction(7, 3), 3
    with mpmath.workdps(60):
        w = 1 / (2 * _mp(m))
        if dt is not None:
            w += _mp(LAM[1] * dt) / (1 + _mp(LAM[1] * dt))
        oracle = size * _mp(D) * mpmath.exp(-_mp(m)) * w
        got = _mp(Fraction(*L.to_rational(leakage_bound(m, D, size, LAM, dt))))  # exact
        assert oracle <= got <= oracle * (1 + mpmath.mpf(10) ** -14)
        if dt is not None:  # the wrong end of λ is measurably smaller
            alt = _mp(LAM[0] * dt) / (1 + _mp(LAM[0] * dt)) + 1 / (2 * _mp(m))
            assert size * _mp(D) * mpmath.exp(-_mp(m)) * alt < oracle * (1 - mpmath.mpf(10) ** -4)


@pytest.mark.parametrize("K", [1, 7, 22])
def test_the_layer_decay_ends_are_exact(K):
    """(1 + λ_hiΔt)^{−K} ≤ q^{−K} ≤ (1 + λ_loΔt)^{−K}, by repeated exact multiplication."""
    dt = Fraction(1, 10)
    lo, hi = Fraction(1), Fraction(1)
    for _ in range(K):
        lo /= 1 + LAM[1] * dt
        hi /= 1 + LAM[0] * dt
    assert layer_decay(LAM, dt, K) == (lo, hi)
    assert lo < hi


def test_group_limits_take_delta0_and_the_decay_ends_on_the_right_sides():
    """G⁺ = {0, 2}: [e_lo(m⁺ − δ₀), e_hi M⁺]; G⁻ = {1}: [e_hi m⁻, e_lo(M⁻ + δ₀)]."""
    omega = [(Fraction(2), Fraction(3)), (Fraction(-5), Fraction(-4)),
             (Fraction(1), Fraction(7, 2))]
    d0, ends = Fraction(1, 8), (Fraction(1, 3), Fraction(1, 2))
    got = group_limits(omega, [0, 2], [1], d0, ends)
    assert got == {"+": (Fraction(1, 3) * (1 - d0), Fraction(1, 2) * Fraction(7, 2)),
                   "-": (Fraction(1, 2) * -5, Fraction(1, 3) * (-4 + d0))}
    assert group_limits(omega[:1], [0], [], Fraction(0), ends) == \
        {"+": (Fraction(2, 3), Fraction(3, 2))}


def test_the_exact_interval_helpers_against_fractions():
    """Lemma T7's exact helpers (``projected.py``), from a mutation run's survivors: the
    negation, the reciprocal (refusing an interval that meets 0, ends included), √ rounded
    up by at most 2^-256 and exact on squares, and Horner's rule."""
    from fractions import Fraction as Fr

    from certified.checker import CheckFailure
    from certified.checker.projected import _neg, _peval, _recip, _sqrt_up

    assert _neg((Fr(1), Fr(2))) == (Fr(-2), Fr(-1))
    assert _recip((Fr(2), Fr(4)), "w") == (Fr(1, 4), Fr(1, 2))
    assert _recip((Fr(-2), Fr(-1)), "w") == (Fr(-1), Fr(-1, 2))
    for a in ((Fr(0), Fr(1)), (Fr(-1), Fr(0)), (Fr(-1), Fr(1))):
        with pytest.raises(CheckFailure) as exc:
            _recip(a, "w")
        assert str(exc.value) == (f"w: Expected an interval excluding 0. Got "
                                  f"[{float(a[0])}, {float(a[1])}].")
    unit = Fr(1, 2 ** 256)
    for q in (Fr(2), Fr(1, 3), Fr(10 ** 40 + 1), Fr(7, 10 ** 30)):
        r = _sqrt_up(q)
        assert r * r >= q > (r - unit) ** 2, q
    for q in (Fr(4), Fr(9, 16), Fr(0)):  # squares of dyadics: exact
        assert _sqrt_up(q) ** 2 == q
    assert _peval([Fr(1), Fr(2), Fr(3)], Fr(2)) == 17  # 1 + 2·2 + 3·4


@pytest.mark.parametrize("s", [Fraction(-2), Fraction(-1, 3), Fraction(0), Fraction(1, 2),
                               Fraction(1), Fraction(3)])
@pytest.mark.parametrize("a", [(Fraction(-1), Fraction(2)), (Fraction(1, 5), Fraction(7, 3)),
                               (Fraction(-4), Fraction(-1, 2))])
def test_lemma_t4s_interval_helpers_are_the_exact_images(s, a):
    """``lemmas._scal``, ``_mul``, ``_add``, ``_dot`` on exact intervals: the smallest
    interval holding every s·x, x·y, x + y (checked on the end points, where the extremes
    of these bilinear maps lie)."""
    from certified.checker.lemmas import _add, _dot, _mul, _scal

    ends = [s * a[0], s * a[1]]
    assert _scal(s, a) == (min(ends), max(ends))
    b = (s - 1, s + Fraction(1, 4))
    prods = [x * y for x in a for y in b]
    assert _mul(a, b) == (min(prods), max(prods))
    assert _add(a, b) == (a[0] + b[0], a[1] + b[1])
    assert _dot([a, b], [b, a]) == _add(_mul(a, b), _mul(b, a))
