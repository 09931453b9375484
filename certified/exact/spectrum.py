"""Exact and rigorous spectral facts about a rational matrix V.

Everything here is decided exactly, never from a floating-point guess:

* the characteristic polynomial is computed exactly (FLINT, ``fmpq_mat.charpoly``) and
  factored over Q into irreducible factors with their exponents: algebraic
  multiplicities are exact;
* the roots of each irreducible factor are isolated by Arb
  (``arb_fmpz_poly_complex_roots``): every ball holds exactly one root, real roots come
  with an imaginary part that is exactly zero, so "real" is exact;
* comparisons of moduli are made on these balls, refining the precision until they
  separate; an **exact tie** (which no precision separates) is proved by
  :meth:`Spectrum.same_modulus`, Lemma H4 of ``proofs_notes/hypotheses.md``;
* the eigenvector of a simple real eigenvalue and the sign of ``⟨Qφ, Kφ⟩`` come from
  exact linear algebra in the number field ``Q(λ)`` (small d), or from a rigorous
  interval solve whose sign is decided by enclosure, with the exact computation as
  the fallback when the enclosure contains 0 (Lemma H5).

The guarantees of each function are stated in its docstring, with the lemma it uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Sequence

import numpy as np
from flint import acb, arb, arb_mat, arb_poly, ctx, fmpq, fmpq_mat, fmpq_poly, fmpz_poly

from certified.errors import UndecidedError
from certified.exact.arb_convert import acb_to_json, arb_of, arb_to_json, sign
from certified.exact.linalg import (
    Matrix,
    fmpq_to_fraction,
    primitive_integer_poly,
    to_fmpq_mat,
)
from certified.exact.rationals import fraction_to_str
from certified.logic import Truth

__all__ = [
    "DEFAULT_PREC",
    "MAX_PREC",
    "MAX_TIE_DEGREE",
    "Eigenvalue",
    "Dominant",
    "LeadingEigenvector",
    "Spectrum",
]

#: Working precision (bits) at which every spectral computation starts.
DEFAULT_PREC = 64
#: Precision cap of the refinement loops; reaching it raises UndecidedError.
MAX_PREC = 1 << 15
#: Largest degree of the auxiliary polynomial of the exact modulus-tie test (Lemma H4):
#: deg = (deg f + deg g)², so factors of combined degree up to 30.
MAX_TIE_DEGREE = 900
#: Up to this dimension the leading eigenvector is computed exactly in Q(λ) (Lemma H5).
EXACT_EIGVEC_MAX_D = 16


@dataclass(frozen=True)
class Eigenvalue:
    """One distinct eigenvalue of V.

    Attributes
    ----------
    factor : int
        Index of its irreducible factor in :attr:`Spectrum.factors`.
    multiplicity : int
        Algebraic multiplicity (exact: the exponent of the factor).
    is_real : bool
        Exact.
    ball : acb
        Isolating enclosure: contains this eigenvalue and no other root of its factor.
    rational : Fraction or None
        The exact value when the factor is linear.
    """

    factor: int
    multiplicity: int
    is_real: bool
    ball: acb
    rational: Fraction | None

    def to_json(self, digits: int = 30) -> dict[str, object]:
        out: dict[str, object] = {"multiplicity": self.multiplicity, "real": self.is_real}
        if self.rational is not None:
            out["exact"] = fraction_to_str(self.rational)
        out.update(acb_to_json(self.ball, digits))
        out["modulus"] = arb_to_json(abs(self.ball), digits)
        return out

    def describe(self) -> str:
        """Short human-readable value, e.g. ``"2"`` or ``"1.2 ± 1.6i (mult 1)"``."""
        if self.rational is not None:
            v = fraction_to_str(self.rational)
        elif self.is_real:
            v = f"{float(self.ball.real.mid()):.6g}"
        else:
            v = f"{float(self.ball.real.mid()):.6g}{float(self.ball.imag.mid()):+.6g}i"
        return v if self.multiplicity == 1 else f"{v} (multiplicity {self.multiplicity})"


@dataclass(frozen=True)
class Dominant:
    """The eigenvalues of maximal modulus, decided exactly.

    Attributes
    ----------
    members : list of Eigenvalue
        Every distinct eigenvalue whose modulus equals the spectral radius ρ(V); every
        other eigenvalue has modulus strictly smaller than ρ(V) (proved).
    prec : int
        Precision (bits) at which the separation was proved.
    exact_ties : int
        How many equalities of moduli were proved by the exact test (Lemma H4).
    """

    members: list[Eigenvalue]
    prec: int
    exact_ties: int

    @property
    def unique(self) -> Eigenvalue | None:
        """The only eigenvalue of maximal modulus, if there is only one."""
        return self.members[0] if len(self.members) == 1 else None

    @property
    def positive_real(self) -> Eigenvalue | None:
        """The unique dominant eigenvalue if it is real and > 0, else None."""
        ev = self.unique
        if ev is None or not ev.is_real:
            return None
        sg = sign(ev.ball.real)
        if sg is Truth.UNDECIDED:  # cannot happen for an isolated nonzero real root
            raise UndecidedError("sign of the dominant eigenvalue not decided")
        return ev if sg == 1 else None


@dataclass(frozen=True)
class LeadingEigenvector:
    """φ₁ spanning ker(V − λ₁I) for a simple real eigenvalue λ₁, and ⟨Qφ₁, Kφ₁⟩.

    Attributes
    ----------
    phi : list of arb, shape (d,)
        Enclosure of the unit vector φ₁ (Euclidean norm 1; sign fixed as documented
        in :attr:`normalization`).
    direction : tuple of Fraction or None
        An exact rational vector spanning the kernel, when λ₁ is rational.
    form : Fraction or arb
        ⟨Qφ₁, Kφ₁⟩ = φ₁ᵀ(QᵀK)φ₁: exact when λ₁ is rational, else an enclosure.
    form_sign : int
        The exact sign of ⟨Qφ₁, Kφ₁⟩ (+1, 0 or −1).
    method : str
        ``"rational"``, ``"number field"`` or ``"interval solve"``.
    normalization : str
        How the sign of φ₁ was fixed.
    """

    phi: list[arb]
    direction: tuple[Fraction, ...] | None
    form: Fraction | arb
    form_sign: int
    method: str
    normalization: str

    def to_json(self, digits: int = 30) -> dict[str, object]:
        out: dict[str, object] = {
            "phi1": [arb_to_json(x, digits) for x in self.phi],
            "phi1_normalization": self.normalization,
            "method": self.method,
            "form_sign": self.form_sign,
        }
        if self.direction is not None:
            out["phi1_direction_exact"] = [fraction_to_str(x) for x in self.direction]
        if isinstance(self.form, Fraction):
            out["Qphi1_Kphi1"] = fraction_to_str(self.form)
        else:
            out["Qphi1_Kphi1"] = arb_to_json(self.form, digits)
        return out


# ---------------------------------------------------------------------------------
def _companion(f: fmpz_poly) -> list[list[Fraction]]:
    """Companion matrix of ``f`` (its eigenvalues are the roots of f)."""
    c = [Fraction(int(x)) for x in f.coeffs()]
    m = len(c) - 1
    C = [[Fraction(0)] * m for _ in range(m)]
    for i in range(1, m):
        C[i][i - 1] = Fraction(1)
    for i in range(m):
        C[i][m - 1] = -c[i] / c[m]
    return C


def _kron_self(C: Sequence[Sequence[Fraction]]) -> fmpq_mat:
    """``C ⊗ C`` as an exact FLINT matrix (its eigenvalues: all products of two)."""
    m = len(C)
    entries = []
    for i1 in range(m):
        for i2 in range(m):
            for j1 in range(m):
                for j2 in range(m):
                    x = C[i1][j1] * C[i2][j2]
                    entries.append(fmpq(x.numerator, x.denominator))
    return fmpq_mat(m * m, m * m, entries)


def _arb_poly(p: fmpq_poly) -> arb_poly:
    return arb_poly([arb(c) for c in p.coeffs()])


def _overlaps(a: arb, b: arb) -> bool:
    return bool(a.overlaps(b))


def kernel_vector(A: arb_mat, lam: arb, k: int, r: int) -> list[arb] | None:
    """ψ with (A − λI)ψ = 0 and ψ_k = 1, for a simple real eigenvalue λ in the ball ``lam``.

    Row r of A − λI is replaced by e_kᵀ and the system solved with right-hand side e_r.
    If Arb proves the modified matrix nonsingular for every λ in the ball, the solution
    encloses the kernel vector normalized by ψ_k = 1 (Lemma H5); None if it cannot.
    """
    n = A.nrows()
    M = arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            M[i, j] = int(j == k) if i == r else A[i, j] - (lam if i == j else 0)
    rhs = arb_mat(n, 1)
    rhs[r, 0] = 1
    try:
        sol = M.solve(rhs)
    except ZeroDivisionError:
        return None
    return [sol[i, 0] for i in range(n)]


class Spectrum:
    """The exact spectrum of a rational square matrix V.

    Parameters
    ----------
    V : Matrix, shape (d, d)
        Exact rational matrix.

    Attributes
    ----------
    charpoly : fmpq_poly
        ``det(xI − V)``, exact.
    factors : list of (fmpz_poly, int)
        Irreducible factors over Q (primitive, positive leading coefficient) with their
        exponents; the product of ``f**e`` is ``charpoly`` up to a rational constant.
    """

    def __init__(self, V: Matrix) -> None:
        self.V = V
        self.d = len(V)
        self._Vq = to_fmpq_mat(V)
        self.charpoly: fmpq_poly = self._Vq.charpoly()
        _, facs = primitive_integer_poly(self.charpoly).factor()
        self.factors: list[tuple[fmpz_poly, int]] = [
            (f if int(f.leading_coefficient()) > 0 else -f, int(e)) for f, e in facs]
        self._roots: dict[int, list[Eigenvalue]] = {}
        self._aux_roots: dict[tuple[int, int, int], list[arb]] = {}
        self.exact_tie_tests = 0

    # -- isolation -------------------------------------------------------------------
    def eigenvalues(self, prec: int = DEFAULT_PREC) -> list[Eigenvalue]:
        """Every distinct eigenvalue, isolated, refined to ``prec`` relative bits.

        Real eigenvalues come first within each factor, in ascending order.
        """
        if prec not in self._roots:
            out = []
            with ctx.workprec(prec):
                for idx, (f, e) in enumerate(self.factors):
                    rational = None
                    if f.degree() == 1:
                        c0, c1 = (int(x) for x in f.coeffs())
                        rational = Fraction(-c0, c1)
                    for z, _ in f.complex_roots():
                        out.append(Eigenvalue(idx, e, bool(z.imag.is_zero()), z, rational))
            self._roots[prec] = out
        return self._roots[prec]

    # -- exact modulus comparisons -----------------------------------------------------
    def _tie_degree(self, i: int, j: int) -> int:
        m = self.factors[i][0].degree() + (0 if i == j else self.factors[j][0].degree())
        return m * m

    def _aux_real_roots(self, i: int, j: int, prec: int) -> list[arb]:
        """Isolated real roots of the polynomial whose roots are all products of two
        roots of ``f_i · f_j`` (Lemma H4)."""
        key = (min(i, j), max(i, j), prec)
        if key not in self._aux_roots:
            blocks = [_companion(self.factors[i][0])]
            if i != j:
                blocks.append(_companion(self.factors[j][0]))
            size = sum(len(b) for b in blocks)
            C = [[Fraction(0)] * size for _ in range(size)]
            off = 0
            for b in blocks:
                for r, row in enumerate(b):
                    for c, x in enumerate(row):
                        C[off + r][off + c] = x
                off += len(b)
            H = primitive_integer_poly(_kron_self(C).charpoly())
            with ctx.workprec(prec):
                self._aux_roots[key] = [z.real for z, _ in H.complex_roots() if z.imag.is_zero()]
        return self._aux_roots[key]

    def same_modulus(self, a: Eigenvalue, b: Eigenvalue, prec: int) -> bool | None:
        """Decide |a| = |b| exactly for two distinct eigenvalues, or None at this prec.

        ``True``/``False`` are proofs (Lemma H4); ``None`` means the isolating balls at
        ``prec`` are too wide to tell which root of the auxiliary polynomial |a|² and
        |b|² are (a higher precision will decide), or that the auxiliary polynomial
        would exceed :data:`MAX_TIE_DEGREE` (only refinement can then separate them).
        """
        if a.factor == b.factor and not a.is_real:
            # b = ā exactly when conj(A) meets b's ball and no other root ball of the
            # factor (the balls isolate the roots, and ā is a root of the same factor).
            with ctx.workprec(prec):
                conj = a.ball.conjugate()
                hits = [e for e in self.eigenvalues(prec)
                        if e.factor == a.factor and e.ball.overlaps(conj)]
            if len(hits) == 1 and hits[0].ball.overlaps(b.ball):
                return True
        if a.is_real and b.is_real:
            sa, sb = sign(a.ball.real), sign(b.ball.real)
            if sa is Truth.UNDECIDED or sb is Truth.UNDECIDED:
                return None  # refine
            if sa == sb:  # distinct real numbers of one sign have distinct moduli
                return False
            # |a| = |b| with opposite signs means a = -b; both are roots of an
            # irreducible factor, so f_b(-x) must be proportional to f_a(x).
            fa, fb = self.factors[a.factor][0], self.factors[b.factor][0]
            fb_neg = fmpz_poly([int(c) * (-1) ** k for k, c in enumerate(fb.coeffs())])
            if fb_neg != fa and fb_neg != -fa:
                return False
            with ctx.workprec(prec):
                same_factor = [e.ball.real for e in self.eigenvalues(prec)
                               if e.factor == a.factor and e.is_real]
                hits = [r for r in same_factor if _overlaps(r, -b.ball.real)]
                if len(hits) != 1:
                    return None
                return bool(hits[0].overlaps(a.ball.real))
        if self._tie_degree(a.factor, b.factor) > MAX_TIE_DEGREE:
            return None  # beyond the exact test: only refinement can still separate them
        self.exact_tie_tests += 1
        roots = self._aux_real_roots(a.factor, b.factor, prec)
        with ctx.workprec(prec):
            ma = a.ball.real ** 2 + a.ball.imag ** 2
            mb = b.ball.real ** 2 + b.ball.imag ** 2
            ia = [k for k, r in enumerate(roots) if _overlaps(r, ma)]
            ib = [k for k, r in enumerate(roots) if _overlaps(r, mb)]
        if len(ia) != 1 or len(ib) != 1:
            return None
        return ia[0] == ib[0]

    @cached_property
    def dominant(self) -> Dominant:
        """The set of eigenvalues of maximal modulus, decided exactly (Lemma H3/H4).

        Raises
        ------
        UndecidedError
            Only past :data:`MAX_PREC` bits or :data:`MAX_TIE_DEGREE` (documented limits).
        """
        prec = DEFAULT_PREC
        while prec <= MAX_PREC:
            evs = self.eigenvalues(prec)
            with ctx.workprec(prec):
                mods = [abs(e.ball) for e in evs]
                lows = [m.lower() for m in mods]
                top = max(range(len(evs)), key=lambda k: lows[k])
                # Candidates: moduli not provably below the largest lower bound. Each
                # overlaps the top one, so each must be proved equal to it, or refined.
                cands = [k for k, m in enumerate(mods) if not (m < lows[top])]
            ties, resolved = 0, True
            for k in cands:
                if k == top:
                    continue
                cheap = self._tie_degree(evs[k].factor, evs[top].factor) <= 64 or prec >= 256
                same = self.same_modulus(evs[k], evs[top], prec) if cheap else None
                if same is True:
                    ties += 1
                else:  # unequal but overlapping, or not yet identifiable: refine
                    resolved = False
                    break
            if resolved:
                return Dominant([evs[k] for k in cands], prec, ties)
            prec *= 2
        raise UndecidedError(
            f"the eigenvalues of largest modulus were not separated within {MAX_PREC} bits "
            f"and the exact tie test is limited to auxiliary degree {MAX_TIE_DEGREE}")

    # -- structure of one eigenvalue -------------------------------------------------
    def is_semisimple(self, ev: Eigenvalue) -> bool:
        """Exact: geometric multiplicity equals algebraic multiplicity.

        True when the irreducible factor of ``ev`` divides the minimal polynomial of V
        only once (Lemma H6).
        """
        if ev.multiplicity == 1:
            return True
        f = fmpq_poly(self.factors[ev.factor][0].coeffs())
        minpoly = self._Vq.minpoly()
        return not (minpoly % (f * f)).is_zero()

    def leading_eigenvector(self, ev: Eigenvalue, B: Matrix) -> LeadingEigenvector:
        """φ₁ and the exact sign of ``φ₁ᵀ B φ₁`` for a simple real eigenvalue (Lemma H5).

        Parameters
        ----------
        ev : Eigenvalue
            A real eigenvalue of multiplicity 1.
        B : Matrix, shape (d, d)
            ``QᵀK``.
        """
        if not ev.is_real or ev.multiplicity != 1:
            raise ValueError("leading_eigenvector() needs a simple real eigenvalue")
        if ev.rational is not None:
            return self._eigvec_rational(ev.rational, B)
        if self.d <= EXACT_EIGVEC_MAX_D:
            return self._eigvec_number_field(ev, B)
        try:
            return self._eigvec_interval(ev, B)
        except UndecidedError:
            return self._eigvec_number_field(ev, B)

    def _eigvec_rational(self, lam: Fraction, B: Matrix) -> LeadingEigenvector:
        d = self.d
        A = fmpq_mat(d, d, [fmpq(x.numerator, x.denominator) for x in
                            (self.V[i][j] - (lam if i == j else 0)
                             for i in range(d) for j in range(d))])
        R, rank = A.rref()
        pivots, row = [], 0
        for col in range(d):
            if row < rank and R[row, col] != 0:
                pivots.append(col)
                row += 1
        free = [c for c in range(d) if c not in pivots]
        k = free[0]  # simple eigenvalue: exactly one free column
        psi = [Fraction(0)] * d
        psi[k] = Fraction(1)
        for r, c in enumerate(pivots):
            psi[c] = -fmpq_to_fraction(R[r, k])
        first = next(x for x in psi if x != 0)
        if first < 0:
            psi = [-x for x in psi]
        norm2 = sum(x * x for x in psi)
        form = sum(psi[i] * B[i][j] * psi[j] for i in range(d) for j in range(d)) / norm2
        with ctx.workprec(DEFAULT_PREC + 64):
            nrm = arb_of(norm2).sqrt()
            phi = [arb_of(x) / nrm for x in psi]
        return LeadingEigenvector(phi, tuple(psi), form, (form > 0) - (form < 0), "rational",
                                  "unit norm, first nonzero coordinate positive")

    def _eigvec_number_field(self, ev: Eigenvalue, B: Matrix) -> LeadingEigenvector:
        """Exact kernel of V − λI over Q(λ) = Q[x]/(f) by Gauss–Jordan elimination."""
        f = fmpq_poly(self.factors[ev.factor][0].coeffs())
        d = self.d
        x = fmpq_poly([0, 1])

        def red(p: fmpq_poly) -> fmpq_poly:
            return p % f

        def inv(p: fmpq_poly) -> fmpq_poly:
            g, s, _ = p.xgcd(f)  # s p + t f = g, a nonzero constant since f irreducible
            return red(s / g.coeffs()[0])

        A = [[red(fmpq_poly([fmpq(v.numerator, v.denominator)]) - (x if i == j else 0))
              for j, v in enumerate(row)] for i, row in enumerate(self.V)]
        pivots, r = [], 0
        for c in range(d):
            p = next((i for i in range(r, d) if not A[i][c].is_zero()), None)
            if p is None:
                continue
            A[r], A[p] = A[p], A[r]
            piv_inv = inv(A[r][c])
            A[r] = [red(e * piv_inv) for e in A[r]]
            for i in range(d):
                if i != r and not A[i][c].is_zero():
                    fac = A[i][c]
                    A[i] = [red(a - fac * b) for a, b in zip(A[i], A[r])]
            pivots.append(c)
            r += 1
        free = [c for c in range(d) if c not in pivots]
        k = free[0]
        psi = [fmpq_poly([0])] * d
        psi[k] = fmpq_poly([1])
        for row, c in enumerate(pivots):
            psi[c] = red(-A[row][k])
        s_poly = fmpq_poly([0])
        for i in range(d):
            for j in range(d):
                if B[i][j] != 0 and not psi[i].is_zero() and not psi[j].is_zero():
                    s_poly += psi[i] * psi[j] * fmpq(B[i][j].numerator, B[i][j].denominator)
        s_poly = red(s_poly)
        n_poly = red(sum((p * p for p in psi), fmpq_poly([0])))
        prec = DEFAULT_PREC
        while True:
            lam = self._refined_real(ev, prec)
            with ctx.workprec(prec):
                vals = [_arb_poly(p)(lam) for p in psi]
                first = next(v for p, v in zip(psi, vals) if not p.is_zero())
                s_val = _arb_poly(s_poly)(lam)
                n_val = _arb_poly(n_poly)(lam)
                sg = 0 if s_poly.is_zero() else sign(s_val)
                fs = sign(first)
                if sg is not Truth.UNDECIDED and fs is not Truth.UNDECIDED and \
                        sign(n_val) == 1:
                    nrm = n_val.sqrt()
                    phi = [fs * v / nrm for v in vals]
                    form = arb(0) if sg == 0 else s_val / n_val
                    return LeadingEigenvector(phi, None, form, sg, "number field",
                                              "unit norm, first nonzero coordinate positive")
            prec *= 2
            if prec > MAX_PREC:  # pragma: no cover - a nonzero algebraic number separates
                raise UndecidedError("sign of ⟨Qφ₁,Kφ₁⟩ not separated within MAX_PREC bits")

    def _refined_real(self, ev: Eigenvalue, prec: int) -> arb:
        """The real eigenvalue ``ev`` re-isolated at ``prec`` bits."""
        if prec <= DEFAULT_PREC:
            return ev.ball.real
        with ctx.workprec(prec):
            cands = [e.ball.real for e in self.eigenvalues(prec)
                     if e.factor == ev.factor and e.is_real and e.ball.real.overlaps(ev.ball.real)]
        if len(cands) != 1:  # cannot happen: the old ball isolates ev among f's roots
            raise UndecidedError("lost track of an isolated eigenvalue while refining")
        return cands[0]

    def _eigvec_interval(self, ev: Eigenvalue, B: Matrix) -> LeadingEigenvector:
        """Rigorous interval solve for φ with φ_k = 1 (Lemma H5, large d).

        The system is V − λI with row r replaced by e_kᵀ, right-hand side e_r. If Arb
        proves this matrix nonsingular for every λ in the ball, its solution encloses
        the kernel vector normalized by φ_k = 1.
        """

        d = self.d
        scale = max((abs(x) for row in self.V for x in row), default=Fraction(1)) or Fraction(1)
        Vf = np.array([[float(x / scale) for x in row] for row in self.V])
        lam_f = float(ev.ball.real.mid()) / float(scale)
        w, vr = np.linalg.eig(Vf)
        wl, vl = np.linalg.eig(Vf.T)
        right = np.abs(vr[:, int(np.argmin(np.abs(w - lam_f)))])
        left = np.abs(vl[:, int(np.argmin(np.abs(wl - lam_f)))])
        ks = list(np.argsort(-right)[:3])
        rs = list(np.argsort(-left)[:3])
        Bm = arb_mat(to_fmpq_mat(B))
        prec = DEFAULT_PREC
        while prec <= 1024:
            lam = self._refined_real(ev, prec)
            with ctx.workprec(prec):
                Vm = arb_mat(self._Vq)
                for k in map(int, ks):
                    for r in map(int, rs):
                        vec = kernel_vector(Vm, lam, k, r)
                        if vec is None:
                            continue
                        phi = arb_mat(d, 1, vec)
                        num = (phi.transpose() * Bm * phi)[0, 0]
                        den = (phi.transpose() * phi)[0, 0]
                        sg = sign(num)
                        if sg is Truth.UNDECIDED or sg == 0:
                            break  # a zero-containing form needs more precision
                        nrm = den.sqrt()
                        return LeadingEigenvector([x / nrm for x in vec], None,
                                                  num / den, sg, "interval solve",
                                                  f"unit norm, coordinate {k} positive")
            prec *= 2
        raise UndecidedError("interval eigenvector solve did not separate the sign of "
                             "⟨Qφ₁,Kφ₁⟩ within 1024 bits")
