"""Rigorous integrals ∫_a^b g for analytic g, with the checker's arithmetic (Lemma C8).

On [c − L, c + L] with g analytic on the disk |u − c| ≤ R (R ≥ 8L), Taylor's theorem
with Cauchy's estimate |g_k| ≤ M/R^k (M ≥ sup of |g| on the disk, from an analytic bound
supplied with the integrand) gives ∫_{c−L}^{c+L} g = Σ_{k ≤ N, k even} 2 g_k L^{k+1}/(k + 1) + E,
|E| ≤ 2L·M·(L/R)^{N+1}/(1 − L/R). Independent of Arb's `acb.integral` used by the producer.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from .balls import Ball, const, interval, scale
from .errors import CheckFailure

__all__ = ["integrate", "Series", "piece_half_length", "tail_bound"]


class Series:
    """Truncated Taylor series in τ = u − c with :class:`Ball` coefficients."""

    def __init__(self, coeffs: list[Ball]) -> None:
        self.c = coeffs

    @staticmethod
    def variable(c: Ball, L: Fraction, N: int) -> "Series":
        """u = c + L·s in the scaled variable s (|s| ≤ 1 on the piece)."""
        return Series([c, const(L)] + [Ball(0, 0)] * (N - 1))

    @staticmethod
    def constant(x: Ball, N: int) -> "Series":
        return Series([x] + [Ball(0, 0)] * N)

    def __add__(self, o: "Series") -> "Series":
        return Series([a + b for a, b in zip(self.c, o.c)])

    def __sub__(self, o: "Series") -> "Series":
        return Series([a - b for a, b in zip(self.c, o.c)])

    def __mul__(self, o: "Series") -> "Series":
        n = len(self.c)
        return Series([sum((self.c[j] * o.c[k - j] for j in range(k + 1)), Ball(0, 0))
                       for k in range(n)])

    def recip(self) -> "Series":
        f, n = self.c, len(self.c)
        inv0 = f[0].recip()
        g = [inv0]
        for k in range(1, n):
            acc = sum((f[j] * g[k - j] for j in range(1, k + 1)), Ball(0, 0))
            g.append(-(acc * inv0))
        return Series(g)

    @staticmethod
    def exp_linear(c: Ball, a: Fraction, L: Fraction, N: int) -> "Series":
        """e^{a(c + Ls)} = e^{ac} Σ (aLs)^k/k!."""
        out = [(c * const(a)).exp()]
        for k in range(1, N + 1):
            out.append(out[-1] * const(a * L / k))
        return Series(out)


def piece_half_length(R: Fraction, u: Fraction, b: Fraction) -> Fraction:
    """L for the piece starting at u: 2^-j with j the bit length of ⌈8/R⌉, so that
    R/(2(8 + R)) < L ≤ R/8 (q = L/R ≤ 1/8), and at most half of what is left of [u, b]."""
    L = Fraction(1, 2 ** max(0, (8 / R).__ceil__().bit_length()))
    return min(L, (b - u) / 2)


def tail_bound(L: Fraction, M: Fraction, R: Fraction, N: int) -> Fraction:
    """Lemma C8's bound 2LM q^{N+1}/(1 − q), q = L/R < 1, of the Taylor terms k > N of
    ∫_{c−L}^{c+L} g when |g| ≤ M on the disk |u − c| ≤ R (Cauchy: |g_k| ≤ M/R^k)."""
    q = L / R
    return 2 * L * M * q ** (N + 1) / (1 - q)


def integrate(series: Callable[[Ball, Fraction, int], Series],
              sup_bound: Callable[[Fraction, Fraction], Fraction],
              a: Fraction, b: Fraction, radius: Callable[[Fraction], Fraction],
              where: str) -> Ball:
    """A ball containing ∫_a^b g (a < b exact), g given by its Taylor series in the
    scaled variable s = (u − c)/L (``series(c, L, N)``; scaling keeps every coefficient
    of moderate size in fixed point) and a proven bound ``sup_bound(c, R)`` ≥ sup of |g| on the disk
    |u − c| ≤ R, inside which g is analytic, for R = ``radius(u)`` (u the left end)."""
    total = Ball(0, 0)
    u = a
    target = Fraction(1, 2 ** (scale() - 24))
    while u < b:
        R = radius(u)
        L = piece_half_length(R, u, b)
        c = u + L
        M = sup_bound(c, R)
        if M is None:
            raise CheckFailure(where, "an integrand analytic and bounded on the disk",
                               f"no bound near u = {float(c)}")
        N = 4  # the order: raised by 4 until the tail is below the target (at most 400)
        while tail_bound(L, M, R, N) > target * L and N < 400:
            N += 4
        err = tail_bound(L, M, R, N)
        g = series(const(c), L, N).c  # ĝ_k = g_k L^k
        piece = Ball(0, 0)
        for k in range(0, N + 1, 2):  # the odd terms integrate to 0 over s ∈ [−1, 1]
            piece = piece + g[k] * const(Fraction(2, k + 1))
        piece = piece * const(L)
        total = total + piece + interval(-err, err)
        u = u + 2 * L
    return total
