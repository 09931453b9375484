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
from typing import Sequence


from certified.enclose.arith.base import Backend
from certified.exact.rationals import decimal_ceil, decimal_floor, fraction_to_str
from certified.tail.protocol import LemmaPicture
from certified.tail.t6_energy import NormBound, norm_bound_contracting

__all__ = ["EnergyDecay", "EnergyDecayDiscrete", "RATE_STATEMENT", "RATE_STATEMENT_DISCRETE",
           "T9_DISCRETE_TITLE", "energy_decay", "energy_decay_discrete",
           "step_epsilon"]

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


def _energy_bounds(bk: Backend, q: Sequence[Fraction], digits: int
                   ) -> tuple[list[Fraction], Fraction, Fraction]:
    """The q_i bounds as a certificate stores them (each rounded up to ``digits``: the
    checker adds those), E_T = their sum rounded up, and κ ≤ e^{−2E_T} rounded down (0
    when the enclosure's lower end rounds to 0)."""
    stored = [Fraction(decimal_ceil(x, digits)) for x in q]
    E_T = Fraction(decimal_ceil(sum(stored, Fraction(0)), digits))
    kappa = Fraction(decimal_floor(bk.bounds(bk.exp(bk.const(-2 * E_T)))[0], digits))
    return stored, E_T, kappa


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
    _, E_T, kappa = _energy_bounds(bk, nb.q_at_T, digits)
    if kappa <= 0:  # e^{−2E_T} below the decimal's reach: the lemma still holds with κ = 0
        kappa = Fraction(0)
    r = rank_bound(n, d)
    c = Fraction(decimal_floor(nb.mu * kappa * E_T / (n * r), digits))
    return EnergyDecay(nb, n, d, E_T, kappa, max(c, Fraction(0)), digits)


# -- Lemma T9 in discrete time (the layer map) ----------------------------------------------

#: The discrete form's title and statement (written into certificates; the checker has its
#: own copies and compares them verbatim).
T9_DISCRETE_TITLE = ("T9 in discrete time (energy decay of the layer map, V = −μI, B "
                     "symmetric positive definite)")
RATE_STATEMENT_DISCRETE = ("for layers k >= K = T/dt: sum_i x_i^T B x_i <= E_T / (1 + c (k - K))"
                           " and |P_ij - 1/n| <= (exp(2 sum_i x_i^T B x_i) - 1)/n")


@dataclass(frozen=True)
class EnergyDecayDiscrete:
    """Lemma T9's discrete form at the layer K = T/Δt (``proofs_notes/tail.md``).

    With h = μΔt, ε > 0, h(1 + ε) < 2 and the step-size condition
    4·h·(1 + 1/ε)·E_T·e^{4E_T} ≤ κ/r, every layer k ≥ K has E_k ≤ E_T/(1 + c(k − K)),
    c = h·m·E_T/2, m = min((2 − h(1 + ε))/E_T, κ/(nr)).

    Attributes
    ----------
    T, dt, mu : Fraction
        The layer time, the step and μ (V = −μI); h = μΔt.
    boxes : list of n lists of d (lo, hi)
        Boxes of x_i^{[K]} (exact rationals), shape (n, d).
    q_at_T : list of n Fractions
        Upper bounds of x_iᵀBx_i on the boxes.
    E_T, kappa, c : Fraction
        Σ q_at_T (rounded up), a lower bound of e^{−2E_T}, the rate constant (rounded
        down).
    n, d : int
    epsilon : Fraction
        The ε of the cross term between the mean and the deviations (tail.md).
    """

    T: Fraction
    dt: Fraction
    mu: Fraction
    boxes: list
    q_at_T: list
    E_T: Fraction
    kappa: Fraction
    c: Fraction
    n: int
    d: int
    epsilon: Fraction

    lemma = "T9"

    @property
    def rank_bound(self) -> int:
        return rank_bound(self.n, self.d)

    def picture(self) -> LemmaPicture:
        """Every token's limit is the origin."""
        return LemmaPicture(centers=[[(0.0, 0.0)] * self.d])

    def to_json(self, digits: int) -> dict:
        return {
            "lemma": T9_DISCRETE_TITLE, "T": fraction_to_str(self.T),
            "dt": fraction_to_str(self.dt), "layer": int(self.T / self.dt),
            "mu": fraction_to_str(self.mu), "h": fraction_to_str(self.mu * self.dt),
            "epsilon": fraction_to_str(self.epsilon),
            "boxes_at_T": [[[fraction_to_str(lo), fraction_to_str(hi)] for lo, hi in row]
                           for row in self.boxes],
            "q_at_T_upper": [fraction_to_str(q) for q in self.q_at_T],
            "E_T_upper": fraction_to_str(self.E_T), "rank_bound": self.rank_bound,
            "kappa_lower": fraction_to_str(self.kappa), "c_lower": fraction_to_str(self.c),
        }


