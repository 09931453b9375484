"""Lemma S3 (two tokens; ``proofs_notes/audits.md``) in a ``verify`` certificate: Lemma C23
of ``proofs_notes/checker.md``. Nothing is integrated: the reading of Theorem 4.2's
coordinate is decided from the checker's own factorization of det(xI − V), and in the
negative case every constant of the Lyapunov bound is re-derived in exact rationals
(square roots bounded above by integer square roots, e^A above by mpmath rounded up).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any


from .balls import exp_up, le_q, mpf_up, sqrt_up
from .errors import CheckFailure
from .hypotheses import Mat, is_positive_definite, reading
from .lemmas import _q, closed

__all__ = ["S3_TITLE", "check_two_tokens"]

#: The lemma's title and statements (the checker's own copies, compared verbatim).
S3_TITLE = "S3 (two tokens, proofs_notes/audits.md)"
S3_CONVERGES = {
    "tied": ("phi1*(z_i(t)) converges for each i (phi1 the simple real eigenvalue lambda1 > 0 "
             "of largest modulus); at most two limit values, a = lim min and b = lim max"),
    "complex": ("(Re psi(z_i(t)), Im psi(z_i(t))) converges for each i (psi V = lambda1 psi, "
                "lambda1 the complex pair of largest modulus, Re lambda1 > 0); at most two "
                "limit points"),
}
S3_DIVERGES = ("|phi1*(z_1(t)) - phi1*(z_2(t))| >= |w0| exp(g t) for t >= 0 with g = "
               "growth_exponent_lower > 0: phi1*(z_i(t)) does not converge for some i")
_KEYS = {"tied": {"lemma", "case", "lambda1"}, "complex": {"lemma", "case", "trace", "norm"},
         "negative": {"lemma", "case", "lambda1", "psi", "w0", "P", "ell", "c", "L_squared",
                      "Delta_squared", "M_squared", "A_upper", "p_lower",
                      "growth_exponent_lower"}}

_Ctx = Any  # checker._Ctx


def _mat(x: Any, d: int, where: str) -> Mat:
    if not (isinstance(x, list) and len(x) == d and
            all(isinstance(r, list) and len(r) == d for r in x)):
        raise CheckFailure(where, f"a {d}×{d} matrix", repr(x)[:60])
    return [[_q(v, f"{where}[{i}][{j}]") for j, v in enumerate(r)] for i, r in enumerate(x)]


def _mul(A: Mat, B: Mat) -> Mat:
    return [[sum((A[i][k] * B[k][j] for k in range(len(B))), Fraction(0))
             for j in range(len(B[0]))] for i in range(len(A))]


def _pd(M: Mat) -> bool:
    return is_positive_definite(M)


def _quad(P: Mat, v: list[Fraction]) -> Fraction:
    return sum((v[i] * P[i][j] * v[j] for i in range(len(v)) for j in range(len(v))),
               Fraction(0))


def _check_negative(lemma: dict, V: Mat, B: Mat, X0: Mat) -> Fraction:
    """The negative case's hypotheses and constants (Lemma S3, part 3); returns the
    checked growth exponent's bound 2μp."""
    d = len(V)
    lam = _q(lemma["lambda1"], "tail_lemma.lambda1")
    psi_raw = lemma["psi"]
    if not (isinstance(psi_raw, list) and len(psi_raw) == d):
        raise CheckFailure("tail_lemma.psi", f"{d} numbers", repr(psi_raw)[:60])
    psi = [_q(x, f"tail_lemma.psi[{i}]") for i, x in enumerate(psi_raw)]
    if not any(psi) or any(sum((psi[i] * V[i][j] for i in range(d)), Fraction(0)) != lam * psi[j]
                           for j in range(d)):
        raise CheckFailure("tail_lemma.psi", f"ψ ≠ 0 with ψV = {lam}·ψ (a left eigenvector, "
                           "exactly)", repr(psi_raw)[:60])
    delta = [a - b for a, b in zip(X0[0], X0[1])]
    m0 = [(a + b) / 2 for a, b in zip(X0[0], X0[1])]
    w0 = sum((a * b for a, b in zip(psi, delta)), Fraction(0))
    if w0 == 0 or _q(lemma["w0"], "tail_lemma.w0") != w0:
        raise CheckFailure("tail_lemma.w0", f"ψ(x₁(0) − x₂(0)) = {w0}, non-zero",
                           str(lemma["w0"]))
    Bs = [[(B[i][j] + B[j][i]) / 2 for j in range(d)] for i in range(d)]
    if not _pd(Bs):
        raise CheckFailure("tail_lemma", "Lemma S3's hypothesis (B + Bᵀ)/2 positive definite "
                           "(exact)", "another QᵀK")
    P = _mat(lemma["P"], d, "tail_lemma.P")
    ell = _q(lemma["ell"], "tail_lemma.ell")
    if not (ell > 0 and _pd([[P[i][j] - (ell if i == j else 0) for j in range(d)]
                             for i in range(d)])):
        raise CheckFailure("tail_lemma.ell", "ℓ > 0 with P − ℓI symmetric positive definite "
                           "(exact)", str(lemma["ell"]))
    c = _q(lemma["c"], "tail_lemma.c")
    VT = [list(r) for r in zip(*V)]
    VTP, PV = _mul(VT, P), _mul(P, V)
    if not (c > 0 and _pd([[-(VTP[i][j] + PV[i][j] + 2 * c * P[i][j]) for j in range(d)]
                           for i in range(d)])):
        raise CheckFailure("tail_lemma.c", "c > 0 with −(VᵀP + PV + 2cP) positive definite "
                           "(exact)", str(lemma["c"]))
    L2 = _q(lemma["L_squared"], "tail_lemma.L_squared")
    VPV = _mul(VTP, V)
    if not _pd([[L2 * P[i][j] - VPV[i][j] for j in range(d)] for i in range(d)]):
        raise CheckFailure("tail_lemma.L_squared", "L² with L²P − VᵀPV positive definite "
                           "(exact)", str(lemma["L_squared"]))
    D2 = _quad(P, delta)
    if _q(lemma["Delta_squared"], "tail_lemma.Delta_squared") != D2:
        raise CheckFailure("tail_lemma.Delta_squared", f"{D2} (δ₀ᵀPδ₀)",
                           str(lemma["Delta_squared"]))
    M2 = max(_quad(P, m0), L2 * D2 / (4 * c * c))
    if _q(lemma["M_squared"], "tail_lemma.M_squared") != M2:
        raise CheckFailure("tail_lemma.M_squared", f"{M2} (max(m₀ᵀPm₀, L²Δ²/(4c²)))",
                           str(lemma["M_squared"]))
    BF2 = sum((x * x for row in B for x in row), Fraction(0))
    Dup = sqrt_up(D2, 96)
    A = sqrt_up(BF2, 96) / ell * (sqrt_up(M2, 96) + Dup / 2) * Dup
    A_claim = _q(lemma["A_upper"], "tail_lemma.A_upper")
    if not A_claim >= A:
        raise CheckFailure("tail_lemma.A_upper", f">= {float(A)!r} (‖B‖_F/ℓ·(M + Δ/2)·Δ, "
                           "square roots rounded up)", str(lemma["A_upper"]))
    p = _q(lemma["p_lower"], "tail_lemma.p_lower")
    # p ≤ 1/(1 + e^A) ⟺ 1/p − 1 ≥ e^A: compared with e^A rounded up
    if not (0 < p < 1 and le_q(exp_up(mpf_up(A_claim)), 1 / p - 1)):
        raise CheckFailure("tail_lemma.p_lower", "0 < p <= 1/(1 + exp(A_upper))",
                           str(lemma["p_lower"]))
    g = _q(lemma["growth_exponent_lower"], "tail_lemma.growth_exponent_lower")
    if not (lam < 0 and 0 < g <= -2 * lam * p):
        raise CheckFailure("tail_lemma.growth_exponent_lower", f"0 < g <= 2μp = "
                           f"{float(-2 * lam * p)!r}", str(lemma["growth_exponent_lower"]))
    return g


