"""Re-deciding a certificate's ``hypotheses_hold`` in exact rational arithmetic (Lemma C16).

Every decision is made on Python integers and :class:`fractions.Fraction`: symmetry,
definiteness by the pivots of Gaussian elimination (LDLᵀ: a symmetric matrix is positive
definite iff every pivot of elimination without pivoting is > 0), V = λI, QᵀK = I. The
spectral conditions of Theorems 4.2 and 5.2 are decided from the characteristic polynomial
p (Faddeev–LeVerrier in Fractions) and its square-free part s = p / gcd(p, p′):

* mpmath's approximate roots of s only *choose* a rational radius r between the largest
  and the second largest modulus; nothing is concluded from them;
* an exact Schur–Cohn count (Marden, *Geometry of Polynomials*, Thm 43.1: with
  δ_k = (Tᵏf)(0) and P_k = δ₁⋯δ_k all non-zero, f has no zero on |z| = 1 and as many zeros
  in |z| < 1 as negative P_k) gives the number of roots of p and of s of modulus > r;
* an exact Sturm sequence of s counts its distinct real roots in (r, ∞).

s with exactly one root of modulus > r, and that root real (one Sturm root in (r, ∞)),
proves: the largest modulus is attained by one eigenvalue λ₁ > r > 0, real; its
multiplicity is the Schur–Cohn count of p. ⟨Qφ₁, Kφ₁⟩'s sign is decided on an isolating
interval of λ₁ (bisection with exact signs) by interval arithmetic on g(V), g = p/(x − λ₁),
whose columns are multiples of φ₁. Semisimplicity of a multiple λ₁ (Theorem 5.2) is decided
only for a rational λ₁ (rank of V − λ₁I); an irrational multiple root is "cannot confirm".

Each function returns True (proved), False (disproved) or None (the checker cannot decide).
The rule (``proofs_notes/checker.md``, Lemma C16): a certificate claiming
``hypotheses_hold: true`` is invalid unless the checker proves True; one claiming ``false``
is invalid if the checker proves True; ``null`` claims nothing.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from .lemmas import Iv, _add, _dot, _mul

__all__ = ["decide", "rank", "is_symmetric", "is_positive_definite", "schur_cohn_inside",
           "sturm_count_above", "dominant"]

Mat = list[list[Fraction]]
Poly = list[Fraction]  # coefficients a_0 … a_n (low to high)


def is_symmetric(B: Mat) -> bool:
    return all(B[i][j] == B[j][i] for i in range(len(B)) for j in range(len(B)))


def is_positive_definite(B: Mat) -> bool:
    """B symmetric positive definite: every pivot of elimination without pivoting > 0."""
    if not is_symmetric(B):
        return False
    A = [list(r) for r in B]
    d = len(A)
    for c in range(d):
        if A[c][c] <= 0:
            return False
        for r in range(c + 1, d):
            f = A[r][c] / A[c][c]
            if f:
                A[r] = [x - f * y for x, y in zip(A[r], A[c])]
    return True


def _scalar_of(M: Mat, s: Fraction) -> bool:
    return all(M[i][j] == (s if i == j else 0) for i in range(len(M)) for j in range(len(M)))


# -- exact polynomials ----------------------------------------------------------------------

def _trim(a: Poly) -> Poly:
    a = list(a)
    while len(a) > 1 and a[-1] == 0:
        a.pop()
    return a


def _divmod(a: Poly, b: Poly) -> tuple[Poly, Poly]:
    a, b = _trim(a), _trim(b)
    q = [Fraction(0)] * max(1, len(a) - len(b) + 1)
    r = list(a)
    while len(r) >= len(b) and any(r):
        k = len(r) - len(b)
        f = r[-1] / b[-1]
        q[k] = f
        for i, c in enumerate(b):
            r[i + k] -= f * c
        r.pop()
        r = _trim(r) if r else [Fraction(0)]
        if len(r) < len(b):
            break
    return _trim(q), _trim(r)


def _deriv(a: Poly) -> Poly:
    return _trim([i * a[i] for i in range(1, len(a))] or [Fraction(0)])


def _gcd(a: Poly, b: Poly) -> Poly:
    a, b = _trim(a), _trim(b)
    while any(b):
        a, b = b, _divmod(a, b)[1]
    return [c / a[-1] for c in a]


def _peval(a: Poly, x: Fraction) -> Fraction:
    out = Fraction(0)
    for c in reversed(a):
        out = out * x + c
    return out


def _sign(x: Fraction) -> int:
    return (x > 0) - (x < 0)


def schur_cohn_inside(a: Poly) -> int | None:
    """Number of roots of a (real coefficients, a_n ≠ 0) in |z| < 1, or None when some
    δ_k = 0 (a root on or symmetric about the unit circle: undecided here)."""
    f = _trim(a)
    count, negative = 0, False  # negative: P_k = δ₁⋯δ_k < 0
    while len(f) > 1:
        m = len(f) - 1
        delta = f[0] * f[0] - f[m] * f[m]
        if delta == 0:
            return None
        negative ^= delta < 0
        count += negative
        f = [f[0] * f[i] - f[m] * f[m - i] for i in range(m)]
    return count


def _scaled(a: Poly, r: Fraction) -> Poly:
    """Coefficients of a(r·x)."""
    return [c * r ** i for i, c in enumerate(a)]


def _outside(a: Poly, r: Fraction) -> int | None:
    """Number of roots (with multiplicity) of modulus > r, None if undecided."""
    inside = schur_cohn_inside(_scaled(a, r))
    return None if inside is None else len(_trim(a)) - 1 - inside


def sturm_count_above(a: Poly, r: Fraction) -> int:
    """Number of distinct real roots of a in (r, ∞) (a(r) ≠ 0 is required)."""
    seq = [_trim(a), _deriv(a)]
    while len(seq[-1]) > 1:  # (a has degree ≥ 1, so a′ ≠ 0; no remainder kept is 0)
        rem = _divmod(seq[-2], seq[-1])[1]
        if not any(rem):
            break
        seq.append([-c for c in rem])

    def changes(signs: list[int]) -> int:
        s = [x for x in signs if x]
        return sum(1 for u, v in zip(s, s[1:]) if u != v)
    at_r = changes([_sign(_peval(p, r)) for p in seq])
    at_inf = changes([_sign(p[-1]) for p in seq])
    return at_r - at_inf


def charpoly(V: Mat) -> Poly:
    """det(xI − V), a_0 … a_d (Faddeev–LeVerrier, exact)."""
    d = len(V)
    coeffs = [Fraction(0)] * (d + 1)
    coeffs[d] = Fraction(1)
    VM = [[Fraction(0)] * d for _ in range(d)]
    for k in range(1, d + 1):
        M = [[VM[i][j] + (coeffs[d - k + 1] if i == j else 0) for j in range(d)]
             for i in range(d)]
        VM = [[sum((V[i][l] * M[l][j] for l in range(d)), Fraction(0)) for j in range(d)]
              for i in range(d)]
        coeffs[d - k] = -sum((VM[i][i] for i in range(d)), Fraction(0)) / k
    return coeffs


def _approx_roots(s: Poly, dps: int) -> list:
    """mpmath's roots of s at dps digits: candidates only (every conclusion drawn from them
    is proved exactly afterwards); raises NoConvergence as mpmath does."""
    with mpmath.workdps(dps):
        return [mpmath.mpc(z) for z in mpmath.polyroots(
            [mpmath.mpf(c.numerator) / c.denominator for c in reversed(s)],
            maxsteps=4 * dps, extraprec=4 * dps)]


def _dyadic(x) -> Fraction:
    """A finite mpf exactly, as a Fraction ((−1)^sign · mantissa · 2^exponent)."""
    sign, man, exp, _ = x._mpf_
    if not man and x:
        raise ValueError(f"not a finite number: {x}")
    v = Fraction(man) * Fraction(2) ** exp
    return -v if sign else v


def _squarefree(p: Poly) -> Poly:
    """The monic square-free part p / gcd(p, p′): the distinct roots of p, each once."""
    s = _divmod(p, _gcd(p, _deriv(p)))[0]
    return [c / s[-1] for c in s]


def _leading_integer(s: Poly) -> int:
    """L, the leading coefficient of s scaled to coprime integers. Every monic factor f of
    s over Q has L·f in Z[x] (Gauss's lemma: the primitive integer multiple c·f divides the
    primitive form of s in Z[x], so c | L); in particular a rational root has L·root ∈ Z."""
    den = math.lcm(*(c.denominator for c in s))
    ints = [int(c * den) for c in s]
    return abs(ints[-1]) // math.gcd(*ints)


def _cauchy(s: Poly) -> Fraction:
    """Cauchy's bound: every root of s has modulus < 1 + max |s_i / s_n|."""
    return 1 + max(abs(c / s[-1]) for c in s[:-1])