def step_epsilon(h: Fraction) -> Fraction | None:
    """The ε of Lemma T9's discrete form for h = μΔt < 2: 9/10 of the largest ε with
    h(1 + ε) < 2, i.e. 9(2 − h)/(10h); None for h ≥ 2 (no ε exists).

    A larger ε weakens the step-size condition (its factor 1 + 1/ε), so the lemma holds
    at an earlier layer. It shrinks the mean's term (2 − h(1 + ε))/E_T of the rate's m to
    (2 − h)/(10E_T), which stays above the other term κ/(nr) where the condition holds
    (there E_T ≤ κ/(4h(1 + 1/ε)r)): the rate is not slowed."""
    if h < 2:
        return 9 * (2 - h) / (10 * h)
    return None


def energy_decay_discrete(bk: Backend, mu: Fraction, B: Sequence[Sequence[Fraction]],
                          T: Fraction, dt: Fraction, boxes: list, digits: int
                          ) -> tuple[EnergyDecayDiscrete | None, str]:
    """Lemma T9's discrete form on boxes of x^{[K]}, K = T/Δt (the caller has decided
    V = −μI and B ≻ 0 exactly).

    Parameters
    ----------
    bk : Backend
        Outward-rounded interval arithmetic (the quadratic forms and exponentials).
    mu, T, dt : Fraction
    B : d×d exact matrix
    boxes : n lists of d (lo, hi) exact pairs
        Boxes containing x_i^{[K]}.
    digits : int
        Significant digits of the stored bounds (q and E_T rounded up, κ and c down).

    Returns
    -------
    (EnergyDecayDiscrete, "") or (None, why)
    """
    n, d = len(boxes), len(B)
    h = mu * dt
    eps = step_epsilon(h)
    if eps is None:
        return None, (f"μΔt = {h} ≥ 2: the discrete form needs μΔt < 2 (its bound on the "
                      "mean's energy needs 2 − μΔt(1 + ε) > 0)")
    # T6's quadratic forms on the boxes (upper ends; ≥ 0 as B ≻ 0); T6's statement is not
    # used: it is about the differential equation
    q, E_T, kappa = _energy_bounds(bk, norm_bound_contracting(bk, mu, B, T, boxes).q_at_T,
                                   digits)
    r = rank_bound(n, d)
    if kappa <= 0:
        return None, f"e^(−2E_T) is not bounded away from 0 (E_T = {float(E_T):.6g})"
    growth = bk.bounds(bk.exp(bk.const(4 * E_T)))[1]
    if not 4 * h * (1 + 1 / eps) * E_T * growth <= kappa / r:
        return None, (f"the step-size condition 4·μΔt·(1 + 1/ε)·E_T·e^(4E_T) ≤ κ/r fails at "
                      f"layer {int(T / dt)}: E_T = {float(E_T):.6g}, μΔt = {h}, ε = {eps}, "
                      f"r = {r} (it holds once the energy is small enough)")
    m = min((2 - h * (1 + eps)) / E_T, kappa / (n * r)) if E_T > 0 else Fraction(0)
    c = Fraction(decimal_floor(h * m * E_T / 2, digits)) if E_T > 0 else Fraction(0)
    if c <= 0:
        return None, ("every token is at the origin (an equilibrium)" if E_T == 0 else
                      "the rate constant rounds to 0")
    return EnergyDecayDiscrete(T, dt, mu, [list(r_) for r_ in boxes], q, E_T, kappa, c,
                               n, d, eps), ""
