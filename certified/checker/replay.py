"""Replay of the validated steps of a certificate, with the checker's own arithmetic.

The certificate supplies, per step, what was *found* by search (the step h, the Taylor
order, the half-side ρ of the complex time square and the complex a-priori box) and the
Lohner set it claims for the state at the end of the step. The checker keeps its own set
(x = c + A·r) and, for each step, (1) verifies the complex Picard inclusion, (2) encloses
the Taylor polynomial at the centre and the Cauchy remainder, (3) encloses the flow's
Jacobian over the tube by the variational fixed point, (4) updates its set, and
(5) requires its own set, written in the stored coordinates (c, A), inside the stored set
(its r inside the stored r). Lemma numbers refer to ``proofs_notes/checker.md``.

Two simpler designs failed on real certificates and are why it is done this way:
comparing the box of the checker's own QR-basis set with a stored box (boxes of a
parallelepiped depend on the basis; failed at step 218 of a three-token run even with 1/8
slack), and starting each step from the stored, widened set (the widening compounded
through unstable directions).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .balls import Ball, BallError, CBall, bdot, const, interval, one, scale
from .dynamics import Field, _zeros
from .errors import CheckFailure

__all__ = ["LohnerSet", "replay_steps", "parse_interval"]

#: Picard tests per step: the stored box first, then boxes grown from it.
PICARD_TRIES = 10


def parse_interval(pair: list, where: str) -> Ball:
    """A ball containing the rational interval given as two decimal/fraction strings."""
    try:
        lo, hi = Fraction(pair[0]), Fraction(pair[1])
    except (TypeError, ValueError, IndexError, ZeroDivisionError) as exc:
        raise CheckFailure(where, "an interval [lo, hi] of exact numbers", repr(pair)) from exc
    if lo > hi:
        raise CheckFailure(where, "lo <= hi", f"[{pair[0]}, {pair[1]}]")
    return interval(lo, hi)


def parse_set(rec: dict, N: int, where: str) -> "LohnerSet":
    """The stored Lohner set {c + A·r} of a replay record (c, A exact; r intervals)."""
    try:
        c = [Fraction(x) for x in rec["c"]]
        A = [[Fraction(x) for x in row] for row in rec["A"]]
        r = rec["r"]
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise CheckFailure(where, "a set {c, A, r} of exact numbers", repr(exc)) from None
    if len(c) != N or len(A) != N or any(len(row) != N for row in A) or len(r) != N:
        raise CheckFailure(where, f"c of length {N}, A {N}×{N}, r of length {N}",
                           "other shapes")
    # Balls containing the exact c and A (exact when dyadic at this scale): the checks
    # below only need enclosures of them (Lemma C4).
    cb = [const(x) for x in c]
    Ab = [[const(x) for x in row] for row in A]
    return LohnerSet(np.array(cb, dtype=object), np.array(Ab, dtype=object),
                     np.array([parse_interval(x, where + ".r") for x in r], dtype=object))


def _exact(x: float) -> Ball:
    """An exact point near the float x (a choice: any exact point will do)."""
    return Ball(int(np.floor(np.ldexp(x, scale()))) if np.isfinite(x) else 0, 0)


def _identity(N: int) -> np.ndarray:
    I = _zeros((N, N))
    for a in range(N):
        I[a, a] = one()
    return I


@dataclass
class LohnerSet:
    """{c + A·ρ : ρ ∈ r}: c and A exact points (radius 0), r balls (Lemma C4)."""

    c: np.ndarray
    A: np.ndarray
    r: np.ndarray

    def box(self) -> np.ndarray:
        return self.c + bdot(self.A, self.r)

    def box_with_centre(self) -> np.ndarray:
        """c + A·hull(r, 0): a box containing the set and its centre c."""
        return self.c + bdot(self.A, np.array([x.union(Ball(0, 0)) for x in self.r],
                                              dtype=object))

    def linear_image(self, M: np.ndarray) -> np.ndarray:
        return bdot(M, self.c) + bdot(bdot(M, self.A), self.r)


def initial_set(X0: list[list[Fraction]]) -> LohnerSet:
    flat = [const(x) for row in X0 for x in row]
    c = np.array([Ball(b.m, 0) for b in flat], dtype=object)
    r = np.array([Ball(0, b.r) for b in flat], dtype=object)
    return LohnerSet(c, _identity(len(flat)), r)


def _inverse(A: np.ndarray) -> np.ndarray:
    """Balls containing the entries of A⁻¹ for the exact matrix A: R + E·… Neumann bound
    ‖A⁻¹ − R‖∞ ≤ ‖I − RA‖∞‖R‖∞/(1 − ‖I − RA‖∞) with R a float inverse (Lemma C4)."""
    N = A.shape[0]
    P = scale()
    Af = np.array([[x.mid_float() for x in row] for row in A])
    R = np.vectorize(_exact, otypes=[object])(np.linalg.inv(Af))
    E = _identity(N) - bdot(R, A)
    eps = Fraction(max(sum(x.abs_hi() for x in row) for row in E), 1 << P)
    normR = Fraction(max(sum(x.abs_hi() for x in row) for row in R), 1 << P)
    if eps >= Fraction(1, 2):
        raise CheckFailure("Lohner basis", "an invertible basis (‖I − RA‖ < 1/2)",
                           f"‖I − RA‖ = {float(eps):.3g}")
    delta = eps * normR / (1 - eps)
    pad = interval(-delta, delta)
    return R + pad


def _lohner_check(S: LohnerSet, T: np.ndarray, Mlin: np.ndarray, extra: np.ndarray,
                  out: LohnerSet, where: str) -> LohnerSet:
    """y₁ ∈ T + Mlin·A·r + extra for every y₀ = c + A·r, r ∈ S.r. In the stored
    coordinates (c₁, A₁): y₁ = c₁ + A₁ρ with ρ ∈ r₁' := A₁⁻¹Mlin A·r + A₁⁻¹(T − c₁ + extra)
    (Lemma C4). Verify r₁' ⊆ stored r₁ and return the checker's own set (c₁, A₁, r₁')."""
    M = bdot(Mlin, S.A)
    A1inv = _inverse(out.A)
    r1 = bdot(bdot(A1inv, M), S.r) + bdot(A1inv, (T - out.c) + extra)
    for i, (mine, claim) in enumerate(zip(r1, out.r)):
        if not claim.contains(mine):
            raise CheckFailure(f"{where}.set.r[{i}]",
                               f"an interval containing the recomputed {mine!r}", f"{claim!r}")
    return LohnerSet(out.c, out.A, r1)


def _variational(field: Field, tube: np.ndarray, t0: Fraction, h: Fraction, where: str
                 ) -> np.ndarray:
    """I + h·K·J with K = DF(tube, [t0, t0 + h]) and J a verified fixed-point box,
    I + [0, h]·K·J ⊆ J (Lemma C5)."""
    K = field.jacobian(tube, field.score_factor(interval(t0, t0 + h)))
    N = K.shape[0]
    I = _identity(N)
    hK = K * interval(Fraction(0), h)
    J = I + hK
    for _ in range(8):
        nxt = I + bdot(hK, J)
        if all(a.contains(b) for a, b in zip(J.flat, nxt.flat)):
            return I + bdot(K * const(h), J)
        # Widen by 1/4 of the radius plus 2^-20 of the row's largest radius: entries
        # near 0 that are fed by wider ones through the coupling need room of that size.
        grown = np.empty(J.shape, dtype=object)
        for a_ in range(N):
            row = [J[a_, b].union(nxt[a_, b]) for b in range(N)]
            slack = (max(w.r for w in row) >> 20) + 1
            for b, w in enumerate(row):
                grown[a_, b] = Ball(w.m, w.r + (w.r >> 2) + slack)
        J = grown
    raise CheckFailure(where, "a variational enclosure I + [0,h]·DF·J ⊆ J",
                       "no fixed-point box in 8 iterations")


def _grow(re: Ball, im: Ball) -> CBall:
    """Widen both radii by 1/4 (and one unit): room for the next Picard test."""
    return CBall(Ball(re.m, re.r + (re.r >> 2) + 1), Ball(im.m, im.r + (im.r >> 2) + 1))


def check_step(field: Field, S: LohnerSet, t0: Fraction, h: Fraction, order: int,
               rho: Fraction, apriori: list, stored: dict, where: str,
               velocity: list | None = None) -> LohnerSet:
    """Verify that the flow over [t0, t0 + h] maps the set S (the checker's own) into the
    stored output set ``stored``; return the checker's set at t0 + h, expressed in the
    stored coordinates (c, A) and contained in the stored set.

    With ``velocity`` (N exact numbers a), the a-priori box W is relative to the affine
    path c + τa (c the set's centre); without it, c = a = 0 and W is the plain box of
    Lemma I6's first form (Lemma C3)."""
    n, d = field.n, field.d
    N = n * d
    if not (0 < h < rho):
        raise CheckFailure(where, "0 < h < rho", f"h = {h}, rho = {rho}")
    if len(apriori) != N:
        raise CheckFailure(where, f"{N} a-priori intervals", f"{len(apriori)}")
    zero = Ball(0, 0)
    # The Taylor polynomial is taken at the centre c, so the Picard box, the tube and the
    # mean-value segments [c, y0] must all contain c: use Y ⊇ S ∪ {c} (Lemma C4). (The
    # stored c is the producer's; the checker's own r need not contain 0.)
    Y = S.box_with_centre()
    if velocity is None:
        c = np.array([zero] * N, dtype=object)
        a = np.array([zero] * N, dtype=object)
    else:
        if len(velocity) != N:
            raise CheckFailure(where + ".velocity", f"{N} exact numbers", f"{len(velocity)}")
        try:
            a = np.array([Ball(const(Fraction(x)).m, 0) for x in velocity], dtype=object)
        except (TypeError, ValueError, ZeroDivisionError):
            raise CheckFailure(where + ".velocity", "exact numbers", repr(velocity[:3])) from None
        c = S.c
    Y0 = Y - c  # the initial states relative to c (a real box)
    W = np.array([CBall(parse_interval(x[:2], where + ".apriori"),
                        parse_interval(x[2:], where + ".apriori")) for x in apriori],
                 dtype=object)
    side = interval(-rho, rho)
    D = CBall(side, side)
    cfac = field.score_factor(CBall(const(t0), zero) + D)
    cm, am = c.reshape(n, d), a.reshape(n, d)
    # The stored W is a hint found by the producer's search; the lemma needs *some* W
    # with (Y − c) + D·(F(Ĉ) − a) ⊂ int W, Ĉ = c + D·a + W. If the hint fails in this
    # arithmetic, iterate the Picard map from it a few times (Lemma C3).
    for attempt in range(PICARD_TRIES):
        Wm = W.reshape(n, d)
        F = field.velocity(cm + am * D + Wm, cfac,
                           lambda k: (cm - cm[k]) + (am - am[k]) * D + (Wm - Wm[k])).reshape(N)
        test = Y0 + (F - a) * D
        bad = [i for i in range(N) if not W[i].contains_interior(test[i])]
        if not bad:
            break
        if attempt == PICARD_TRIES - 1:
            i = bad[0]
            raise CheckFailure(where + f".apriori[{i}]",
                               "(Y − c) + D·(F(c + D·a + W, t0 + D) − a) inside the "
                               "interior of W (Picard)",
                               f"{test[i].re!r} + i{test[i].im!r} not inside "
                               f"{W[i].re!r} + i{W[i].im!r} (after {PICARD_TRIES - 1} Picard iterations)")
        W = np.array([_grow(W[i].re.union(test[i].re), W[i].im.union(test[i].im))
                      for i in range(N)], dtype=object)
    P = scale()
    M = [Fraction((W[i] + c[i] - Y[i]).abs_hi(), 1 << P) for i in range(N)]
    q = h / rho
    # Tube over [t0, t0 + h]: y(τ) ∈ Y + [0, h]·F(Y, t0) + M q²/(1 − q)·[−1, 1] (Cauchy).
    F0 = field.velocity(Y.reshape(n, d), field.score_factor(const(t0))).reshape(N)
    tail2 = q * q / (1 - q)
    span = interval(Fraction(0), h)
    tube = np.array([Y[i] + F0[i] * span + interval(-M[i] * tail2, M[i] * tail2)
                     for i in range(N)], dtype=object)
    jets = field.jets(S.c.reshape(n, d), t0, order)
    f = q ** (order + 1) / (1 - q)
    rem = np.array([interval(-m * f, m * f) for m in M], dtype=object)
    tube = _tight_tube(field, tube, jets, rem, Y - S.c, t0, h)
    Mlin = _variational(field, tube.reshape(n, d), t0, h, where)
    T = _horner(jets, const(h)).reshape(N)
    return _lohner_check(S, T, Mlin, rem, parse_set(stored, N, where + ".set"), where)


def _horner(coeffs: list, x: Ball) -> np.ndarray:
    """Σ_k coeffs[k]·x^k by Horner's rule (x a point or an interval of times)."""
    acc = coeffs[-1]
    for cf in reversed(coeffs[:-1]):
        acc = acc * x + cf
    return acc


def _tight_tube(field: Field, tube: np.ndarray, jets: list, rem: np.ndarray,
                offset: np.ndarray, t0: Fraction, h: Fraction) -> np.ndarray:
    """The tube narrowed by Lemma C3b: the centre's solution lies in Σ_k Z_k(c)[0, h]^k
    + R, every other one within ‖y0 − c‖∞/(1 − Lh) of it (L ≥ ‖DF(tube)‖∞, Lh < 1/2);
    intersected with the given tube."""
    n, d = field.n, field.d
    K = field.jacobian(tube.reshape(n, d), field.score_factor(interval(t0, t0 + h)))
    P = scale()
    L = Fraction(max(sum(x.abs_hi() for x in row) for row in K), 1 << P)
    if L * h >= Fraction(1, 2):
        return tube
    dev = Fraction(max(x.abs_hi() for x in offset), 1 << P)
    delta = dev / (1 - L * h)
    poly = _horner(jets, interval(Fraction(0), h))
    out = []
    for p, r, old in zip(poly.reshape(-1), rem, tube):
        fine = p + r + interval(-delta, delta)
        lo, hi = max(fine.lo(), old.lo()), min(fine.hi(), old.hi())
        out.append(Ball.from_ends(lo, hi) if lo <= hi else old)
    return np.array(out, dtype=object)


def _run(field: Field, S: LohnerSet, steps: list, replay: list, lo: int, hi: int,
         progress=None) -> LohnerSet:
    """Check records lo … hi − 1 from the set S (the state at the start of step lo)."""
    for k in range(lo, hi):
        rec, where = replay[k], f"integration.replay[{k}]"
        t0, h = Fraction(steps[k][0]), Fraction(steps[k][1])
        try:
            S = check_step(field, S, t0, h, int(rec["order"]), Fraction(rec["rho"]),
                           rec["apriori"], rec["set"], where, rec.get("velocity"))
        except BallError as exc:  # e.g. a sum of exponentials whose ball met 0
            raise CheckFailure(where, "finite enclosures in the step", str(exc)) from None
        if progress is not None:
            progress(k, t0 + h)
    return S


#: What a forked chunk worker reads (set just before the pool forks; never pickled).
_JOB: tuple | None = None

#: Fewest steps per worker for which a chunked replay is worth its fork.
MIN_CHUNK = 16


def _chunk(lo: int, hi: int, j: int) -> tuple:
    """Worker for chunk j: check records lo … hi − 1 from the *stored* set of record lo − 1
    (Lemma C12). Returns ("ok", own set at the end) or ("fail", message): any failure, even
    a malformed record, is decided again by the sequential replay, which reports the first.
    Counts its finished steps in the shared ``done[j]`` (progress only)."""
    field, steps, replay, N, done = _JOB

    def tick(k: int, t: Fraction) -> None:  # steps done in this chunk, for the parent
        done[j] = k + 1 - lo
    try:
        S = parse_set(replay[lo - 1]["set"], N, f"integration.replay[{lo - 1}].set")
        return ("ok", _run(field, S, steps, replay, lo, hi, tick))
    except Exception as exc:  # noqa: BLE001 — re-decided in order by the parent
        return ("fail", str(exc))


def replay_steps(field: Field, X0: list[list[Fraction]], steps: list, replay: list,
                 t_end: Fraction, progress=None, workers: int = 1,
                 final=None) -> LohnerSet:
    """Replay ``replay`` (aligned with ``steps``: [t0, h] strings) from t = 0 to t_end and
    return the checker's set at t_end, after calling ``final(S)`` on it (the caller's
    check at T, which raises :class:`CheckFailure`).

    With ``workers`` > 1 (and fork available) the records are cut into ``workers``
    contiguous chunks checked at once: chunk 0 from the exact initial set, chunk j from
    the stored set that ends chunk j − 1 (Lemma C12). If any chunk after the first, or
    ``final``, fails, everything after chunk 0 is replayed again in order from chunk 0's
    own set — the sequential check — so the outcome, and the first failure reported, are
    those of ``workers=1``; the chunks only make a valid certificate faster to check.
    """
    from threadpoolctl import threadpool_limits

    # The float products of Lemma C1f are tiny (N ≤ a few hundred): BLAS threads only cost
    # (10% on one process, measured; more with several workers on the same cores).
    with threadpool_limits(1, user_api="blas"):
        return _replay(field, X0, steps, replay, t_end, progress, workers, final)


def _replay(field: Field, X0: list[list[Fraction]], steps: list, replay: list,
            t_end: Fraction, progress, workers: int, final) -> LohnerSet:
    """:func:`replay_steps` with BLAS limited to one thread."""
    global _JOB
    S = initial_set(X0)
    if len(replay) > len(steps):
        raise CheckFailure("integration.replay", "at most one record per step",
                           f"{len(replay)} records for {len(steps)} steps")
    t = Fraction(0)  # the times chain (exact, cheap): checked once, before any step
    for k in range(len(replay)):
        t0, h = Fraction(steps[k][0]), Fraction(steps[k][1])
        if t0 != t:
            raise CheckFailure(f"integration.steps[{k}]", f"t0 = {t} (steps must chain)",
                               f"t0 = {t0}")
        t = t0 + h
    if t != t_end:
        raise CheckFailure("integration.replay", f"steps reaching t = {t_end}", f"t = {t}")
    final = final if final is not None else (lambda S: None)
    import multiprocessing as mp

    if workers <= 1 or len(replay) < MIN_CHUNK * workers or \
            "fork" not in mp.get_all_start_methods():
        S = _run(field, S, steps, replay, 0, len(replay), progress)
        final(S)
        return S
    from concurrent.futures import ProcessPoolExecutor, wait

    cuts = [len(replay) * j // workers for j in range(workers + 1)]
    ctx = mp.get_context("fork")
    done = ctx.Array("q", workers, lock=False)  # steps finished per chunk (shared memory)
    shown = [0] * workers

    def report() -> None:  # progress of every chunk, in the parent only
        if progress is None:
            return
        for j in range(1, workers):
            now = done[j]  # read once: the worker may move it meanwhile
            for k in range(cuts[j] + shown[j], cuts[j] + now):
                progress(k, Fraction(steps[k][0]) + Fraction(steps[k][1]))
            shown[j] = now

    def own(k: int, t: Fraction) -> None:
        if progress is not None:
            progress(k, t)
        report()
    try:
        with ProcessPoolExecutor(workers - 1, mp_context=ctx) as pool:
            _JOB = (field, steps, replay, S.c.shape[0], done)  # read by the forks
            futures = [pool.submit(_chunk, cuts[j], cuts[j + 1], j) for j in range(1, workers)]
            S0 = _run(field, S, steps, replay, 0, cuts[1], own)  # chunk 0, here
            while wait(futures, timeout=1.0).not_done:
                report()
            results = [f.result() for f in futures]
    finally:
        _JOB = None
    report()
    if all(r[0] == "ok" for r in results):
        try:
            final(results[-1][1])
            return results[-1][1]
        except (CheckFailure, BallError):
            pass
    # A chunk or the check at T failed from a restart: decide it as the sequential check.
    def unseen(k: int, t: Fraction) -> None:  # each step reported once in all
        j = max(i for i in range(workers) if cuts[i] <= k)
        if progress is not None and k >= cuts[j] + shown[j]:
            progress(k, t)
    S = _run(field, S0, steps, replay, cuts[1], len(replay), unseen)
    final(S)
    return S
