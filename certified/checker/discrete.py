"""The layer map of discrete time, iterated in the checker's exact balls (Lemma C21).

A discrete-time certificate (Lemmas T10 and T11, T7's, T8's and T9's discrete forms)
stores no step data: the layer map of Remark 1.1,
x⁺ = x + Δt·P(x)·X·Vᵀ, has no truncation, so the checker iterates it itself from the
exact X0 in :class:`~.balls.Ball` arithmetic (fixed point at the check's scale, exp by
mpmath's directed rounding) and compares the certificate's boxes at the layer K with its
own enclosure of z^[K] = (1 + λΔt)^{−K} x^[K]. Plain interval iteration: each layer's
enclosure contains the map's image of the previous one by inclusion isotonicity, whatever
the wrapping; only the widths depend on the scale (proof in ``proofs_notes/checker.md``,
Lemma C21). Nothing here is imported from the producer.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .balls import Ball, BallError, const, scale, scaled
from .claims import THEOREMS, check_timescale, nothing_claimed
from .limits import own_bits
from .errors import CheckFailure
from .lemmas import (T4_KEYS, RATE_STATEMENT_DISCRETE, _q, check_leader_follower,
                     check_stored_boxes, check_t4_verdict, closed, stored_contains)
from .paranormal import (T8_KEYS, T8_TITLE, check_paranormal, check_paranormal_boxes,
                         check_paranormal_verdict)
from .divergence import T11_KEYS, T11_TITLE, check_t11, check_t11_verdict
from .energy import T9D_KEYS, T9D_STATEMENT, T9D_TITLE, check_t9_discrete, check_t9_limit
from .hypotheses import is_positive_definite
from .projected import T7_KEYS, T7_TITLE, _inverse, check_projected, check_t7_verdict

__all__ = ["T10_TITLE", "check_boxes_at_layer", "check_discrete", "iterate_layers",
           "layer_map", "z_boxes"]


def _row_max_column(row: list[Ball]) -> int:
    """Any column serves as the softmax shift (the quotient does not depend on it); the
    largest midpoint keeps the exponentials ≤ e^{width}. The balls share one scale, so
    their scaled integer midpoints compare exactly, at any magnitude (a binary64 reading
    overflows beyond 1.8·10^308)."""
    return max(range(len(row)), key=lambda j: row[j].m)


def layer_map(X: np.ndarray, V: list[list[Fraction]], B: list[list[Fraction]],
              dt: Fraction) -> np.ndarray:
    """One layer x⁺_i = x_i + Δt Σ_j P_ij (V x_j) on a box X (n, d) of Balls, with
    P_ij = e^{U_ij}/Σ_k e^{U_ik}, U_ij = x_iᵀB(x_j − x_{l_i}) (any shift l_i: I1)."""
    n, d = X.shape
    Bb = [[const(B[a][c]) for c in range(d)] for a in range(d)]
    Vb = [[const(V[a][c]) for c in range(d)] for a in range(d)]
    h = const(dt)
    G = [[sum((X[i, a] * Bb[a][c] for a in range(1, d)), X[i, 0] * Bb[0][c])
          for c in range(d)] for i in range(n)]  # rows x_iᵀB
    out = np.empty((n, d), dtype=object)
    VX = [[sum((Vb[a][c] * X[j, c] for c in range(1, d)), Vb[a][0] * X[j, 0])
           for a in range(d)] for j in range(n)]  # V x_j
    for i in range(n):
        scores = [sum((G[i][c] * X[j, c] for c in range(1, d)), G[i][0] * X[j, 0])
                  for j in range(n)]
        lead = _row_max_column(scores)
        U = [sum((G[i][c] * (X[j, c] - X[lead, c]) for c in range(1, d)),
                 G[i][0] * (X[j, 0] - X[lead, 0])) for j in range(n)]
        E = [u.exp() for u in U]
        Z = E[0]
        for e in E[1:]:
            Z = Z + e
        for a in range(d):
            acc = E[0] * VX[0][a]
            for j in range(1, n):
                acc = acc + E[j] * VX[j][a]
            out[i, a] = X[i, a] + h * (acc / Z)
    return out


def iterate_layers(X0: list[list[Fraction]], V: list[list[Fraction]],
                   B: list[list[Fraction]], dt: Fraction, layers: int) -> np.ndarray:
    """Balls containing x^[layers] (n, d), from the exact X0."""
    X = np.array([[const(v) for v in row] for row in X0], dtype=object)
    for _ in range(layers):
        X = layer_map(X, V, B, dt)
    return X


def z_boxes(X: np.ndarray, lam: Fraction, dt: Fraction, K: int, leader: list[int]
            ) -> tuple[np.ndarray, dict[int, list[Ball]]]:
    """(z^[K] boxes (n, d), follower j ↦ the d balls of z_j − z_{l(j)}) for V = λI:
    z = (1 + λΔt)^{−K}·x, the exact factor as a ball of the rational. Differences from
    the x-boxes before scaling."""
    n, d = X.shape
    s = const(Fraction(1) / (1 + lam * dt) ** K)
    Z = np.array([[X[i, c] * s for c in range(d)] for i in range(n)], dtype=object)
    diffs = {j: [(X[j, c] - X[leader[j], c]) * s for c in range(d)]
             for j in range(n) if leader[j] != j}
    return Z, diffs


def check_boxes_at_layer(lf: dict, X: np.ndarray, lam: Fraction, dt: Fraction, K: int) -> None:
    """The certificate's boxes and follower differences at the layer K contain the
    checker's own enclosures (Lemma C21)."""
    Z, diffs = z_boxes(X, lam, dt, K, lf["leader"])
    check_stored_boxes(lf, Z, diffs, "iterated")


