"""Lemma T7: Theorem 4.2's coordinate φ₁*(z) from an enclosure at T to t = ∞ (V ≠ λI).

For a simple real eigenvalue λ₁ > 0 of V whose complementary invariant subspace G grows
more slowly (a norm N with ‖V|_G‖_N ≤ ν < λ₁), the coordinate ω_i = φ₁*-component of the
tokens obeys the one-dimensional attention dynamics ω̇_i = λ₁ Σ_j P_ij (ω_j − ω_i), and the
scores are those of d = 1 up to terms that grow like e^{(λ₁+ν)t} (Lemma T7 of
``proofs_notes/tail.md``). If at time T every ω_i is provably non-zero and the attention
between the positive and the negative group has a margin that survives those terms, then
every token of a group converges in φ₁* to one common value: the limits are {a, b} ⊂
{a, 0, b}, the conclusion of Theorem 4.2 (and of Theorem 5.2 when dim F = 1).

Everything is checked on exact rational data (an isolating interval of λ₁, a rational
matrix S defining the norm N(v) = |S⁻¹v|₂, and the boxes of the tokens *in x* at T) in
the backend's interval arithmetic; the spectral projector is recomputed from λ₁'s
interval by Π = g(V)/p′(λ₁) with p = (x − λ₁)g (Lemma T7, step 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as _field
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from certified.enclose.arith.base import Backend
from certified.exact.arb_convert import arb_bounds
from certified.exact.instance import Instance
from certified.exact.linalg import (
    Matrix,
    charpoly,
    fmpq_to_fraction,
    from_fmpq_mat,
    to_fmpq_mat,
)
from certified.exact.rationals import (
    bounds_to_json,
    fraction_to_str,
    scaled_float_matrix,
)
from certified.exact.spectrum import Spectrum
from certified.tail.boxes import Box, round_box
from certified.tail.protocol import LemmaPicture

__all__ = ["T7_TITLE", "ProjectedBound", "find_norm", "norm_bound", "norm_matrix_candidates",
           "projected_groups", "spectral_projector"]

#: The lemma's title in certificates (continuous and discrete time; the discrete form adds
#: the fields ``dt`` and ``layer``).
T7_TITLE = "T7 (projected groups, simple dominant eigenvalue)"


@dataclass(frozen=True)
class ProjectedBound:
    """The conclusions of Lemma T7 (``proofs_notes/tail.md``), valid for all t ≥ T.

    Attributes
    ----------
    T : Fraction
        Time of the boxes (tokens in x).
    lam_box : Box
        Isolating interval of the simple eigenvalue λ₁ > 0.
    row : int
        ψ = row ``row`` of the spectral projector Π (ψ is the functional φ₁* up to a
        positive or negative factor; Π = φψ with ψ(φ) = 1).
    S : list of list of Fraction, shape (d, d)
        The norm N(v) = |S⁻¹ v|₂ on the complement G.
    nu : Fraction
        ‖V|_G‖_N ≤ nu < λ₁.
    groups : dict {"+": list[int], "-": list[int]}
        Tokens with ψ(x_i(T)) > 0 and < 0 (each provably).
    m : Fraction or None
        Cross-group margin: P_il(t) ≤ exp(−m e^{2λ₁(t−T)}) for i, l in different groups
        (None with a single group); in discrete time P_il ≤ exp(−m q^{2(k−K)}) at the
        layers k ≥ K, q = 1 + λ₁Δt.
    delta, delta0 : Fraction
        Bootstrap inflation and the proved leakage bound δ₀ < δ.
    limits : dict {"+"|"-": Box}
        The common limit of ψ(z_i(t)) over each group lies in this box.
    omega_boxes : list of Box
        ψ(x_i(T)), the checked data.
    """

    T: Fraction
    lam_box: Box
    row: int
    S: list[list[Fraction]]
    nu: Fraction
    c1: Fraction
    c2: Fraction
    Y: Fraction
    Omega: Fraction
    D: Fraction
    beta_lo: Fraction
    groups: dict[str, list[int]]
    m: Fraction | None
    delta: Fraction
    delta0: Fraction
    limits: dict[str, Box]
    omega_boxes: list[Box]
    boxes: list[list[Box]]
    psi: list[Box] = _field(default_factory=list)
    phi: list[Box] = _field(default_factory=list)
    dt: Fraction | None = None  # discrete time (the layer map, step Δt): T7's discrete form

    lemma = "T7"

    def picture(self) -> LemmaPicture:
        """The functional ψ and the proved hyperplane values {ψ = c}."""
        psi = [float((lo + hi) / 2) for lo, hi in self.psi]
        return LemmaPicture(levels=(psi, [float((lo + hi) / 2)
                                          for lo, hi in self.limits.values()]))

    def f_component(self, sign: str) -> list[Box]:
        """Enclosure of the common limit of the F-component ψ(z)φ of group ``sign``
        (F = span φ = ker(V − λ₁I); Theorem 5.2 with dim F = 1)."""
        lo, hi = self.limits[sign]
        out = []
        for a, b in self.phi:
            ps = (lo * a, lo * b, hi * a, hi * b)
            out.append((min(ps), max(ps)))
        return out

    @property
    def values(self) -> int:
        """Number of distinct limit values of ψ(z_i): 1 or 2 (both groups non-empty)."""
        return sum(1 for g in self.groups.values() if g)

    def to_json(self, digits: int) -> dict[str, Any]:
        def enc(b: Box) -> list[str]:
            return bounds_to_json(b[0], b[1], digits)

        head: dict[str, Any] = {"lemma": T7_TITLE}
        if self.dt is not None:
            head.update(dt=fraction_to_str(self.dt), layer=int(self.T / self.dt))
        return head | {
            "T": fraction_to_str(self.T),
            "lambda1": [fraction_to_str(self.lam_box[0]), fraction_to_str(self.lam_box[1])],
            "psi_row": self.row,
            "psi": [enc(b) for b in self.psi],
            "norm_S": [[fraction_to_str(x) for x in row] for row in self.S],
            "nu": fraction_to_str(self.nu),
            "c1": fraction_to_str(self.c1),
            "c2": fraction_to_str(self.c2),
            "Y": fraction_to_str(self.Y),
            "Omega": fraction_to_str(self.Omega),
            "D": fraction_to_str(self.D),
            "beta_lower": fraction_to_str(self.beta_lo),
            "groups": {k: list(v) for k, v in self.groups.items()},
            "m": None if self.m is None else fraction_to_str(self.m),
            "delta": fraction_to_str(self.delta),
            "delta0": bounds_to_json(Fraction(0), self.delta0, 30)[1],  # exact: 30 digits
            "limits_psi_z": {k: enc(b) for k, b in self.limits.items()},
            "omega_at_T": [enc(b) for b in self.omega_boxes],
            "boxes_at_T": [[[fraction_to_str(lo), fraction_to_str(hi)] for lo, hi in row]
                           for row in self.boxes],
        }


# -- the spectral projector ---------------------------------------------------------------

def _poly_coeffs(V: Matrix) -> list[Fraction]:
    """Coefficients a_0..a_d of det(xI − V), exact."""

    return [fmpq_to_fraction(c) for c in charpoly(V).coeffs()]


def _peval(a: Sequence[Fraction], x: Fraction) -> Fraction:
    out = Fraction(0)
    for c in reversed(a):
        out = out * x + c
    return out


def spectral_projector(bk: Backend, V: Matrix, lam_box: Box) -> tuple[np.ndarray | None, str]:
    """Π = g(V)/p′(λ₁) for the unique root λ₁ of p = det(xI − V) in ``lam_box``.

    Proves first (exactly) that p changes sign on the interval and (by interval
    evaluation) that p′ has no zero on it: exactly one root, and it is simple. Returns
    an enclosure of Π (object array d×d) or (None, reason).
    """
    a = _poly_coeffs(V)
    d = len(V)
    lo, hi = lam_box
    if not 0 < lo < hi:
        return None, "the interval of λ₁ must be positive and non-degenerate"
    if _peval(a, lo) * _peval(a, hi) >= 0:
        return None, "no sign change of the characteristic polynomial on λ₁'s interval"
    L = bk.interval(lo, hi)
    dp = bk.const(Fraction(0))
    for k in range(d, 0, -1):
        dp = dp * L + bk.const(k * a[k])
    dlo, dhi = bk.bounds(dp)
    if dlo <= 0 <= dhi:
        return None, "p′ is not bounded away from 0 on λ₁'s interval (simplicity unproved)"
    # g(x) = p(x)/(x − λ) by synthetic division: b_{d−1} = a_d, b_{k−1} = a_k + λ b_k.
    b = [bk.const(Fraction(0))] * d
    b[d - 1] = bk.const(a[d])
    for k in range(d - 1, 0, -1):
        b[k - 1] = bk.const(a[k]) + L * b[k]
    Vm = bk.array(V)
    G = bk.identity(d) * b[d - 1]
    for k in range(d - 2, -1, -1):
        G = bk.matmul(G, Vm) + bk.identity(d) * b[k]
    return G / dp, ""


# -- the norm on G ------------------------------------------------------------------------

def norm_matrix_candidates(V: Matrix) -> list[list[list[Fraction]]]:
    """Rational matrices S to try for N(v) = |S⁻¹v|₂ (heuristics; the lemma checks).

    First the (real) eigenvector basis of V in floating point — complex pairs as their
    real and imaginary parts x, y, so each 2×2 block of S⁻¹VS is the rotation-scaling
    [[a, b], [−b, a]] whose norm is the modulus |a + ib| — then the identity.
    """
    d = len(V)
    out: list[list[list[Fraction]]] = []
    Vf = scaled_float_matrix(V)  # eigenvectors are scale-free; V = 10^400·… is valid input
    try:
        w, vr = np.linalg.eig(Vf)
        # numpy returns unit eigenvectors, so x and y of a pair share one scale, which
        # keeps the block a rotation-scaling: scaling x and y apart (e.g. normalising
        # each column) turns it into [[a, bs], [−b/s, a]], of norm up to |b|·max(s, 1/s).
        cols: list[np.ndarray] = []
        used = set()
        for k in np.argsort(-np.abs(w)):
            if k in used:
                continue
            used.add(int(k))
            if abs(w[k].imag) < 1e-12 * max(1.0, abs(w[k])):
                cols.append(vr[:, k].real)
            else:
                j = next((int(j) for j in range(d) if j not in used
                          and abs(w[j] - np.conj(w[k])) < 1e-9 * max(1.0, abs(w[k]))), None)
                if j is not None:
                    used.add(j)
                cols.append(vr[:, k].real)
                cols.append(vr[:, k].imag)
        Sf = np.array(cols[:d]).T
        if Sf.shape == (d, d) and np.all(np.isfinite(Sf)) and \
                np.linalg.cond(Sf) < 1e12:
            out.append([[Fraction(float(x)).limit_denominator(2 ** 40) for x in row]
                        for row in Sf])
    except np.linalg.LinAlgError:
        pass
    out.append([[Fraction(int(i == j)) for j in range(d)] for i in range(d)])
    return out


def norm_bound(bk: Backend, W: np.ndarray, S: Matrix) -> tuple[Fraction, list[list[Fraction]]] | None:
    """ν ≥ ‖S⁻¹WS‖₂ (Gershgorin on MᵀM) and S⁻¹, or None if S is singular."""
    d = len(S)
    Si = _inverse(S)
    if Si is None:
        return None
    M = bk.matmul(bk.matmul(bk.array(Si), W), bk.array(S))
    MtM = bk.matmul(M.T, M)
    gersh = max(sum((bk.abs_upper(MtM[r, c]) for c in range(d)), Fraction(0)) for r in range(d))
    return _sqrt_upper(bk, bk.const(gersh)), Si


def find_norm(bk: Backend, V: Matrix, lam_box: Box) -> tuple[Matrix | None, str]:
    """The first candidate S with ν < λ₁ (checked), before any integration."""
    P, why = spectral_projector(bk, V, lam_box)
    if P is None:
        return None, why
    W = bk.matmul(bk.array(V), bk.identity(len(V)) - P)
    for S in norm_matrix_candidates(V):
        nb = norm_bound(bk, W, S)
        if nb is not None and nb[0] < lam_box[0]:
            return S, ""
    return None, ("no norm found with ‖V|_G‖ < λ₁ (tried the eigenvector basis and the "
                  "Euclidean norm)")


def _inverse(S: list[list[Fraction]]) -> list[list[Fraction]] | None:

    Sq = to_fmpq_mat(S)
    if Sq.det() == 0:
        return None
    return from_fmpq_mat(Sq.inv())


def _sqrt_upper(bk: Backend, x: Any) -> Fraction:
    hi = bk.bounds(x)[1]
    return bk.bounds(bk.sqrt(bk.const(max(hi, Fraction(0)))))[1]


# -- Lemma T7 -----------------------------------------------------------------------------

def projected_groups(bk: Backend, V: Matrix, B: Matrix, lam_box: Box, T: Fraction,
                     boxes: Sequence[Sequence[Box]], S_candidates: Sequence[Matrix] | None = None,
                     dt: Fraction | None = None) -> tuple[ProjectedBound | None, str]:
    """Check Lemma T7 at time T; return its conclusions, or ``(None, reason)``.

    Parameters
    ----------
    bk : Backend
        Interval arithmetic (run inside ``bk.workprec``).
    V, B : d×d exact rationals
        The value matrix and QᵀK.
    lam_box : (Fraction, Fraction)
        An interval containing exactly one root λ₁ > 0 of det(xI − V) (proved here).
    T : Fraction
        Time of the boxes.
    boxes : n×d boxes
        boxes[i][c] ∋ x_{i,c}(T) (the *original* variable).
    S_candidates : list of d×d rational matrices, optional
        Norms to try (default :func:`norm_matrix_candidates`).
    dt : Fraction, optional
        Discrete time (the layer map x⁺ = x + Δt·V·Σ_j P_ij x_j): Lemma T7's discrete form,
        at the layer K = T/Δt. The hypotheses are T7's; the leakage bound becomes
        max(|G⁺|, |G⁻|)·D·e^{−m}(α + 1/(2m)), α = λ₁Δt/(1 + λ₁Δt), and the limits of
        ψ(z) = q^{−K}ψ(x^{[K]}), q = 1 + λ₁Δt (``proofs_notes/tail.md``). No step-size
        condition: ν < λ₁ is all the proof needs, at every Δt > 0.
    """
    n, d = len(boxes), len(V)
    if dt is not None and (dt <= 0 or (T / dt).denominator != 1):
        return None, f"T = {T} is not a layer time k·Δt (Δt = {dt})"
    P, why = spectral_projector(bk, V, lam_box)
    if P is None:
        return None, why
    lam_lo = lam_box[0]
    # ψ = a row of Π with a provably non-zero diagonal entry; φ = column / Π_rr.
    diag = [bk.bounds(P[r, r]) for r in range(d)]
    row = max(range(d), key=lambda r: abs(diag[r][0] + diag[r][1]))
    if diag[row][0] <= 0 <= diag[row][1]:
        return None, "no diagonal entry of the projector is provably non-zero"
    psi = P[row, :]
    phi = P[:, row] / P[row, row]
    Bm = bk.array(B)
    beta_lo = bk.bounds(np.dot(phi, np.dot(Bm, phi)))[0]
    if beta_lo <= 0:
        return None, "⟨Qφ₁, Kφ₁⟩ is not proved positive (Definition 4.1 (ii))"
    W = bk.matmul(bk.array(V), bk.identity(d) - P)
    X = [bk.array([bk.interval(lo, hi) for lo, hi in row_]) for row_ in boxes]
    omega = [np.dot(psi, x) for x in X]
    om = [bk.bounds(w) for w in omega]
    plus = [i for i in range(n) if om[i][0] > 0]
    minus = [i for i in range(n) if om[i][1] < 0]
    if len(plus) + len(minus) < n:
        return None, ("a token's φ₁*-coordinate is not provably non-zero at T "
                      "(the hyperplane 0 is not covered)")
    best: tuple[Any, ...] | None = None
    for S in (S_candidates if S_candidates is not None else norm_matrix_candidates(V)):
        nb = norm_bound(bk, W, S)
        if nb is None or nb[0] >= lam_lo:
            continue
        nu, Si = nb
        Sm, Sim = bk.array(S), bk.array(Si)
        v1 = np.dot(Sm.T, np.dot(Bm.T, phi))
        v2 = np.dot(Sm.T, np.dot(Bm, phi))
        c1 = max(_sqrt_upper(bk, np.sum(v * v)) for v in (v1, v2))
        SBS = [[sum(S[a][r] * B[a][b] * S[b][c] for a in range(d) for b in range(d))
                for c in range(d)] for r in range(d)]
        c2 = _sqrt_upper(bk, bk.const(sum(x * x for row_ in SBS for x in row_)))
        IP = bk.identity(d) - P
        Y = Fraction(0)
        for x in X:
            u = np.dot(Sim, np.dot(IP, x))
            Y = max(Y, _sqrt_upper(bk, np.sum(u * u)))
        best = (S, nu, c1, c2, Y)
        break
    if best is None:
        return None, ("no norm found with ‖V|_G‖ < λ₁ (tried the eigenvector basis and "
                      "the Euclidean norm)")
    S, nu, c1, c2, Y = best
    Omega = max(max(abs(lo), abs(hi)) for lo, hi in om)
    D = max(hi for _, hi in om) - min(lo for lo, _ in om)
    m_plus = min((om[i][0] for i in plus), default=None)
    M_plus = max((om[i][1] for i in plus), default=None)
    m_minus = min((om[i][0] for i in minus), default=None)
    M_minus = max((om[i][1] for i in minus), default=None)

    def margin(delta: Fraction) -> Fraction | None:
        p = m_plus - delta
        q = -(M_minus + delta)
        if p <= 0 or q <= 0:
            return None
        # f(w, g) = β w g − Y c₁ (2w + g) − 2c₂Y² is bilinear: its minimum over
        # w ∈ [min(p, q), Ω], g ∈ [p + q, D] is at a corner (Lemma T7 (H2)).
        m = min(beta_lo * w * g - Y * c1 * (2 * w + g) - 2 * c2 * Y * Y
                for w in (min(p, q), Omega) for g in (p + q, max(D, p + q)))
        # A smaller margin is still a margin: keep 30 significant digits (rounded down).
        return round_box(m, m, 30)[0] if m > 0 else None

    def leakage(m: Fraction) -> Fraction:
        # δ₀ = |G|·D·e^{−m}/(2m); discrete: |G|·D·e^{−m}(α + 1/(2m)), α ≤ its value at λ_hi
        w = Fraction(1, 2) / m
        if dt is not None:
            w += lam_box[1] * dt / (1 + lam_box[1] * dt)
        e = bk.exp(bk.const(-m)) * bk.const(Fraction(max(len(plus), len(minus))) * D * w)
        return bk.bounds(e)[1]

    m: Fraction | None = None
    delta = delta0 = Fraction(0)
    if plus and minus:
        delta = min(m_plus, -M_minus) / 4
        for _ in range(6):
            m = margin(delta)
            if m is None:
                return None, ("the cross-group margin does not dominate the G-part of the "
                              "scores at T (min f(w, g) ≤ 0, Lemma T7 (H2))")
            delta0 = leakage(m)
            if delta0 < delta:
                break
            delta = 2 * delta0 if 2 * delta0 < min(m_plus, -M_minus) else delta0 + delta
        else:
            return None, "the bootstrap δ₀ < δ does not close: margin too small"
        # The certificate stores δ₀ to 30 digits, rounded up, and the checker derives the
        # limits from that stored value: derive them from the same number here.
        delta0 = round_box(delta0, delta0, 30)[1]
        if not delta0 < delta:
            return None, "the bootstrap δ₀ < δ does not close: margin too small"
    # Limits of ψ(z) = e^{−λ₁T} ψ(x) over each group, from the group's range at T.
    # End by end in exact rationals: a wide ball's radius carries ~30 bits in Arb, so a
    # ball product could put the lower end of a tiny positive limit below 0.
    if dt is None:
        e_lo, e_hi = bk.bounds(bk.exp(-bk.interval(*lam_box) * bk.const(T)))
    else:  # ψ(z^{[K]}) = q^{−K} ψ(x^{[K]}), q = 1 + λ₁Δt: exact rational ends
        K = int(T / dt)
        e_lo, e_hi = (1 + lam_box[1] * dt) ** -K, (1 + lam_box[0] * dt) ** -K
    limits: dict[str, Box] = {}
    if plus:  # 0 < m⁺ − δ₀ ≤ M⁺
        limits["+"] = (e_lo * (m_plus - delta0), e_hi * M_plus)
    if minus:  # m⁻ ≤ M⁻ + δ₀ < 0
        limits["-"] = (e_hi * m_minus, e_lo * (M_minus + delta0))
    return ProjectedBound(T, lam_box, row, [list(r) for r in S], nu, c1, c2, Y, Omega, D,
                          beta_lo, {"+": plus, "-": minus}, m, delta, delta0, limits, om,
                          [list(r) for r in boxes], [bk.bounds(v) for v in psi],
                          [bk.bounds(v) for v in phi], dt), ""



def dominant_interval(inst: Instance, bits: int = 256, spectrum: Any = None
                      ) -> tuple[Box | None, str]:
    """An isolating rational interval of the unique dominant eigenvalue of V, when it
    is real, simple and positive (decided exactly by :class:`~certified.exact.spectrum.Spectrum`;
    pass ``spectrum`` to reuse one already built for V).
    """

    sp = spectrum if spectrum is not None else Spectrum(inst.V)
    ev = sp.dominant.positive_real
    if ev is None:
        return None, ("the eigenvalue of largest modulus is not unique, real and positive: "
                      "φ₁* (Theorem 4.2's coordinate) is not defined")
    if ev.multiplicity != 1:
        return None, "the dominant eigenvalue is not simple: φ₁* is not defined"
    lo, hi = arb_bounds(sp._refined_real(ev, bits))
    keep = bits * 3 // 10
    # A rational λ₁ comes as an exact point: Lemma T7 wants an interval with a sign change.
    tiny = Fraction(1, 2 ** bits) * (1 + abs(hi))
    return round_box(lo - tiny, hi + tiny, keep), ""