def dominant(V: Mat) -> dict | None:
    """The dominant eigenvalue of V decided exactly: {"real_positive": bool, "mult": m,
    "r": r, "s": s, "p": p}, or None when the checker cannot decide. r is tried from
    mpmath's roots at 40, then 300 digits (moduli closer than 10⁻⁴⁰ need more)."""
    p = charpoly(V)
    s = _squarefree(p)
    if s == [0, 1]:  # p = x^d: every eigenvalue is 0, none is positive
        return {"real_positive": False, "mult": len(p) - 1, "r": Fraction(0), "s": s, "p": p}
    for dps in (40, 300):
        r = _radius(s, dps)
        if r is not None and _outside(s, r) == 1:
            break
    else:
        return None
    m = _outside(p, r)
    if m is None:
        return None
    real = sturm_count_above(s, r) == 1
    return {"real_positive": real, "mult": m, "r": r, "s": s, "p": p}


def _radius(s: Poly, dps: int) -> Fraction | None:
    """A dyadic r > 0 between the two largest moduli of mpmath's roots of s at dps digits,
    or None. A candidate only: a tie or a near-tie gives an r the exact counts reject.

    The roots are taken of s(2ᵏx)/2ᵏⁿ, k the exponent of a power of two near
    Fujiwara's bound max_i |s_{n−i}|^{1/i} (within a factor n of the largest modulus), so
    the largest scaled modulus is of order 1: mpmath's root finder sets to 0 every root
    below its absolute tolerance (a root 10⁻³⁵⁰ would give r = 0)."""
    n = len(s) - 1
    k = max(((c.numerator.bit_length() - c.denominator.bit_length()) // (n - j) + 1
             for j, c in enumerate(s[:-1]) if c), default=0)
    scale = Fraction(2) ** k
    try:
        roots = _approx_roots([c / scale ** (n - j) for j, c in enumerate(s)], dps)
    except (mpmath.libmp.NoConvergence, ZeroDivisionError):
        return None
    with mpmath.workdps(dps):  # (mpmath rounds every result to the working precision)
        mods = sorted((abs(z) for z in roots), reverse=True) + [mpmath.mpf(0)]
        r = _dyadic((mods[0] + mods[1]) / 2) * scale
    return r if r > 0 else None  # (r = 0: mpmath's roots all 0, which s = x excludes)


