"""Lemma T8: Theorem 5.2 for a paranormal V with dim F ≥ 2, or dim F = 1 where Lemma T7
cannot apply (leader–follower in F).

V is paranormal (Definition 5.1) with F = ker(V − λI), G = range(V − λI) for a rational
λ > 0. In the coordinates u = S⁻¹x of an exact basis S = [S_F | S_G] of F ⊕ G,
V' = S⁻¹VS = diag(λI, V_G), and when B' = SᵀBS has no F–G blocks the scores are

    x_iᵀBx_j = e^{2λt} z_{F,i}ᵀ B'_FF z_{F,j} + y_iᵀ B'_GG y_j,

with z_F = e^{−λt}u_F (the F-part of z = e^{−tV}x) and y = u_G. The F-parts follow
exactly the V = λI dynamics of Lemma T4 with B'_FF, and the G-term is a perturbation
bounded by κ e^{2λt}·(growth) — Lemma T8 in ``proofs_notes/tail.md`` checks T4 with
its margins reduced by κ = 2gY²e^{−2λT} (g = Σ|B'_GG|, Y ≥ max_i ‖y_i(T)‖∞), valid
when ν := ‖V_G‖∞ satisfies 2ν ≤ λ; F–G cross terms in B', or λ/2 < ν ≤ λ, go through
the combined within-cluster margin (``_with_cross_terms``). Where no basis gives ν ≤ λ (a
complex pair costs |a| + |b| in the max-norm), or a quadratic norm brings ν to λ/2, G is
measured with N(y) = (yᵀPy)^{1/2} instead (``tail.g_metric``; Y ≥ max_i N(y_i(T))).

Everything that does not depend on the tokens (the splitting, the block structure of
V' and B', ν, g) is decided exactly, before integrating (:func:`paranormal_split`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from sympy.matrices.exceptions import MatrixError

from certified.enclose.arith.base import Backend
from certified.enclose.lohner_set import LohnerSet
from certified.exact.rationals import bounds_to_json, fraction_to_str
from certified.tail.boxes import GUARD_DIGITS, Box, checkable_box, difference_matrix
from certified.tail.g_metric import MAX_G_DIM, metric_bound, stein_metric
from certified.tail.protocol import LemmaPicture
from certified.tail.t4_leader_follower import (
    LeaderFollowerBound,
    leader_follower,
    leader_map_from_points,
)
from certified.tail.t7_projected import norm_matrix_candidates

__all__ = ["Split", "paranormal_split", "ParanormalBound", "step_size_condition",
           "try_paranormal"]

Matrix = list[list[Fraction]]

#: Largest dimension for which the exact splitting is attempted (sympy's exact linear
#: algebra is cubic with growing rationals; the validated integration is the real limit).
MAX_DIM = 24


@dataclass(frozen=True)
class Split:
    """The exact F ⊕ G splitting of a paranormal V (Lemma T8's constants).

    Attributes
    ----------
    lam : Fraction
        λ > 0 with V|_F = λ Id.
    S, Sinv : d×d exact matrices
        Columns of S: a basis of F (the first ``dim_f``), then of G; Sinv = S⁻¹.
    BFF : dim_f × dim_f
        The F block of B' = SᵀBS (BFG, BGF: its F–G blocks when non-zero, else None).
    nu, g : Fraction
        ν ≤ λ bounds V_G's growth in the norm on G (ν = ‖V_G‖∞, the max row sum, when
        ``G_metric`` is None) and g = Σ|B'_GG| (so |uᵀB'_GG v| ≤ g for ‖u‖∞, ‖v‖∞ ≤ 1).
    G_metric : (d − dim_f)×(d − dim_f) exact matrix or None
        P of the quadratic norm N(y) = (yᵀPy)^{1/2} on G (``tail.g_metric``), with
        P − I ≻ 0 and ν²P − V_GᵀPV_G ≻ 0; None: the max-norm in the basis S_G.
    """

    lam: Fraction
    dim_f: int
    S: Matrix
    Sinv: Matrix
    BFF: Matrix
    nu: Fraction
    g: Fraction
    BFG: Matrix | None = None  # B'_FG when B' has F–G blocks (then BGF = B'_GFᵀ-shaped)
    BGF: Matrix | None = None
    h_FG: Fraction = Fraction(0)  # Σ|B'_FG|, Σ|B'_GF|
    h_GF: Fraction = Fraction(0)
    G_metric: Matrix | None = None

    def g_norm(self, box: list[Box]) -> Fraction:
        """An upper bound of the norm on G over a box of G-coordinates."""
        return metric_bound(self.G_metric, box)

    @property
    def combined(self) -> bool:
        """Lemma T8 through the combined margin (Hμ̂) and (HΔ): F–G cross terms, or
        λ/2 < ν ≤ λ (the plain margin reduction needs 2ν ≤ λ)."""
        return self.BFG is not None or 2 * self.nu > self.lam


def _frac(x: Any) -> Fraction:
    return Fraction(int(sympy.fraction(x)[0]), int(sympy.fraction(x)[1]))


def _primitive(v: sympy.Matrix) -> sympy.Matrix:
    """The integer multiple of v with coprime entries and first non-zero entry > 0 (a
    basis choice only: it keeps the stored basis and the constant g readable)."""
    den = sympy.ilcm(*[sympy.fraction(x)[1] for x in v]) if len(v) else 1
    w = v * den
    g = sympy.igcd(*[int(x) for x in w])
    w = w / g
    first = next(x for x in w if x != 0)
    return w if first > 0 else -w


def _row_sum_norm(A: sympy.Matrix) -> Any:
    """‖A‖∞ (max row sum of |entries|), exact; 0 for an empty matrix."""
    return max((sum(abs(A[i, j]) for j in range(A.cols)) for i in range(A.rows)),
               default=sympy.Integer(0))


def _eigen_basis(VG: sympy.Matrix) -> sympy.Matrix | None:
    """A rational basis of G made of V_G's real eigenvectors (complex pairs as their real
    and imaginary parts, one scale per pair), from Lemma T7's candidate norms; None when
    that basis is singular or ill-conditioned (a heuristic: the caller compares ν)."""
    m = VG.rows
    Vq = [[_frac(VG[i, j]) for j in range(m)] for i in range(m)]
    cands = norm_matrix_candidates(Vq)
    if len(cands) < 2:  # only the identity: no usable eigenvector basis
        return None
    T = sympy.Matrix(m, m, lambda i, j: sympy.Rational(cands[0][i][j].numerator,
                                                      cands[0][i][j].denominator))
    return T if T.det() != 0 else None


def _jordan_basis(VG: sympy.Matrix, lam: Any) -> sympy.Matrix | None:
    """A rational basis of G in which V_G is its Jordan form with every superdiagonal
    entry scaled by ε: T = P·diag(1, ε, ε², …) for V_G = PJP⁻¹, so T⁻¹V_GT = D⁻¹JD has
    ε where J has 1, and ‖T⁻¹V_GT‖∞ ≤ ρ(V_G) + ε. For a defective V_G (no eigenvector
    basis) this brings ν from ‖V_G‖∞, which may exceed λ, down to just above ρ(V_G) < λ.
    ε is a power of 2 at most half the gap to λ/2 (if ρ < λ/2: the plain reduction) or
    to λ. None when V_G has a non-rational eigenvalue or ρ(V_G) ≥ λ."""
    # the spectrum's rationality from the characteristic polynomial first (milliseconds):
    # jordan_form itself would work over radicals (seconds to minutes) or raise for an
    # irreducible factor of degree ≥ 5
    x = sympy.Symbol("x")
    roots = sympy.roots(VG.charpoly(x).as_expr(), x, filter="Q")
    if sum(roots.values()) != VG.rows:
        return None
    rho = max(abs(r) for r in roots)
    target = lam / 2 if 2 * rho < lam else lam
    if rho >= target:
        return None
    try:
        P, J = VG.jordan_form()
    except (ValueError, NotImplementedError, MatrixError):
        return None
    if not all(v.is_rational for v in P):
        return None
    eps = sympy.Integer(1)
    while 2 * eps > target - rho:
        eps /= 2
    T = P * sympy.diag(*[eps ** i for i in range(J.rows)])
    return T if T.det() != 0 else None


def _smaller_nu(Vs: sympy.Matrix, Ss: sympy.Matrix, Sinv: sympy.Matrix, k: int, nu: Any,
                basis: Any) -> tuple[sympy.Matrix, sympy.Matrix, Any]:
    """S with its G columns S_G replaced by S_G·T, T = ``basis``(V_G), when V_G has a
    smaller ‖·‖∞ in that basis (T⁻¹V_GT); otherwise S unchanged. Returns (S, S⁻¹, ν)."""
    VG = Sinv[k:, :] * Vs * Ss[:, k:]
    Tm = basis(VG)
    if Tm is None:
        return Ss, Sinv, nu
    nu2 = _row_sum_norm(Tm.inv() * VG * Tm)
    if nu2 >= nu:
        return Ss, Sinv, nu
    Ss = sympy.Matrix.hstack(Ss[:, :k], Ss[:, k:] * Tm)
    return Ss, Ss.inv(), nu2


def paranormal_split(V: Matrix, B: Matrix, min_dim: int = 2) -> tuple[Split | None, str]:
    """Decide exactly whether Lemma T8 applies to (V, B) and return its splitting.

    Needs: a rational eigenvalue λ > 0 of V, F = ker(V − λI) of dimension ≥ ``min_dim``
    (2 by default: with dim F = 1 Lemma T7 is tried first; 1 where T7 cannot apply) with
    F ∩ range(V − λI) = {0} (λ semisimple), and ν = ‖V_G‖∞ ≤ λ in the basis of
    range(V − λI) used (the lemma's exponents need nothing more; ν < λ also proves
    ρ(V_G) < λ, i.e. V paranormal). With 2ν ≤ λ and B' = SᵀBS without F–G blocks the
    plain margin reduction applies; otherwise the combined margin of
    ``proofs_notes/tail.md`` (``Split.combined``). When every basis gives 2ν > λ, a
    quadratic norm on G (``Split.G_metric``) is kept if it gives ν ≤ λ where no basis does,
    or 2ν ≤ λ. Returns ``(None, reason)`` otherwise.
    """
    d = len(V)
    if d > MAX_DIM:
        return None, (f"d = {d} > {MAX_DIM}: Lemma T8's exact splitting (sympy) is only "
                      "attempted for small d")
    Vs = sympy.Matrix(d, d, lambda i, j: sympy.Rational(V[i][j].numerator, V[i][j].denominator))
    x = sympy.Symbol("x")
    roots = [r for r in sympy.roots(Vs.charpoly(x).as_expr(), x, filter="Q") if r > 0]
    if not roots:
        return None, "V has no rational eigenvalue λ > 0 (Lemma T8 needs V|_F = λ Id, λ rational)"
    lam_s = max(roots)
    M = Vs - lam_s * sympy.eye(d)
    Fb, Gb = M.nullspace(), M.columnspace()
    if len(Fb) < min_dim:
        return None, (f"dim ker(V − {lam_s}I) = {len(Fb)} < {min_dim} (Lemma T7 covers "
                      "dim F = 1)")
    Ss = sympy.Matrix.hstack(*(_primitive(v) for v in Fb + Gb))
    if Ss.shape != (d, d) or Ss.det() == 0:
        return None, f"λ = {lam_s} is not semisimple: F ∩ range(V − λI) ≠ {{0}}"
    Sinv = Ss.inv()
    k = len(Fb)
    nu = _row_sum_norm(Sinv[k:, :] * Vs * Ss[:, k:])
    # The norm on G: ν is ‖V_G‖∞ in the basis of G used, and any basis of G is valid (the
    # checker verifies S⁻¹VS = diag(λI, V_G) for the stored S). Besides range(V − λI)'s
    # column basis, try V_G's own (real) eigenvector basis, in which ν is the largest
    # |μ| of a real eigenvalue, or |a| + |b| of a complex pair a ± ib, and, while 2ν > λ,
    # its scaled Jordan basis (a defective V_G): keep the smallest ν.
    if d - k >= 2 and nu > 0:
        Ss, Sinv, nu = _smaller_nu(Vs, Ss, Sinv, k, nu, _eigen_basis)
    if d - k >= 2 and 2 * nu > lam_s:
        Ss, Sinv, nu = _smaller_nu(Vs, Ss, Sinv, k, nu, lambda G: _jordan_basis(G, lam_s))
    lam = _frac(lam_s)
    metric = None
    if d - k >= 2 and 2 * nu > lam_s:
        # a quadratic norm on G reaches any ν > ρ(V_G), where every basis may stay above:
        # a complex pair has ‖·‖∞ ≥ |a| + |b| > (a² + b²)^{1/2}; keep it when no basis gives
        # ν ≤ λ, or when it brings ν into the plain range 2ν ≤ λ (which T8's discrete form
        # needs)
        VG = Sinv[k:, :] * Vs * Ss[:, k:]
        found = stein_metric([[_frac(VG[i, j]) for j in range(d - k)] for i in range(d - k)],
                             lam)
        if found is not None and (_frac(nu) > lam or 2 * found[1] <= lam):
            metric, nu = found[0], sympy.Rational(found[1].numerator, found[1].denominator)
    if _frac(nu) > lam:
        return None, (f"‖V_G‖∞ = {nu} > λ = {lam_s} in the bases tried (range(V − λI)'s "
                      "columns, V_G's eigenvectors, its scaled Jordan basis), and no "
                      "quadratic norm on G with ν ≤ λ was found (ρ(V_G) ≥ λ, dim G = 1, or "
                      f"dim G > {MAX_G_DIM}): Lemma T8 needs the G-growth rate ν ≤ λ")
    Bs = sympy.Matrix(d, d, lambda i, j: sympy.Rational(B[i][j].numerator, B[i][j].denominator))
    Bp = Ss.T * Bs * Ss
    g = sum((abs(Bp[i, j]) for i in range(k, d) for j in range(k, d)), sympy.Integer(0))
    conv = lambda A: [[_frac(A[i, j]) for j in range(A.shape[1])] for i in range(A.shape[0])]
    split = Split(lam, k, conv(Ss), conv(Sinv), conv(Bp[:k, :k]), _frac(nu), _frac(g),
                  G_metric=metric)
    if any(Bp[i, j] != 0 for i in range(k) for j in range(k, d)) or \
            any(Bp[i, j] != 0 for i in range(k, d) for j in range(k)):
        # F–G cross terms: the combined within-cluster margin (Hμ̂) of tail.md
        hFG = sum((abs(Bp[i, j]) for i in range(k) for j in range(k, d)), sympy.Integer(0))
        hGF = sum((abs(Bp[i, j]) for i in range(k, d) for j in range(k)), sympy.Integer(0))
        split = Split(lam, k, split.S, split.Sinv, split.BFF, split.nu, split.g,
                      conv(Bp[:k, k:]), conv(Bp[k:, :k]), _frac(hFG), _frac(hGF), metric)
    return split, ""


@dataclass(frozen=True)
class ParanormalBound:
    """The conclusions of Lemma T8 at time T: Lemma T4's (in F-coordinates, margins
    already reduced by kappa) plus the data that bound the G-perturbation."""

    split: Split
    lf: LeaderFollowerBound
    Y: Fraction
    g_boxes: list[list[Box]]
    cross: dict | None = None  # with F–G cross terms: Z, kappa_mu, W, Delta1, Delta0

    lemma = "T8"

    def picture(self) -> LemmaPicture:
        """The F-components of the cluster limits (in R^d) and P*."""
        return LemmaPicture(centers=[[(float(lo), float(hi)) for lo, hi in self.f_component(k)]
                                     for k in range(len(self.lf.centers))],
                            attention_limit=self.lf.attention_limit())

    @property
    def T(self) -> Fraction:
        return self.lf.T

    def f_component(self, idx: int) -> list[Box]:
        """Box in R^d containing S_F·c for the cluster ``idx``'s F-limit c (exact corners:
        each coordinate is linear in c, extremal at the box's corners by sign)."""
        S, k = self.split.S, self.split.dim_f
        box = self.lf.centers[idx]
        out = []
        for r in range(len(S)):
            lo = sum((S[r][c] * (box[c][0] if S[r][c] >= 0 else box[c][1]) for c in range(k)),
                     Fraction(0))
            hi = sum((S[r][c] * (box[c][1] if S[r][c] >= 0 else box[c][0]) for c in range(k)),
                     Fraction(0))
            out.append((lo, hi))
        return out

    def to_json(self, digits: int) -> dict:
        sp = self.split
        out = self.lf.to_json(digits)
        out.update({
            "lemma": "T8 (leader-follower in F, paranormal V)",
            "basis": [[fraction_to_str(x) for x in row] for row in sp.S],
            "dim_F": sp.dim_f,
            "B_FF": [[fraction_to_str(x) for x in row] for row in sp.BFF],
            "nu": fraction_to_str(sp.nu), "g": fraction_to_str(sp.g),
            "Y": fraction_to_str(self.Y),
            "G_boxes_at_T": [[bounds_to_json(lo, hi, digits + 10) for lo, hi in row]
                             for row in self.g_boxes],
            "coordinates": "boxes_at_T and differences_at_T are z_F = e^{-λT} u_F, "
                           "u = S^{-1} x with S = basis (columns: F, then G); "
                           "G_boxes_at_T are u_G = y",
        })
        if sp.G_metric is not None:  # the quadratic norm on G (tail.g_metric)
            out["G_metric"] = [[fraction_to_str(x) for x in row] for row in sp.G_metric]
        if self.cross is not None:  # Lemma T8 with F–G cross terms
            c = self.cross
            out.update({
                "Z": fraction_to_str(c["Z"]), "kappa_mu": fraction_to_str(c["kappa_mu"]),
                "Delta1": fraction_to_str(c["Delta1"]),
                "Delta0": fraction_to_str(c["Delta0"]),
                "G_differences_at_T": {str(j): [[fraction_to_str(lo), fraction_to_str(hi)]
                                                for lo, hi in row]
                                       for j, row in sorted(c["W"].items())},
            })
        return out


