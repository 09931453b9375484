"""Lemma T11 (divergence of the layer map): V = −μI, μΔt > 2, B symmetric positive
definite (the proof needs only semidefinite; the code decides ≻ 0, as for Lemma T9).

On boxes of x^{[K]}, :func:`divergence_discrete` proves, for every layer k ≥ K
(``proofs_notes/tail.md``, Lemma T11),

    max_i x_i^{[k]}ᵀ B x_i^{[k]} ≥ ρ^{2(k−K)} L,   ρ = γ − h(n − 1)ē/L > 1,

with h = μΔt, γ = h − 1, L ≤ max_i x_i^{[K]}ᵀBx_i^{[K]} and ē ≥ 1/e: the tokens do not all
go to 0, so Theorem 8.5's conclusion fails for the discrete map at this step size.
Everything is exact rational arithmetic on the stored boxes; nothing here iterates.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from certified.exact.rationals import decimal_floor, fraction_to_str
from certified.tail.protocol import LemmaPicture

__all__ = ["DIVERGENCE_STATEMENT", "Divergence", "INV_E_UPPER", "T11_TITLE",
           "divergence_discrete"]

#: The lemma's title and the statement a refutation carries (the checker has its own
#: copies and compares them verbatim).
T11_TITLE = ("T11 (divergence of the layer map, V = −μI with μΔt > 2, B symmetric positive "
             "definite)")
DIVERGENCE_STATEMENT = ("for layers k >= K = T/dt: max_i x_i^T B x_i >= rho^(2 (k - K)) L "
                        "with rho > 1, so not every x_i -> 0")

#: ē ≥ 1/e (1/e = 0.36787944…): e ≥ Σ_{m ≤ 12} 1/m! = 2.71828182… ≥ 10000/3679.
INV_E_UPPER = Fraction(3679, 10000)

Box = tuple[Fraction, Fraction]


@dataclass(frozen=True)
class Divergence:
    """Lemma T11's data at the layer K = T/Δt.

    Attributes
    ----------
    T, dt, mu : Fraction
        The layer time, the step and μ (V = −μI); h = μΔt > 2.
    boxes : list of n lists of d (lo, hi)
        Boxes of x_i^{[K]} (exact rationals), shape (n, d).
    q_lower : list of n Fractions
        Lower ends of x_iᵀBx_i on the boxes (exact interval arithmetic, rounded down).
    L : Fraction
        max_i q_lower[i] > 0: a lower bound of max_i x_iᵀBx_i at K.
    rho : Fraction
        A lower bound (rounded down) of γ − h(n − 1)ē/L, > 1: the growth factor of
        max_i ‖x_i‖_B per layer.
    """

    T: Fraction
    dt: Fraction
    mu: Fraction
    boxes: list
    q_lower: list
    L: Fraction
    rho: Fraction

    lemma = "T11"

    @property
    def n(self) -> int:
        return len(self.boxes)

    def energy_lower_at(self, layer: int) -> Fraction:
        """The proved lower bound of max_i x_iᵀBx_i at a layer ≥ K."""
        K = int(self.T / self.dt)
        if layer < K:
            raise ValueError(f"layer {layer} is before K = {K}")
        return self.rho ** (2 * (layer - K)) * self.L

    def picture(self) -> LemmaPicture:
        """No limit: the tokens diverge."""
        return LemmaPicture()

    def to_json(self, digits: int) -> dict:
        return {
            "lemma": T11_TITLE, "T": fraction_to_str(self.T),
            "dt": fraction_to_str(self.dt), "layer": int(self.T / self.dt),
            "mu": fraction_to_str(self.mu), "h": fraction_to_str(self.mu * self.dt),
            "boxes_at_T": [[[fraction_to_str(lo), fraction_to_str(hi)] for lo, hi in row]
                           for row in self.boxes],
            "q_at_T_lower": [fraction_to_str(q) for q in self.q_lower],
            "M2_lower": fraction_to_str(self.L),
            "inv_e_upper": fraction_to_str(INV_E_UPPER),
            "rho_lower": fraction_to_str(self.rho),
        }

    def evidence(self) -> dict:
        """The refutation of Theorem 8.5 this lemma proves (a certificate's ``evidence``)."""
        return {"diverges": {"statement": DIVERGENCE_STATEMENT,
                             "M2_lower": fraction_to_str(self.L),
                             "rho_lower": fraction_to_str(self.rho)}}


def _quadratic_lower(box: Sequence[Box], B: Sequence[Sequence[Fraction]]) -> Fraction:
    """The lower end of xᵀBx over the box, by exact interval arithmetic term by term
    (an enclosure of the range: each product's interval contains every value)."""
    total = Fraction(0)
    d = len(B)
    for a in range(d):
        for b in range(d):
            if B[a][b] == 0:
                continue
            ends = [x * B[a][b] * y for x in box[a] for y in box[b]]
            total += min(ends)
    return total


def divergence_discrete(mu: Fraction, B: Sequence[Sequence[Fraction]], T: Fraction,
                        dt: Fraction, boxes: list, digits: int
                        ) -> tuple[Divergence | None, str]:
    """Lemma T11 on boxes of x^{[K]}, K = T/Δt (the caller has decided V = −μI, μ > 0,
    and B symmetric positive definite exactly).

    Parameters
    ----------
    mu, T, dt : Fraction
    B : d×d exact matrix
    boxes : n lists of d (lo, hi) exact pairs
        Boxes containing x_i^{[K]}.
    digits : int
        Significant digits of the stored q_i and ρ (rounded down).

    Returns
    -------
    (Divergence, "") or (None, why)
    """
    n = len(boxes)
    h = mu * dt
    if not h > 2:
        return None, (f"μΔt = {h} ≤ 2: Lemma T11 needs μΔt > 2 (the mean's factor 1 − μΔt "
                      "must have modulus > 1)")
    # the stored lower ends, rounded down to ``digits`` (the checker compares each with
    # its own lower end of x_iᵀBx_i on the same box)
    q = [Fraction(decimal_floor(_quadratic_lower(box, B), digits)) for box in boxes]
    L = max(q)
    if L <= 0:
        return None, "every token's x_iᵀBx_i may be 0 at this layer"
    exact = (h - 1) - h * (n - 1) * INV_E_UPPER / L
    if not exact > 1:
        return None, (f"ρ = μΔt − 1 − μΔt(n − 1)ē/L = {float(exact):.6g} ≤ 1 at layer "
                      f"{int(T / dt)} (L = {float(L):.6g}; it holds once max_i x_iᵀBx_i > "
                      f"{float(h * (n - 1) * INV_E_UPPER / (h - 2)):.6g})")
    rho = Fraction(decimal_floor(exact, digits))
    if not rho > 1:  # the rounding reached 1: keep the exact value
        rho = exact
    return Divergence(T, dt, mu, [list(r) for r in boxes], q, L, rho), ""
