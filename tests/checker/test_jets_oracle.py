"""The checker's Taylor jets (``dynamics.Field.jets``, Lemmas C1, C1f, C15) against an
independent oracle: Picard iteration on truncated power series in mpmath at 400 bits.

The oracle shares no algorithm with the checker. The checker runs the order-by-order
recurrences of Lemma I2 (Cauchy products, the exp recurrence E_k = (1/k) Σ m U_m E_{k−m},
the quotient recurrence for P); the oracle iterates y ← y(0) + ∫ F(y) on polynomials of
degree K (after K + 1 rounds every coefficient up to K is exact), takes e^u as
e^{u_0}·Σ_m (u − u_0)^m/m! and 1/a as (1/a_0)·Σ_m (−(a − a_0)/a_0)^m. It is small (n ≤ 4,
K ≤ 14), so the whole file runs in about 8 s: the mutation run of ``dynamics.py``
selects it first.

Each case checks containment of the oracle in every coefficient ball, and width: every
radius is at most 2^{−P}·A·G^k, with A about twice the measured envelope's, so that a
doubled rounding term in one recurrence still shows. A start ball's jets must contain
the jets of its corners (the oracle at five corners), which is what shows a radius term
dropped where the radii come from the start.
"""

from __future__ import annotations

import functools
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from certified.checker.balls import ExactRadii, FloatRadii, Ball, const, scaled
from certified.checker.dynamics import Field, Jets

ORACLE_BITS = 400


# -- the oracle ----------------------------------------------------------------------------

def _mul(a: list, b: list) -> list:
    K = len(a) - 1
    return [mpmath.fsum(a[m] * b[k - m] for m in range(k + 1)) for k in range(K + 1)]


def _exp(u: list) -> list:
    """e^u = e^{u_0}·Σ_{m ≤ K} v^m/m!, v = u − u_0 (v^m has no term below τ^m)."""
    K = len(u) - 1
    v = [mpmath.mpf(0)] + list(u[1:])
    out = [mpmath.mpf(0)] * (K + 1)
    term = [mpmath.mpf(1)] + [mpmath.mpf(0)] * K
    for m in range(K + 1):
        out = [o + t / mpmath.factorial(m) for o, t in zip(out, term)]
        term = _mul(term, v)
    e0 = mpmath.exp(u[0])
    return [e0 * x for x in out]


def _recip(a: list) -> list:
    """1/a = (1/a_0)·Σ_{m ≤ K} w^m, w = −(a − a_0)/a_0."""
    K = len(a) - 1
    w = [mpmath.mpf(0)] + [-x / a[0] for x in a[1:]]
    out = [mpmath.mpf(0)] * (K + 1)
    term = [mpmath.mpf(1)] + [mpmath.mpf(0)] * K
    for _ in range(K + 1):
        out = [o + t for o, t in zip(out, term)]
        term = _mul(term, w)
    return [x / a[0] for x in out]


def oracle_jets(X0, t0, K, B, variable, lam=None, V=None) -> list:
    """Taylor coefficients Z_0 … Z_K (lists of n×d mpf arrays) of the solution through X0
    at t0: ż_i = λ Σ_j P_ij (z_j − z_i) in z (c = e^{2λt}); ẋ_i = V Σ_j P_ij x_j in x
    (c = 1; V = λI when ``lam`` is given); P_ij = softmax_j(c·y_iᵀ B y_j).

    Round r of the Picard iteration fixes the coefficient r + 1, so it runs on series of
    degree r + 1 (the higher ones do not feed back into lower ones)."""
    return _oracle(tuple(map(tuple, X0)), t0, K, tuple(map(tuple, B)), variable, lam,
                   None if V is None else tuple(map(tuple, V)))


