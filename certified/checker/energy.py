"""Re-checking the energy lemmas for V = −μI, B symmetric positive definite (in x):
Lemma T6 (the bound on every q_i = x_iᵀBx_i, Lemma C7) and Lemma T9 (energy decay:
Theorem 8.5 at t = ∞, Lemma C18 of ``proofs_notes/checker.md``).

T9's certificate carries T6's fields (its E_T is the sum of T6's q_i(T) bounds, checked
against the replayed set at T by :func:`check_t6_at_T`) and four more: ``E_T_upper``,
``rank_bound``, ``kappa_lower`` and ``c_lower``, each re-derived here in exact rationals or
outward-rounded balls.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import mpmath.libmp as libmp

from .balls import const, exp_down, exp_up, le_q, mpf_down, mpf_up, mul_up
from .errors import CheckFailure
from .lemmas import Iv, _add, _iv, _mul, _q, closed

__all__ = ["T6_BOUND", "T6_STATEMENT", "T9_STATEMENT", "T9D_KEYS", "T9D_STATEMENT", "T9D_TITLE",
           "check_layer_step", "check_t6_at_T", "check_t6_data", "check_t6_limit",
           "check_t9_data", "check_t9_discrete", "check_t9_limit", "quadratic_form",
           "stored_boxes"]

#: Lemma T6's statement (compared verbatim) and the key of its bound in ``limit.proved``.
T6_STATEMENT = "x_i(t)^T B x_i(t) <= log n + (q_i(T) - log n)^+ e^{-2 mu (t - T)}"
T6_BOUND = "sup_{t>=T} max_i x_i^T B x_i <="


def check_t6_limit(obj: dict, lemma: dict) -> None:
    """Lemma T6 proves no limit: the verdict is undecided and ``limit.proved`` restates
    the lemma (:func:`_check_proved`)."""
    if obj["verdict"] != "undecided":
        raise CheckFailure("verdict", "'undecided' (no lemma proves a limit here)",
                           repr(obj["verdict"]))
    if obj.get("evidence") is not None:
        raise CheckFailure("evidence", "null", repr(obj["evidence"])[:60])
    _check_proved(closed(obj.get("limit") or {}, {"proved"}, "limit"), lemma)


def _check_proved(lim: dict, lemma: dict) -> None:
    """``limit.proved`` restates Lemma T6: its bound is at least the stored sup bound
    (checked at T against the replay) and its T is the lemma's."""
    if "proved" not in lim:
        return
    pr = closed(lim["proved"], {T6_BOUND, "for t >= T", "T"}, "limit.proved")
    if pr.get("for t >= T") != T6_STATEMENT:
        raise CheckFailure("limit.proved.for t >= T", repr(T6_STATEMENT),
                           repr(pr.get("for t >= T")))
    if _q(pr.get("T"), "limit.proved.T") != _q(lemma["T"], "tail_lemma.T"):
        raise CheckFailure("limit.proved.T", str(lemma["T"]), repr(pr.get("T")))
    if _q(pr.get(T6_BOUND), f"limit.proved.{T6_BOUND}") < \
            _q(lemma["sup_q_upper"], "tail_lemma.sup_q_upper"):
        raise CheckFailure(f"limit.proved.{T6_BOUND}", f">= {lemma['sup_q_upper']} "
                           "(tail_lemma.sup_q_upper, checked against the replay)",
                           repr(pr.get(T6_BOUND)))


def _is_q(x: str, value: Fraction) -> bool:
    """Whether the string x is the exact number ``value`` (False for a non-number)."""
    try:
        return Fraction(x) == value
    except (ValueError, ZeroDivisionError):
        return False


def _bounds(lemma: dict) -> list[Fraction]:
    """``q_at_T_upper`` read as a list of exact numbers, each named in a failure."""
    qs = lemma["q_at_T_upper"]
    if not isinstance(qs, list) or not qs:
        raise CheckFailure("tail_lemma.q_at_T_upper", "a list of bounds", repr(qs)[:60])
    return [_q(q, f"tail_lemma.q_at_T_upper[{i}]") for i, q in enumerate(qs)]