def _isolate(s: Poly, r: Fraction, width: Fraction) -> tuple[Fraction, Fraction]:
    """An interval [lo, hi] ⊂ [r, ∞) of width < ``width`` holding the one real root of s
    above r (bisection with exact signs; s(r) ≠ 0 and s has exactly one simple root > r)."""
    lo, hi = r, _cauchy(s)
    s_lo = _sign(_peval(s, lo))
    while hi - lo >= width:
        mid = (lo + hi) / 2
        sm = _sign(_peval(s, mid))
        if sm == 0:
            return mid, mid
        if sm == s_lo:
            lo = mid
        else:
            hi = mid
    return lo, hi


def _form_sign(V: Mat, B: Mat, p: Poly, lam: tuple[Fraction, Fraction]) -> int | None:
    """Sign of φ₁ᵀBφ₁ for the simple root λ₁ ∈ lam of p: g(V) with g = p/(x − λ₁) in
    interval arithmetic (its columns are multiples of φ₁, some non-zero)."""
    d = len(V)
    pt = lambda q: (q, q)  # noqa: E731
    b: list[Iv] = [pt(Fraction(0))] * d
    b[d - 1] = pt(p[d])
    for k in range(d - 1, 0, -1):
        b[k - 1] = _add(pt(p[k]), _mul(lam, b[k]))
    Vi = [[pt(x) for x in row] for row in V]
    G = [[b[d - 1] if i == j else pt(Fraction(0)) for j in range(d)] for i in range(d)]
    for k in range(d - 2, -1, -1):
        GV = [[_dot(G[i], [Vi[l][j] for l in range(d)]) for j in range(d)] for i in range(d)]
        G = [[_add(GV[i][j], b[k] if i == j else pt(Fraction(0))) for j in range(d)]
             for i in range(d)]
    # the form sees only B's symmetric part: B + Bᵀ (twice it, the same sign), exact
    Bi = [[pt(B[i][j] + B[j][i]) for j in range(d)] for i in range(d)]
    for c in range(d):
        col = [G[i][c] for i in range(d)]
        if not any(lo > 0 or hi < 0 for lo, hi in col):
            continue  # this column might be 0
        val = _dot(col, [_dot(Bi[i], col) for i in range(d)])
        if val[0] > 0:
            return 1
        if val[1] < 0:
            return -1
        return 0 if val == (0, 0) else None
    return None


