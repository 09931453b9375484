"""The checker's rigorous quadrature (Lemma C8, ``certified.checker.quadrature``) against
closed forms evaluated by mpmath at 120 digits: containment *and* width, on an entire
integrand (e^{αu}) and on one with a pole near the interval (1/(2 + u)); and its series
arithmetic against exact rational polynomial arithmetic."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from certified.checker.balls import Ball, const, scale, scaled
from certified.checker.errors import CheckFailure
from certified.checker.quadrature import Series, integrate, piece_half_length, tail_bound



@pytest.fixture(autouse=True)
def _precision():
    """120 digits for the closed forms in every test (other modules set mpmath's global
    precision too, and share a process with this one under xdist)."""
    with mpmath.workdps(120):
        yield


def _q(x: mpmath.mpf) -> F:
    """The exact value of an mpf."""
    man, exp = mpmath.mpf(x).man_exp
    return F(man) * F(2) ** exp


def _holds(ball: Ball, exact: mpmath.mpf, slack_bits: int) -> None:
    """``ball`` contains ``exact`` (to 110 digits, far below the ball's unit) and its
    radius is at most 2^slack_bits units."""
    P = scale()
    lo, hi = ball.lo_q(), ball.hi_q()
    tol = F(1, 10 ** 105)
    assert lo - tol <= _q(exact) <= hi + tol, (float(lo), float(hi), exact)
    assert 0 < ball.r <= 2 ** slack_bits, (ball.r, P)


def _exp_sup(alpha: F):
    """A proven bound of |e^{αu}| on the disk |u − c| ≤ R: e^{|α|(|c| + R)} ≤ 3^{⌈…⌉}."""
    def sup(c: F, R: F) -> F:
        return F(3) ** (-(-abs(alpha) * (abs(c) + R) // 1))
    return sup


@pytest.mark.parametrize("alpha, a, b", [(F(1), F(0), F(1)), (F(-3, 2), F(-1), F(2)),
                                         (F(7), F(1, 3), F(1, 2)), (F(1, 5), F(-2), F(5))])
def test_integral_of_an_exponential_is_enclosed_tightly(alpha, a, b):
    with scaled(160):
        got = integrate(lambda c, L, N: Series.exp_linear(c, alpha, L, N), _exp_sup(alpha),
                        a, b, lambda u: F(1), "test")
        exact = (mpmath.exp(mpmath.mpf(alpha.numerator) / alpha.denominator * mpmath.mpf(
            b.numerator) / b.denominator) - mpmath.exp(
            mpmath.mpf(alpha.numerator) / alpha.denominator * mpmath.mpf(a.numerator)
            / a.denominator)) / (mpmath.mpf(alpha.numerator) / alpha.denominator)
        # the truncation target is 2^-(P-24) per unit length: radius ≤ 2^34 units covers
        # it with the pieces' rounding, and is 2^-126 absolute
        _holds(got, exact, 34)


def _recip_series(shift: F):
    """1/(shift + u) as a series in s, u = c + L·s."""
    def series(c: Ball, L: F, N: int) -> Series:
        return (Series.variable(c, L, N) + Series.constant(const(shift), N)).recip()
    return series


def test_integral_near_a_pole_is_enclosed_tightly():
    # 1/(2 + u) on [0, 1]: the pole at −2 limits the disk to R = (u + 2)/2 at the left end
    # u of each piece; the sup of |g| on |u − c| ≤ R is 1/(c + 2 − R), with c + 2 − R > 0.
    with scaled(160):
        got = integrate(_recip_series(F(2)), lambda c, R: 1 / (c + 2 - R), F(0), F(1),
                        lambda u: (u + 2) / 2, "test")
        _holds(got, mpmath.log(mpmath.mpf(3) / 2), 34)


def test_a_missing_bound_is_a_check_failure_naming_the_place():
    with scaled(120), pytest.raises(CheckFailure, match="where-it-is.*no bound near u"):
        integrate(_recip_series(F(2)), lambda c, R: None, F(0), F(1), lambda u: F(1),
                  "where-it-is")


def test_the_width_follows_the_scale():
    # the same integral at 100 and 220 bits: the radius in absolute terms shrinks by
    # about 2^120 (the truncation order grows with the scale), and both contain the value
    exact = mpmath.e - 1
    widths = []
    for P in (100, 220):
        with scaled(P):
            got = integrate(lambda c, L, N: Series.exp_linear(c, F(1), L, N),
                            _exp_sup(F(1)), F(0), F(1), lambda u: F(1), "test")
            _holds(got, exact, 34)
            widths.append(got.hi_q() - got.lo_q())
    assert widths[1] < widths[0] * F(1, 2 ** 100)


def _poly(coeffs: list[F], N: int) -> Series:
    return Series([const(c) for c in coeffs] + [Ball(0, 0)] * (N + 1 - len(coeffs)))


def _exact_of(s: Series) -> list[F]:
    P = scale()
    return [F(b.m, 1 << P) for b in s.c]


def test_series_ring_operations_against_exact_polynomials():
    with scaled(90):
        f, g = [F(1), F(-2), F(3, 4)], [F(1, 2), F(5), F(0), F(-1)]
        N = 5
        a, b = _poly(f, N), _poly(g, N)
        prod = [sum((f[j] if j < 3 else 0) * (g[k - j] if k - j < 4 else 0)
                    for j in range(k + 1)) for k in range(N + 1)]
        assert _exact_of(a * b) == prod
        assert [b_.r for b_ in (a * b).c] == [0] * (N + 1)  # dyadic inputs: exact products
        assert _exact_of(a + b) == [x + y for x, y in zip(f + [0] * 3, g + [0] * 2)]
        assert _exact_of(a - b) == [x - y for x, y in zip(f + [0] * 3, g + [0] * 2)]
        # the reciprocal: (1/f)·f = 1 to the series' order, within its rounding
        inv = a.recip()
        one_ = inv * a
        for k, c in enumerate(one_.c):
            want = 1 if k == 0 else 0
            assert c.lo_q() <= want <= c.hi_q(), (k, c)
            assert c.r < 2 ** 24
        # and its coefficients are those of the exact rational series
        exact = [F(1)]
        for k in range(1, N + 1):
            exact.append(-sum(f[j] * exact[k - j] for j in range(1, min(k, 2) + 1)))
        for c, e in zip(inv.c, exact):
            assert c.lo_q() <= e <= c.hi_q() and c.r < 2 ** 24


def test_exp_linear_coefficients():
    with scaled(120):
        s = Series.exp_linear(const(F(1, 3)), F(2), F(1, 4), 6)
        base = mpmath.exp(mpmath.mpf(2) / 3)
        for k, c in enumerate(s.c):
            want = base * (mpmath.mpf(1) / 2) ** k / mpmath.factorial(k)
            assert c.lo_q() <= _q(want) <= c.hi_q()
            assert c.r < 2 ** 20
        assert len(s.c) == 7
        v = Series.variable(const(F(3)), F(1, 8), 4)
        assert _exact_of(v) == [3, F(1, 8), 0, 0, 0]
        assert _exact_of(Series.constant(const(F(5)), 3)) == [5, 0, 0, 0]


def test_a_zero_integrand_gives_exactly_zero():
    # no truncation (M = 0) and exact coefficients: the ball must be the point 0 (any
    # stray unit in the sums' starting values would show)
    with scaled(80):
        got = integrate(lambda c, L, N: Series([Ball(0, 0)] * (N + 1)), lambda c, R: F(0),
                        F(-1), F(3), lambda u: F(1), "test")
        assert (got.m, got.r) == (0, 0)
        # a constant 3: ∫_{-1}^{3} 3 = 12; the pieces' sums are exact, and each symmetric
        # tail ball [−err, err] moves the centre by at most one unit (its rounded ends)
        got = integrate(lambda c, L, N: Series.constant(const(F(3)), N), lambda c, R: F(3),
                        F(-1), F(3), lambda u: F(1), "test")
        pieces = 4 * 16  # L = 1/16 on [−1, 3]
        assert abs(got.m - (12 << scale())) <= pieces
        assert got.lo_q() <= 12 <= got.hi_q()


@pytest.mark.parametrize("L, M, R, N", [(F(1, 16), F(3), F(1), 4), (F(1, 64), F(10), F(1, 2), 12),
                                         (F(1, 8), F(1, 7), F(1), 40)])
def test_tail_bound_is_the_lemma_and_bounds_the_true_tail(L, M, R, N):
    q = L / R
    got = tail_bound(L, M, R, N)
    assert got == 2 * L * M * q ** (N + 1) / (1 - q)  # Lemma C8's formula
    # the tail Σ_{k>N} (M/R^k)·2L^{k+1}/(k+1), summed exactly to k = N + 400 (the rest is
    # below q^400 of it): the bound is above it, and within the factor N + 2 it drops
    tail = sum(M / R ** k * 2 * L ** (k + 1) / (k + 1) for k in range(N + 1, N + 401))
    assert tail < got <= (N + 3) * tail


@pytest.mark.parametrize("R", [F(1), F(3), F(1, 5), F(20), F(8)])
def test_piece_half_length_is_a_dyadic_near_an_eighth_of_R(R):
    L = piece_half_length(R, F(0), F(100))
    assert L.numerator == 1 and L.denominator & (L.denominator - 1) == 0  # 2^-j
    # 2^-j, j the bit length of ⌈8/R⌉: R/(2(8 + R)) < L ≤ R/8 (so q = L/R ≤ 1/8)
    assert R / (2 * (8 + R)) < L <= min(R / 8, F(1, 2))
    assert L == F(1, 2 ** (-(-8 // R)).bit_length())
    assert piece_half_length(R, F(0), F(1, 1000)) == min(L, F(1, 2000))


def test_the_order_is_the_least_multiple_of_four_meeting_the_target():
    # Lemma C8 in checker.md: N is raised (from 4, by 4) until the tail bound is below
    # 2^-(P-24)·L; the series is asked for exactly that order on every piece
    asked = []

    def series(c, L, N):
        asked.append((L, N))
        return Series.exp_linear(c, F(1), L, N)

    with scaled(120):
        integrate(series, _exp_sup(F(1)), F(0), F(1), lambda u: F(1), "test")
        target = F(1, 2 ** (120 - 24))
        R = F(1)
        for (L, N), u in zip(asked, [2 * sum(x for x, _ in asked[:i]) for i in range(len(asked))]):
            M = _exp_sup(F(1))(u + L, R)
            assert N % 4 == 0 and 4 <= N <= 400
            assert tail_bound(L, M, R, N) <= target * L
            assert N == 4 or tail_bound(L, M, R, N - 4) > target * L
        assert sum(2 * L for L, _ in asked) == 1  # the pieces tile [0, 1]


def test_series_constructors_pad_with_exact_zeros():
    with scaled(64):
        for s in (Series.variable(const(F(3)), F(1, 8), 5), Series.constant(const(F(5)), 4)):
            assert all(b.r == 0 for b in s.c)
        inv = (Series.variable(const(F(1)), F(1, 2), 6)).recip()  # 1/(1 + s/2): exact dyadics
        assert [F(b.m, 1 << 64) for b in inv.c] == [F(-1, 2) ** k for k in range(7)]
        assert all(b.r == 0 for b in inv.c)


def test_a_polynomial_of_the_series_degree_is_integrated_exactly():
    # u⁴ on [0, 1] with the sup bound 0 (no tail: N stays 4), so every even term up to
    # k = N must be summed: ∫ u⁴ = 1/5, within the rounding of the pieces' products
    def series(c, L, N):
        u = Series.variable(c, L, N)
        return u * u * u * u

    with scaled(100):
        got = integrate(series, lambda c, R: F(0), F(0), F(1), lambda u: F(1), "test")
        assert got.lo_q() <= F(1, 5) <= got.hi_q()
        assert got.r <= 64


def test_the_order_stops_at_400():
    asked = []

    def series(c, L, N):
        asked.append(N)
        return Series.constant(const(F(1)), N)

    with scaled(80):
        got = integrate(series, lambda c, R: F(2) ** 4000, F(0), F(1, 8), lambda u: F(1), "t")
    assert asked and set(asked) == {400}
    assert got.hi_q() - got.lo_q() > 1  # the tail bound at N = 400 is huge and is kept


def test_the_missing_bound_message_word_for_word():
    with scaled(80), pytest.raises(CheckFailure) as err:
        integrate(_recip_series(F(2)), lambda c, R: None, F(0), F(1), lambda u: F(1), "here")
    assert str(err.value) == ("here: Expected an integrand analytic and bounded on the disk. "
                              "Got no bound near u = 0.0625.")
