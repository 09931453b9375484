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

import re
from fractions import Fraction

import numpy as np

from .balls import Ball, BallError, bdot, const, interval, one, scale
from .dynamics import Field, Jets, pairwise, zero_diagonal
from .errors import CheckFailure
from .fballs import (
    FB,
    FC,
    bilinear,
    dn,
    fconst,
    finterval,
    from_balls,
    from_ends,
    meet,
    nx,
    to_balls,
    up,
    upper,
)

__all__ = ["LohnerSet", "replay_steps", "parse_interval"]

#: Picard tests per step: the stored box first, then boxes grown from it.
PICARD_TRIES = 10

#: The binary64 tail of the centre's Taylor polynomial may add at most this fraction of
#: the narrowest stored radius per step (a choice of work, never of rigor: Lemma C15).
#: The excess can add up over a run (the stored sets carry 1/8 of slack): 2⁻²⁰ keeps it
#: below 1% over 10⁴ steps; at 2⁻¹² Remark 7.9's replay failed at step 54.
TOL_FRACTION = 2.0 ** -20


def parse_interval(pair: list, where: str) -> Ball:
    """A ball containing the rational interval given as two decimal/fraction strings."""
    lo, hi = _pair(pair, where)
    return interval(lo, hi)


def _pair(pair: list, where: str) -> tuple[Fraction, Fraction]:
    try:
        lo, hi = Fraction(pair[0]), Fraction(pair[1])
    except (TypeError, ValueError, IndexError, ZeroDivisionError) as exc:
        raise CheckFailure(where, "an interval [lo, hi] of exact numbers", repr(pair)) from exc
    if lo > hi:
        raise CheckFailure(where, "lo <= hi", f"[{pair[0]}, {pair[1]}]")
    return lo, hi


def parse_set(rec: dict, N: int, where: str) -> "LohnerSet":
    """The stored Lohner set {c + A·r} of a replay record (c, A exact; r intervals)."""
    try:
        c = [Fraction(x) for x in rec["c"]]
        A = rec["A"]
        Af = FB(np.array([[_float(x) for x in row] for row in A], dtype=np.float64))
        r = rec["r"]
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise CheckFailure(where, "a set {c, A, r} of exact numbers", repr(exc)) from None
    except OverflowError:
        raise CheckFailure(where + ".A", "entries within binary64's range", "larger ones") from None
    if len(c) != N or Af.shape != (N, N) or len(r) != N:
        raise CheckFailure(where, f"c of length {N}, A {N}×{N}, r of length {N}",
                           "other shapes")
    Af = FB(Af.m, up(2 * 2.0 ** -53 * np.abs(Af.m), 1))  # each entry rounded once (C13.5)
    rq = [_pair(x, where + ".r") for x in r]
    # Balls containing the exact c and A (exact when dyadic at this scale): the checks
    # below only need enclosures of them (Lemma C4). The steps use A in binary64; the
    # exact balls of A are made only if a check at T reads them.
    return LohnerSet(np.array([const(x) for x in c], dtype=object), None,
                     np.array([interval(lo, hi) for lo, hi in rq], dtype=object), Af, rq, A)


_RATIO = re.compile(r"-?[0-9]+(?:/[0-9]+)?")


def _float(x: str) -> float:
    """The binary64 number nearest the exact number x (a string). For an integer or p/q
    this is int(p)/int(q) — CPython's int division rounds to nearest — and the same
    number Fraction reads; any other form goes through Fraction."""
    if isinstance(x, str) and _RATIO.fullmatch(x):
        p, _, q = x.partition("/")
        return int(p) / int(q) if q else float(int(p))
    return float(Fraction(x))


def _identity(N: int) -> np.ndarray:
    """The identity as exact balls."""
    I = np.empty((N, N), dtype=object)
    I.fill(Ball(0, 0))
    for a in range(N):
        I[a, a] = one()
    return I


class LohnerSet:
    """{c + A·ρ : ρ ∈ r}: c and A exact points (radius 0), r balls (Lemma C4).

    ``Af`` holds binary64 balls containing A (for the step's products), ``rq`` the exact
    intervals r of a stored set (for the containment test); A may be given as exact
    rationals ``Aq`` instead of balls (made into balls when first read)."""

    def __init__(self, c: np.ndarray, A: np.ndarray | None, r: np.ndarray,
                 Af: FB | None = None, rq: list | None = None, Aq: list | None = None) -> None:
        self.c, self._A, self.r, self.Af, self.rq, self._Aq = c, A, r, Af, rq, Aq

    @property
    def A(self) -> np.ndarray:
        if self._A is None:
            self._A = np.array([[const(Fraction(x)) for x in row] for row in self._Aq],
                               dtype=object)
        return self._A

    def box(self) -> np.ndarray:
        return self.c + bdot(self.A, self.r)

    def linear_image(self, M: np.ndarray) -> np.ndarray:
        return bdot(M, self.c) + bdot(bdot(M, self.A), self.r)

    def binary64_A(self) -> FB:
        return self.Af if self.Af is not None else from_balls(self.A)