def rank(M: Mat) -> int:
    """Rank of an exact rational matrix (Gaussian elimination in Fractions)."""
    A = [list(r) for r in M]
    rk = 0
    for c in range(len(A[0]) if A else 0):
        piv = next((i for i in range(rk, len(A)) if A[i][c] != 0), None)
        if piv is None:
            continue
        A[rk], A[piv] = A[piv], A[rk]
        for i in range(len(A)):
            if i != rk and A[i][c] != 0:
                f = A[i][c] / A[rk][c]
                A[i] = [x - f * y for x, y in zip(A[i], A[rk])]
        rk += 1
    return rk


def _exact_factors(p: Poly) -> list[tuple[str, Poly, dict]] | None:
    """The distinct irreducible factors of p over Q when each is linear or a quadratic
    with complex roots: (kind, factor, data); None otherwise. Candidates come from
    mpmath's roots (at 60, then 300 digits: clustered roots need more); each is accepted
    only if it divides p exactly, and together they must exhaust its square-free part."""
    s = _squarefree(p)
    for dps in (60, 300):
        out = _factors_at(s, dps)
        if out is not None:
            return out
    return None


def _factors_at(s: Poly, dps: int) -> list[tuple[str, Poly, dict]] | None:
    """_exact_factors with candidates from roots at dps digits. Which roots are real is
    counted exactly (Sturm on (−C, ∞), C Cauchy's bound); the coefficients of a rational
    factor are in Z/L (``_leading_integer``), so each candidate is the nearest point of
    Z/L to mpmath's value, exact once mpmath is within 1/(2L)."""
    try:
        roots = _approx_roots(s, dps)
    except (mpmath.libmp.NoConvergence, ZeroDivisionError):
        return None
    L = _leading_integer(s)
    n_real = sturm_count_above(s, -_cauchy(s))
    roots.sort(key=lambda z: abs(z.imag))
    upper = [z for z in roots[n_real:] if z.imag > 0]  # the conjugate is the same factor
    if 2 * len(upper) != len(roots) - n_real:
        return None
    out: list[tuple[str, Poly, dict]] = []
    with mpmath.workdps(dps):  # (mpmath rounds every result to the working precision)
        def near(x) -> Fraction:  # the point of Z/L nearest to x
            return Fraction(int(mpmath.nint(x * L)), L)
        for z in roots[:n_real]:
            a = near(z.real)
            out.append(("real", [-a, Fraction(1)], {"lambda1": a}))
        for z in upper:
            # no test of a² < 4b is needed: the real factors, divided out first, take all
            # n_real real roots of s, so a pair that divides what is left has complex roots
            a, b = near(2 * z.real), near(abs(z) ** 2)
            out.append(("pair", [b, -a, Fraction(1)], {"trace": a, "norm": b}))
    rest = s
    for _, f, _ in out:
        quo, rem = _divmod(rest, f)
        if any(_trim(rem)):
            return None  # a candidate that is not an exact factor (or one taken twice)
        rest = quo
    if len(_trim(rest)) != 1:
        return None
    return out


