"""Exact verdicts on the hypotheses of Theorems 2.1, 3.1, 4.2, 5.2 and 8.5.

:func:`classify` returns a :class:`RegimeReport`: for each theorem, one named
:class:`Check` per hypothesis with a plain boolean and a reason. Every boolean is
decided exactly — rational arithmetic, exact polynomial algebra, or Arb enclosures
that separate (see :mod:`certified.exact.spectrum`); ``proofs_notes/hypotheses.md`` proves
why each check decides its hypothesis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

from certified.exact.arb_convert import arb_to_json
from certified.exact.instance import Discrete, Instance
from certified.exact.linalg import (
    first_difference,
    identity,
    inertia,
    sym_part,
    transpose,
)
from certified.exact.rationals import fraction_to_str
from certified.exact.spectrum import Dominant, LeadingEigenvector, Spectrum

__all__ = ["Check", "TheoremReport", "RegimeReport", "classify", "THEOREMS"]

THEOREMS = ("2.1", "3.1", "4.2", "5.2", "8.5")
_TITLES = {
    "2.1": "d = 1: P(t) tends to a Boolean matrix of rank <= 2",
    "3.1": "V = I: tokens cluster at points of the boundary of a polytope (or 0)",
    "4.2": "good triple: at most three parallel hyperplanes",
    "5.2": "paranormal V: polytope x subspace",
    "8.5": "V = -I, QᵀK = I: every token tends to 0 (in x)",
}
_EXACT_MATRIX_MAX_D = 16
_q = fraction_to_str


@dataclass(frozen=True)
class Check:
    """One hypothesis, decided exactly.

    Attributes
    ----------
    name : str
        The hypothesis, e.g. ``"V == I_d"``.
    holds : bool
        The exact verdict.
    detail : str
        Why, in words a mathematician would accept.
    """

    name: str
    holds: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "holds": self.holds, "detail": self.detail}


@dataclass(frozen=True)
class TheoremReport:
    """The checks of one theorem's hypotheses, plus informational facts."""

    theorem: str
    checks: list[Check]
    informational: list[Check] = field(default_factory=list)

    @property
    def hypotheses_hold(self) -> bool:
        return all(c.holds for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hypotheses_hold": self.hypotheses_hold,
                               "statement": _TITLES[self.theorem],
                               "checks": [c.to_json() for c in self.checks]}
        if self.informational:
            out["informational"] = [c.to_json() for c in self.informational]
        return out


@dataclass(frozen=True)
class RegimeReport:
    """Exact classification of one instance; ``to_json()`` is the spec's output."""

    n: int
    d: int
    k: int
    theorems: dict[str, TheoremReport]
    spectrum: dict[str, Any]
    time: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "d": self.d, "k": self.k,
                "theorems": {t: r.to_json() for t, r in self.theorems.items()},
                "spectrum": self.spectrum, "time": self.time}

    def to_table(self) -> str:
        """A plain-text table for people."""
        lines = [f"n = {self.n} tokens, d = {self.d}, k = {self.k}; time: {self.time['mode']}"]
        for t, rep in self.theorems.items():
            verdict = "HYPOTHESES HOLD" if rep.hypotheses_hold else "hypotheses fail"
            lines.append(f"Theorem {t} ({_TITLES[t]}): {verdict}")
            for c in rep.checks:
                lines.append(f"  [{'x' if c.holds else ' '}] {c.name}: {c.detail}")
            for c in rep.informational:
                lines.append(f"  (i) {c.name}: {'yes' if c.holds else 'no'}; {c.detail}")
        if "note" in self.time:
            lines.append(f"note: {self.time['note']}")
        return "\n".join(lines)


