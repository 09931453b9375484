"""Lemma S0: configurations that do not move, and Theorem 5.2's conclusion on them.

If V(z_j(0) − z_i(0)) = 0 for all i, j, the rescaled field Σ_j P_ij V(z_j − z_i) vanishes at
z(0) whatever P is, so z(t) ≡ z(0) (the constant is a solution; solutions are unique):
the limits are the initial tokens, exactly. If moreover V z_i(0) = 0 for every i, then
x(t) = e^{tV}z(0) = z(0) and P(t) ≡ P(0). The third-party example against a bound in the
proof of Theorem 5.2 (V = diag(1, 0), Q = K = [[1, 1/2], [1/2, 1]], z = (0, 1), (0, 2)) is
such a configuration. Proofs: ``proofs_notes/audits.md``, Lemma S0.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb, ctx, fmpq, fmpq_poly

from certified.exact.arb_convert import arb_of, arb_to_json
from certified.exact.instance import Continuous, Instance
from certified.exact.linalg import from_fmpq_mat, matmul, to_fmpq_mat, transpose
from certified.exact.rationals import fraction_to_str
from certified.exact.spectrum import Spectrum
from certified.tail.protocol import LemmaPicture

__all__ = ["applies_stationary", "StationaryLimit", "StationaryVerdict", "stationary_limit",
           "stationary_verdict", "theorem_5_2_holds"]


def _Vz(inst: Instance, z: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    return tuple(sum(v * x for v, x in zip(row, z)) for row in inst.V)


def applies_stationary(inst: Instance) -> str | None:
    """None when V(z_j − z_i) = 0 for all i, j (exact), else why not."""

    if inst.variant is not None or not isinstance(inst.time, Continuous):
        return "needs continuous time and no variant"
    z0 = inst.X0[0]
    for z in inst.X0[1:]:
        if any(_Vz(inst, tuple(a - b for a, b in zip(z, z0)))):
            return "needs V(z_j − z_i) = 0 for all tokens"
    return None


@dataclass(frozen=True)
class StationaryLimit:
    """Lemma S0: the exact limits, and P when it is constant."""

    limits: tuple[tuple[Fraction, ...], ...]
    clusters: int
    P_constant: list[list[arb]] | None  # P(t) ≡ P(0) when V z_i = 0 for every i
    bits: int

    lemma = "S0"

    @property
    def T(self) -> Fraction:
        """Lemma S0 holds from t = 0."""
        return Fraction(0)

    def picture(self) -> LemmaPicture:
        """The limits (the initial tokens, exactly)."""
        return LemmaPicture(centers=[[(float(x), float(x)) for x in z] for z in self.limits])

    def to_json(self, digits: int = 30) -> dict[str, Any]:
        out: dict[str, Any] = {
            "lemma": "S0 (stationary configuration, proofs_notes/audits.md)",
            "limits_z": [[fraction_to_str(x) for x in z] for z in self.limits],
            "clusters": self.clusters,
            "bits": self.bits,
        }
        if self.P_constant is not None:
            out["attention_constant"] = [[arb_to_json(p, digits) for p in row]
                                         for row in self.P_constant]
        return out

    @property
    def attention_boolean(self) -> bool | None:
        """Whether lim P is 0/1 (decided from enclosures when P is constant)."""
        if self.P_constant is None:
            return None
        inside = [p > 0 and p < 1 for row in self.P_constant for p in row]
        if any(inside):
            return False
        return None  # (an exactly Boolean constant P cannot occur for a softmax)


def stationary_limit(inst: Instance, bits: int = 128) -> StationaryLimit:
    """Lemma S0's limits (raises ValueError if it does not apply)."""
    why = applies_stationary(inst)
    if why is not None:
        raise ValueError(f"Lemma S0 does not apply: {why}")
    limits = tuple(tuple(z) for z in inst.X0)
    P = None
    if all(not any(_Vz(inst, z)) for z in inst.X0):
        with ctx.workprec(bits):
            S = [[arb_of(s) for s in row]  # exact scores z_iᵀ B z_j, then enclosed
                 for row in matmul(matmul(inst.X0, inst.B), transpose(inst.X0))]
            P = []
            for row in S:
                m = max(row, key=lambda v: v.mid())
                e = [(v - m).exp() for v in row]
                tot = sum(e, arb(0))
                P.append([x / tot for x in e])
    return StationaryLimit(limits, len(set(limits)), P, bits)


