"""Rigorous e^x, ln 2 and π on Python integers (Lemma C1e of ``proofs_notes/checker.md``).

mpmath rounds its arithmetic (+, −, ×, ÷, normalisation) correctly in every direction, but
its elementary functions are only accurate, not directed: ``mpf_exp`` of x = 2^−64 at 96
bits with ``round_ceiling`` returns 1 + 2^−64, below e^x = 1 + 2^−64 + 2^−129 (the series is
summed in fixed point at a few guard bits, and what falls below them is dropped before the
final rounding). The checker's exponentials and its constants ln 2 and π are therefore
computed here, from series whose every truncation and rounding is bounded:

* ln 2 = Σ_{k≥1} 1/(k·2^k), the tail after K terms below 1/((K + 1)·2^K);
* π = 16 atan(1/5) − 4 atan(1/239) (Machin), atan(1/m) = Σ_k (−1)^k/((2k + 1)m^{2k+1}), an
  alternating series of decreasing terms: the error after a term is below the next term;
* e^x = 2^n e^r with r = x − n ln 2 enclosed from the bounds of ln 2; e^r for 0 ≤ r < 1 as
  (e^{r/2^H})^{2^H}, H = :func:`halvings` (G), the Taylor terms of e^{r/2^H} rounded down
  (lower bound) or up and the tail bounded (upper bound), then squared H times with the
  same directed rounding; e^r for r < 0 as 1/e^{−r}.

Every bound is a pair of integers at a stated scale: ``lo ≤ value·2^W ≤ hi``.
"""

from __future__ import annotations

from functools import lru_cache
from math import isqrt

__all__ = ["ceil_div", "ceil_shift", "exp_scaled", "halvings", "ln2_scaled", "pi_scaled"]


