"""Lemma S1: two tokens of equal norm under V = λI, QᵀK = βI, solved to t = ∞.

Remark 7.9 of the paper (x₁ = (1, ε), x₂ = (1, −ε), Q = K = V = I) is an instance. Write
z₁ = m + w, z₂ = m − w with ⟨m, w⟩ = 0 (equal norms). Then m is constant, w keeps its
direction, and u(t) = β|w(t)|²e^{2λt} solves the scalar ODE u̇ = 2λu·tanh u, P₁₂ = P₂₁ =
1/(1 + e^{2u}) → 0, and

    |w(∞)| = |w(0)| · exp(−I(u₀)),   I(u₀) = ∫_{u₀}^∞ du / (u (e^{2u} − 1)),   u₀ = β|w(0)|²,

independent of λ (``proofs_notes/audits.md``, Lemma S1). So the two tokens converge to the
**distinct** points m ± w(0)e^{−I(u₀)}, at distance 2|w(0)|e^{−I(u₀)} ≈ 2|w(0)|e^{−1/(2u₀)}
for small u₀ — about 2·10⁻²³ for ε = 1/10 — while P → I. The integral is evaluated with
Arb's rigorous integration on [u₀, U] plus a proven tail bound on [U, ∞).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import acb, arb, ctx

from .balls import arb_bounds, arb_of
from .instance import Instance
from .numbers import bounds_to_json

__all__ = ["PairLimit", "symmetric_pair_limit", "applies"]

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

    def to_json(self, digits: int = 30) -> dict[str, Any]:
        def enc(x: arb) -> list[str]:
            return bounds_to_json(*arb_bounds(x), digits)

        return {
            "lemma": "S1 (symmetric pair, proofs_notes/audits.md)",
            "u0": str(self.u0),
            "integral_I_u0": enc(self.integral),
            "contraction_exp_minus_I": enc(self.factor),
            "limits_z": [[enc(c) for c in z] for z in self.limits],
            "distance_between_limits": enc(self.distance),
            "attention_limit": [[1, 0], [0, 1]],
            "clusters": 2,
            "bits": self.bits,
        }


def _integral(u0: Fraction, bits: int) -> arb:
    """Enclosure of ∫_{u0}^∞ du/(u(e^{2u} − 1)) (Arb quadrature + tail bound)."""
    U = max(TAIL_START, 2 * int(u0) + 2)
    with ctx.workprec(bits):
        def f(x: acb, analytic: bool) -> acb:
            # meromorphic (poles at u = iπk): Arb's quadrature needs no analytic check
            return 1 / (x * ((2 * x).exp() - 1))

        head = acb.integral(f, arb_of(u0), arb(U)).real
        eU = (arb(-2 * U)).exp()
        tail_max = eU / (2 * U * (1 - eU))
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