def check_t6_data(lemma: dict, lam: Fraction, t_end: Fraction, variable: str) -> None:
    """Lemma T6's data that need no replay: V = −μI in x at T = t_end, exp(L) ≥ n for the
    stored L ≥ log n, sup bound ≥ max of the stored q_i(T) and L (Lemma C7)."""
    if variable != "x" or lam >= 0 or -lam != _q(lemma["mu"], "tail_lemma.mu") or \
            _q(lemma["T"], "tail_lemma.T") != t_end:
        raise CheckFailure("tail_lemma", f"T6 data for V = −μI in x at T = {t_end}",
                           f"mu = {lemma.get('mu')}, T = {lemma.get('T')}")
    qs = _bounds(lemma)
    L = _q(lemma["log_n_upper"], "tail_lemma.log_n_upper")
    n = len(qs)
    if const(L).exp().lo_q() < n:
        raise CheckFailure("tail_lemma.log_n_upper", f"L with e^L >= {n}", str(L))
    if _q(lemma["sup_q_upper"], "tail_lemma.sup_q_upper") < max(max(qs), L):
        raise CheckFailure("tail_lemma.sup_q_upper", f">= {float(max(max(qs), L))!r} "
                           "(max of q_at_T_upper and log_n_upper)", str(lemma["sup_q_upper"]))


def check_t6_at_T(lemma: dict, B: list[list[Fraction]], n: int, S: Any) -> None:
    """Lemma T6's inputs at T: q_i(T) = x_iᵀBx_i ≤ stored bound on the replayed box S (the
    set at T: the dispatcher's replay ends at the lemma's T, and the variable is x, both
    checked by :func:`check_t6_data`)."""
    d = len(B)
    qs = _bounds(lemma)
    if len(qs) != n:
        raise CheckFailure("tail_lemma.q_at_T_upper", f"{n} bounds", str(len(qs)))
    box = S.box().reshape(n, d)
    Bb = [[const(x) for x in row] for row in B]
    for i in range(n):
        val = sum((box[i, a] * Bb[a][b] * box[i, b] for a in range(d) for b in range(d)),
                  const(0))
        if val.hi_q() > qs[i]:
            raise CheckFailure(f"tail_lemma.q_at_T_upper[{i}]",
                               f">= {float(val.hi_q())!r} (x_iᵀBx_i on the replayed box)",
                               str(lemma["q_at_T_upper"][i]))


#: Lemma T9's statement (the checker's own copy, compared verbatim: it proves this one).
T9_STATEMENT = ("for t >= T: sum_i x_i^T B x_i <= E_T / (1 + c (t - T)) and "
                "|P_ij(t) - 1/n| <= (exp(2 sum_i x_i^T B x_i) - 1)/n")


def _energy_constants(lemma: dict, E: Fraction, total: Fraction, kappa: Fraction, n: int,
                      d: int) -> int:
    """T9's shared constants (both forms): E_T ≥ ``total`` (the sum of the q_i bounds),
    ``rank_bound`` = r = max(1, min(d, n − 1)), and 0 < κ ≤ e^{−2E_T}. Returns r."""
    if E < total:
        raise CheckFailure("tail_lemma.E_T_upper", f">= {float(total)!r} (the sum of "
                           "q_at_T_upper)", str(lemma["E_T_upper"]))
    r = max(1, min(d, n - 1))
    if type(lemma["rank_bound"]) is not int or lemma["rank_bound"] != r:
        raise CheckFailure("tail_lemma.rank_bound", f"{r} (max(1, min(d, n - 1)))",
                           repr(lemma["rank_bound"]))
    # e^{−2E_T} bounded below in relative precision (mpmath floats rounded down): the
    # fixed-point balls' absolute unit would lose it below ~2^−P, and κ may be that small
    low = exp_down(mpf_down(-2 * E))
    if not (0 < kappa and libmp.mpf_cmp(mpf_up(kappa), low) <= 0):
        raise CheckFailure("tail_lemma.kappa_lower", "0 < kappa <= exp(-2 E_T_upper) >= "
                           f"{libmp.to_str(low, 17)}", str(lemma["kappa_lower"]))
    return r


def check_t9_data(lemma: dict, n: int, d: int) -> dict:
    """Lemma T9's constants from T6's (already checked) data: E_T ≥ Σ q_i(T) bounds,
    r = max(1, min(d, n − 1)), 0 < κ ≤ e^{−2E_T} (the ball's lower end), and
    0 < c ≤ μκE_T/(nr) in exact rationals. Returns c."""
    E = _q(lemma["E_T_upper"], "tail_lemma.E_T_upper")
    qs = _bounds(lemma)
    kappa = _q(lemma["kappa_lower"], "tail_lemma.kappa_lower")
    r = _energy_constants(lemma, E, sum(qs, Fraction(0)), kappa, n, d)
    mu, c = _q(lemma["mu"], "tail_lemma.mu"), _q(lemma["c_lower"], "tail_lemma.c_lower")
    bound = mu * kappa * E / (n * r)
    if not 0 < c <= bound:
        raise CheckFailure("tail_lemma.c_lower", f"0 < c <= mu·kappa·E_T/(n·r) = "
                           f"{float(bound)!r}", str(lemma["c_lower"]))
    return {"c": c}


