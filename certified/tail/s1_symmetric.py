"""Symmetric configurations solved exactly to t = ∞ (Lemmas S1 and S2).

**Lemma S1: two tokens of equal norm under V = λI, QᵀK = βI.**

Remark 7.9 of the paper (x₁ = (1, ε), x₂ = (1, −ε), Q = K = V = I) is an instance. Write
z₁ = m + w, z₂ = m − w with ⟨m, w⟩ = 0 (equal norms). Then m is constant, w keeps its
direction, and u(t) = β|w(t)|²e^{2λt} solves the scalar ODE u̇ = 2λu·tanh u, P₁₂ = P₂₁ =
1/(1 + e^{2u}) → 0, and

    |w(∞)| = |w(0)| · exp(−I(u₀)),   I(u₀) = ∫_{u₀}^∞ du / (u (e^{2u} − 1)),   u₀ = β|w(0)|²,

independent of λ (``proofs_notes/audits.md``, Lemma S1). So the two tokens converge to the
**distinct** points m ± w(0)e^{−I(u₀)}, at distance 2|w(0)|e^{−I(u₀)} ≈ 2|w(0)|e^{−1/(2u₀)}
for small u₀ — about 2·10⁻²³ for ε = 1/10 — while P → I. The integral is evaluated with
Arb's rigorous integration on [u₀, U] plus a proven tail bound on [U, ∞).

**Lemma S2: the middle token of Theorem 2.1.** d = 1, V = λ > 0, QK = c > 0 and tokens
(−a, 0, a) (any order). The configuration stays odd-symmetric, the middle token stays at 0
with attention row exactly (1/3, 1/3, 1/3) for all t, and the outer ones converge to
±a·e^{−J(u₀)}, u₀ = ca², J(u₀) = ∫_{u₀}^∞ (1 + 2e^{−u}) / (2u(e^u − e^{−u})) du. So
P* = [[1, 0, 0], [1/3, 1/3, 1/3], [0, 0, 1]] (outer tokens first and last): rank 3, not
Boolean — the non-generic case that Theorem 2.1's "rank 1 or 2" excludes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import acb, arb, ctx

from certified.exact.arb_convert import arb_of, arb_to_json
from certified.exact.instance import Instance
from certified.tail.protocol import LemmaPicture

__all__ = ["PairLimit", "symmetric_pair_limit", "applies", "TripleLimit",
           "symmetric_triple_limit", "applies_triple", "find_lemma"]

#: The integral is split at U; the tail ∫_U^∞ is bounded by e^{−2U}/(2U(1 − e^{−2U})).
TAIL_START = 64


def applies(inst: Instance) -> str | None:
    """None when Lemma S1's hypotheses hold exactly, else the first that fails."""
    if inst.variant is not None or inst.n != 2:
        return "needs exactly two tokens and no variant"
    lam = inst.scalar_V
    if lam is None or lam <= 0:
        return "needs V = λI with λ > 0"
    d = inst.d
    B = inst.B
    beta = B[0][0]
    if any(B[i][j] != (beta if i == j else 0) for i in range(d) for j in range(d)) or beta <= 0:
        return "needs QᵀK = βI with β > 0"
    z1, z2 = inst.X0
    if sum(a * a for a in z1) != sum(b * b for b in z2):
        return "needs |x₁(0)| = |x₂(0)| (then ⟨m, w⟩ = 0)"
    if z1 == z2:
        return "needs x₁(0) ≠ x₂(0)"
    return None