@functools.lru_cache(maxsize=None)
def _oracle(X0, t0, K, B, variable, lam, V) -> list:
    with mpmath.workprec(ORACLE_BITS):
        n, d = len(X0), len(X0[0])
        q = lambda x: mpmath.mpf(x.numerator) / x.denominator  # noqa: E731
        Bm = [[q(F(x)) for x in row] for row in B]
        if variable == "z":
            two = 2 * q(F(lam))
            cK = [mpmath.exp(two * q(F(t0))) * two ** k / mpmath.factorial(k)
                  for k in range(K + 1)]
        else:
            cK = [mpmath.mpf(1)] + [mpmath.mpf(0)] * K
        Vm = [[q(F(lam)) if a == b else mpmath.mpf(0) for b in range(d)] for a in range(d)] \
            if V is None else [[q(F(x)) for x in row] for row in V]
        y = [[[q(F(X0[i][a]))] for a in range(d)] for i in range(n)]  # degree 0
        for r in range(K):
            L = r + 1  # series of degree r: enough for the coefficient r + 1 of ∫F
            c = cK[:L]
            zero = [mpmath.mpf(0)] * L
            yL = [[(ya + [mpmath.mpf(0)] * L)[:L] for ya in yi] for yi in y]
            s = [[zero] * n for _ in range(n)]  # s_ij = c·Σ_ab y_ia B_ab y_jb
            for i in range(n):
                for j in range(n):
                    acc = zero
                    for a in range(d):
                        for b in range(d):
                            if Bm[a][b]:
                                prod = _mul(yL[i][a], yL[j][b])
                                acc = [u + Bm[a][b] * v for u, v in zip(acc, prod)]
                    s[i][j] = _mul(c, acc)
            new = []
            for i in range(n):
                e = [_exp(s[i][j]) for j in range(n)]
                inv = _recip([mpmath.fsum(col) for col in zip(*e)])
                P = [_mul(e[j], inv) for j in range(n)]
                w = [zero] * d  # Σ_j P_ij y_j (− y_i in z)
                for a in range(d):
                    acc = zero
                    for j in range(n):
                        acc = [u + v for u, v in zip(acc, _mul(P[j], yL[j][a]))]
                    if variable == "z":
                        acc = [u - v for u, v in zip(acc, yL[i][a])]
                    w[a] = acc
                row = []
                for a in range(d):
                    f = zero
                    for b in range(d):
                        if Vm[a][b]:
                            f = [u + Vm[a][b] * v for u, v in zip(f, w[b])]
                    row.append([yL[i][a][0]] + [f[k - 1] / k for k in range(1, L + 1)])
                new.append(row)
            y = new
        return [[[y[i][a][k] for a in range(d)] for i in range(n)] for k in range(K + 1)]


# -- the cases -----------------------------------------------------------------------------

TIGHT = [[F(4), F(3)], [F(41, 10), F(29, 10)], [F(39, 10), F(31, 10)]]

# (name, X0, t0, K, B, variable, λ, V, scale, A, G): radii ≤ A·G^k units of 2^-P, A about
# twice the measured envelope's (binary64 radius bounds, whose radii are ≈ 1.2× the exact ones)
CASES = [
    ("z, V = I, B not symmetric",
     [[F(3, 4), F(-1, 2)], [F(-1, 3), F(1, 5)], [F(1, 7), F(2, 3)]], F(1, 3), 10,
     [[F(1), F(1, 3)], [F(-1, 2), F(2)]], "z", F(1), None, 160, 64, 2.7),
    ("z, V = -I/2, scores of size 10",
     [[F(2)], [F(-1, 2)], [F(1, 3)], [F(-3, 2)]], F(1, 2), 9,
     [[F(5, 2)]], "z", F(-1, 2), None, 120, 40, 2.6),
    ("x, V = 2I/3",
     [[F(1), F(1, 4)], [F(-1, 2), F(1)], [F(0), F(-1)]], F(0), 8,
     [[F(1, 2), F(0)], [F(1, 5), F(-1)]], "x", F(2, 3), None, 128, 32, 1.5),
    ("x, V general (not normal)",
     [[F(1), F(1, 4)], [F(-1, 2), F(1)], [F(1, 5), F(-1)]], F(0), 8,
     [[F(1), F(1, 2)], [F(0), F(1)]], "x", None, [[F(1), F(3, 2)], [F(0), F(-1, 3)]],
     128, 110, 2.9),
    # one tight cluster far from 0: the centred terms of Lemma C15 (without them the
    # envelope at G = 3 was ≈ 10^19 in z and 2·10^11 in x)
    ("z, a tight cluster far from 0", TIGHT, F(1), 12, [[F(1), F(0)], [F(0), F(1)]], "z",
     F(1), None, 160, 120, 3.0),
    ("x, a tight cluster far from 0", TIGHT, F(0), 12, [[F(1), F(0)], [F(0), F(1)]], "x",
     F(1), None, 160, 400, 3.0),
]