def check_t9_limit(obj: dict, lemma: dict, c: Fraction, n: int, d: int,
                   statement: str = T9_STATEMENT) -> None:
    """Theorem 8.5 certified by Lemma T9: one cluster at the origin with every token,
    P* = (1/n)·ones of rank 1, the rate ``statement`` verbatim with a constant ≤ the
    checked c, and T6's bound restated (:func:`check_t6_limit`'s rules; continuous time
    only: in discrete time T6 is not proved and ``limit.proved`` is refused)."""
    discrete = statement != T9_STATEMENT
    if obj["theorem"] != "8.5" or obj["verdict"] != "certified":
        raise CheckFailure("verdict", "'certified' for Theorem 8.5 (what Lemma T9 proves)",
                           f"{obj['verdict']!r} for Theorem {obj['theorem']}")
    if obj.get("evidence") is not None:
        raise CheckFailure("evidence", "null", repr(obj["evidence"])[:60])
    lim = closed(obj.get("limit") or {}, {"clusters", "attention_limit", "attention_rank",
                                          "rate"} | (set() if discrete else {"proved"}),
                 "limit")
    _check_proved(lim, lemma)
    want = [{"members": list(range(n)), "center": [["0", "0"]] * d}]
    if "clusters" in lim and lim["clusters"] != want:
        raise CheckFailure("limit.clusters", f"{want} (every token tends to the origin)",
                           repr(lim["clusters"])[:80])
    if "attention_limit" in lim:
        P = lim["attention_limit"]
        if not (isinstance(P, list) and len(P) == n and all(
                isinstance(row, list) and len(row) == n and
                all(isinstance(x, str) and _is_q(x, Fraction(1, n)) for x in row)
                for row in P)):
            raise CheckFailure("limit.attention_limit", f"every entry 1/{n}", repr(P)[:80])
    if "attention_rank" in lim and (type(lim["attention_rank"]) is not int or
                                    lim["attention_rank"] != 1):
        raise CheckFailure("limit.attention_rank", "1", repr(lim["attention_rank"]))
    if "rate" in lim:
        rate = closed(lim["rate"], {"statement", "c_lower_bound"}, "limit.rate")
        if rate.get("statement") != statement:
            raise CheckFailure("limit.rate.statement", repr(statement),
                               repr(rate.get("statement")))
        if not 0 < _q(rate.get("c_lower_bound"), "limit.rate.c_lower_bound") <= c:
            raise CheckFailure("limit.rate.c_lower_bound", f"0 < c <= {c} (tail_lemma.c_lower, "
                               "checked)", repr(rate.get("c_lower_bound")))


# -- Lemma T9 in discrete time (Lemma C18 with Δt) ---------------------------------------------

#: The discrete form's title, keys and statement (the checker's own copies).
T9D_TITLE = ("T9 in discrete time (energy decay of the layer map, V = −μI, B symmetric "
             "positive definite)")
T9D_KEYS = frozenset({"lemma", "T", "dt", "layer", "mu", "h", "epsilon", "boxes_at_T",
                      "q_at_T_upper", "E_T_upper", "rank_bound", "kappa_lower", "c_lower"})
T9D_STATEMENT = ("for layers k >= K = T/dt: sum_i x_i^T B x_i <= E_T / (1 + c (k - K)) and "
                 "|P_ij - 1/n| <= (exp(2 sum_i x_i^T B x_i) - 1)/n")


def check_layer_step(lemma: dict, lam: Fraction | None, dt: Fraction,
                     holds: Callable[[Fraction], bool], condition: str) -> Fraction:
    """The layer map's setting of Lemmas T9 (discrete form) and T11: the stored μ with
    V = −μI, μ > 0 (exactly), and the stored h = μΔt satisfying the lemma's ``condition``
    (``holds``); returns h."""
    mu = _q(lemma["mu"], "tail_lemma.mu")
    if lam is None or lam >= 0 or mu != -lam:
        raise CheckFailure("tail_lemma.mu", "μ with V = −μI, μ > 0 (exactly)", str(lemma["mu"]))
    h = mu * dt
    if _q(lemma["h"], "tail_lemma.h") != h or not holds(h):
        raise CheckFailure("tail_lemma.h", f"μΔt = {h} and {condition}", str(lemma["h"]))
    return h


