"""Hypothesis strategies for exact instances inside and outside each theorem's hypotheses.

A public façade built only on hypothesis' public API. Every strategy yields a
:class:`certified.Instance` with exact rational entries, and states its guarantee: what
:func:`certified.classify`'s :func:`certified.classify` will say about it (tested in
``tests/properties/test_strategies.py``). Options are keyword-only.

Shrinking goes toward small n and d, toward 0 and small integers in the tokens, and toward
the identity in the change of basis S (drawn as a product of unit triangular integer
matrices, so it is always invertible and its inverse is exact).

Regimes (``inside(theorem, ...)``): ``"2.1"`` (d = 1, V > 0, QK > 0, distinct tokens),
``"3.1"`` (V = I, QᵀK symmetric positive definite), ``"4.2"`` (good triples; ``kind`` one of
``"diagonalizable"``, ``"non-diagonalizable"``, ``"positive"`` (Perron–Frobenius) or
``"any"``), ``"5.2"`` (paranormal V, QᵀK ≻ 0), ``"8.5"`` (V = −I, QᵀK = I).

Violations (``violating(theorem, hypothesis, ...)``) break exactly the named check of
:func:`certified.classify` and keep the theorem's other independent checks true — see
:data:`VIOLATIONS` for which names apply to which theorem. (QᵀK ≻ 0 is read as symmetric
positive definite, so ``QK_nonsymmetric`` also fails that check, while the symmetric part
of QᵀK is positive definite by construction. The spectral checks of 4.2 are chained.)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from certified.exact.hypotheses import THEOREMS
from certified.exact.instance import Instance
from certified.errors import InputError

__all__ = ["THEOREMS", "VIOLATIONS", "inside", "violating", "tokens", "rationals"]


#: hypothesis name → (theorems it applies to, the classify check it breaks)
VIOLATIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "QK_indefinite": (("3.1", "5.2"), "QᵀK positive definite"),
    "QK_nonsymmetric": (("3.1", "5.2"), "QᵀK symmetric"),
    "QK_singular": (("3.1", "5.2"), "QᵀK positive definite"),
    "leading_negative": (("4.2",), "that eigenvalue is real and positive"),
    "leading_complex": (("4.2",), "largest modulus attained by one eigenvalue"),
    "leading_repeated": (("4.2",), "that eigenvalue is algebraically simple"),
    "leading_tied": (("4.2",), "largest modulus attained by one eigenvalue"),
    "form_nonpositive": (("4.2",), "⟨Qφ₁, Kφ₁⟩ > 0"),
    "repeated_tokens": (("2.1",), "tokens pairwise distinct"),
}

Matrix = list[list[Fraction]]


def rationals(*, max_abs: int = 3, max_denominator: int = 1) -> st.SearchStrategy[Fraction]:
    """Rationals in [−max_abs, max_abs] with denominators ≤ max_denominator (shrink to 0)."""
    return st.fractions(min_value=-max_abs, max_value=max_abs, max_denominator=max_denominator)


def tokens(*, n: int | tuple[int, int] = (2, 5), d: int = 2, max_abs: int = 3,
           max_denominator: int = 1, distinct: bool = True) -> st.SearchStrategy[Matrix]:
    """n×d token matrices (rows distinct when ``distinct``), shrinking to few small tokens."""
    lo, hi = (n, n) if isinstance(n, int) else n
    row = st.lists(rationals(max_abs=max_abs, max_denominator=max_denominator),
                   min_size=d, max_size=d)
    return st.lists(row, min_size=lo, max_size=hi,
                    unique_by=(lambda r: tuple(r)) if distinct else None)


# -- exact linear algebra on lists --------------------------------------------------------
def _mul(A: Matrix, B: Matrix) -> Matrix:
    return [[sum((A[i][k] * B[k][j] for k in range(len(B))), Fraction(0))
             for j in range(len(B[0]))] for i in range(len(A))]


def _T(A: Matrix) -> Matrix:
    return [list(r) for r in zip(*A)]


def _eye(d: int, s: Fraction = Fraction(1)) -> Matrix:
    return [[s if i == j else Fraction(0) for j in range(d)] for i in range(d)]


@st.composite
def _unimodular(draw: Any, d: int) -> tuple[Matrix, Matrix]:
    """(S, S⁻¹) with S = L·U, L/U unit lower/upper triangular integer (det S = 1)."""
    ints = st.integers(-2, 2)
    L, U = _eye(d), _eye(d)
    for i in range(d):
        for j in range(d):
            if i > j:
                L[i][j] = Fraction(draw(ints))
            elif i < j:
                U[i][j] = Fraction(draw(ints))

    def inv_unit_lower(M: Matrix) -> Matrix:  # forward substitution, exact
        n = len(M)
        X = _eye(n)
        for i in range(n):
            for j in range(i):
                X[i] = [a - M[i][j] * b for a, b in zip(X[i], X[j])]
        return X

    Linv = inv_unit_lower(L)
    Uinv = _T(inv_unit_lower(_T(U)))
    return _mul(L, U), _mul(Uinv, Linv)


@st.composite
def _full_rank(draw: Any, k: int, d: int, max_abs: int) -> Matrix:
    """k×d (k ≥ d) with rows 0…d−1 lower triangular with nonzero diagonal: rank d."""
    R = [[Fraction(0)] * d for _ in range(k)]
    for i in range(k):
        for j in range(d):
            if i < d and j > i:
                continue
            if i < d and j == i:
                R[i][j] = Fraction(draw(st.integers(1, max_abs))) * draw(st.sampled_from([1, -1]))
            else:
                R[i][j] = Fraction(draw(st.integers(-max_abs, max_abs)))
    return R


@st.composite
def _below(draw: Any, lam: Fraction, size: int, jordan: bool) -> Matrix:
    """A real block-diagonal matrix of the given size with spectral radius < |lam|."""
    d = size
    D = [[Fraction(0)] * d for _ in range(d)]
    i = 0
    while i < d:
        if i + 1 < d and draw(st.booleans()):  # a complex pair a ± ib, a² + b² ≤ lam²/2
            half = int(4 * abs(lam) / 2)  # quarters up to |lam|/2
            a = Fraction(draw(st.integers(-half, half)), 4)
            b = Fraction(draw(st.integers(1, max(1, half))), 4)
            D[i][i], D[i][i + 1], D[i + 1][i], D[i + 1][i + 1] = a, -b, b, a
            i += 2
        else:  # a real value of modulus < |lam| (quarters strictly inside)
            top = -(-4 * abs(lam) // 1) - 1  # ceil(4|lam|) − 1
            r = Fraction(draw(st.integers(-int(top), int(top))), 4)
            D[i][i] = r
            if jordan and i + 1 < d and draw(st.booleans()):
                D[i + 1][i + 1] = r
                D[i][i + 1] = Fraction(1)
                i += 2
            else:
                i += 1
    return D


def _embed(lead: Matrix, rest: Matrix) -> Matrix:
    a, b = len(lead), len(rest)
    D = [[Fraction(0)] * (a + b) for _ in range(a + b)]
    for i in range(a):
        for j in range(a):
            D[i][j] = lead[i][j]
    for i in range(b):
        for j in range(b):
            D[a + i][a + j] = rest[i][j]
    return D


def _dims(n: int | tuple[int, int], d: int | tuple[int, int]) -> st.SearchStrategy[int]:
    dl, dh = (d, d) if isinstance(d, int) else d
    return st.integers(dl, dh)


# -- the regimes ----------------------------------------------------------------------------
@st.composite
def _inside(draw: Any, theorem: str, n: Any, d: Any, k: int | None, max_abs: int,
            max_denominator: int, kind: str, break_: str | None) -> Instance:
    dd = 1 if theorem == "2.1" else draw(_dims(n, d))
    kk = max(k or dd, dd)
    X0 = draw(tokens(n=n, d=dd, max_abs=max_abs, max_denominator=max_denominator,
                     distinct=break_ != "repeated_tokens"))
    if break_ == "repeated_tokens":
        X0 = X0 + [list(X0[0])]  # one exact repeat
    if theorem == "2.1":
        v = draw(st.fractions(min_value=Fraction(1, 4), max_value=3, max_denominator=4))
        q = draw(st.fractions(min_value=Fraction(1, 4), max_value=3, max_denominator=4))
        kq = draw(st.fractions(min_value=Fraction(1, 4), max_value=3, max_denominator=4))
        s = draw(st.sampled_from([1, -1]))  # QK > 0 with both signs flipped allowed
        return Instance.create(V=[[v]], Q=[[q * s]], K=[[kq * s]], X0=X0)
    if theorem == "8.5":
        return Instance.create(V=_eye(dd, Fraction(-1)), Q=_eye(dd), K=_eye(dd), X0=X0)
    R = draw(_full_rank(kk, dd, max_abs))
    Q, K = R, R  # QᵀK = RᵀR: symmetric positive definite
    if break_ in ("QK_indefinite", "QK_nonsymmetric", "QK_singular"):
        R = R[:dd]  # square and invertible: Sylvester's law fixes the inertia below
        Q, K = R, R
    if break_ == "QK_indefinite":  # QᵀK = RᵀΣR, Σ = diag(±1) with one −1: not PD
        neg = draw(st.integers(0, dd - 1))
        K = [[-x for x in r] if i == neg else list(r) for i, r in enumerate(R)]
    elif break_ == "QK_nonsymmetric":  # QᵀK = RᵀR + A, A skew ≠ 0 (d ≥ 2): sym part PD
        Q = _eye(dd)
        A = [[Fraction(0)] * dd for _ in range(dd)]
        A[0][1], A[1][0] = Fraction(1, 4), Fraction(-1, 4)
        K = [[x + a for x, a in zip(r, ra)] for r, ra in zip(_mul(_T(R), R), A)]
    elif break_ == "QK_singular":  # a zero column: QᵀK = RᵀR of rank d − 1
        R0 = [list(r) for r in R]
        for r in R0:
            r[dd - 1] = Fraction(0)
        Q, K = R0, R0
    if theorem == "3.1":
        V = _eye(dd)
    elif theorem == "5.2" and kind == "split":
        # Lemma T8's setting: d = 3, dim F = 2, V_G = (g) with |g| ≤ λ/2, and
        # B = S⁻ᵀ diag(B_F, b) S⁻¹ (F ⊥_B G) symmetric positive definite; Q = I, K = B.
        lam = draw(st.fractions(min_value=Fraction(1, 2), max_value=3, max_denominator=2))
        g = draw(st.fractions(min_value=-lam / 2, max_value=lam / 2, max_denominator=4))
        S, Sinv = draw(_unimodular(3))
        V = _mul(_mul(S, _embed(_eye(2, lam), [[g]])), Sinv)
        RF = draw(_full_rank(2, 2, max_abs))
        b = draw(st.fractions(min_value=Fraction(1, 4), max_value=2, max_denominator=4))
        Bd = _embed(_mul(_T(RF), RF), [[b]])
        return Instance.create(V=V, Q=_eye(3), K=_mul(_mul(_T(Sinv), Bd), Sinv), X0=X0)
    elif theorem == "5.2":
        lam = draw(st.fractions(min_value=Fraction(1, 2), max_value=3, max_denominator=2))
        f = draw(st.integers(1, dd))
        rest = draw(_below(lam, dd - f, jordan=True)) if dd > f else []
        D = _embed(_eye(f, lam), rest) if rest else _eye(dd, lam)
        S, Sinv = draw(_unimodular(dd))
        V = _mul(_mul(S, D), Sinv)
    else:  # 4.2
        if kind == "positive" and break_ is None:
            V = [[Fraction(draw(st.integers(1, 4))) for _ in range(dd)] for _ in range(dd)]
        else:
            lam = draw(st.fractions(min_value=1, max_value=3, max_denominator=2))
            lead = [[lam]]
            if break_ == "leading_negative":
                lead = [[-lam]]
            elif break_ == "leading_complex" and dd >= 2:
                lead = [[lam / 2, -lam], [lam, lam / 2]]
            elif break_ == "leading_repeated" and dd >= 2:
                lead = [[lam, Fraction(draw(st.integers(0, 1)))], [Fraction(0), lam]]
            elif break_ == "leading_tied" and dd >= 2:
                lead = [[lam, Fraction(0)], [Fraction(0), -lam]]
            jordan = kind in ("non-diagonalizable", "any")
            m = len(lead)
            rest = draw(_below(lam, dd - m, jordan=jordan)) if dd > m else []
            D = _embed(lead, rest) if rest else lead
            if kind == "non-diagonalizable" and dd - m >= 2 and rest:
                D[m][m + 1] = Fraction(1)  # force a Jordan block below the leading value
                D[m + 1][m + 1] = D[m][m]
                D[m + 1][m] = Fraction(0)
                if m + 2 < dd:
                    D[m + 1][m + 2] = Fraction(0)
            S, Sinv = draw(_unimodular(dd))
            V = _mul(_mul(S, D), Sinv)
        if break_ == "form_nonpositive":
            K = [[-x for x in r] for r in R]  # ⟨Qφ, Kφ⟩ = −|Rφ|² < 0
    return Instance.create(V=V, Q=Q, K=K, X0=X0)


def inside(theorem: str, *, n: int | tuple[int, int] = (2, 4),
           d: int | tuple[int, int] = (2, 3), k: int | None = None, max_abs: int = 3,
           max_denominator: int = 1, kind: str = "any") -> st.SearchStrategy[Instance]:
    """Instances whose hypotheses of ``theorem`` hold (classify says so; tested).

    Parameters
    ----------
    theorem : {"2.1", "3.1", "4.2", "5.2", "8.5"}
    n, d : int or (min, max)
        Tokens and dimension (d is 1 for 2.1).
    k : int, optional
        Rows of Q and K (default d; at least d).
    max_abs, max_denominator : int
        Size of the token entries and their denominators.
    kind : str
        For 4.2: ``"diagonalizable"``, ``"non-diagonalizable"``, ``"positive"`` or ``"any"``.
        For 5.2: ``"split"`` draws Lemma T8's setting (d = 3, dim F = 2, ‖V_G‖ ≤ λ/2,
        F and G orthogonal for B).
    """
    if theorem not in THEOREMS:
        raise ValueError(f"theorem must be one of {THEOREMS}")
    if kind not in ("any", "diagonalizable", "non-diagonalizable", "positive", "split"):
        raise ValueError("kind must be any, diagonalizable, non-diagonalizable, positive or "
                         "split")
    if kind == "split":
        if theorem != "5.2":
            raise ValueError("kind 'split' is Theorem 5.2's (Lemma T8) setting")
        d = 3
    if kind == "non-diagonalizable":  # a Jordan block below the simple leading value
        d = (max(3, d), max(3, d)) if isinstance(d, int) else (max(3, d[0]), max(3, d[1]))
    return _inside(theorem, n, d, k, max_abs, max_denominator, kind, None)


def violating(theorem: str, hypothesis: str, *, n: int | tuple[int, int] = (2, 4),
              d: int | tuple[int, int] = (2, 3), k: int | None = None, max_abs: int = 3,
              max_denominator: int = 1) -> st.SearchStrategy[Instance]:
    """Instances that break exactly ``hypothesis`` of ``theorem`` (:data:`VIOLATIONS`).

    classify then reports the named check false and the theorem's other checks true
    (tested). Ties, complex and repeated leading values need d ≥ 2 (d is raised to 2).
    """
    if hypothesis not in VIOLATIONS or theorem not in VIOLATIONS[hypothesis][0]:
        raise ValueError(f"{hypothesis!r} does not apply to Theorem {theorem}; choose from "
                         + ", ".join(h for h, (ts, _) in VIOLATIONS.items() if theorem in ts))
    if (hypothesis.startswith("leading_") and hypothesis != "leading_negative") or \
            hypothesis == "QK_nonsymmetric":
        d = (max(2, d), max(2, d)) if isinstance(d, int) else (max(2, d[0]), max(2, d[1]))
    return _inside(theorem, n, d, k, max_abs, max_denominator, "any", hypothesis)


#: Step sizes of :func:`discrete` by default: 1/10 to 100, spread over four decades.
STEP_SIZES = tuple(Fraction(x) for x in ("1/10", "1/5", "1/2", "1", "2", "10", "100"))


def discrete(instances: st.SearchStrategy[Instance], *,
             dt: st.SearchStrategy[Fraction] | None = None) -> st.SearchStrategy[Instance]:
    """The same instances in discrete time (Remarks 1.1, 3.4): one layer = one step Δt.

    Lemma T10 (V = λI, λ > 0) and Lemma T7's discrete form (Theorems 4.2 and 5.2 with a
    simple dominant eigenvalue) hold at every Δt > 0: there is no step-size condition to
    be inside or outside of, so ``dt`` ranges over small and large steps alike (Lemma T8's
    discrete form has one: :func:`discrete_split`; Lemma T9's, for Theorem 8.5, needs
    μΔt < 2, so ``inside("8.5")`` (μ = 1) is inside for Δt < 2 and outside for Δt ≥ 2; pass
    ``dt`` to draw 5/4 or 3/2, which :data:`STEP_SIZES` does not). Draws whose I + Δt·V is singular
    (no rescaled form, Remark 3.4) are skipped.

    Parameters
    ----------
    instances : strategy of Instance
        For example ``inside("3.1")``.
    dt : strategy of positive Fractions, optional
        Default: :data:`STEP_SIZES`.
    """
    steps = dt if dt is not None else st.sampled_from(STEP_SIZES)

    def with_time(pair: tuple[Instance, Fraction]) -> Instance | None:
        inst, h = pair
        if h <= 0:
            raise ValueError(f"dt must be positive, got {h}")
        try:
            return Instance.from_json(dict(inst.to_json(), time={"discrete": str(h)}))
        except InputError:  # I + ΔtV singular: Instance refuses it (Remark 3.4 needs R⁻¹)
            return None
    return st.tuples(instances, steps).map(with_time).filter(lambda x: x is not None)


@st.composite
def discrete_split(draw: Any, *, within: bool = True, n: int | tuple[int, int] = (2, 4),
                   max_abs: int = 3) -> Instance:
    """Theorem 5.2 in Lemma T8's setting (``inside("5.2", kind="split")``) in discrete time,
    with Δt inside (``within=True``) or outside Lemma T8's step-size condition
    (1 + νΔt)² ≤ 1 + λΔt, i.e. Δt ≤ (λ − 2ν)/ν², decided exactly on the instance's split.
    Inside: Δt a fraction 1/100 … 1 of the bound (any Δt from :data:`STEP_SIZES` when
    ν = 0); outside: Δt beyond it by 1/10 … 10 (draws with 2ν = λ have no Δt inside)."""
    from certified.tail.t8_paranormal import paranormal_split  # lazy: sympy at draw time

    inst = draw(inside("5.2", kind="split", n=n, max_abs=max_abs))
    split, why = paranormal_split(inst.V, inst.B)
    if split is None:  # the split strategy is built to pass; a failure is a strategy bug
        raise AssertionError(f"inside('5.2', kind='split') drew a non-split instance: {why}")
    lam, nu = split.lam, split.nu
    cap = (lam - 2 * nu) / nu ** 2 if nu else None
    if within:
        if cap is None:
            h = draw(st.sampled_from(STEP_SIZES))
        else:
            assume(cap > 0)
            h = cap * draw(st.sampled_from([Fraction(1, 100), Fraction(1, 10),
                                            Fraction(1, 2), Fraction(1)]))
    else:
        assume(cap is not None)
        h = max(cap, Fraction(0)) + draw(st.sampled_from([Fraction(1, 10), Fraction(1),
                                                          Fraction(10)]))
    return Instance.from_json(dict(inst.to_json(), time={"discrete": str(h)}))


def _any_instance() -> st.SearchStrategy[Instance]:
    """Instances inside any of the five theorems' hypotheses (for ``st.from_type``)."""
    return st.one_of(*(inside(t) for t in THEOREMS))


# ``st.from_type(Instance)`` and ``@given(inst=...)`` with type hints draw from here.
st.register_type_strategy(Instance, st.deferred(_any_instance))
