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

import threading
from fractions import Fraction
from pathlib import Path

import numpy as np

from .balls import BallError, scale, scaled
from .defect import check_defect_step
from .dynamics import Field, Jets, pairwise, zero_diagonal
from .errors import CheckFailure
from .fballs import FB, FC, bilinear, dn, fconst, finterval, from_balls, meet, nx, up, upper
from .lohner import (TOL_FRACTION, LohnerSet, _coords, _inverse_fb, _lohner_check, _pair,
                     _times, _variational, initial_set, parse_set)
from .reading import _long_numbers
from .selftest import arithmetic_selftest

__all__ = ["LohnerSet", "replay_steps", "check_step", "initial_set",
           "_inverse_fb", "_pair"]

#: Picard tests per step: the stored box first, then boxes grown from it.
PICARD_TRIES = 10


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
            if rec.get("method") == "defect":  # Lemma I10's step (checker Lemma C20)
                S = check_defect_step(field, S, t0, h, rec, where)
            else:
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


def _chunk(lo: int, hi: int, j: int) -> LohnerSet | None:
    """Worker for chunk j: check records lo … hi − 1 from the *stored* set of record lo − 1
    (Lemma C12). Returns its own set at the end, or None on any failure, even a malformed
    record: a failure is decided again by the sequential replay, which reports the first,
    so the chunk's own reason is not kept. Counts its finished steps in the shared
    ``done[j]`` (progress only)."""
    field, steps, replay, N, done = _JOB

    def tick(k: int, t: Fraction) -> None:  # steps done in this chunk, for the parent
        done[j] = k + 1 - lo
    try:
        S = parse_set(replay[lo - 1]["set"], N, f"integration.replay[{lo - 1}].set")
        return _run(field, S, steps, replay, lo, hi, tick)
    except Exception:  # noqa: BLE001 — re-decided in order by the parent
        return None


#: One chunk task at a time per process: the balls' scale is process state, and a Dask
#: worker may run several tasks at once in threads.
_TASK_LOCK = threading.Lock()


def code_digest() -> str:
    """SHA-256 of the checker's own source files (``certified/checker/*.py``, sorted by
    name): a remote worker's chunk result is used only if its checker is this one."""
    import hashlib  # lazy: only for tasks

    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _chunk_task(payload: tuple) -> tuple:
    """A chunk as a self-contained task, for an external executor (e.g. a Dask worker on
    another machine): ``(j, field, start, steps, replay, N, lo, hi, bits)`` → ``(j, S,
    digest)``, with S the checker's set at the end, or None if the chunk failed (the caller
    decides every failure again, in order, and reports its own), and the worker's
    :func:`code_digest`. ``steps`` and
    ``replay`` hold only records lo … hi − 1; ``start`` is the exact initial tokens X0
    (chunk 0) or record lo − 1, whose stored set starts the chunk (Lemma C12). The
    worker's arithmetic is self-tested and the balls' scale and the digit limit are set
    for the task: nothing is inherited from the process that asked."""
    from threadpoolctl import threadpool_limits  # lazy: only when replaying chunks

    j, field, start, steps, replay, N, lo, hi, bits = payload
    try:
        with _TASK_LOCK:
            digest = code_digest()
            arithmetic_selftest()
            with scaled(bits), _long_numbers(), threadpool_limits(1, user_api="blas"), \
                    np.errstate(all="ignore"):
                S = (initial_set(start) if lo == 0 else
                     parse_set(start["set"], N, f"integration.replay[{lo - 1}].set"))
                # indices as in the whole certificate (messages name the global record)
                return (j, _run(field, S, [None] * lo + list(steps),
                                [None] * lo + list(replay), lo, hi), digest)
    except Exception:  # noqa: BLE001 — re-decided in order by the caller
        return (j, None, "")