@dataclass(frozen=True)
class PairLimit:
    """The exact limit description of Lemma S1, with enclosures.

    Attributes
    ----------
    m, w0 : tuple of Fraction
        z₁(0) = m + w₀, z₂(0) = m − w₀ (exact).
    u0 : Fraction
        β|w₀|².
    integral : arb
        Enclosure of I(u₀).
    factor : arb
        Enclosure of e^{−I(u₀)} = |w(∞)|/|w(0)|.
    limits : list of list of arb
        Enclosures of z₁(∞), z₂(∞).
    distance : arb
        Enclosure of |z₁(∞) − z₂(∞)| = 2|w₀|e^{−I(u₀)} (> 0).
    bits : int
        Working precision.
    """

    m: tuple[Fraction, ...]
    w0: tuple[Fraction, ...]
    u0: Fraction
    integral: arb
    factor: arb
    limits: list[list[arb]]
    distance: arb
    bits: int

    lemma = "S1"

    @property
    def T(self) -> Fraction:
        """Lemma S1 solves the pair exactly from t = 0."""
        return Fraction(0)

    def picture(self) -> LemmaPicture:
        """The two limits (float enclosures) and P* = I."""
        def pair(b: arb) -> tuple[float, float]:
            return (float(b.lower()), float(b.upper()))

        return LemmaPicture(centers=[[pair(c) for c in z] for z in self.limits],
                            attention_limit=[[1, 0], [0, 1]])

    def to_json(self, digits: int = 30) -> dict[str, Any]:
        return {
            "lemma": "S1 (symmetric pair, proofs_notes/audits.md)",
            "m": [str(x) for x in self.m], "w0": [str(x) for x in self.w0],
            "integrand": "1/(u*(exp(2u)-1)) on [u0, U], plus tail in [0, e^(-2U)/(2U(1-e^(-2U)))]",
            "U": _tail_start(self.u0),
            "u0": str(self.u0),
            "integral_I_u0": arb_to_json(self.integral, digits),
            "contraction_exp_minus_I": arb_to_json(self.factor, digits),
            "limits_z": [[arb_to_json(c, digits) for c in z] for z in self.limits],
            "distance_between_limits": arb_to_json(self.distance, digits),
            "attention_limit": [[1, 0], [0, 1]],
            "clusters": 2,
            "bits": self.bits,
        }


def _tail_start(u0: Fraction) -> int:
    """U, where the quadrature stops and the proven tail bound takes over."""
    return max(TAIL_START, 2 * int(u0) + 2)


def _integral(u0: Fraction, bits: int, kind: str = "pair") -> arb:
    """Enclosure of I(u₀) (pair) or J(u₀) (triple): Arb quadrature on [u₀, U] + tail bound.

    Pair: ∫ du/(u(e^{2u} − 1)), tail ≤ e^{−2U}/(2U(1 − e^{−2U})).
    Triple: ∫ (1 + 2e^{−u})/(2u(e^u − e^{−u})) du, tail ≤ (1 + 2e^{−U})e^{−U}/(2U(1 − e^{−2U})).
    Both integrands are meromorphic (poles at u = iπk/2 at most), so Arb's quadrature needs
    no analyticity check: poles show up as non-finite balls.
    """
    U = _tail_start(u0)
    with ctx.workprec(bits):
        if kind == "pair":
            def f(x: acb, analytic: bool) -> acb:
                return 1 / (x * ((2 * x).exp() - 1))
        else:
            def f(x: acb, analytic: bool) -> acb:
                e = x.exp()
                return (1 + 2 / e) / (2 * x * (e - 1 / e))

        # Arb integrates between exact endpoints: start at the exact dyadic a ≤ u₀ (the
        # lower end of u₀'s ball) and remove ∫_a^{u₀} ∈ [0, (u₀ − a)·f(a)], the integrand
        # being positive and decreasing on (0, ∞) (proofs_notes/audits.md).
        ball = arb_of(u0)
        a = arb(ball.lower())
        head = acb.integral(f, a, arb(U)).real
        if not (ball - a).is_zero():
            excess = (ball - a) * f(acb(a), False).real
            head = head - arb(0, 0).union(arb(excess.upper()))
        eU = (arb(-U)).exp()
        if kind == "pair":
            tail_max = eU * eU / (2 * U * (1 - eU * eU))
        else:
            tail_max = (1 + 2 * eU) * eU / (2 * U * (1 - eU * eU))
        return head + arb(0, 0).union(tail_max)  # the tail lies in [0, bound]