#: Lemma T10's title and fields; the integration fields of a discrete-time certificate.
T10_TITLE = "T10 (discrete leader-follower, V = λI)"
_T10_KEYS = T4_KEYS | {"dt", "layer"}
_DISCRETE_INTEG_KEYS = {"variable", "certified_until", "bits", "order", "backend", "steps",
                        "precision_attempts", "replay", "replay_note"}


def check_discrete(ctx: Any) -> str:
    """Lemma T10 (discrete time, V = λI): the lemma on its stored data, the verdict it
    implies, the integration's claims (layers of Δt up to certified_until), and the
    stored boxes at the layer K against the checker's own iteration of the layer map
    (Lemma C21: no step data are read)."""
    inst = ctx.obj["instance"]
    tm = inst.get("time")
    if not (isinstance(tm, dict) and set(tm) == {"discrete"}) or inst.get("variant") is not None:
        raise CheckFailure("instance.time", "discrete time {'discrete': Δt} without variant "
                           "(what Lemma T10 is about)", repr(tm))
    if ctx.integ is not None and ctx.integ.get("replay") is not None:
        raise CheckFailure("instance.time", "continuous time (the replay records are steps "
                           "of the differential equation)", repr(tm))
    dt = _frac(tm["discrete"], "instance.time.discrete")
    if dt <= 0:
        raise CheckFailure("instance.time.discrete", "Δt > 0", str(dt))
    # Remark 3.4's rescaled form needs R = I + ΔtV invertible (Instance requires it too).
    _inverse([[int(i == j) + dt * ctx.V[i][j] for j in range(len(ctx.V))]
              for i in range(len(ctx.V))], "instance.time.discrete (R = I + Δt·V)")
    if str(ctx.obj.get("theorem")) not in THEOREMS:
        raise CheckFailure("theorem", "one of " + ", ".join(THEOREMS), repr(ctx.obj.get("theorem")))
    if ctx.lemma is None:  # layers run, no lemma held: nothing is claimed
        nothing_claimed(ctx.obj)
        layers = _discrete_integration(ctx, dt, 0)
        # finite balls (BallError else), at finer scales while the iteration fails
        _iterate_until_fine(ctx, dt, 0, layers, lambda X: None)
        ctx.steps_checked = layers
        ctx.judge()
        return (f"valid: the layer map iterated to layer {layers} (Δt = {dt}); no lemma, "
                "verdict undecided")
    title = ctx.lemma.get("lemma")
    keys = {T10_TITLE: _T10_KEYS, T8_TITLE: T8_KEYS | {"dt", "layer"},
            T7_TITLE: T7_KEYS | {"dt", "layer"}, T9D_TITLE: T9D_KEYS, T11_TITLE: T11_KEYS}
    if title not in keys:
        raise CheckFailure("tail_lemma.lemma", f"{T10_TITLE!r}, {T8_TITLE!r}, {T7_TITLE!r}, "
                           f"{T9D_TITLE!r} or {T11_TITLE!r}", repr(title))
    closed(ctx.lemma, set(keys[title]), "tail_lemma")
    if _frac(ctx.lemma["dt"], "tail_lemma.dt") != dt:
        raise CheckFailure("tail_lemma.dt", f"{dt} (the instance's Δt)", repr(ctx.lemma["dt"]))
    K = ctx.lemma["layer"]
    if not isinstance(K, int) or isinstance(K, bool) or K < 0:
        raise CheckFailure("tail_lemma.layer", "a layer index >= 0", repr(K))
    if _frac(ctx.lemma["T"], "tail_lemma.T") != K * dt:
        raise CheckFailure("tail_lemma.T", f"{K * dt} (layer × Δt)", repr(ctx.lemma["T"]))
    if title == T8_TITLE:  # Theorem 5.2, paranormal V: T8's discrete form (Lemma C11)
        lf = check_paranormal(ctx.lemma, ctx.V, ctx.B, ctx.n, dt=dt)
        check_paranormal_verdict(ctx.obj, lf, ctx.X0, RATE_STATEMENT_DISCRETE)
    elif title == T7_TITLE:  # Theorems 4.2 / 5.2, simple dominant λ₁: T7's discrete form
        lf = check_projected(ctx.lemma, ctx.V, ctx.B, ctx.n, dt=dt)
        check_t7_verdict(ctx.obj, lf, dt=dt)
    elif title in (T9D_TITLE, T11_TITLE):  # Theorem 8.5, V = −μI, B ≻ 0 (C18 with Δt, C22)
        code = title.split(" ", 1)[0]
        if not is_positive_definite(ctx.B):
            raise CheckFailure("tail_lemma", f"Lemma {code}'s hypothesis QᵀK symmetric "
                               "positive definite (exact)", "another QᵀK")
        if title == T9D_TITLE:
            lf = check_t9_discrete(ctx.lemma, ctx.lam, ctx.B, ctx.n, dt)
            check_t9_limit(ctx.obj, ctx.lemma, lf["c"], ctx.n, len(ctx.B), T9D_STATEMENT)
        else:  # μΔt > 2: the conclusion refuted
            lf = check_t11(ctx.lemma, ctx.lam, ctx.B, ctx.n, dt)
            check_t11_verdict(ctx.obj, lf)
        # the run stops at its first success: the lemma's layer is the first one it held
        ts = closed(ctx.obj.get("timescale") or {}, {"T_first", "T_first_float", "T_used",
                                                    "meaning"}, "timescale")
        if "T_first" in ts and _frac(ts["T_first"], "timescale.T_first") != K * dt:
            raise CheckFailure("timescale.T_first", f"{K * dt} (tail_lemma.T: the run stops "
                               "at the first layer where the lemma holds)", repr(ts["T_first"]))
    else:
        if ctx.lam is None or ctx.lam <= 0:
            raise CheckFailure("instance.V", "V = λI with λ > 0 (Lemma T10)", "another V")
        lf = check_leader_follower(ctx.lemma, ctx.lam, ctx.B, ctx.n, dt=dt)
        check_t4_verdict(ctx.obj, lf, ctx.X0, ctx.B, rate_statement=RATE_STATEMENT_DISCRETE)
    layers = _discrete_integration(ctx, dt, K)

    def compare(X: np.ndarray) -> None:  # the stored boxes at K ⊇ the checker's own
        if title in (T7_TITLE, T9D_TITLE, T11_TITLE):  # boxes of x^[K] (no rescaling)
            _check_x_boxes(lf["boxes"], X)
        elif title == T8_TITLE:
            check_paranormal_boxes(lf, X, const(Fraction(1) / (1 + lf["lam"] * dt) ** K))
        else:
            check_boxes_at_layer(lf, X, ctx.lam, dt, K)
    _iterate_until_fine(ctx, dt, K, layers, compare)
    ctx.steps_checked = layers
    check_timescale(ctx, lf)
    ts = ctx.obj.get("timescale") or {}
    if "T_first" in ts and (_frac(ts["T_first"], "timescale.T_first") / dt).denominator != 1:
        raise CheckFailure("timescale.T_first", f"a layer time k·Δt (Δt = {dt})",
                           repr(ts["T_first"]))
    n = ctx.n
    if title == T7_TITLE:  # no P* is claimed (as in continuous time)
        ctx.judge()
    elif title == T9D_TITLE:
        ctx.judge({"clusters": 1, "P_star": [[Fraction(1, n)] * n for _ in range(n)]})
    elif title == T11_TITLE:  # no limit exists: only the conclusion is judged
        ctx.judge()
    else:
        P = [[Fraction(int(j == lf["leader"][i])) for j in range(n)] for i in range(n)]
        ctx.judge({"clusters": len(set(lf["leader"])), "P_star": P})
    return (f"valid: Lemma {title.split(' ')[0]} re-checked; the layer map iterated to layer {layers} "
            f"(Δt = {dt}, lemma at layer {K}); verdict {ctx.obj['verdict']!r} for Theorem "
            f"{ctx.obj['theorem']}")