def dominant_projector(inst: Instance) -> tuple[Fraction, list[list[Fraction]]] | None:
    """(λ, P_F): V's dominant eigenvalue when it is positive, rational and semisimple, and
    the spectral projector P_F = g(V)/g(λ) onto F = ker(V − λ) along the other generalized
    eigenspaces (m = (x − λ)g the exact minimal polynomial, g(λ) ≠ 0); None otherwise.
    Certificates carry it as a witness that the independent checker verifies."""


    sp = Spectrum(inst.V)
    ev = sp.dominant.positive_real
    if ev is None or ev.rational is None or not sp.is_semisimple(ev):
        return None
    lam = ev.rational
    Vq = to_fmpq_mat(inst.V)
    m = Vq.minpoly()
    g = m // fmpq_poly([fmpq(-lam.numerator, lam.denominator), 1])
    d = inst.d
    gV = to_fmpq_mat([[Fraction(0)] * d for _ in range(d)])
    power = to_fmpq_mat([[Fraction(int(i == j)) for j in range(d)] for i in range(d)])
    for c in g.coeffs():  # g(V) by Horner-free accumulation of c_k V^k
        gV = gV + power * c
        power = power * Vq
    g_lam = g(fmpq(lam.numerator, lam.denominator))
    return lam, from_fmpq_mat(gV * (1 / g_lam))


def theorem_5_2_holds(inst: Instance, limits: tuple[tuple[Fraction, ...], ...]) -> bool | None:
    """Theorem 5.2's conclusion for exact limits: their F-components lie in ∂K ∪ {0} for a
    bounded convex polytope K ⊂ F. Decided exactly when V is paranormal with a rational λ
    and dim F = 1 (then ∂K is two points: at most two distinct nonzero F-values, on one
    side or both); None (undecided) otherwise. F-components: :func:`dominant_projector`.
    """

    proj = dominant_projector(inst)
    if proj is None:
        return None
    PF = proj[1]
    d = inst.d
    if int(to_fmpq_mat(PF).rank()) != 1:
        return None
    comps = [tuple(sum(PF[i][j] * z[j] for j in range(d)) for i in range(d)) for z in limits]
    nonzero = {c for c in comps if any(c)}
    return len(nonzero) <= 2


def _affine_rank(points: tuple[tuple[Fraction, ...], ...]) -> int:
    """Dimension of the affine hull of the points (exact)."""
    if len(points) < 2:
        return 0
    base = points[0]
    rows = [[a - b for a, b in zip(z, base)] for z in points[1:]]
    return int(to_fmpq_mat(rows).rank())


@dataclass(frozen=True)
class StationaryVerdict:
    """What Lemma S0's exact limits imply for one theorem's conclusion (the rules of
    ``proofs_notes/audits.md``, "Lemma S0 in verify"): ``verdict`` is "certified",
    "refuted" or "undecided", with the spec's ``limit`` or ``evidence`` object and why."""

    verdict: str
    limit: dict[str, Any] | None
    evidence: dict[str, Any] | None
    reason: str


