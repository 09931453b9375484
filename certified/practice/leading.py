"""Rigorous class of the leading eigenvalue of a large matrix with binary-rational entries.

Definition 4.1(i) asks that the eigenvalue of largest modulus be real, positive, simple and
strictly dominant. For the Ginibre census (thousands of 128×128 samples) and for trained
weights (384×384 layer sums) the exact characteristic polynomial of
:mod:`certified.exact.spectrum` is too slow, so the class is proved in three stages, each one
only tried when the previous one could not separate:

1. **Gershgorin on a verified similarity** (53 bits, ~0.1 s at d = 128). A floating-point
   eigendecomposition A ≈ X̃ Λ X̃⁻¹ is only a guess; Arb then encloses M = Ỹ A X̃ and
   E = I − Ỹ X̃ for the *exact* float matrices X̃ and Ỹ ≈ X̃⁻¹. If ‖E‖∞ < 1, X̃ is
   invertible and X̃⁻¹AX̃ = (I − E)⁻¹M differs from M by at most ‖E‖‖M‖/(1 − ‖E‖) in
   every row sum, so Gershgorin discs around the diagonal of M contain the spectrum
   (``proofs_notes/practice.md``, Lemma P1).
2. **Arb's verified eigenvalues** (``acb_mat.eig``, Rump / van der Hoeven–Mourrain) at
   128 and 512 bits: disjoint balls, each holding exactly one eigenvalue.
3. **The exact spectrum** (:class:`certified.exact.spectrum.Spectrum`): always decides, slowly.

All three produce *discs* with one property (Lemma P2): every eigenvalue lies in their
union, and a disc disjoint from all the others holds exactly one eigenvalue, counted with
multiplicity. The decision rules (Lemma P3) read the class off such discs; a strictly
dominant simple eigenvalue of a real matrix is real because its conjugate is an
eigenvalue of the same modulus. Nothing is decided from a float.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np
from flint import acb, acb_mat, arb, arb_mat, ctx

from certified.errors import UndecidedError
from certified.exact.arb_convert import sign
from certified.exact.linalg import fmpq_from_floats, from_fmpq_mat
from certified.exact.spectrum import MAX_PREC, Spectrum
from certified.logic import Truth

if TYPE_CHECKING:
    from certified.exact.spectrum import Spectrum

__all__ = ["LeadingClass", "classify_leading", "exact_class", "gershgorin_discs", "KINDS",
           "arb_mat_from_floats"]

#: The classes. ``positive``/``negative``: the leading eigenvalue (largest modulus, or
#: largest real part) is unique, simple, real, of that sign. ``complex``: the leading
#: values are one conjugate pair of simple non-real eigenvalues. ``other``: anything else
#: (a multiple leading eigenvalue, a tie such as ±λ, or λ₁ = 0).
KINDS = ("positive", "negative", "complex", "other")

Disc = tuple[acb, arb]  # exact centre, radius upper bound


@dataclass(frozen=True)
class LeadingClass:
    """The proved class of the leading eigenvalue.

    Attributes
    ----------
    kind : {"positive", "negative", "complex", "other"}
        See :data:`KINDS`.
    key : {"modulus", "real part"}
        What "leading" means.
    method : {"gershgorin", "arb-eig", "exact"}
        The stage that decided (module docstring).
    bits : int
        Working precision of that stage.
    leading : acb or None
        A disc (as a complex ball) containing the leading eigenvalue (one of the pair for
        ``complex``); None for ``other``.
    """

    kind: str
    key: str
    method: str
    bits: int
    leading: acb | None

    @property
    def definition_4_1(self) -> bool:
        """Definition 4.1(i) under this reading of "leading"."""
        return self.kind == "positive"

    @property
    def real(self) -> bool:
        """The leading eigenvalue is unique, simple and real."""
        return self.kind in ("positive", "negative")


# -- decision rules on discs (Lemma P3) ------------------------------------------------
def _certain(t: object) -> bool:
    """True only when a ball comparison is proved true (undecided counts as not proved)."""
    return t is True


def _decide(discs: Sequence[Disc], key: str, zero: bool
            ) -> tuple[str, int | None, acb | None] | None:
    """Class from discs with the property of Lemma P2, or None if they do not separate.

    Returns the kind, the index of the leading disc and a ball containing its eigenvalue.

    ``zero`` says 0 is also an eigenvalue (outside the discs, of any multiplicity).
    """
    if key == "modulus":
        score = [abs(c) for c, _ in discs]
        hi = [abs(c) + r for c, r in discs]
        lo = [abs(c) - r for c, r in discs]
    else:
        score = [c.real for c, _ in discs]
        hi = [c.real + r for c, r in discs]
        lo = [c.real - r for c, r in discs]
    order = sorted(range(len(discs)), key=lambda i: -float(score[i].mid()))
    # 0 competes when it is an eigenvalue; by modulus it always may (moduli are ≥ 0, so
    # this changes nothing when other discs exist, and with a single disc it makes
    # "lo > outer" exclude 0 from the disc, which the sign argument below needs).
    floor = arb(0) if zero or key == "modulus" else None

    def bound_except(skip: set[int]) -> arb | None:
        vals = [hi[i] for i in range(len(discs)) if i not in skip]
        if floor is not None:
            vals.append(floor)
        # The largest upper end, exactly (a ball union would round its radius up).
        return _max_upper(vals) if vals else None

    if floor is not None and key == "real part" and all(_certain(h < 0) for h in hi):
        # Every disc lies in Re z < 0: the largest real part is that of the eigenvalue 0,
        # which is not positive (class "other" whatever its multiplicity).
        return "other", None, None
    k = order[0]
    outer = bound_except({k})
    if outer is None or _certain(lo[k] > outer):
        c, r = discs[k]
        # Unique, simple and strictly leading: its conjugate leads equally, so it is real.
        # The real points of the disc form an interval around Re c that excludes 0 when
        # the disc lies outside |z| ≤ outer (modulus) – for the real-part reading the sign
        # needs its own check.
        if c.is_zero() and r.is_zero():  # the eigenvalue is exactly 0: not positive
            return "other", k, acb(0)
        if key == "modulus" or _certain(c.real - r > 0) or _certain(c.real + r < 0):
            s = sign(c.real)
            if s is Truth.UNDECIDED or s == 0:
                return None
            return ("positive" if s > 0 else "negative"), k, acb(c.real, 0) + acb(arb(0, r), 0)
        return None
    if len(order) >= 2:
        k2 = order[1]
        outer2 = bound_except({k, k2})
        (c1, r1), (c2, r2) = discs[k], discs[k2]
        apart = _certain(abs(c1 - c2) > r1 + r2)
        above = outer2 is None or (_certain(lo[k] > outer2) and _certain(lo[k2] > outer2))
        off_axis = _certain(abs(c1.imag) > r1)
        if apart and above and off_axis:
            # Two simple eigenvalues lead; one is non-real, so the other is its conjugate.
            return "complex", k, c1 + acb(arb(0, r1), arb(0, r1))
    return None


# -- stage 1: Gershgorin on a verified similarity (Lemma P1) -------------------------
def _real_eigenbasis(A: np.ndarray) -> tuple[np.ndarray, list[tuple[int, ...]]] | None:
    """A real guess X̃ of an eigenbasis and its blocks.

    LAPACK returns a conjugate pair as adjacent columns v, v̄ (positive imaginary part
    first); the pair is stored as the real columns Re v, Im v, so X̃ is real and the
    verified products below are real (three real 128×128 products instead of three
    complex ones). Blocks are index tuples: (j,) for a real eigenvalue, (j, j+1) for a pair.
    """
    w, X = np.linalg.eig(A)
    n = A.shape[0]
    Xr = np.empty((n, n))
    blocks: list[tuple[int, ...]] = []
    j = 0
    while j < n:
        if w[j].imag == 0:
            Xr[:, j] = X[:, j].real
            blocks.append((j,))
            j += 1
        elif j + 1 < n and w[j].imag > 0 and w[j + 1] == np.conj(w[j]):
            Xr[:, j], Xr[:, j + 1] = X[:, j].real, X[:, j].imag
            blocks.append((j, j + 1))
            j += 2
        else:
            return None
    return Xr, blocks


def arb_mat_from_floats(F: np.ndarray) -> arb_mat:
    """A float array as an exact arb_mat (floats are dyadic rationals)."""
    return arb_mat(np.asarray(F, dtype=np.float64).tolist())


def _max_upper(vals: Sequence[arb]) -> arb:
    """An exact point ≥ every value (the largest upper end)."""
    return max((arb(v.upper()) for v in vals), key=lambda v: v.mid())


_HALF_I = acb(0, 1)


def gershgorin_discs(factors: Sequence[np.ndarray], bits: int = 53) -> list[Disc] | None:
    """Discs with the property of Lemma P2 for A = F₁F₂⋯ (exact float factors).

    Parameters
    ----------
    factors : sequence of float arrays, shapes (d, m₁), (m₁, m₂), …, (·, d)
        A is their exact product (never rounded: Arb multiplies with outward rounding).
    bits : int
        Arb working precision.

    Returns
    -------
    list of (acb, arb) or None
        One disc per eigenvalue guess, or None when ‖E‖∞ < 1 cannot be proved
        (an ill-conditioned eigenvector guess).

    Notes
    -----
    With the real basis X̃ of :func:`_real_eigenbasis`, D = X̃⁻¹AX̃ = M + N where Arb
    encloses M = ỸAX̃ and every row sum of |N| is at most β = ‖E‖‖M‖/(1 − ‖E‖)
    (Lemma P1). A pair block is then diagonalized by the exact T_k = [[1, 1], [i, −i]]
    (T_k⁻¹ = ½[[1, −i], [1, i]]): Gershgorin is applied to T⁻¹DT, whose off-block row
    sums are bounded through |T⁻¹||M||T| and ‖T⁻¹‖∞‖N‖∞‖T‖∞ ≤ 2β (Lemma P1, part 2).
    """
    Af = np.asarray(factors[0], dtype=np.float64)
    for F in factors[1:]:
        Af = Af @ np.asarray(F, dtype=np.float64)
    n = Af.shape[0]
    try:
        basis = _real_eigenbasis(Af)  # a guess only: X̃ and Ỹ enter as exact matrices
        if basis is None:
            return None
        X, blocks = basis
        Y = np.linalg.inv(X)
    except np.linalg.LinAlgError:
        return None
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Y))):
        return None
    with ctx.workprec(bits):
        Xa, Ya = arb_mat_from_floats(X), arb_mat_from_floats(Y)
        AX = Xa
        for F in reversed(factors):
            AX = arb_mat_from_floats(F) * AX
        M = Ya * AX
        E = arb_mat(n, n, [int(i == j) for i in range(n) for j in range(n)]) - Ya * Xa
        entE = E.entries()
        normE = _max_upper([sum((e.abs_upper() for e in entE[i * n:(i + 1) * n]), arb(0))
                            for i in range(n)])
        if not _certain(normE < 1):
            return None
        ent = M.entries()
        absM = [e.abs_upper() for e in ent]
        normM = _max_upper([sum(absM[i * n:(i + 1) * n], arb(0)) for i in range(n)])
        beta = arb((normE * normM / (1 - normE)).upper())
        # Off-block weighted row sums Σ_{q ∉ blk(p)} |M_pq| w_q, w_q = row sum of |T| (2 in
        # a pair block, 1 otherwise), as one matrix–vector product over exact bounds.
        block_of = [0] * n
        for b, blk in enumerate(blocks):
            for j in blk:
                block_of[j] = b
        masked = [absM[p * n + q] if block_of[p] != block_of[q] else 0
                  for p in range(n) for q in range(n)]
        weights = arb_mat(n, 1, [len(blocks[block_of[q]]) for q in range(n)])
        off = (arb_mat(n, n, masked) * weights).entries()
        discs: list[Disc] = []
        for blk in blocks:
            if len(blk) == 1:
                j = blk[0]
                c = acb(M[j, j].mid())
                # Row j of T⁻¹NT is N_j·T: its sum is ≤ 2β (|T| has row sums ≤ 2).
                r = off[j] + (M[j, j] - M[j, j].mid()).abs_upper() + 2 * beta
                discs.append((c, arb(r.upper())))
                continue
            j, k = blk
            a, b, c_, d = (acb(M[j, j]), acb(M[j, k]), acb(M[k, j]), acb(M[k, k]))
            # C = T⁻¹ B T for the 2×2 block B = [[a, b], [c, d]] (exact formulas).
            i = _HALF_I
            C00 = (a + d + (b - c_) * i) / 2
            C01 = (a - d - (b + c_) * i) / 2
            C10 = (a - d + (b + c_) * i) / 2
            C11 = (a + d - (b - c_) * i) / 2
            # Row of T⁻¹ has |·| = (½, ½): off-block part ≤ ½(off_j + off_k).
            shared = (off[j] + off[k]) / 2 + 2 * beta
            for cc, co in ((C00, C01), (C11, C10)):
                centre = cc.mid()
                r = shared + co.abs_upper() + (cc - centre).abs_upper()
                discs.append((centre, arb(r.upper())))
        return discs


# -- stage 2 and 3 ------------------------------------------------------------------------
def _arb_eig_discs(factors: Sequence[np.ndarray], bits: int) -> list[Disc] | None:
    with ctx.workprec(bits):
        A = acb_mat(arb_mat_from_floats(factors[0]))
        for F in factors[1:]:
            A = A * acb_mat(arb_mat_from_floats(F))
        try:
            E = A.eig()  # isolating balls, each with exactly one (simple) eigenvalue
        except ValueError:
            return None
        return [(e.mid(), arb((e - e.mid()).abs_upper().upper())) for e in E]


def _exact_matrix(factors: Sequence[np.ndarray]):
    """The exact rational product F₁F₂⋯ (rows of Fractions)."""

    A = fmpq_from_floats(factors[0])
    for F in factors[1:]:
        A = A * fmpq_from_floats(F)
    return from_fmpq_mat(A)


def exact_class(sp: "Spectrum", key: str, zero: bool = False) -> LeadingClass:
    """The class from an exact :class:`~certified.exact.spectrum.Spectrum` (stage 3).

    ``zero`` adds 0 as an eigenvalue (of any multiplicity) outside ``sp``.
    """

    if key == "modulus":  # a nonzero dominant eigenvalue also beats the extra zeros
        dom = sp.dominant
        m = dom.members
        if len(m) == 1 and m[0].multiplicity == 1 and m[0].is_real:
            s = sign(m[0].ball.real)
            if s is Truth.UNDECIDED:  # cannot happen for an isolated root; never guess
                raise UndecidedError("sign of the dominant eigenvalue not decided")
            kind = "positive" if s == 1 else "negative" if s == -1 else "other"
            return LeadingClass(kind, key, "exact", dom.prec, m[0].ball if kind != "other" else None)
        if len(m) == 2 and all(e.multiplicity == 1 and not e.is_real for e in m):
            return LeadingClass("complex", key, "exact", dom.prec, m[0].ball)
        return LeadingClass("other", key, "exact", dom.prec, None)
    prec = 64
    while prec <= MAX_PREC:
        evs = sp.eigenvalues(prec)
        discs = [(e.ball.mid(), arb((e.ball - e.ball.mid()).abs_upper().upper())) for e in evs]
        # Distinct eigenvalues, each isolated: Lemma P2 holds with "exactly one distinct
        # eigenvalue", whose multiplicity is known exactly.
        got = _decide(discs, key, zero)
        if got is not None:
            kind, k, ball = got
            if k is None or evs[k].multiplicity > 1:
                return LeadingClass("other", key, "exact", prec, None)
            return LeadingClass(kind, key, "exact", prec, ball)
        prec *= 2
    raise UndecidedError(f"largest real part not separated within {MAX_PREC} bits "
                         "(an exact tie of real parts is not decided by this routine)")


def classify_leading(factors: Sequence[np.ndarray] | np.ndarray, key: str = "modulus",
                     zero_eigenvalue: bool = False) -> LeadingClass:
    """The proved class of the leading eigenvalue of A = F₁F₂⋯ (float entries, exact).

    Parameters
    ----------
    factors : float array of shape (d, d), or a sequence of factors whose product is d×d
        The matrix (every float is an exact binary rational; products are never rounded).
    key : {"modulus", "real part"}
        Leading by largest modulus (Definition 4.1 as written) or largest real part.
    zero_eigenvalue : bool
        Also count 0 as an eigenvalue (e.g. the kernel of a low-rank V_h = W_O W_v whose
        nonzero spectrum is that of the small factor product).

    Returns
    -------
    LeadingClass

    Raises
    ------
    UndecidedError
        Only when the exact stage cannot separate (documented limits of
        :class:`~certified.exact.spectrum.Spectrum`); never a guess.
    """
    if key not in ("modulus", "real part"):
        raise ValueError("key must be 'modulus' or 'real part'")
    if isinstance(factors, np.ndarray):
        factors = [factors]
    discs = gershgorin_discs(factors)
    if discs is not None:
        got = _decide(discs, key, zero_eigenvalue)
        if got is not None:
            return LeadingClass(got[0], key, "gershgorin", 53, got[2])
    for bits in (128, 512):
        discs = _arb_eig_discs(factors, bits)
        if discs is not None:
            got = _decide(discs, key, zero_eigenvalue)
            if got is not None:
                return LeadingClass(got[0], key, "arb-eig", bits, got[2])

    return exact_class(Spectrum(_exact_matrix(factors)), key, zero_eigenvalue)
