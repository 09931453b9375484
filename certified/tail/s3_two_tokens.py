"""Lemma S3 (two tokens): Theorem 4.2's coordinate outside Definition 4.1(i), decided at
t = 0 with no integration (``proofs_notes/audits.md``, Lemma S3).

For n = 2 the difference w = ψ(z₁) − ψ(z₂) of a left eigenvector's coordinates solves
w(t) = w(0)·exp(−λ∫σ), σ = P₁₂ + P₂₁. So:

* the largest modulus attained by a simple real λ₁ > 0 together with others of the same
  modulus (**tied**), or by one simple complex pair with Re λ₁ > 0 (**complex**, the
  pair's real plane): each token's coordinate converges — the conclusion holds;
* attained by one simple real λ₁ = −μ < 0 only (**negative**), with V Hurwitz (a rational
  Lyapunov matrix P), (B + Bᵀ)/2 ≻ 0 and w(0) ≠ 0: σ ≥ 2p > 0 for all t and
  |w(t)| ≥ |w(0)|e^{2μpt} → ∞ — the conclusion fails.

The spectrum is read from the exact factorization of det(xI − V) over Q
(:class:`~certified.exact.spectrum.Spectrum`); S3 does not apply when det(xI − V) has an
irreducible factor of degree ≥ 3, or a quadratic one with real roots.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp
from flint import arb, fmpq

from certified.errors import UndecidedError
from certified.exact.arb_convert import arb_bounds
from certified.exact.instance import Instance
from certified.exact.linalg import positive_definite, quadratic_form, sym_part
from certified.exact.rationals import decimal_floor, fraction_to_str, sqrt_up
from certified.exact.spectrum import Spectrum
from certified.tail.protocol import LemmaPicture

__all__ = ["A_MAX", "S3_TITLE", "CONVERGES", "DIVERGES", "TwoTokens", "leading_reading", "two_tokens"]

#: The lemma's title and the statements its certificates carry (the checker has its own
#: copies and compares them verbatim).
S3_TITLE = "S3 (two tokens, proofs_notes/audits.md)"
CONVERGES = {
    "tied": ("phi1*(z_i(t)) converges for each i (phi1 the simple real eigenvalue lambda1 > 0 "
             "of largest modulus); at most two limit values, a = lim min and b = lim max"),
    "complex": ("(Re psi(z_i(t)), Im psi(z_i(t))) converges for each i (psi V = lambda1 psi, "
                "lambda1 the complex pair of largest modulus, Re lambda1 > 0); at most two "
                "limit points"),
}
#: Largest score bound A the negative case writes down (p ≥ 1/(1 + e^A) then has about
#: A/2.3 leading zeros, and e^A about 1.44·A bits, inside the 2^65536 that Arb's balls
#: convert to exact rationals).
A_MAX = 4 * 10 ** 4

DIVERGES = ("|phi1*(z_1(t)) - phi1*(z_2(t))| >= |w0| exp(g t) for t >= 0 with g = "
            "growth_exponent_lower > 0: phi1*(z_i(t)) does not converge for some i")


def leading_reading(V: list[list[Fraction]]) -> tuple[str, dict] | None:
    """Which reading of Theorem 4.2's coordinate applies, decided exactly from the
    factorization of det(xI − V) over Q: ("tied", {"lambda1"}), ("complex", {"trace",
    "norm"}) (the pair's x² − trace·x + norm), ("negative", {"lambda1"}), or None (4.1(i)
    holds, or the largest modulus sits on a factor S3 does not read)."""
    sp_ = Spectrum(V)
    items = []  # (kind, modulus², exponent, data)
    for f, e in sp_.factors:
        c = [Fraction(int(x)) for x in f.coeffs()]  # ascending
        if f.degree() == 1:
            q = -c[0] / c[1]
            items.append(("real", q * q, e, {"lambda1": q}))
        elif f.degree() == 2 and c[1] * c[1] < 4 * c[0] * c[2]:
            items.append(("pair", c[0] / c[2], e, {"trace": -c[1] / c[2], "norm": c[0] / c[2]}))
        else:
            items.append(("other", None, e, {}))
    known = [m for k, m, _, _ in items if m is not None]
    if not known:
        return None
    if any(k == "other" for k, _, _, _ in items):
        return None  # its roots' moduli are not compared here: S3 does not read V
    top = max(known)
    lead = [(k, e, dat) for k, m, e, dat in items if m == top]
    pos = [(e, dat) for k, e, dat in lead if k == "real" and dat["lambda1"] > 0]
    if len(lead) == 1:
        k, e, dat = lead[0]
        if e != 1:
            return None
        if k == "pair" and dat["trace"] > 0:
            return "complex", dat
        if k == "real" and dat["lambda1"] < 0:
            return "negative", dat
        return None  # 4.1(i) holds (a positive simple λ₁ alone), or Re λ₁ ≤ 0
    if pos and pos[0][0] == 1:
        return "tied", pos[0][1]
    return None


def _left_eigenvector(V: list[list[Fraction]], q: Fraction) -> list[Fraction]:
    """A rational ψ ≠ 0 with ψV = qψ (first non-zero entry 1)."""
    d = len(V)
    A = sp.Matrix([[sp.Rational(V[j][i].numerator, V[j][i].denominator) - (
        sp.Rational(q.numerator, q.denominator) if i == j else 0) for j in range(d)]
        for i in range(d)])  # (V − qI)ᵀ
    v = A.nullspace()[0]
    vals = [Fraction(int(sp.fraction(x)[0]), int(sp.fraction(x)[1])) for x in v]
    lead = next(x for x in vals if x != 0)
    return [x / lead for x in vals]


def _lyapunov(V: list[list[Fraction]]) -> list[list[Fraction]] | None:
    """The symmetric P with VᵀP + PV = −I (exact), or None if singular."""
    d = len(V)
    Vs = sp.Matrix([[sp.Rational(x.numerator, x.denominator) for x in row] for row in V])
    syms = {(i, j): sp.Symbol(f"p{i}_{j}") for i in range(d) for j in range(i, d)}
    Pm = sp.Matrix(d, d, lambda i, j: syms[(min(i, j), max(i, j))])
    eqs = list(Vs.T * Pm + Pm * Vs + sp.eye(d))
    sol = sp.solve(eqs, list(syms.values()), dict=True)
    if len(sol) != 1 or len(sol[0]) != len(syms):
        return None
    s = sol[0]
    return [[Fraction(str(s[syms[(min(i, j), max(i, j))]])) for j in range(d)]
            for i in range(d)]


def _pd(M: list[list[Fraction]]) -> bool:
    return positive_definite(sym_part(M))


def _mul(A: list, B: list) -> list:
    return [[sum((A[i][k] * B[k][j] for k in range(len(B))), Fraction(0))
             for j in range(len(B[0]))] for i in range(len(A))]


@dataclass(frozen=True)
class TwoTokens:
    """Lemma S3's data (see the module docstring). ``case`` is "tied", "complex" or
    "negative"; the negative case carries the Lyapunov certificate and the bounds."""

    case: str
    data: dict
    digits: int = 30

    lemma = "S3"

    @property
    def T(self) -> Fraction:
        return Fraction(0)

    def picture(self) -> LemmaPicture:
        return LemmaPicture()

    def to_json(self, digits: int) -> dict:
        out: dict = {"lemma": S3_TITLE, "case": self.case}
        for k, v in self.data.items():
            if isinstance(v, Fraction):
                out[k] = fraction_to_str(v)
            elif isinstance(v, list) and v and isinstance(v[0], list):
                out[k] = [[fraction_to_str(x) for x in row] for row in v]
            elif isinstance(v, list):
                out[k] = [fraction_to_str(x) for x in v]
            else:
                out[k] = v
        return out


def two_tokens(inst: Instance, digits: int = 30, reading: tuple[str, dict] | None = None
               ) -> tuple[TwoTokens | None, str]:
    """Lemma S3 on ``inst`` (continuous time, no variant): (TwoTokens, "") or (None, why).
    ``reading``: :func:`leading_reading` of ``inst.V`` when the caller has it."""
    if inst.n != 2:
        return None, "Lemma S3 needs exactly two tokens"
    reading = reading or leading_reading(inst.V)
    if reading is None:
        return None, ("Lemma S3: the eigenvalues of largest modulus are not one of its "
                      "readings (tied with a simple λ₁ > 0, one complex pair with "
                      "Re λ₁ > 0, or one simple λ₁ < 0), or Definition 4.1(i) holds")
    case, dat = reading
    if case != "negative":
        return TwoTokens(case, dict(dat), digits), ""
    V, B, d = inst.V, inst.B, inst.d
    q = dat["lambda1"]
    if not _pd(B):
        return None, "Lemma S3 (negative λ₁) needs (B + Bᵀ)/2 positive definite"
    psi = _left_eigenvector(V, q)
    x1, x2 = inst.X0
    delta = [a - b for a, b in zip(x1, x2)]
    m0 = [(a + b) / 2 for a, b in zip(x1, x2)]
    w0 = sum((p * x for p, x in zip(psi, delta)), Fraction(0))
    if w0 == 0:
        return None, "Lemma S3: φ₁*(z₁(0)) = φ₁*(z₂(0)), the difference stays 0"
    P = _lyapunov(V)
    if P is None or not _pd(P):
        return None, ("Lemma S3 (negative λ₁) needs V Hurwitz (VᵀP + PV = −I has no "
                      "positive definite solution)")
    lam_min = float(np.linalg.eigvalsh(np.array([[float(x) for x in r] for r in P])).min())
    ell = Fraction(lam_min * 0.99).limit_denominator(10 ** 6)
    for _ in range(64):  # ℓ < λ_min(P), proved by P − ℓI ≻ 0
        if ell > 0 and _pd([[P[i][j] - (ell if i == j else 0) for j in range(d)]
                            for i in range(d)]):
            break
        ell /= 2
    else:
        return None, "Lemma S3: no positive lower bound of λ_min(P) was proved"
    trP = sum((P[i][i] for i in range(d)), Fraction(0))
    c = 1 / (4 * trP)
    VT = [list(r) for r in zip(*V)]
    VPV = _mul(_mul(VT, P), V)
    L2 = sum((VPV[i][i] for i in range(d)), Fraction(0)) / ell + 1
    D2, N2 = quadratic_form(P, delta), quadratic_form(P, m0)
    M2 = max(N2, L2 * D2 / (4 * c * c))
    BF2 = sum((x * x for row in B for x in row), Fraction(0))
    Dup = sqrt_up(D2)
    A = sqrt_up(BF2) / ell * (sqrt_up(M2) + Dup / 2) * Dup
    if A > A_MAX:  # p ≈ e^{−A} would still refute, but its digits would be unwieldy
        return None, (f"Lemma S3: the bound A on the scores is {float(A):.3g} > {A_MAX} "
                      "(the attention's lower bound e^{−A} is not written down)")
    # p = 1/(1 + e^A), rounded down (Arb's ball for e^A, its upper end); p and g are
    # written as decimals (a fraction would carry A/2.3 digits)
    try:
        e_hi = arb_bounds(arb(fmpq(A.numerator, A.denominator)).exp())[1]
    except UndecidedError:
        return None, "Lemma S3: e^A could not be bounded (A too large)"
    p_text = decimal_floor(1 / (1 + e_hi), digits)
    p = Fraction(p_text)
    if p <= 0:
        return None, "Lemma S3: the attention's lower bound rounds to 0"
    g_text = decimal_floor(-2 * q * p, digits)
    data = {"lambda1": q, "psi": psi, "w0": w0, "P": P, "ell": ell, "c": c,
            "L_squared": L2, "Delta_squared": D2, "M_squared": M2, "A_upper": A,
            "p_lower": p_text, "growth_exponent_lower": g_text}
    return TwoTokens(case, data, digits), ""