def initial_set(X0: list[list[Fraction]]) -> LohnerSet:
    flat = [const(x) for row in X0 for x in row]
    c = np.array([Ball(b.m, 0) for b in flat], dtype=object)
    r = np.array([Ball(0, b.r) for b in flat], dtype=object)
    N = len(flat)
    return LohnerSet(c, _identity(N), r, FB(np.eye(N)))


def _exponent(x: np.ndarray) -> int:
    """An e with 2^e·max|x| of order 1 for a Ball array x (0 if x is 0): the Lohner
    coordinates are carried as binary64 balls scaled by 2^e, so that radii of any
    precision stay far from binary64's underflow (a choice; scaling by 2^e is exact)."""
    top = max((abs(b.m) + b.r).bit_length() for b in x)
    return scale() - top if top else 0


def _coords(S: LohnerSet) -> tuple[FB, int]:
    """(2^e·r as binary64 balls, e)."""
    e = _exponent(S.r)
    return from_balls(S.r, shift=e), e


def _inverse_fb(A: FB, where: str = "Lohner basis") -> FB:
    """Balls containing A⁻¹ for a matrix A ∈ A (balls): R + Neumann bound
    ‖A⁻¹ − R‖∞ ≤ ε‖R‖∞/(1 − ε), ε ≥ ‖I − RA‖∞, R a float inverse (Lemma C4)."""
    N = A.shape[0]
    try:
        R = np.linalg.inv(A.m)
    except np.linalg.LinAlgError:
        raise CheckFailure(where, "an invertible basis", "a singular one") from None
    E = FB(np.eye(N)) - bilinear(np.matmul, FB(R), A, N)
    eps = float(up(E.mag().sum(axis=1), N + 1).max())
    normR = float(up(np.abs(R).sum(axis=1), N + 1).max())
    if not eps < 0.5:
        raise CheckFailure(where, "an invertible basis (‖I − RA‖ < 1/2)",
                           f"‖I − RA‖ = {eps:.3g}")
    delta = nx(up(eps * normR, 1) / dn(1.0 - eps))
    return FB(R, np.full(R.shape, delta))


def _times(h: Fraction) -> FB:
    """A binary64 ball containing the time interval [0, h]."""
    return from_ends(np.float64(0.0), np.float64(upper(h)))


def _lohner_check(S: LohnerSet, rs: FB, e0: int, jets: Jets, h: Fraction, M: np.ndarray,
                  f: Fraction, Mlin: FB, out: LohnerSet, where: str) -> LohnerSet:
    """y₁ ∈ T + Mlin·A·r + R for every y₀ = c + A·r, r ∈ S.r (T the centre's Taylor
    polynomial, R the remainder M·f·[−1, 1]). In the stored coordinates (c₁, A₁):
    y₁ = c₁ + A₁ρ with ρ ∈ r₁' := A₁⁻¹Mlin A·r + A₁⁻¹(T − c₁ + R) (Lemma C4), carried
    scaled by 2^{e₁}. Verify r₁' ⊆ stored r₁ (exactly) and return the checker's own set
    (c₁, A₁, r₁')."""
    N = rs.shape[0]
    top = max(max(abs(lo), abs(hi)) for lo, hi in out.rq)
    e1 = (top.denominator.bit_length() - top.numerator.bit_length()) if top else 0
    A1inv = _inverse_fb(out.Af)
    C = bilinear(np.matmul, A1inv, bilinear(np.matmul, Mlin, S.binary64_A(), N), N)
    # T − c₁ exactly for the orders the jets hold exactly, then in binary64 (scaled)
    hb = const(h)
    acc = jets.exact[-1].reshape(N)
    for cf in reversed(jets.exact[:-1]):
        acc = acc * hb + cf.reshape(N)
    rhs = from_balls(acc - out.c, shift=e1)
    if jets.tail is not None:
        rhs = rhs + jets.tail.sum(axis=0).reshape(N).scaled(e1)
    rhs = rhs + FB(np.zeros(N), up(M * upper(f * Fraction(2) ** e1), 1))
    mv = lambda a, x: a @ x  # noqa: E731  (matrix × vector)
    r1 = bilinear(mv, C, rs, N).scaled(e1 - e0) + bilinear(mv, A1inv, rhs, N)
    lo, hi = r1.lo(), r1.hi()
    scale2 = Fraction(2) ** e1
    for i, (a, b) in enumerate(out.rq):
        if not (a * scale2 <= lo[i] and hi[i] <= b * scale2):  # exact comparisons (NaN: no)
            mine = to_balls(r1[i:i + 1], shift=-e1)[0] if np.isfinite(lo[i] + hi[i]) else \
                "a non-finite enclosure"
            raise CheckFailure(f"{where}.set.r[{i}]",
                               f"an interval containing the recomputed {mine!r}",
                               f"{out.r[i]!r}")
    return LohnerSet(out.c, out._A, to_balls(r1, shift=-e1), out.Af, None, out._Aq)