#: Scales tried for the layer iteration after the check's own: 4, 16, 64 times the bits
#: of the stated digits (those above the check's own scale; a fourth rung, 256×, made a
#: forged box cost 8.6 s instead of 1.8 s) (plain interval iteration widens by ≈ 1 + Δt·|x|³ a layer, so long
#: runs need more bits; a choice of work only: every scale gives a true enclosure, Lemma
#: C21).
FINER = 3


def retry_ladder(first: int, digits: int) -> list[int]:
    """The bits the layer map is iterated at: the check's scale ``first``, then 4, 16, 64
    times 2·own_bits(digits) + 64 where that is finer — derived from the stated digits,
    never a multiple of a stored value (check_limits bounds the digits)."""
    base = 2 * own_bits(digits) + 64
    return [first] + [base * 4 ** k for k in range(1, FINER + 1) if base * 4 ** k > first]


def _iterate_until_fine(ctx: Any, dt: Fraction, K: int, layers: int, compare) -> None:
    """Iterate the layer map to the layer K, ``compare`` the stored boxes there, then on
    to ``layers`` (finite balls): at the check's scale, and again at 4, 16, 64 times its
    bits while the iteration overflows or the comparison fails (the last failure is
    reported). The outcome depends only on the certificate."""
    ladder = retry_ladder(scale(), int(ctx.obj["precision"]["digits"]))
    for attempt, bits in enumerate(ladder):
        try:
            with scaled(bits):
                X = iterate_layers(ctx.X0, ctx.V, ctx.B, dt, K)
                compare(X)
                for _ in range(K, layers):  # the layers claimed beyond K
                    X = layer_map(X, ctx.V, ctx.B, dt)
            return
        except (CheckFailure, BallError, OverflowError) as exc:
            if attempt == len(ladder) - 1 or (isinstance(exc, CheckFailure) and exc.final):
                if isinstance(exc, OverflowError):
                    raise BallError(f"the layer map's enclosure at {bits} bits: {exc}") \
                        from None
                raise