def _multiplicity(p: Poly, f: Poly) -> int:
    m = 0
    while True:
        quo, rem = _divmod(p, f)
        if any(_trim(rem)):
            return m
        p, m = quo, m + 1


def reading(V: Mat) -> tuple[str, dict] | None:
    """Lemma S3's reading of Theorem 4.2's coordinate, decided exactly: ("tied",
    {lambda1}), ("complex", {trace, norm}), ("negative", {lambda1}) or None (Definition
    4.1(i) holds, or the largest moduli are not one of the readings, or undecided)."""
    p = charpoly(V)
    facs = _exact_factors(p)
    if not facs:
        return None
    mods = [(d["lambda1"] ** 2 if k == "real" else d["norm"]) for k, _, d in facs]
    top = max(mods)
    lead = [(k, f, d) for (k, f, d), m in zip(facs, mods) if m == top]
    if len(lead) == 1:
        k, f, d = lead[0]
        if _multiplicity(p, f) != 1:
            return None
        if k == "pair" and d["trace"] > 0:
            return "complex", d
        if k == "real" and d["lambda1"] < 0:
            return "negative", d
        return None
    pos = [(f, d) for k, f, d in lead if k == "real" and d["lambda1"] > 0]
    if pos and _multiplicity(p, pos[0][0]) == 1:
        return "tied", pos[0][1]
    return None


def good_triple(V: Mat, B: Mat) -> bool | None:
    """Definition 4.1: one eigenvalue of largest modulus, real, positive, simple, and
    ⟨Qφ₁, Kφ₁⟩ = φ₁ᵀBφ₁ > 0."""
    dom = dominant(V)
    if dom is None:  # ties: a reading of Lemma S3 proves that 4.1(i) fails
        return False if reading(V) is not None else None
    if not dom["real_positive"] or dom["mult"] != 1:
        return False  # proved: the one root of modulus > r is not real, or is multiple
    lam = _isolate(dom["s"], dom["r"], dom["r"] / 2 ** 80)
    sign = _form_sign(V, B, dom["p"], lam)
    return None if sign is None else sign > 0


def paranormal(V: Mat) -> bool | None:
    """Definition 5.1: λ > 0 semisimple with every other eigenvalue of modulus < λ."""
    dom = dominant(V)
    if dom is None:  # a reading of Lemma S3: another eigenvalue has the largest modulus
        return False if reading(V) is not None else None
    if not dom["real_positive"]:
        return False
    m = dom["mult"]
    if m == 1:
        return True
    # a rational λ is in Z/L (``_leading_integer``): the nearest point of Z/L to an
    # interval of width < 1/L around λ is λ itself
    L = _leading_integer(dom["s"])
    lo, hi = _isolate(dom["s"], dom["r"], Fraction(1, L))
    lam = Fraction(round(L * (lo + hi) / 2), L)
    if not (lo <= lam <= hi and _peval(dom["s"], lam) == 0):
        return None  # an irrational multiple root: semisimplicity not decided here
    d = len(V)
    return rank([[V[i][j] - (lam if i == j else 0) for j in range(d)] for i in range(d)]) \
        == d - m


def decide(theorem: str, V: Mat, B: Mat, X0: Mat) -> bool | None:
    """The theorem's hypotheses on (V, B, X0): True, False or None (undecided)."""
    d = len(V)
    if theorem == "2.1":
        distinct = len({tuple(x) for x in X0}) == len(X0)
        return d == 1 and V[0][0] > 0 and B[0][0] > 0 and distinct
    if theorem == "3.1":
        return _scalar_of(V, Fraction(1)) and is_positive_definite(B)
    if theorem == "8.5":
        return _scalar_of(V, Fraction(-1)) and _scalar_of(B, Fraction(1))
    if theorem == "5.2":
        if not is_positive_definite(B):
            return False
        return paranormal(V)
    if theorem == "4.2":
        return good_triple(V, B)
    return None
