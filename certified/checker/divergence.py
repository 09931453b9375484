"""Lemma T11 re-checked (Lemma C22): Theorem 8.5 refuted in discrete time for μΔt > 2.

The certificate stores boxes of x^{[K]} (the caller compares them with its own iteration
of the layer map, Lemma C21, and decides B ≻ 0), lower ends q_i of x_iᵀBx_i on them,
L ≤ max_i q_i, ē ≥ 1/e and ρ ≤ γ − h(n − 1)ē/L with ρ > 1. Every one is re-derived here
in exact rationals (``proofs_notes/checker.md``, C22); ē ≥ 1/e by a partial sum of e.
Nothing is imported from the producer.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

from .energy import check_layer_step, quadratic_form, stored_boxes
from .errors import CheckFailure
from .lemmas import _q, closed

__all__ = ["E_LOWER", "T11_KEYS", "T11_STATEMENT", "T11_TITLE", "check_t11",
           "check_t11_verdict"]

#: The lemma's title, fields and the statement its refutation carries (the checker's own
#: copies, compared verbatim).
T11_TITLE = ("T11 (divergence of the layer map, V = −μI with μΔt > 2, B symmetric positive "
             "definite)")
T11_KEYS = frozenset({"lemma", "T", "dt", "layer", "mu", "h", "boxes_at_T", "q_at_T_lower",
                      "M2_lower", "inv_e_upper", "rho_lower"})
T11_STATEMENT = ("for layers k >= K = T/dt: max_i x_i^T B x_i >= rho^(2 (k - K)) L "
                 "with rho > 1, so not every x_i -> 0")

#: Σ_{m ≤ 12} 1/m! ≤ e (every term of e's series is positive): a stored ē with
#: ē·E_LOWER ≥ 1 satisfies ē ≥ 1/e.
E_LOWER = sum((Fraction(1, factorial(m)) for m in range(13)), Fraction(0))


def check_t11(lemma: dict, lam: Fraction | None, B: list[list[Fraction]], n: int,
              dt: Fraction) -> dict:
    """Lemma T11 from its stored data: V = −μI with the stored μ; h = μΔt > 2; each
    q_i ≤ the lower end of x_iᵀBx_i on the stored box; 0 < L ≤ max_i q_i; ē·E_LOWER ≥ 1
    (so ē ≥ 1/e); 1 < ρ ≤ (h − 1) − h(n − 1)ē/L, all exact. Returns the boxes, L and ρ."""
    h = check_layer_step(lemma, lam, dt, lambda h: h > 2, "> 2")
    boxes = stored_boxes(lemma, n, len(B))
    qs = lemma["q_at_T_lower"]
    if not isinstance(qs, list) or len(qs) != n:
        raise CheckFailure("tail_lemma.q_at_T_lower", f"{n} bounds", repr(qs)[:60])
    stored = []
    for i, box in enumerate(boxes):
        low = quadratic_form(box, B)[0]
        q = _q(qs[i], f"tail_lemma.q_at_T_lower[{i}]")
        if q > low:
            raise CheckFailure(f"tail_lemma.q_at_T_lower[{i}]", f"<= {float(low)!r} "
                               "(the lower end of x_iᵀBx_i on boxes_at_T)", str(qs[i]))
        stored.append(q)
    L = _q(lemma["M2_lower"], "tail_lemma.M2_lower")
    if not 0 < L <= max(stored):
        raise CheckFailure("tail_lemma.M2_lower", f"0 < L <= max_i q_at_T_lower = "
                           f"{float(max(stored))!r}", str(lemma["M2_lower"]))
    ebar = _q(lemma["inv_e_upper"], "tail_lemma.inv_e_upper")
    if not ebar * E_LOWER >= 1:
        raise CheckFailure("tail_lemma.inv_e_upper", "a number >= 1/e (checked: "
                           "inv_e_upper · Σ_{m<=12} 1/m! >= 1)", str(lemma["inv_e_upper"]))
    bound = (h - 1) - h * (n - 1) * ebar / L
    rho = _q(lemma["rho_lower"], "tail_lemma.rho_lower")
    if not 1 < rho <= bound:
        raise CheckFailure("tail_lemma.rho_lower", "1 < rho <= μΔt − 1 − μΔt(n − 1)·"
                           f"inv_e_upper/M2_lower = {float(bound)!r}", str(lemma["rho_lower"]))
    return {"boxes": boxes, "L": L, "rho": rho}


def check_t11_verdict(obj: dict, t11: dict) -> None:
    """What Lemma T11 proves: Theorem 8.5 refuted, no limit, and the evidence
    {"diverges": {statement, M2_lower, rho_lower}} equal to the lemma's (exact)."""
    if obj.get("theorem") != "8.5" or obj.get("verdict") != "refuted":
        raise CheckFailure("verdict", "'refuted' for Theorem 8.5 (what Lemma T11 proves)",
                           f"{obj.get('verdict')!r} for Theorem {obj.get('theorem')!r}")
    if obj.get("limit") is not None:
        raise CheckFailure("limit", "null (the verdict is 'refuted')", repr(obj["limit"])[:60])
    ev = closed(obj.get("evidence") or {}, {"diverges"}, "evidence")
    dv = closed(ev.get("diverges") or {}, {"statement", "M2_lower", "rho_lower"},
                "evidence.diverges")
    if dv.get("statement") != T11_STATEMENT:
        raise CheckFailure("evidence.diverges.statement", repr(T11_STATEMENT),
                           repr(dv.get("statement"))[:80])
    for key, want in (("M2_lower", t11["L"]), ("rho_lower", t11["rho"])):
        if not isinstance(dv.get(key), str) or _q(dv[key], f"evidence.diverges.{key}") != want:
            raise CheckFailure(f"evidence.diverges.{key}", f"{want} (tail_lemma.{key})",
                               repr(dv.get(key))[:60])