def halvings(G: int) -> int:
    """H for e^r = (e^{r/2^H})^{2^H} at G bits: 8, or √G/2 above G = 324. Fewer Taylor
    terms against more squarings; only the work depends on it (at 9,600 bits the two
    bounds of one exp took 43 ms with H = 8 and 16 ms with H = 48, both cores busy)."""
    return max(8, isqrt(G) // 2)


def ceil_div(a: int, b: int) -> int:
    """⌈a/b⌉ for b > 0 (the checker's integer rounding upward, also used by ``balls``)."""
    return -((-a) // b)


def ceil_shift(a: int, s: int) -> int:
    """⌈a/2^s⌉ for s ≥ 0."""
    return -((-a) >> s)


@lru_cache(maxsize=64)
def ln2_scaled(W: int) -> tuple[int, int]:
    """(lo, hi) with lo ≤ 2^W·ln 2 ≤ hi and hi − lo ≤ 2."""
    g = 8 + W.bit_length()       # guard bits: the K floor/ceil errors stay below 2^g
    K = W + g + 2                # the tail Σ_{k>K} 2^{W+g}/(k 2^k) < 2^{W+g−K} = 1/4
    one = 1 << (W + g)
    lo = hi = 0
    for k in range(1, K + 1):
        # ⌊⌊a/2^k⌋/k⌋ = ⌊a/(k·2^k)⌋ (and so for ⌈·⌉): a shift and a small divisor
        lo += (one >> k) // k
        hi += ceil_div(ceil_shift(one, k), k)
    return lo >> g, ceil_shift(hi + 1, g)


def _atan_inv(m: int, S: int) -> tuple[int, int]:
    """(lo, hi) with lo ≤ 2^S·atan(1/m) ≤ hi, for an integer m ≥ 2."""
    one = 1 << S
    lo = hi = 0
    k, p = 0, m                  # p = m^{2k+1}
    while True:
        den = (2 * k + 1) * p
        fl, ce = one // den, ceil_div(one, den)
        if k % 2 == 0:
            lo, hi = lo + fl, hi + ce
        else:
            lo, hi = lo - ce, hi - fl
        if den > one:            # this term is below 1: so is the next, which bounds the tail
            return lo - 1, hi + 1
        k, p = k + 1, p * m * m


@lru_cache(maxsize=64)
def pi_scaled(W: int) -> tuple[int, int]:
    """(lo, hi) with lo ≤ 2^W·π ≤ hi and hi − lo ≤ 2."""
    g = 8 + W.bit_length()
    S = W + g
    a_lo, a_hi = _atan_inv(5, S)
    b_lo, b_hi = _atan_inv(239, S)
    return (16 * a_lo - 4 * b_hi) >> g, ceil_shift(16 * a_hi - 4 * b_lo, g)


def _exp_unit(R: int, T: int, G: int, up: bool, H: int) -> int:
    """A bound (below, or above with ``up``) of 2^G·e^r for r = R·2^−T with 0 ≤ r < 1, as
    (e^y)^{2^H} with y = r/2^H."""
    s = T + H                    # y = R·2^−s ∈ [0, 2^−H)
    term = 1 << G                # the k-th Taylor term y^k/k!, scaled by 2^G and rounded
    total = term
    k = 0
    while term > (1 if up else 0):
        k += 1
        # ⌈⌈a/2^s⌉/k⌉ = ⌈a/(k·2^s)⌉ and ⌊⌊a/2^s⌋/k⌋ = ⌊a/(k·2^s)⌋ for integers a ≥ 0,
        # k ≥ 1: the same term as one division by k·2^s, at the cost of a shift and a
        # division by a small integer
        if up:
            term = ceil_div(ceil_shift(term * R, s), k)
        else:
            term = ((term * R) >> s) // k
        total += term
    if up:
        # the terms after the last one included are below it times 2^−H/(1 − 2^−H) ≤ 1
        total += 1
    for _ in range(H):           # e^{2y} = (e^y)², rounded in the same direction
        total = ceil_shift(total * total, G) if up else (total * total) >> G
    return total


def _exp_reduced(R: int, T: int, G: int, up: bool, H: int) -> int:
    """A bound of 2^G·e^r, r = R·2^−T with |r| < 1."""
    if R >= 0:
        return _exp_unit(R, T, G, up, H)
    # e^r = 1/e^{−r}, and 1/y is decreasing: the lower bound from the upper one
    inv = _exp_unit(-R, T, G, not up, H)
    return ceil_div(1 << (2 * G), inv) if up else (1 << (2 * G)) // inv


def exp_scaled(a: int, s: int, G: int) -> tuple[int, int, int]:
    """(lo, hi, n) with lo·2^{n−G} ≤ e^x ≤ hi·2^{n−G} for x = a·2^{−s} (s ≥ 0).

    lo and hi lie in (2^{G−1}, 2^{G+1}) and hi − lo ≤ 2 (measured; the proof's bound is
    looser); n is the integer nearest x/ln 2 (to within 2^−14), so that |r| < 0.35, which
    the series' tail bound needs (|r| < 1 would do)."""
    if a == 0:
        return 1 << G, 1 << G, 0
    if a.bit_length() - s < -(G + 4):
        # |x| < 2^−(G+4): 1 + x ≤ e^x ≤ 1 + x + x², and x²·2^G < 1 (s − G > 4 here)
        return (1 << G) + (a >> (s - G)), (1 << G) + ceil_shift(a, s - G) + 1, 0
    # n ≈ x/ln 2 from ln 2 to W1 bits, W1 above the bits of x: |x/ln 2 − n| < 1, |r| < 1
    # (W1 and W2 are rounded up to multiples of 64: more bits only tighten, and the cached
    # constants are reused across arguments)
    W1 = _round64(max(64, a.bit_length() - s + 16))
    L0 = ln2_scaled(W1)[0]
    n = ((a << W1) + ((L0 << s) >> 1)) // (L0 << s)
    W2 = _round64(G + 16 + abs(n).bit_length())        # |n|·2^−W2 ≤ 2^−(G+16)
    l_lo, l_hi = ln2_scaled(W2)
    T = max(s, W2)
    X = a << (T - s)                                   # x·2^T
    # r = x − n ln 2 lies between x − n·ln2_lo and x − n·ln2_hi (scaled by 2^T), whatever
    # the sign of n
    r_a, r_b = X - (n * l_hi << (T - W2)), X - (n * l_lo << (T - W2))
    r_lo, r_hi = min(r_a, r_b), max(r_a, r_b)
    H = halvings(G)
    g = H + 16                                         # guard bits: roundings and H squarings
    lo = _exp_reduced(r_lo, T, G + g, up=False, H=H)
    hi = _exp_reduced(r_hi, T, G + g, up=True, H=H)
    return lo >> g, ceil_shift(hi, g), n


def _round64(W: int) -> int:
    return -(-W // 64) * 64