def stored_boxes(lemma: dict, n: int, d: int) -> list[list[Iv]]:
    """``boxes_at_T`` read as n×d exact intervals (shape checked)."""
    rows = lemma["boxes_at_T"]
    if not isinstance(rows, list) or len(rows) != n or \
            any(not isinstance(r, list) or len(r) != d for r in rows):
        raise CheckFailure("tail_lemma.boxes_at_T", f"{n}×{d} boxes", "another shape")
    return [[_iv(p, f"tail_lemma.boxes_at_T[{i}]") for p in row] for i, row in enumerate(rows)]


def quadratic_form(box: list[Iv], B: list[list[Fraction]]) -> Iv:
    """An interval containing xᵀBx for every x in the box (exact rational interval
    arithmetic, term by term)."""
    d = len(B)
    val: Iv = (Fraction(0), Fraction(0))
    for a in range(d):
        for b in range(d):
            val = _add(val, _mul(_mul(box[a], (B[a][b], B[a][b])), box[b]))
    return val


def check_t9_discrete(lemma: dict, lam: Fraction | None, B: list[list[Fraction]], n: int,
                      dt: Fraction) -> dict:
    """Lemma T9's discrete form from its stored data (the caller checks the boxes at the
    layer K against its own iteration and that B ≻ 0): V = −μI with the stored μ;
    h = μΔt < 2; a rational ε > 0 with h(1 + ε) < 2; q_i ≥ x_iᵀBx_i on the stored boxes
    (exact rational interval arithmetic); E_T ≥ Σ q_i; r; 0 < κ ≤ e^{−2E_T}; the
    step-size condition 4·h·(1 + 1/ε)·E_T·e^{4E_T} ≤ κ/r (e^{4E_T} in mpmath rounded up);
    and 0 < c ≤ h·m·E_T/2 with m = min((2 − h(1 + ε))/E_T, κ/(nr)), exact. Returns the
    boxes and c."""
    d = len(B)
    h = check_layer_step(lemma, lam, dt, lambda h: h < 2, "< 2")
    eps = _q(lemma["epsilon"], "tail_lemma.epsilon")
    if not (eps > 0 and h * (1 + eps) < 2):
        raise CheckFailure("tail_lemma.epsilon", f"0 < ε < 2/h − 1 = {float(2 / h - 1)!r} "
                           "(h(1 + ε) < 2)", str(lemma["epsilon"]))
    boxes = stored_boxes(lemma, n, d)
    qs = lemma["q_at_T_upper"]
    if not isinstance(qs, list) or len(qs) != n:
        raise CheckFailure("tail_lemma.q_at_T_upper", f"{n} bounds", repr(qs)[:60])
    total = Fraction(0)
    for i, box in enumerate(boxes):
        val = quadratic_form(box, B)
        q = _q(qs[i], f"tail_lemma.q_at_T_upper[{i}]")
        if q < val[1]:
            raise CheckFailure(f"tail_lemma.q_at_T_upper[{i}]", f">= {float(val[1])!r} "
                               "(x_iᵀBx_i on boxes_at_T)", str(qs[i]))
        total += q
    E = _q(lemma["E_T_upper"], "tail_lemma.E_T_upper")
    kappa = _q(lemma["kappa_lower"], "tail_lemma.kappa_lower")
    r = _energy_constants(lemma, E, total, kappa, n, d)
    growth = mul_up(exp_up(mpf_up(4 * E)), mpf_up(4 * h * (1 + 1 / eps) * E))
    if not le_q(growth, kappa / r):
        raise CheckFailure("tail_lemma.E_T_upper", "a value with 4·h·(1 + 1/ε)·E_T·"
                           f"exp(4 E_T) <= kappa/r = {float(kappa / r)!r} (the step-size "
                           "condition)", f"{lemma['E_T_upper']} ({libmp.to_str(growth, 17)})")
    if E <= 0:
        raise CheckFailure("tail_lemma.E_T_upper", "> 0", str(lemma["E_T_upper"]))
    m = min((2 - h * (1 + eps)) / E, kappa / (n * r))
    c = _q(lemma["c_lower"], "tail_lemma.c_lower")
    if not 0 < c <= h * m * E / 2:
        raise CheckFailure("tail_lemma.c_lower", "0 < c <= h·min((2 - h(1 + ε))/E_T, "
                           f"kappa/(n r))·E_T/2 = {float(h * m * E / 2)!r}",
                           str(lemma["c_lower"]))
    return {"boxes": boxes, "c": c}