def stationary_verdict(inst: Instance, theorem: str) -> StationaryVerdict:
    """Judge ``theorem``'s conclusion on a configuration Lemma S0 applies to (exact).

    The limits are the initial tokens z_i(0); x_i(t) = e^{tV} z_i(0).

    * 3.1: certified when the limits' affine hull has dimension < d (then K = their convex
      hull has no interior, ∂K = K holds every limit; always so when V ≠ 0, since the
      tokens differ by vectors of ker V); else undecided.
    * 2.1 (d = 1): P is constant (V ≠ 0 makes the tokens equal, V = 0 freezes x), with
      every entry in (0, 1) when n ≥ 2: refuted, every row outside the two leaders;
      certified for n = 1. d ≥ 2: undecided.
    * 4.2: every φ₁*(z_j − z_i) = φ₁*(V(z_j − z_i))/λ₁ = 0, so one hyperplane holds every
      token: certified when Definition 4.1(i) holds; else the conclusion is undefined.
    * 5.2: P_F(z_j − z_i) = P_F V(z_j − z_i)/λ = 0 (P_F the spectral projector onto F,
      which commutes with V), so all tokens share one F-component: certified when V is
      paranormal (Definition 5.1); else the conclusion is undefined.
    * 8.5: refuted if some z_i ≠ 0 has V z_i = 0 (then x_i ≡ z_i); certified if every
      z_i = 0, or V = λI with λ < 0 (equal tokens: x_i = e^{λt}z → 0, P ≡ ones/n).
    """
    n, d = inst.n, inst.d
    Z = tuple(tuple(z) for z in inst.X0)
    clusters = {"clusters": [{"members": [i], "center": [[fraction_to_str(c)] * 2 for c in z]}
                             for i, z in enumerate(Z)]}
    if theorem == "3.1":
        if _affine_rank(Z) < d:
            return StationaryVerdict("certified", clusters, None,
                                     "Lemma S0: the tokens never move, and their hull has no "
                                     "interior, so every limit lies on its boundary ∂K")
        return StationaryVerdict("undecided", None, None, "Lemma S0 gives the limits (the "
                                 "tokens never move), but whether each lies on the boundary "
                                 "of a convex polytope is not decided here")
    if theorem == "2.1":
        if d != 1:
            return StationaryVerdict("undecided", None, None, "Theorem 2.1 is about d = 1")
        if n == 1:
            return StationaryVerdict("certified", clusters, None,
                                     "Lemma S0: one token, P ≡ 1")
        return StationaryVerdict("refuted", None, {"rows_outside_two_leaders": list(range(n))},
                                 "Lemma S0: P(t) is constant with every entry in (0, 1), so "
                                 "no row of P* is e_1 or e_n")
    if theorem == "4.2":
        ev = Spectrum(inst.V).dominant.positive_real
        if ev is not None and ev.multiplicity == 1:
            return StationaryVerdict("certified", clusters, None,
                                     "Lemma S0: the tokens never move and φ₁* takes one value "
                                     "on all of them (one hyperplane)")
        return StationaryVerdict("undecided", None, None, "Lemma S0 gives the limits, but "
                                 "Theorem 4.2's conclusion is undefined: Definition 4.1(i) "
                                 "fails")
    if theorem == "5.2":
        # P_F(z_j − z_i) = P_F V(z_j − z_i)/λ = 0: every token has the same F-component c,
        # which lies in ∂K for K = {c}.
        sp = Spectrum(inst.V)
        ev = sp.dominant.positive_real
        if ev is not None and sp.is_semisimple(ev):
            return StationaryVerdict("certified", clusters, None,
                                     "Lemma S0: the tokens never move and share one "
                                     "F-component (V is paranormal), a point of ∂K for "
                                     "K = {that point}")
        return StationaryVerdict("undecided", None, None, "Lemma S0 gives the limits, but "
                                 "Theorem 5.2's conclusion is undefined: V is not paranormal")
    if theorem == "8.5":
        for i, z in enumerate(Z):
            if any(z) and not any(_Vz(inst, z)):
                return StationaryVerdict("refuted", None, {"token_not_to_zero": i},
                                         f"Lemma S0: V z_{i} = 0, so x_{i}(t) = z_{i}(0) ≠ 0 "
                                         "for all t")
        lam = inst.scalar_V
        if all(not any(z) for z in Z) or (lam is not None and lam < 0):
            ones = [[fraction_to_str(Fraction(1, n))] * n for _ in range(n)]
            return StationaryVerdict("certified", {"attention_limit": ones}, None,
                                     "Lemma S0: the tokens are equal (or 0), x_i(t) → 0 and "
                                     "P ≡ ones/n")
        return StationaryVerdict("undecided", None, None, "Lemma S0 gives z, but whether "
                                 "e^{tV} z_i → 0 is not decided here")
    raise ValueError(f"no theorem {theorem!r}")