def _round_up(q: Fraction, digits: int) -> Fraction:
    return Fraction(bounds_to_json(q, q, digits)[1])


def step_size_condition(split: Split, dt: Fraction) -> bool:
    """Lemma T8's discrete form (``proofs_notes/tail.md``) needs (1 + νΔt)² ≤ 1 + λΔt,
    i.e. Δt ≤ (λ − 2ν)/ν² (any Δt when ν = 0): the G-growth per layer squared may not
    exceed the F-growth q = 1 + λΔt. Exact."""
    return (1 + split.nu * dt) ** 2 <= 1 + split.lam * dt


def try_paranormal(bk: Backend, split: Split, n: int, t: Fraction, S: LohnerSet,
                   digits: int, dt: Fraction | None = None
                   ) -> tuple[ParanormalBound | None, str]:
    """Lemma T8 at time t on the Lohner set S of x(t) (shape n·d); with ``dt``, its
    discrete form at the layer K = t/Δt (z_F = q^{−K}u_F, κ = 2gY²q^{−2K}, q = 1 + λΔt)."""

    d, k = len(split.S), split.dim_f
    keep = digits + GUARD_DIGITS
    Sinv = bk.array(split.Sinv)
    # u = S⁻¹x token by token: the block-diagonal kron(I_n, S⁻¹), split into F and G rows.
    MF = bk.zeros((n * k, n * d))
    MG = bk.zeros((n * (d - k), n * d))
    for i in range(n):
        MF[i * k:(i + 1) * k, i * d:(i + 1) * d] = Sinv[:k]
        MG[i * (d - k):(i + 1) * (d - k), i * d:(i + 1) * d] = Sinv[k:]
    if dt is None:
        decay = bk.exp(bk.const(-split.lam * t))
        shrink = decay * decay  # e^{−2λT}
    else:  # exact rationals: q^{−K} and q^{−2K}
        K = t / dt
        if K.denominator != 1:
            return None, f"T = {t} is not a multiple of Δt = {dt}"
        q = 1 + split.lam * dt
        decay, shrink = bk.const(q ** -int(K)), bk.const(q ** (-2 * int(K)))
    zF = (S.linear_image(MF, bk) * decay).reshape(n, k)
    y = S.linear_image(MG, bk).reshape(n, d - k)
    if split.combined and dt is not None:
        return None, ("Lemma T8's combined margin (F–G cross terms, or ν > λ/2) is proved in "
                      "continuous time only")
    if split.BFG is None:
        leader, why = leader_map_from_points(bk.float_array(bk.mid_array(zF)), split.BFF)
    else:  # the within-cluster leader is decided by the F and the cross terms together:
        # propose it from the full scores of x (a heuristic: the lemma verifies it)
        xs = bk.float_array(S.c).reshape(n, d)
        Bfull = _mat_mul(_mat_mul(_transpose(split.Sinv), _full_B(split)), split.Sinv)
        leader, why = leader_map_from_points(xs, Bfull)
    if leader is None:
        return None, why
    boxes = [[checkable_box(bk, zF[i, c], keep) for c in range(k)] for i in range(n)]
    g_boxes = [[checkable_box(bk, y[i, c], keep) for c in range(d - k)] for i in range(n)]
    Y = max((split.g_norm(row) for row in g_boxes), default=Fraction(0))
    Dm, followers = difference_matrix(bk, n, k, leader)
    diffs: dict[int, list] = {}
    if followers:
        E = (S.linear_image(bk.matmul(Dm, MF), bk) * decay).reshape(len(followers), k)
        diffs = {j: [checkable_box(bk, E[r, c], keep) for c in range(k)]
                 for r, j in enumerate(followers)}
    # κ = 2 g Y² e^{−2λT} (discrete: 2 g Y² q^{−2K}), rounded up (Lemma T8).
    kap = bk.const(2 * split.g * Y * Y) * shrink
    kappa = _round_up(bk.bounds(kap)[1], 12) if split.g and Y else Fraction(0)
    if split.combined:
        return _with_cross_terms(bk, split, n, t, S, MG, leader, boxes, diffs, g_boxes, Y,
                                 decay, shrink, keep)
    lf, why = leader_follower(bk, split.lam, split.BFF, t, boxes, diffs, leader, kappa=kappa,
                              dt=dt)
    if lf is None:
        return None, why
    return ParanormalBound(split, lf, Y, g_boxes), ""