class _Classifier:
    """Computes each exact fact once; the theorem methods only read them."""

    def __init__(self, inst: Instance) -> None:
        self.inst = inst
        self.d = inst.d
        self.B = inst.B

    # -- exact facts -------------------------------------------------------------------
    @cached_property
    def spectrum(self) -> Spectrum:
        return Spectrum(self.inst.V)

    @cached_property
    def dominant(self) -> Dominant:
        return self.spectrum.dominant

    @cached_property
    def B_asymmetry(self) -> tuple[int, int] | None:
        return first_difference(self.B, transpose(self.B))

    @cached_property
    def B_inertia(self):
        return inertia(self.B) if self.B_asymmetry is None else None

    @cached_property
    def symB_inertia(self):
        # sym(QᵀK) = QᵀK when QᵀK is symmetric: reuse, the charpoly is the costly part.
        return self.B_inertia if self.B_asymmetry is None else inertia(sym_part(self.B))

    @cached_property
    def leading(self) -> LeadingEigenvector | None:
        ev = self.dominant.positive_real
        if ev is None or ev.multiplicity != 1:
            return None
        return self.spectrum.leading_eigenvector(ev, self.B)

    # -- shared checks -----------------------------------------------------------------
    def _equals_scaled_identity(self, M, scale: int, name: str, label: str) -> Check:
        diff = first_difference(M, identity(self.d, Fraction(scale)))
        if diff is None:
            return Check(name, True, f"{label} equals {'−' if scale < 0 else ''}I_{self.d} exactly")
        i, j = diff
        want = scale if i == j else 0
        return Check(name, False, f"{label}[{i}][{j}] = {_q(M[i][j])}, but "
                                  f"{'−' if scale < 0 else ''}I_{self.d} has {want} there")

    def check_B_symmetric(self) -> Check:
        if self.B_asymmetry is None:
            return Check("QᵀK symmetric", True, "QᵀK equals its transpose exactly")
        i, j = self.B_asymmetry
        return Check("QᵀK symmetric", False,
                     f"QᵀK[{i}][{j}] = {_q(self.B[i][j])} ≠ QᵀK[{j}][{i}] = {_q(self.B[j][i])}")

    def check_B_pd(self) -> Check:
        name = "QᵀK positive definite"
        if self.B_inertia is None:
            return Check(name, False, "QᵀK is not symmetric; the proofs use A = (QᵀK)^(1/2), so "
                                      "the hypothesis is read as symmetric positive definite "
                                      "(see the relaxed reading)")
        p, z, n = self.B_inertia
        if (p, z, n) == (self.d, 0, 0):
            return Check(name, True, f"inertia (positive, zero, negative) = {p, z, n}: all "
                                     f"{self.d} eigenvalues positive (exact, Descartes' rule)")
        why = "singular" if z else "indefinite" if p and n else "not positive"
        return Check(name, False, f"inertia (positive, zero, negative) = {p, z, n}: QᵀK is {why}")

    def relaxed_pd(self) -> Check:
        p, z, n = self.symB_inertia
        holds = (p, z, n) == (self.d, 0, 0)
        return Check("sym(QᵀK) positive definite (relaxed reading, not the hypothesis)", holds,
                     f"inertia of (QᵀK + KᵀQ)/2 = {p, z, n}")

    def _dominant_words(self) -> str:
        dom = self.dominant
        vals = ", ".join(e.describe() for e in dom.members)
        if len(dom.members) == 1:
            return f"the eigenvalue of largest modulus is {vals}"
        return (f"{len(dom.members)} distinct eigenvalues share the largest modulus: {vals} "
                f"(equality of moduli proved exactly)")

    # -- theorems ----------------------------------------------------------------------
    def theorem_2_1(self) -> TheoremReport:
        d, inst = self.d, self.inst
        checks = [Check("d == 1", d == 1, f"d = {d}")]
        if d == 1:
            v, b = inst.V[0][0], self.B[0][0]
            checks.append(Check("V > 0", v > 0, f"V = {_q(v)}"))
            checks.append(Check("QᵀK > 0", b > 0,
                                f"QᵀK = Σ_r Q[r][0]·K[r][0] = {_q(b)} (a scalar, k = {inst.k})"))
        else:
            checks.append(Check("V > 0", False, f"V is {d}×{d}; the scalar condition needs d = 1"))
            checks.append(Check("QᵀK > 0", False, f"QᵀK is {d}×{d}; the scalar condition "
                                                   f"needs d = 1"))
        seen: dict[tuple[Fraction, ...], int] = {}
        dup = None
        for i, x in enumerate(inst.X0):
            if x in seen:
                dup = (seen[x], i)
                break
            seen[x] = i
        checks.append(Check("tokens pairwise distinct", dup is None,
                            f"all {inst.n} tokens are distinct" if dup is None
                            else f"tokens {dup[0]} and {dup[1]} coincide"))
        return TheoremReport("2.1", checks)

    def theorem_3_1(self) -> TheoremReport:
        return TheoremReport("3.1", [
            self._equals_scaled_identity(self.inst.V, 1, "V == I_d", "V"),
            self.check_B_symmetric(), self.check_B_pd()], [self.relaxed_pd()])

    def theorem_4_2(self) -> TheoremReport:
        dom = self.dominant
        ev = dom.unique
        checks = [Check("largest modulus attained by one eigenvalue", ev is not None,
                        self._dominant_words())]
        pos = dom.positive_real
        checks.append(Check("that eigenvalue is real and positive", pos is not None,
                            "λ₁ = " + pos.describe() if pos is not None else
                            "no single real positive eigenvalue of largest modulus"))
        simple = pos is not None and pos.multiplicity == 1
        checks.append(Check("that eigenvalue is algebraically simple", simple,
                            (f"algebraic multiplicity {pos.multiplicity}" if pos is not None
                             else "undefined: Definition 4.1(i) already fails")))
        lead = self.leading
        if lead is None:
            checks.append(Check("⟨Qφ₁, Kφ₁⟩ > 0", False,
                                "undefined: no simple positive dominant eigenvalue λ₁"))
        else:
            val = ("= " + _q(lead.form) if isinstance(lead.form, Fraction)
                   else "∈ [{}, {}]".format(*arb_to_json(lead.form, 12)))
            words = {1: "positive", 0: "exactly zero", -1: "negative"}[lead.form_sign]
            checks.append(Check("⟨Qφ₁, Kφ₁⟩ > 0", lead.form_sign > 0,
                                f"⟨Qφ₁, Kφ₁⟩ {val} for unit φ₁: {words} ({lead.method})"))
        return TheoremReport("4.2", checks)

    def paranormal(self) -> tuple[Check, int | None]:
        pos = self.dominant.positive_real
        name = "V paranormal (Definition 5.1)"
        if pos is None:
            return Check(name, False, self._dominant_words() + "; a paranormal V needs a single "
                                      "real λ > 0 of largest modulus"), None
        if not self.spectrum.is_semisimple(pos):
            return Check(name, False, f"λ = {pos.describe()} has a Jordan block (not "
                                      f"semisimple): no invariant F with V|F = λ·Id carries "
                                      f"its generalized eigenspace"), None
        dim_f = pos.multiplicity  # semisimple: dim ker(V − λI) = algebraic multiplicity
        return Check(name, True, f"λ = {pos.describe()} is semisimple, F = ker(V − λI) has "
                                 f"dim {dim_f}, every other eigenvalue has modulus < λ "
                                 f"(proved), so ρ(V|G) < λ"), dim_f

    def theorem_5_2(self) -> TheoremReport:
        para, _ = self.paranormal()
        return TheoremReport("5.2", [self.check_B_symmetric(), self.check_B_pd(), para],
                             [self.relaxed_pd()])

    def theorem_8_5(self) -> TheoremReport:
        return TheoremReport("8.5", [
            self._equals_scaled_identity(self.inst.V, -1, "V == −I_d", "V"),
            self._equals_scaled_identity(self.B, 1, "QᵀK == I_d", "QᵀK")])

    # -- free-form spectral section ------------------------------------------------------
    def spectrum_json(self) -> dict[str, Any]:
        sp, dom = self.spectrum, self.dominant
        evs = sp.eigenvalues(dom.prec)
        out: dict[str, Any] = {
            "charpoly_factors": [
                {"degree": f.degree(), "multiplicity": e,
                 **({"coefficients": [str(c) for c in f.coeffs()]} if f.degree() <= 16 else {})}
                for f, e in sp.factors],
            "eigenvalues": [e.to_json() for e in evs],
            "spectral_radius": arb_to_json(abs(dom.members[0].ball)),
            "dominant_eigenvalues": [evs.index(e) for e in dom.members],
            "dominant_exact_ties": dom.exact_ties,
            "precision_bits": dom.prec,
        }
        pos = dom.positive_real
        if pos is not None:
            out["lambda1"] = (_q(pos.rational) if pos.rational is not None
                              else arb_to_json(pos.ball.real))
            out["lambda1_multiplicity"] = pos.multiplicity
            para, dim_f = self.paranormal()
            out["paranormal"] = para.holds
            if dim_f is not None:
                out["dim_F"] = dim_f
        if self.leading is not None:
            out.update(self.leading.to_json())
        if self.d <= _EXACT_MATRIX_MAX_D:
            out["QtK"] = [[_q(x) for x in row] for row in self.B]
        out["QtK_symmetric"] = self.B_asymmetry is None
        if self.B_inertia is not None:
            out["QtK_inertia"] = self.B_inertia.as_dict()
        out["sym_QtK_inertia"] = self.symB_inertia.as_dict()
        return out

    def time_json(self) -> dict[str, Any]:
        t = self.inst.time
        if isinstance(t, Discrete):
            return {"mode": "discrete", "dt": _q(t.dt),
                    "det_R": _q(self.inst.R_determinant),
                    "note": "the theorems are stated in continuous time; the paper says the "
                            "proofs carry over to discrete time with no stated step-size "
                            "condition (uncertain). The checks above are the continuous-time "
                            "hypotheses."}
        out: dict[str, Any] = {"mode": "continuous"}
        if self.inst.variant is not None:
            out["variant"] = self.inst.variant.to_json()
            out["note"] = ("the instance carries an open variant (certified.exact.variant_spec); the checks "
                           "above are for its own V, Q, K in the paper's dynamics, which no "
                           "theorem extends to the variant")
        return out


def classify(instance: Instance) -> RegimeReport:
    """Decide exactly which theorems' hypotheses hold for ``instance``.

    Parameters
    ----------
    instance : Instance
        The exact instance.

    Returns
    -------
    RegimeReport
        One :class:`TheoremReport` per theorem in :data:`THEOREMS` and a free-form
        spectral section (eigenvalue enclosures of V, λ₁, φ₁, ⟨Qφ₁,Kφ₁⟩, inertia).

    Raises
    ------
    UndecidedError
        Only beyond the documented limits of :mod:`certified.exact.spectrum` (precision above
        ``MAX_PREC`` bits, or an exact modulus tie needing an auxiliary polynomial of
        degree above ``MAX_TIE_DEGREE``).
    """
    c = _Classifier(instance)
    theorems = {"2.1": c.theorem_2_1(), "3.1": c.theorem_3_1(), "4.2": c.theorem_4_2(),
                "5.2": c.theorem_5_2(), "8.5": c.theorem_8_5()}
    return RegimeReport(instance.n, instance.d, instance.k, theorems, c.spectrum_json(),
                        c.time_json())