def _check(chk: list, ref: list, P: int, A: float, G: float, name: str) -> None:
    with mpmath.workprec(ORACLE_BITS + P):
        for k, (ck, rk) in enumerate(zip(chk, ref)):
            for c, r in zip(ck.flat, [x for row in rk for x in row]):
                lo, hi = mpmath.mpf(c.lo()) / 2 ** P, mpmath.mpf(c.hi()) / 2 ** P
                assert lo <= r <= hi, (name, k, c, r)
                assert c.r <= A * G ** k, (name, k, c.r)


def _contains(jets: Jets, ref: list, P: int, h: F, label) -> None:
    """Every exact coefficient ball of ``jets`` (scale 2^-P) contains the oracle's
    coefficient, and every binary64 tail ball (of h^k Z_k) contains h^k times it."""
    k1 = len(jets.exact) - 1
    with mpmath.workprec(ORACLE_BITS + P):
        hq = mpmath.mpf(h.numerator) / h.denominator
        for k, rk in enumerate(ref):
            zs = [x for row in rk for x in row]
            if k <= k1:
                for c, z in zip(jets.exact[k].flat, zs):
                    assert mpmath.mpf(c.lo()) / 2 ** P <= z <= mpmath.mpf(c.hi()) / 2 ** P, \
                        (label, k)
            else:
                j = k - k1 - 1
                for m, r, z in zip(jets.tail.m[j].flat, jets.tail.r[j].flat, zs):
                    assert abs(mpmath.mpf(float(m)) - z * hq ** k) <= mpmath.mpf(float(r)), \
                        (label, k)


def _field(B, variable, lam, V, n) -> Field:
    return Field(lam, [list(r) for r in B], n, variable, V=V)