def _discrete_integration(ctx: Any, dt: Fraction, K: int) -> int:
    """The integration block of a discrete-time certificate: closed, the layer map's
    steps [k·Δt, Δt], certified_until at their end and ≥ the lemma's layer K; returns the
    number of layers claimed."""
    integ = ctx.integ
    if integ is None:
        raise CheckFailure("integration", "the layers run (Lemma T10 needs layer K)", "null")
    closed(integ, _DISCRETE_INTEG_KEYS, "integration")
    # the variable the producer's run reports its sets in: z for T10 (and no lemma), x for
    # T8 (whose F and G parts are taken from x); the checker reads no set, it iterates
    # the layer map in x itself
    # (with no lemma: the run of the lemma the instance admits, z for V = λI with λ > 0,
    # x for a T7 or T8 run that stopped undecided)
    title = (ctx.lemma or {}).get("lemma")
    if title is None:
        want = "z" if ctx.lam is not None and ctx.lam > 0 else "x"
    else:
        want = "x" if title in (T8_TITLE, T7_TITLE, T9D_TITLE, T11_TITLE) else "z"
    if integ.get("variable") != want or integ.get("order") != 1:
        raise CheckFailure("integration", f"variable {want!r} and order 1 (the layer map)",
                           f"{integ.get('variable')!r}, {integ.get('order')!r}")
    if integ.get("replay") is not None:
        raise CheckFailure("integration.replay", "null (the checker iterates the map itself)",
                           "replay data")
    for key in ("replay_note", "backend"):
        if not isinstance(integ.get(key, ""), str):
            raise CheckFailure(f"integration.{key}", "a string", "another type")
    if not (isinstance(integ.get("precision_attempts", []), list) and
            all(isinstance(x, str) for x in integ.get("precision_attempts", []))):
        raise CheckFailure("integration.precision_attempts", "a list of strings", "another type")
    steps = integ.get("steps")
    if not isinstance(steps, list) or any(
            not isinstance(st, list) or len(st) != 2 or
            _frac(st[0], f"integration.steps[{k}]") != k * dt or
            _frac(st[1], f"integration.steps[{k}]") != dt for k, st in enumerate(steps)):
        raise CheckFailure("integration.steps", f"[k·Δt, Δt] for k = 0, 1, … (Δt = {dt})",
                           repr(steps)[:60])
    layers = len(steps)
    until = _frac(integ.get("certified_until"), "integration.certified_until")
    if until != layers * dt or layers < K:
        raise CheckFailure("integration.certified_until", f"{layers * dt} (the end of "
                           f"integration.steps, >= tail_lemma.T = {K * dt})",
                           repr(integ.get("certified_until")))
    return layers


def _check_x_boxes(boxes: list, X: np.ndarray) -> None:
    """Lemma T7's stored boxes of x^[K] (exact rational intervals) contain the checker's
    own enclosure X (n, d) of the layer map's iterate (Lemma C21)."""
    for i, row in enumerate(boxes):
        for c, (lo, hi) in enumerate(row):
            stored_contains(f"tail_lemma.boxes_at_T[{i}][{c}]", lo, hi, X[i, c], "iterated",
                            f"[{lo}, {hi}]")


def _frac(x: Any, where: str) -> Fraction:
    """An exact number of the certificate given as a string or an int (not a JSON float
    or a boolean), parsed by the lemmas' :func:`~.lemmas._q`, or CheckFailure."""
    if isinstance(x, bool) or not isinstance(x, (str, int)):
        raise CheckFailure(where, "an exact number (a string)", repr(x)[:40])
    return _q(x, where)