def _variational(field: Field, tube: FB, t0: Fraction, h: Fraction, where: str) -> FB:
    """I + h·K·J with K = DF(tube, [t0, t0 + h]) and J a verified fixed-point box,
    I + [0, h]·K·J ⊆ J (Lemma C5)."""
    K = field.jacobian(tube, field.score_factor(finterval([(t0, t0 + h)]).reshape(())))
    N = K.shape[0]
    I = FB(np.eye(N))
    hK = K * _times(h)
    J = I + hK
    for _ in range(8):
        nxt = I + bilinear(np.matmul, hK, J, N)
        if np.all(J.contains(nxt)):
            return I + bilinear(np.matmul, K * fconst(h), J, N)
        # Widen by 1/4 of the radius plus 2^-20 of the row's largest radius: entries
        # near 0 that are fed by wider ones through the coupling need room of that size.
        w = J.union(nxt)
        J = FB(w.m, up(1.25 * w.r + 2.0 ** -20 * w.r.max(axis=1, keepdims=True), 3))
    raise CheckFailure(where, "a variational enclosure I + [0,h]·DF·J ⊆ J",
                       "no fixed-point box in 8 iterations")


def _grow(W: FC) -> FC:
    """Widen both radii by 1/4 (and a little absolute room): for the next Picard test."""
    return FC(FB(W.re.m, up(1.25 * W.re.r + 2.0 ** -200, 2)),
              FB(W.im.m, up(1.25 * W.im.r + 2.0 ** -200, 2)))


def check_step(field: Field, S: LohnerSet, t0: Fraction, h: Fraction, order: int,
               rho: Fraction, apriori: list, stored: dict, where: str,
               velocity: list | None = None) -> LohnerSet:
    """Verify that the flow over [t0, t0 + h] maps the set S (the checker's own) into the
    stored output set ``stored``; return the checker's set at t0 + h, expressed in the
    stored coordinates (c, A) and contained in the stored set.

    With ``velocity`` (N exact numbers a), the a-priori box W is relative to the affine
    path c + τa (c the set's centre); without it, c = a = 0 and W is the plain box of
    Lemma I6's first form (Lemma C3). Boxes are binary64 balls (Lemma C13); the centre's
    Taylor polynomial and the stored numbers are exact (Lemmas C1, C15)."""
    n, d = field.n, field.d
    N = n * d
    if not (0 < h < rho):
        raise CheckFailure(where, "0 < h < rho", f"h = {h}, rho = {rho}")
    if len(apriori) != N:
        raise CheckFailure(where, f"{N} a-priori intervals", f"{len(apriori)}")
    out = parse_set(stored, N, where + ".set")
    if velocity is not None:
        if len(velocity) != N:
            raise CheckFailure(where + ".velocity", f"{N} exact numbers", f"{len(velocity)}")
        try:
            a = fconst([Fraction(x) for x in velocity])
        except (TypeError, ValueError, ZeroDivisionError, BallError):
            raise CheckFailure(where + ".velocity", "exact numbers", repr(velocity[:3])) from None
    W = FC(finterval([_pair(x[:2], where + ".apriori") for x in apriori]),
           finterval([_pair(x[2:], where + ".apriori") for x in apriori]))
    # The Taylor polynomial is taken at the centre c, so the Picard box, the tube and the
    # mean-value segments [c, y0] must all contain c: use Y ⊇ S ∪ {c} (Lemma C4). (The
    # stored c is the producer's; the checker's own r need not contain 0.)
    rs, e0 = _coords(S)
    Y0 = bilinear(lambda A, x: A @ x, S.binary64_A(), rs.union(FB(np.zeros(N))), N).scaled(-e0)
    cf = from_balls(S.c)
    Y = cf + Y0  # ⊇ c + A·hull(r, 0)
    zero = FB(np.zeros(N))
    c, Yrel = (zero, Y) if velocity is None else (cf, Y0)  # Y − c
    a = zero if velocity is None else a
    side = np.float64(upper(rho))
    D = FC(FB(0.0, side), FB(0.0, side))  # ⊇ the square [−ρ, ρ] + i[−ρ, ρ]
    cfac = field.score_factor(FC(fconst(t0), FB(0.0)) + D)
    cm, am = c.reshape(n, d), a.reshape(n, d)
    Dca = pairwise(cm) + pairwise(am) * D
    # The stored W is a hint found by the producer's search; the lemma needs *some* W
    # with (Y − c) + D·(F(Ĉ) − a) ⊂ int W, Ĉ = c + D·a + W. If the hint fails in this
    # arithmetic, iterate the Picard map from it a few times (Lemma C3).
    for attempt in range(PICARD_TRIES):
        Wm = W.reshape(n, d)
        F = field.velocity(cm + am * D + Wm, cfac,
                           zero_diagonal(Dca + pairwise(Wm))).reshape(N)
        test = Yrel + (F - a) * D
        inside = W.contains_interior(test)
        if np.all(inside):
            break
        if attempt == PICARD_TRIES - 1:
            i = int(np.argmin(inside))
            raise CheckFailure(where + f".apriori[{i}]",
                               "(Y − c) + D·(F(c + D·a + W, t0 + D) − a) inside the "
                               "interior of W (Picard)",
                               f"{test.re[i]!r} + i{test.im[i]!r} not inside "
                               f"{W.re[i]!r} + i{W.im[i]!r} (after {PICARD_TRIES - 1} "
                               "Picard iterations)")
        W = _grow(W.union(test))
    M = (W - Yrel).mag()  # ≥ sup |c + w − y| over w ∈ W, y ∈ Y, per coordinate
    q = h / rho
    # Tube over [t0, t0 + h]: y(τ) ∈ Y + [0, h]·F(Y, t0) + M q²/(1 − q)·[−1, 1] (Cauchy).
    F0 = field.velocity(Y.reshape(n, d), field.score_factor(fconst(t0))).reshape(N)
    tube = Y + F0 * _times(h) + FB(np.zeros(N), up(M * upper(q * q / (1 - q)), 1))
    tol = TOL_FRACTION * float(min(b - a_ for a_, b in out.rq)) / 2
    jets = field.jets(S.c.reshape(n, d), t0, order, h, tol)
    f = q ** (order + 1) / (1 - q)
    rem = FB(np.zeros(N), up(M * upper(f), 1))
    tube = _tight_tube(field, tube, jets, rem, float(Y0.mag().max()), t0, h)
    Mlin = _variational(field, tube.reshape(n, d), t0, h, where)
    return _lohner_check(S, rs, e0, jets, h, M, f, Mlin, out, where)


