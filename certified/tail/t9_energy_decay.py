"""Lemma T9 (energy decay): V = −μI with μ > 0, B symmetric positive definite.

From Lemma T6's bounds q_i(T) ≤ q_at_T on the boxes at T, :func:`energy_decay` proves,
for every t ≥ T (``proofs_notes/tail.md``, Lemma T9),

    E(t) = Σ_i x_iᵀBx_i ≤ E_T / (1 + c (t − T)),   |P_ij(t) − 1/n| ≤ (e^{2E(t)} − 1)/n,

so every x_i → 0 and P → (1/n)·ones: Theorem 8.5's conclusion at t = ∞, with a rate.
Nothing here integrates.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from certified.enclose.arith.base import Backend
from certified.exact.rationals import decimal_ceil, decimal_floor, fraction_to_str
from certified.tail.protocol import LemmaPicture
from certified.tail.t6_energy import NormBound

__all__ = ["EnergyDecay", "RATE_STATEMENT", "energy_decay"]

#: The statement Lemma T9 proves (written into certificates, compared verbatim by the
#: checker).
RATE_STATEMENT = ("for t >= T: sum_i x_i^T B x_i <= E_T / (1 + c (t - T)) and "
                  "|P_ij(t) - 1/n| <= (exp(2 sum_i x_i^T B x_i) - 1)/n")


@dataclass(frozen=True)
class EnergyDecay:
    """Lemma T9's constants, valid for all t ≥ T (with Lemma T6's bound they extend).

    Attributes
    ----------
    energy : NormBound
        Lemma T6 at T (q_i(T) upper bounds, L ≥ log n).
    n, d : int
        Tokens and dimension.
    E_T : Fraction
        An upper bound of E(T) = Σ_i q_i(T): Σ of ``energy.q_at_T``, rounded up.
    kappa : Fraction
        A lower bound of e^{−2E_T}.
    c : Fraction
        A lower bound of μ κ E_T / (n r), r = max(1, min(d, n − 1)).
    digits : int
        The digits of T6's stored q_i(T) bounds, whose sum E_T bounds: the certificate
        writes them at these digits whatever ``to_json`` is asked for.
    """

    energy: NormBound
    n: int
    d: int
    E_T: Fraction
    kappa: Fraction
    c: Fraction
    digits: int

    lemma = "T9"

    @property
    def T(self) -> Fraction:
        return self.energy.T

    @property
    def rank_bound(self) -> int:
        return rank_bound(self.n, self.d)

    def picture(self) -> LemmaPicture:
        """Every token's limit is the origin."""
        return LemmaPicture(centers=[[(0.0, 0.0)] * self.d])

    def energy_at(self, t: Fraction) -> Fraction:
        """The proved upper bound of E(t) for t ≥ T."""
        if t < self.T:
            raise ValueError(f"t = {t} is before T = {self.T}")
        return self.E_T / (1 + self.c * (t - self.T))

    def to_json(self, digits: int) -> dict:
        out = self.energy.to_json(self.digits)  # the bounds E_T was summed from
        out.update({
            "lemma": "T9 (energy decay, V = −μI, B symmetric positive definite)",
            "E_T_upper": fraction_to_str(self.E_T),
            "rank_bound": self.rank_bound,
            "kappa_lower": fraction_to_str(self.kappa),
            "c_lower": fraction_to_str(self.c),
        })
        return out


def rank_bound(n: int, d: int) -> int:
    """r = max(1, min(d, n − 1)): the rank of the deviations' Gram matrix is at most r."""
    return max(1, min(d, n - 1))


def energy_decay(bk: Backend, nb: NormBound, n: int, d: int, digits: int) -> EnergyDecay:
    """Lemma T9 from Lemma T6's bounds at T (the caller has decided B ≻ 0 and V = −μI
    exactly).

    Parameters
    ----------
    bk : Backend
        The interval arithmetic that bounds e^{−2E_T} (outward rounded).
    nb : NormBound
        Lemma T6 at T.
    n, d : int
        Tokens and dimension.
    digits : int
        Significant digits of the stored constants (E_T rounded up, κ and c down).
    """
    # the sum of the q_i(T) bounds as the certificate stores them (T6's to_json rounds
    # each up to ``digits``): the checker adds those
    stored = [Fraction(decimal_ceil(q, digits)) for q in nb.q_at_T]
    E_T = Fraction(decimal_ceil(sum(stored, Fraction(0)), digits))
    kappa = Fraction(decimal_floor(bk.bounds(bk.exp(bk.const(-2 * E_T)))[0], digits))
    if kappa <= 0:  # e^{−2E_T} below the decimal's reach: the lemma still holds with κ = 0
        kappa = Fraction(0)
    r = rank_bound(n, d)
    c = Fraction(decimal_floor(nb.mu * kappa * E_T / (n * r), digits))
    return EnergyDecay(nb, n, d, E_T, kappa, max(c, Fraction(0)), digits)