def check_two_tokens(ctx: _Ctx) -> str:
    """Lemma S3 (C23): two tokens, Theorem 4.2, continuous time, nothing integrated; the
    reading decided exactly and compared with ``case`` and its data; the negative case's
    constants re-derived; the verdict, limit and evidence the lemma implies."""
    obj, V, B, X0 = ctx.obj, ctx.V, ctx.B, ctx.X0
    inst = obj["instance"]
    if inst.get("time", "continuous") != "continuous" or inst.get("variant") is not None:
        raise CheckFailure("instance", "continuous time without variant (Lemma S3)",
                           "another setting")
    if obj["theorem"] != "4.2" or len(X0) != 2:
        raise CheckFailure("tail_lemma", "Lemma S3 for Theorem 4.2 with two tokens",
                           f"Theorem {obj['theorem']} with {len(X0)} tokens")
    lemma = ctx.lemma
    if lemma.get("lemma") != S3_TITLE:
        raise CheckFailure("tail_lemma.lemma", repr(S3_TITLE), repr(lemma.get("lemma")))
    got = reading(V)
    if got is None:
        raise CheckFailure("tail_lemma.case", "one of Lemma S3's readings of V's largest "
                           "moduli (decided exactly)", repr(lemma.get("case")))
    case, data = got
    if lemma.get("case") != case:
        raise CheckFailure("tail_lemma.case", repr(case), repr(lemma.get("case")))
    closed(lemma, _KEYS[case], "tail_lemma")
    for key in ("lambda1", "trace", "norm"):
        if key in data and _q(lemma[key], f"tail_lemma.{key}") != data[key]:
            raise CheckFailure(f"tail_lemma.{key}", str(data[key]), str(lemma[key]))
    if obj.get("timescale") is not None:
        raise CheckFailure("timescale", "null (Lemma S3 holds from t = 0, no integration)",
                           repr(obj["timescale"])[:60])
    g = _check_negative(lemma, V, B, X0) if case == "negative" else None
    want = "refuted" if case == "negative" else "certified"
    if obj["verdict"] != want:
        raise CheckFailure("verdict", f"{want!r} (what Lemma S3 proves here)",
                           repr(obj["verdict"]))
    empty = "limit" if case == "negative" else "evidence"  # what the verdict leaves out
    if obj.get(empty) is not None:
        raise CheckFailure(empty, f"null (the verdict is {want!r})", repr(obj[empty])[:60])
    if g is not None:
        ev = closed(obj.get("evidence"), {"statement", "growth_exponent_lower"}, "evidence")
        if ev.get("statement") != S3_DIVERGES:
            raise CheckFailure("evidence.statement", repr(S3_DIVERGES),
                               repr(ev.get("statement"))[:80])
        ge = _q(ev.get("growth_exponent_lower"), "evidence.growth_exponent_lower")
        if not 0 < ge <= g:
            raise CheckFailure("evidence.growth_exponent_lower", f"0 < g <= {g} "
                               "(tail_lemma.growth_exponent_lower, checked)", str(ge))
        return ("valid: Lemma S3 re-checked (two tokens, λ₁ < 0 of largest modulus, "
                "Lyapunov bound re-derived); verdict 'refuted' for Theorem 4.2")
    lim = closed(obj.get("limit"), {"statement"}, "limit")
    if lim.get("statement") != S3_CONVERGES[case]:
        raise CheckFailure("limit.statement", repr(S3_CONVERGES[case]),
                           repr(lim.get("statement"))[:80])
    return (f"valid: Lemma S3 re-checked (two tokens, {case} reading decided exactly); "
            "verdict 'certified' for Theorem 4.2")