def _tight_tube(field: Field, tube: FB, jets: Jets, rem: FB, dev: float, t0: Fraction,
                h: Fraction) -> FB:
    """The tube narrowed by Lemma C3b: the centre's solution lies in Σ_k Z_k(c)[0, h]^k
    + R, every other one within ‖y0 − c‖∞/(1 − Lh) of it (L ≥ ‖DF(tube)‖∞, Lh < 1/2);
    intersected with the given tube."""
    n, d = field.n, field.d
    N = n * d
    K = field.jacobian(tube.reshape(n, d),
                       field.score_factor(finterval([(t0, t0 + h)]).reshape(())))
    L = float(up(K.mag().sum(axis=1), N + 1).max())
    Lh = float(up(L * upper(h), 1))
    if not Lh < 0.5:  # (NaN: keep the coarse tube)
        return tube
    delta = float(nx(dev / dn(1.0 - Lh)))
    # Σ_k h^k Z_k s^k over s ∈ [0, 1]: the orders 0, 1 by interval arithmetic, the others
    # by Σ|h^k Z_k| (they are below 10⁻⁹ of the first-order term)
    Zs = jets.scaled(h).reshape(-1, N)
    poly = Zs[0] + Zs[1] * FB(0.5, 0.5) + FB(np.zeros(N), up(Zs[2:].mag().sum(axis=0),
                                                             Zs.shape[0] + 1))
    return meet(tube, (poly + rem).widen(delta))


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
    from threadpoolctl import threadpool_limits  # lazy: only when replaying chunks

    # The float products of Lemma C1f are tiny (N ≤ a few hundred): BLAS threads only cost
    # (10% on one process, measured; more with several workers on the same cores).
    with threadpool_limits(1, user_api="blas"), np.errstate(all="ignore"):
        # (floating-point warnings are not errors here: a non-finite ball never passes)
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
    import multiprocessing as mp  # lazy: only for a chunked (multi-process) replay

    if workers <= 1 or len(replay) < MIN_CHUNK * workers or \
            "fork" not in mp.get_all_start_methods():
        S = _run(field, S, steps, replay, 0, len(replay), progress)
        final(S)
        return S
    from concurrent.futures import ProcessPoolExecutor, wait  # lazy: chunked replay only

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