def _mat_mul(A: Matrix, B: Matrix) -> Matrix:
    return [[sum((A[i][s] * B[s][j] for s in range(len(B))), Fraction(0))
             for j in range(len(B[0]))] for i in range(len(A))]


def _transpose(A: Matrix) -> Matrix:
    return [list(r) for r in zip(*A)]


def _full_B(split: Split) -> Matrix:
    """B' = SᵀBS assembled from its blocks."""
    k, d = split.dim_f, len(split.S)
    BGG = [[Fraction(0)] * (d - k) for _ in range(d - k)]  # a heuristic's input only
    return [list(split.BFF[i]) + list(split.BFG[i]) for i in range(k)] + \
        [list(split.BGF[i]) + BGG[i] for i in range(d - k)]


def _with_cross_terms(bk: Backend, split: Split, n: int, t: Fraction, S: LohnerSet, MG,
                      leader: list[int], boxes, diffs, g_boxes, Y: Fraction, decay, shrink,
                      keep: int) -> tuple["ParanormalBound | None", str]:
    """Lemma T8 with F–G cross terms (``proofs_notes/tail.md``): the combined
    within-cluster margin (Hμ̂), κ_m and κ_μ, and the bootstrap (HΔ) of the followers'
    G-differences w_l = y_l − y_k (original variable), enclosed directly at T."""
    d, k = len(split.S), split.dim_f
    followers = [j for j in range(n) if leader[j] != j]
    W: dict[int, list[Box]] = {}
    if followers:
        DmG, _ = difference_matrix(bk, n, d - k, leader)
        EW = S.linear_image(bk.matmul(DmG, MG), bk).reshape(len(followers), d - k)
        W = {j: [checkable_box(bk, EW[r, c], keep) for c in range(d - k)]
             for r, j in enumerate(followers)}
    Z = max(max(abs(lo), abs(hi)) for row in boxes for lo, hi in row)
    Wmax = max((split.g_norm(row) for row in W.values()), default=Fraction(0))
    eps = max((max(abs(lo), abs(hi)) for row in diffs.values() for lo, hi in row),
              default=Fraction(0))
    eta_cap = eps + Fraction(1, 2 ** 200)  # the κ_μ below holds for any η ≤ eta_cap
    h = split.h_FG + split.h_GF  # 0 without cross terms (then only ν > λ/2 brought us here)
    km = bk.const(2 * Z * Y * h) * decay + bk.const(2 * split.g * Y * Y) * shrink
    kappa_m = _round_up(bk.bounds(km)[1], 12)
    delta1 = Wmax / 2 ** 20 + Fraction(1, 2 ** 200)
    for _ in range(5):
        dbar = Wmax + delta1
        kmu = bk.const(Y * split.h_GF * (eps + eta_cap)) * decay + \
            bk.const(split.g * Y * dbar) * shrink
        kappa_mu = _round_up(bk.bounds(kmu)[1], 12)
        cross = {}
        for j in followers if split.BFG is not None else []:  # c_l = e^{−λT}B'_FG(W_l⁺Δ₁)
            Wi = [bk.interval(lo - delta1, hi + delta1) for lo, hi in W[j]]
            cross[j] = np.array([sum((bk.const(split.BFG[r][c]) * Wi[c]
                                      for c in range(d - k)), bk.const(Fraction(0))) * decay
                                 for r in range(k)], dtype=object)
        lf, why = leader_follower(bk, split.lam, split.BFF, t, boxes, diffs, leader,
                                  kappa=kappa_m, kappa_mu=kappa_mu, cross=cross or None)
        if lf is None:
            return None, why
        if lf.eta > eta_cap:
            return None, "the follower inflation η exceeds the cap κ_μ was computed with"
        delta0 = _delta0(bk, split, lf, leader, dbar, Y, t)
        if delta0 < delta1:
            return ParanormalBound(split, lf, Y, g_boxes,
                                   {"Z": Z, "kappa_mu": kappa_mu, "W": W, "Delta1": delta1,
                                    "Delta0": delta0}), ""
        delta1 = 2 * delta0
    return None, "the G-differences' bootstrap (HΔ) does not close"


def _delta0(bk: Backend, split: Split, lf: LeaderFollowerBound, leader: list[int],
            dbar: Fraction, Y: Fraction, T: Fraction) -> Fraction:
    """(HΔ)'s bound: (ν/λ)·max_k [2(c_k − 1)Δ̄ e^{−a}/a + 2(n − c_k) Y e^{−b}/b],
    a = μe^{2λT}, b = me^{2λT}, rounded up."""
    n = len(leader)
    beta = bk.exp(bk.const(2 * split.lam * T))
    b = bk.const(lf.m) * beta
    tail_b = bk.exp(-b) / b
    tail_a = None
    if lf.mu is not None:
        a = bk.const(lf.mu) * beta
        tail_a = bk.exp(-a) / a
    worst = Fraction(0)
    for k in sorted(set(leader)):
        ck = sum(1 for i in range(n) if leader[i] == k)
        v = bk.const(Fraction(2 * (n - ck)) * Y) * tail_b
        if ck > 1 and tail_a is not None:
            v = v + bk.const(Fraction(2 * (ck - 1)) * dbar) * tail_a
        worst = max(worst, bk.bounds(v * bk.const(split.nu / split.lam))[1])
    return _round_up(worst, 12) if worst else Fraction(0)