def replay_steps(field: Field, X0: list[list[Fraction]], steps: list, replay: list,
                 t_end: Fraction, progress=None, workers: int = 1,
                 final=None, run_chunks=None) -> LohnerSet:
    """Replay ``replay`` (aligned with ``steps``: [t0, h] strings) from t = 0 to t_end and
    return the checker's set at t_end, after calling ``final(S)`` on it (the caller's
    check at T, which raises :class:`CheckFailure`).

    With ``workers`` > 1 (and fork available) the records are cut into ``workers``
    contiguous chunks checked at once: chunk 0 from the exact initial set, chunk j from
    the stored set that ends chunk j − 1 (Lemma C12). If any chunk after the first, or
    ``final``, fails, everything after chunk 0 is replayed again in order from chunk 0's
    own set — the sequential check — so the first failure reported is that of
    ``workers=1``, and a valid outcome is proved by Lemma C12 whatever the chunks.

    ``run_chunks``, if given, runs the chunks instead of local forks: a callable
    ``run_chunks(fn, payloads)`` that yields ``fn(payload)`` for every payload as they
    finish (e.g. :meth:`certified.studies.engine.Engine.map_unordered`, on Dask). All
    ``workers`` chunks, chunk 0 included, are then tasks (:func:`_chunk_task`), with the
    same guarantees; a task's set is used only if the worker's checker source has this
    one's :func:`code_digest`.
    """
    from threadpoolctl import threadpool_limits  # lazy: only when replaying chunks

    # The float products of Lemma C1f are tiny (N ≤ a few hundred): BLAS threads only cost
    # (10% on one process, measured; more with several workers on the same cores).
    with threadpool_limits(1, user_api="blas"), np.errstate(all="ignore"):
        # (floating-point warnings are not errors here: a non-finite ball never passes)
        return _replay(field, X0, steps, replay, t_end, progress, workers, final,
                       run_chunks)


def _replay(field: Field, X0: list[list[Fraction]], steps: list, replay: list,
            t_end: Fraction, progress, workers: int, final, run_chunks=None) -> LohnerSet:
    """:func:`replay_steps` with BLAS limited to one thread."""
    global _JOB
    S = initial_set(X0)
    if len(replay) > len(steps):
        raise CheckFailure("integration.replay", "at most one record per step",
                           f"{len(replay)} records for {len(steps)} steps")
    t = Fraction(0)  # the times chain (exact, cheap): checked once, before any step
    for k in range(len(replay)):
        t0, h = Fraction(steps[k][0]), Fraction(steps[k][1])
        if h <= 0:
            raise CheckFailure(f"integration.steps[{k}]", "a step h > 0", str(steps[k][1]))
        if t0 != t:
            raise CheckFailure(f"integration.steps[{k}]", f"t0 = {t} (steps must chain)",
                               f"t0 = {t0}")
        t = t0 + h
    if t != t_end:
        raise CheckFailure("integration.replay", f"steps reaching t = {t_end}", f"t = {t}")
    final = final if final is not None else (lambda S: None)
    if run_chunks is not None and workers > 1 and len(replay) >= MIN_CHUNK * workers:
        return _replay_tasks(field, X0, S, steps, replay, progress, workers, final,
                             run_chunks)
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
    sets = [r for r in results if r is not None]
    if len(sets) == len(results):  # every fork finished: its last set ends the replay
        try:
            final(sets[-1])
            return sets[-1]
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


def _replay_tasks(field: Field, X0: list[list[Fraction]], S: LohnerSet, steps: list,
                  replay: list, progress, workers: int, final, run_chunks) -> LohnerSet:
    """The chunked replay with every chunk a task of ``run_chunks`` (see
    :func:`replay_steps`); falls back to the sequential check exactly as the forks do."""
    cuts = [len(replay) * j // workers for j in range(workers + 1)]
    N = S.c.shape[0]
    payloads = [(j, field, X0 if j == 0 else replay[cuts[j] - 1],
                 steps[cuts[j]:cuts[j + 1]], replay[cuts[j]:cuts[j + 1]], N,
                 cuts[j], cuts[j + 1], scale()) for j in range(workers)]
    results: dict[int, LohnerSet | None] = {}  # None: the chunk is decided again in order
    mine = code_digest()
    try:
        for j, value, theirs in run_chunks(_chunk_task, payloads):
            if j in results:  # a task an executor ran twice: the first result stands
                continue
            if theirs != mine:  # another checker (or a failed task): not used
                value = None
            results[j] = value
            if progress is not None and value is not None:
                for k in range(cuts[j], cuts[j + 1]):
                    progress(k, Fraction(steps[k][0]) + Fraction(steps[k][1]))
    except Exception:  # noqa: BLE001 — the executor failed, not a step: decided in order
        pass
    for j in range(workers):
        results.setdefault(j, None)  # no result from the executor
    sets = [s for s in (results[j] for j in range(workers)) if s is not None]
    if len(sets) == workers:  # every task's set is usable: the last ends the replay
        try:
            final(sets[-1])
            return sets[-1]
        except (CheckFailure, BallError):
            pass
    # Decided as the sequential check: chunk 0 again here if it failed, then the rest.
    reported = {j for j in results if results[j] is not None}

    def unseen(k: int, t: Fraction) -> None:
        j = max(i for i in range(workers) if cuts[i] <= k)
        if progress is not None and j not in reported:
            progress(k, t)
    S0 = results[0]
    if S0 is None:
        S0 = _run(field, S, steps, replay, 0, cuts[1], unseen)
    S = _run(field, S0, steps, replay, cuts[1], len(replay), unseen)
    final(S)
    return S