@pytest.mark.parametrize("radii", ["float", "exact"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_exact_jets_contain_the_series_oracle_and_are_tight(case, radii):
    """Every exact coefficient ball contains the oracle's coefficient, with binary64
    radius bounds (Lemma C1f, the default) and with integer radii (Lemma C1), and its
    radius is at most A·G^k units."""
    name, X0, t0, K, B, variable, lam, V, P, A, G = case
    ref = oracle_jets(X0, t0, K, B, variable, lam, V)
    with scaled(P):
        Z0 = np.array([[const(x) for x in row] for row in X0], dtype=object)
        field = _field(B, variable, lam, V, len(X0))
        R = FloatRadii() if radii == "float" else ExactRadii()
        chk = field._jets(Z0, t0, K, R).all_exact()
    assert len(chk) == K + 1
    _check(chk, ref, P, A, G, name)


def test_float_and_exact_radii_give_the_same_midpoints():
    """The radius arithmetic never touches a midpoint (Lemma C1f): both runs have the
    same integers, and the binary64 radius bounds are at least the exact ones."""
    name, X0, t0, K, B, variable, lam, V, P, _, _ = CASES[0]
    with scaled(P):
        Z0 = np.array([[const(x) for x in row] for row in X0], dtype=object)
        field = _field(B, variable, lam, V, len(X0))
        a = field._jets(Z0, t0, K, FloatRadii()).all_exact()
        b = field._jets(Z0, t0, K, ExactRadii()).all_exact()
    assert [x.m for c in a for x in c.flat] == [x.m for c in b for x in c.flat]
    assert all(x.r >= y.r for c, e in zip(a, b) for x, y in zip(c.flat, e.flat))


def test_point_radii_of_the_start_are_carried():
    """A start ball of radius ρ (not a point) widens every coefficient: order 0 is the
    ball itself, and each order still contains the oracle at the midpoint."""
    name, X0, t0, K, B, variable, lam, V, P, A, G = CASES[0]
    ref = oracle_jets(X0, t0, K, B, variable, lam, V)
    rho = 2 ** 20  # units
    with scaled(P):
        Z0 = np.array([[Ball(const(x).m, rho) for x in row] for row in X0], dtype=object)
        chk = _field(B, variable, lam, V, 3)._jets(Z0, t0, K, ExactRadii()).all_exact()
        pts = np.array([[const(x) for x in row] for row in X0], dtype=object)
        point = _field(B, variable, lam, V, 3)._jets(pts, t0, K, ExactRadii()).all_exact()
    assert all(x.r == rho for x in chk[0].flat)
    _check(chk, ref, P, rho * 16, G, name)  # measured: ≤ 7.6·ρ·G^k
    assert all(x.r > y.r for c, e in zip(chk[1:], point[1:]) for x, y in zip(c.flat, e.flat))


#: sign patterns of the corners of a start ball (n·d ≤ 6 coordinates): the two extremes,
#: alternating, and two mixed ones
SIGNS = [[1] * 6, [-1] * 6, [1, -1] * 3, [1, 1, -1, 1, -1, -1], [-1, 1, 1, -1, -1, 1]]


@pytest.mark.parametrize("mode", ["float", "exact", "continuation"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_start_balls_contain_the_jets_of_their_corners(case, mode):
    """The jets of a start ball of radius ρ = 2^-60 contain the jets of points of the ball
    (five of its corners), exact orders with either radius arithmetic and the binary64
    continuation: where the radii come from ρ, a dropped radius term (|c|·rad S in the
    scores' product with c(t), a term count too small) leaves a corner out, which the
    oracle at the midpoint alone cannot show."""
    name, X0, t0, K, B, variable, lam, V, P, _, _ = case
    K = K + 4 if mode == "continuation" else K
    _corners_contained(X0, t0, K, B, variable, lam, V, P, 2 ** (P - 60), mode,
                       F(1, 256), 2.0 ** -40, name)


def _corners_contained(X0, t0, K, B, variable, lam, V, P, rho, mode, h, tol, label) -> None:
    """The jets of the start ball (midpoints X0, radius ρ units of 2^-P) in ``mode`` (float
    or exact radii, or the binary64 continuation with h and tol) contain the oracle's jets
    of five of its corners (SIGNS)."""
    n, d = len(X0), len(X0[0])
    with scaled(P):
        mids = [[const(x).m for x in row] for row in X0]
        Z0 = np.array([[Ball(m, rho) for m in row] for row in mids], dtype=object)
        field = _field(B, variable, lam, V, n)
        if mode == "continuation":
            jets = field.jets(Z0, t0, K, h, tol)
            assert jets.tail is not None
        else:
            R = FloatRadii() if mode == "float" else ExactRadii()
            jets = field._jets(Z0, t0, K, R)
    for signs in SIGNS:
        corner = [[F(mids[i][a] + signs[i * d + a] * rho, 2 ** P) for a in range(d)]
                  for i in range(n)]
        _contains(jets, oracle_jets(corner, t0, K, B, variable, lam, V), P, h,
                  (label, mode, signs))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_binary64_continuation_contains_the_oracle_and_stays_below_tol(case):
    """With h and tol, the orders after k₁ are binary64 balls of h^k Z_k (Lemma C15):
    each contains h^k times the oracle's coefficient, their summed radius is ≤ tol, and
    the exact orders are those of the all-exact run."""
    name, X0, t0, K, B, variable, lam, V, P, A, G = case
    K = K + 4
    ref = oracle_jets(X0, t0, K, B, variable, lam, V)
    h, tol = F(1, 256), 2.0 ** -60
    with scaled(P):
        Z0 = np.array([[const(x) for x in row] for row in X0], dtype=object)
        field = _field(B, variable, lam, V, len(X0))
        mixed = field.jets(Z0, t0, K, h, tol)
        exact = field.jets(Z0, t0, K).all_exact()
    assert isinstance(mixed, Jets) and mixed.order == K
    assert mixed.tail is not None, name  # the hand-over happens in every case
    k1 = len(mixed.exact) - 1
    assert 2 <= k1 < K
    assert float(np.max(mixed.tail.r.sum(axis=0))) <= tol
    assert [x.m for c in mixed.exact for x in c.flat] == \
        [x.m for c in exact[:k1 + 1] for x in c.flat]
    _contains(mixed, ref, P, h, name)
    sc = mixed.scaled(h)
    assert sc.shape == (K + 1, len(X0), len(X0[0]))


def test_far_columns_contain_the_oracle_at_a_small_scale():
    """At scale 2^-64 the columns with U_0 < −(64 ln 2 + 40) ≈ −84 are far (scores of
    size 100 here): the majorant bound keeps every coefficient around the oracle, and
    far below the plain recurrence's radii."""
    X0 = [[F(-3)], [F(-1, 2)], [F(1, 4)], [F(3)]]
    B, t0, K, P = [[F(6)]], F(0), 10, 64
    ref = oracle_jets(X0, t0, K, B, "z", F(1))
    with scaled(P):
        Z0 = np.array([[const(x) for x in row] for row in X0], dtype=object)
        field = Field(F(1), B, 4, "z")
        with_m = field._jets(Z0, t0, K, ExactRadii()).all_exact()
        plain = field._jets(Z0, t0, K, ExactRadii(), majorant=False).all_exact()
    _check(with_m, ref, P, 8, 24, "far")
    _check(plain, ref, P, 40, 26, "plain")
    assert max(x.r for x in with_m[K].flat) < max(x.r for x in plain[K].flat)


def test_field_refuses_an_ambiguous_value_matrix():
    """λ and V together, neither, or V in the variable z: refused by name."""
    B = [[F(1)]]
    for kw in ({"lam": F(1), "V": [[F(1)]], "variable": "x"},
               {"lam": None, "V": None, "variable": "x"},
               {"lam": None, "V": [[F(1)]], "variable": "z"}):
        with pytest.raises(ValueError, match="^Field needs either λ, or a matrix V with "
                                             "variable 'x'$"):
            Field(kw["lam"], B, 1, kw["variable"], V=kw["V"])


def test_exact_coefficients_of_a_binary64_tail_are_refused():
    """Jets with a binary64 tail have no exact coefficients after k₁: ``all_exact``
    refuses, in words, rather than return a prefix."""
    name, X0, t0, K, B, variable, lam, V, P, _, _ = CASES[0]
    with scaled(P):
        Z0 = np.array([[const(x) for x in row] for row in X0], dtype=object)
        jets = _field(B, variable, lam, V, len(X0)).jets(Z0, t0, K + 4, F(1, 256), 2.0 ** -60)
    assert jets.tail is not None
    with pytest.raises(ValueError, match="^the binary64 tail has no exact coefficients$"):
        jets.all_exact()


def test_the_score_factor_on_boxes_is_e_to_the_2_lambda_t():
    """c(t) = e^{2λt} in z (Lemma C2's boxes), 1 in x: at λ = 1/2 and t = 1 the ball
    contains e and is narrow (measured radius 1.7e-14; λ = 1 cannot tell 2λ from 2/λ)."""
    import math

    from certified.checker.fballs import FB

    c = Field(F(1, 2), [[F(1)]], 1, "z").score_factor(FB(1.0))
    assert float(c.lo()) <= math.e <= float(c.hi()) and float(c.r) < 1e-13
    assert float(Field(F(1, 2), [[F(1)]], 1, "x").score_factor(FB(1.0)).m) == 1.0


@pytest.mark.parametrize("mode", ["float", "exact", "continuation"])
@pytest.mark.parametrize("variable", ["z", "x"])
def test_uniform_attention_carries_the_start_radius_into_the_drift(mode, variable):
    """B = 0: every row attends uniformly (P ≡ 1/n, P_k = 0 for k ≥ 1), so the drift's
    spread over a start ball of radius ρ is carried only by the centred term
    Σ_j P_ij (z_j − c_i) of Lemma C15 (its radius Σ_j P_ij·rad z_j): the corners' jets
    are contained only if that radius is kept. (In the binary64 tail P̂_k = 0 here, so the
    tail's own centred term is not exercised; the continuation mode checks the hand-over.)"""
    X0 = [[F(3, 4), F(-1, 2)], [F(-1, 3), F(1, 5)], [F(1, 7), F(2, 3)]]
    B = [[F(0), F(0)], [F(0), F(0)]]
    _corners_contained(X0, F(1, 4), 8, B, variable, F(2, 3), None, 128, 2 ** (128 - 40), mode,
                       F(1, 2), 2.0 ** -30, variable)