def symmetric_pair_limit(inst: Instance, bits: int = 128) -> PairLimit:
    """Lemma S1's limits for ``inst`` (raises ValueError if it does not apply)."""
    why = applies(inst)
    if why is not None:
        raise ValueError(f"Lemma S1 does not apply: {why}")
    z1, z2 = inst.X0
    m = tuple((a + b) / 2 for a, b in zip(z1, z2))
    w0 = tuple((a - b) / 2 for a, b in zip(z1, z2))
    beta = inst.B[0][0]
    u0 = beta * sum(x * x for x in w0)
    I = _integral(u0, bits)
    with ctx.workprec(bits):
        factor = (-I).exp()
        limits = [[arb_of(mc) + arb_of(wc) * factor for mc, wc in zip(m, w0)],
                  [arb_of(mc) - arb_of(wc) * factor for mc, wc in zip(m, w0)]]
        norm_w0 = arb_of(sum(x * x for x in w0)).sqrt()
        distance = 2 * norm_w0 * factor
    return PairLimit(m, w0, u0, I, factor, limits, distance, bits)


# -- Lemma S2 ---------------------------------------------------------------------------
def applies_triple(inst: Instance) -> str | None:
    """None when Lemma S2's hypotheses hold exactly, else the first that fails."""
    if inst.variant is not None or inst.n != 3 or inst.d != 1:
        return "needs three tokens in d = 1 and no variant"
    if inst.V[0][0] <= 0 or inst.B[0][0] <= 0:
        return "needs V > 0 and QK > 0"
    xs = sorted(row[0] for row in inst.X0)
    if xs[1] != 0 or xs[0] != -xs[2] or xs[2] == 0:
        return "needs tokens −a, 0, a with a ≠ 0"
    return None


@dataclass(frozen=True)
class TripleLimit:
    """Lemma S2's exact limit description, with enclosures (tokens in instance order)."""

    a0: Fraction
    u0: Fraction
    integral: arb
    factor: arb
    limits: list[arb]
    attention_limit: list[list[Fraction]]
    distance: arb  # between consecutive limits: a·e^{−J(u₀)} > 0
    bits: int

    lemma = "S2"

    @property
    def T(self) -> Fraction:
        """Lemma S2 solves the triple exactly from t = 0."""
        return Fraction(0)

    def picture(self) -> LemmaPicture:
        """The three limits (float enclosures); P* is not Boolean (middle row 1/3)."""
        return LemmaPicture(centers=[[(float(c.lower()), float(c.upper()))]
                                     for c in self.limits])

    def to_json(self, digits: int = 30) -> dict[str, Any]:
        return {
            "lemma": "S2 (odd-symmetric triple in d = 1, proofs_notes/audits.md)",
            "a0": str(self.a0),
            "integrand": "(1+2e^(-u))/(2u(e^u-e^(-u))) on [u0, U], plus tail in "
                         "[0, (1+2e^(-U))e^(-U)/(2U(1-e^(-2U)))]",
            "U": _tail_start(self.u0),
            "u0": str(self.u0),
            "integral_J_u0": arb_to_json(self.integral, digits),
            "contraction_exp_minus_J": arb_to_json(self.factor, digits),
            "limits_z": [[arb_to_json(c, digits)] for c in self.limits],
            "distance_between_limits": arb_to_json(self.distance, digits),
            "attention_limit": [[str(x) for x in row] for row in self.attention_limit],
            "clusters": 3,
            "bits": self.bits,
        }


def symmetric_triple_limit(inst: Instance, bits: int = 128) -> TripleLimit:
    """Lemma S2's limits for ``inst`` (raises ValueError if it does not apply)."""
    why = applies_triple(inst)
    if why is not None:
        raise ValueError(f"Lemma S2 does not apply: {why}")
    xs = [row[0] for row in inst.X0]
    a0 = max(xs)
    u0 = inst.B[0][0] * a0 * a0
    J = _integral(u0, bits, "triple")
    third = Fraction(1, 3)
    P = []
    for x in xs:
        if x == 0:
            P.append([third] * 3)
        else:  # an outer token ends up attending to itself only
            P.append([Fraction(int(y == x)) for y in xs])
    with ctx.workprec(bits):
        factor = (-J).exp()
        limits = [arb_of(x) * factor for x in xs]
        distance = arb_of(a0) * factor
    return TripleLimit(a0, u0, J, factor, limits, P, distance, bits)


def find_lemma(inst: Instance) -> str | None:
    """"S1" or "S2" when one of the symmetric lemmas applies, else None."""
    if applies(inst) is None:
        return "S1"
    if applies_triple(inst) is None:
        return "S2"
    return None
