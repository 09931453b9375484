"""The chunked replay through an external executor (``run_chunks``, what ``certified
check --scheduler`` hands the checker): the same report as one process, for a valid
certificate and for one edited in a late chunk, whatever the executor does with the tasks
(finishes them out of order, runs one twice, or fails)."""

from __future__ import annotations

import copy
import gzip
import json
import threading
from fractions import Fraction
from pathlib import Path

import pytest

from certified.checker import check_certificate
from certified.checker import replay as replay_mod
from tests.test_checker import redigest

#: 17 defect steps of three tokens (1 s to check): cut into 2 or 4 chunks once MIN_CHUNK
#: is lowered to 4 (the default, 16 steps a chunk, keeps it in one process: tested below)
CERT = Path(__file__).parent / "data" / "t4_21.json.gz"
STEPS = 17
DEFAULT_MIN_CHUNK = replay_mod.MIN_CHUNK


@pytest.fixture(autouse=True)
def _short_chunks(monkeypatch):
    monkeypatch.setattr(replay_mod, "MIN_CHUNK", 4)


def _every_step_once(reported: list, cert: dict) -> bool:
    """``progress`` saw each step once, with the time at its end."""
    st = cert["integration"]["steps"]
    return sorted(reported) == [(k, Fraction(st[k][0]) + Fraction(st[k][1]))
                                for k in range(STEPS)]


@pytest.fixture(scope="module")
def cert() -> dict:
    return json.loads(gzip.decompress(CERT.read_bytes()))


@pytest.fixture(scope="module")
def reference(cert):
    """The one-process report (the outcome every executor must reproduce)."""
    return check_certificate(copy.deepcopy(cert), workers=1)


def _reversed_twice(fn, payloads):
    """Runs every task in this process, last chunk first, and reports chunk 0 twice."""
    out = [fn(copy.deepcopy(p)) for p in reversed(payloads)]
    yield from out
    yield out[-1]


def _threads(fn, payloads):
    """All tasks at once in threads of this process (as a multi-threaded Dask worker)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    with ThreadPoolExecutor(len(payloads)) as pool:
        for fut in as_completed([pool.submit(fn, p) for p in payloads]):
            yield fut.result()


def _other_checker(fn, payloads):
    """Workers whose checker source differs: every result carries another digest."""
    for p in payloads:
        j, value, _ = fn(p)
        yield (j, value, "0" * 64)


def _last_fails(fn, payloads):
    """Every chunk but the last settled; the last one's task failed."""
    for p in payloads[:-1]:
        yield fn(p)
    yield (payloads[-1][0], None, "")


def _fails_midway(fn, payloads):
    yield fn(payloads[-1])
    raise OSError("the cluster went away")


def _duplicate_first(fn, payloads):
    """Chunk 0 reported twice before the others (the first result stands)."""
    first = fn(copy.deepcopy(payloads[0]))
    yield first
    yield first
    for p in payloads[1:]:
        yield fn(copy.deepcopy(p))


def _parent_runs(monkeypatch) -> list:
    """The (lo, hi) of every sequential replay outside a task (the parent's in-order
    check); a task marks its thread while it runs."""
    calls: list = []
    local = threading.local()
    real_run, real_task = replay_mod._run, replay_mod._chunk_task

    def task(p):
        local.inside = True
        try:
            return real_task(p)
        finally:
            local.inside = False
    monkeypatch.setattr(replay_mod, "_chunk_task", task)
    monkeypatch.setattr(replay_mod, "_run", lambda f, S, st, rp, lo, hi, *a: (
        None if getattr(local, "inside", False) else calls.append((lo, hi)))
        or real_run(f, S, st, rp, lo, hi, *a))
    return calls


def _calls(monkeypatch) -> list:
    seen: list = []
    real = replay_mod._chunk_task
    monkeypatch.setattr(replay_mod, "_chunk_task",
                        lambda p: seen.append(p[0]) or real(p))
    return seen


@pytest.mark.parametrize("executor,workers", [(_reversed_twice, 2), (_reversed_twice, 4),
                                              (_threads, 4), (_fails_midway, 2),
                                              (_duplicate_first, 2), (_other_checker, 2),
                                              (_last_fails, 2)])
def test_valid_certificate_through_an_executor(cert, reference, executor, workers,
                                               monkeypatch):
    """The same report as one process; the chunks ran as tasks; every step is reported to
    ``progress`` once, with the time at its end; and the parent replays in order only
    what no task settled (nothing, when every task's result is usable)."""
    parent = _parent_runs(monkeypatch)
    seen = _calls(monkeypatch)
    ref = reference
    steps: list = []
    rep = check_certificate(copy.deepcopy(cert), lambda k, t: steps.append((k, t)),
                            workers=workers, run_chunks=executor)
    assert ref.valid and rep.valid, rep.message
    assert rep.message == ref.message and rep.steps_checked == ref.steps_checked == STEPS
    # the chunks really ran as tasks (not the local forks)
    assert sorted(set(seen)) == {_fails_midway: [workers - 1],
                                 _last_fails: list(range(workers - 1))}.get(
        executor, list(range(workers)))
    assert _every_step_once(steps, cert)
    # No result from chunk 0 (the executor failed), or results from another checker
    # (their sets are not used): the parent replays chunk 0 and the rest, in order; with
    # chunk 0 settled, it starts from chunk 0's set.
    cut = STEPS // workers
    assert parent == {_fails_midway: [(0, cut), (cut, STEPS)],
                      _other_checker: [(0, cut), (cut, STEPS)],
                      _last_fails: [(cut, STEPS)]}.get(executor, [])


@pytest.mark.parametrize("workers", [2, 4])
def test_the_replay_returns_the_set_at_the_end_whatever_the_chunks(cert, workers):
    """``replay_steps`` returns the checker's set at t_end: through an executor, the last
    chunk's set, restarted from a stored set (Lemma C12), so not the sequential replay's
    set but an enclosure of the same solutions at the same time: every coordinate meets
    the sequential one (boxes about 3e-17 wide at the certificate's 54 bits; another
    chunk's set, at an earlier time, would not)."""
    from certified.checker.balls import scaled
    from certified.checker.dynamics import Field

    integ = cert["integration"]
    X0 = [[Fraction(x) for x in r] for r in cert["instance"]["X0"]]
    field = Field(Fraction(1), [[Fraction(1)]], len(X0), integ["variable"])
    args = (field, X0, integ["steps"], integ["replay"]["records"],
            Fraction(integ["replay"]["t_end"]))
    with scaled(int(integ["bits"]) + 64):  # the balls are read at their own scale too
        one = replay_mod.replay_steps(*args)
        many = replay_mod.replay_steps(*args, workers=workers, run_chunks=_threads)
        for a, b in zip(one.box(), many.box()):
            assert a.lo_q() <= b.hi_q() and b.lo_q() <= a.hi_q(), (a, b)
            assert a.hi_q() - a.lo_q() < Fraction(1, 10**12)


def test_chunks_in_threads_all_pass(cert, reference):
    """The balls' scale is process state: four chunks in four threads of one process
    must each compute at their own scale (a lock), so every chunk passes."""
    got = []

    def recording(fn, payloads):
        for r in _threads(fn, payloads):
            got.append(r)
            yield r
    rep = check_certificate(copy.deepcopy(cert), workers=4, run_chunks=recording)
    assert rep.valid and rep.message == reference.message
    assert sorted(r[0] for r in got) == [0, 1, 2, 3]
    assert all(r[1] is not None for r in got), [r[0] for r in got if r[1] is None]


def test_edit_in_a_late_chunk_gives_the_sequential_failure(cert):
    bad = copy.deepcopy(cert)
    r = bad["integration"]["replay"]["records"][14]["set"]["r"]  # chunk 1 of 2 (records 8 … 16)
    lo, hi = (Fraction(x) for x in r[0])
    r[0] = [str((lo + hi) / 2 - (hi - lo) / 200), str((lo + hi) / 2 + (hi - lo) / 200)]
    redigest(bad)
    ref = check_certificate(copy.deepcopy(bad), workers=1)
    rep = check_certificate(copy.deepcopy(bad), workers=2, run_chunks=_reversed_twice)
    assert not ref.valid and not rep.valid
    assert rep.message == ref.message
    assert rep.message.startswith("integration.replay[14].set.r[0]: Expected"), rep.message


def test_default_threshold_keeps_a_short_certificate_in_one_process(cert, reference,
                                                                   monkeypatch):
    """17 steps < 16 a chunk × 2 workers: no task is made, the replay runs here."""
    monkeypatch.setattr(replay_mod, "MIN_CHUNK", DEFAULT_MIN_CHUNK)
    assert DEFAULT_MIN_CHUNK == 16
    seen = _calls(monkeypatch)
    rep = check_certificate(copy.deepcopy(cert), workers=2, run_chunks=_reversed_twice)
    assert rep.valid and rep.message == reference.message and seen == []
    monkeypatch.setattr(replay_mod, "MIN_CHUNK", 8)  # 17 ≥ 8 × 2: two tasks
    rep = check_certificate(copy.deepcopy(cert), workers=2, run_chunks=_reversed_twice)
    assert rep.valid and sorted(set(seen)) == [0, 1]


def test_code_digest_is_the_checkers_source_files_in_order():
    """SHA-256 over every ``certified/checker/*.py`` sorted by name, each as name, NUL,
    bytes, NUL (recomputed here): a worker whose checker differs in one byte differs."""
    import hashlib

    root = Path(replay_mod.__file__).parent
    h = hashlib.sha256()
    files = sorted(root.glob("*.py"))
    assert len(files) > 20
    for path in files:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    assert replay_mod.code_digest() == h.hexdigest()


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_reports_every_step_once_in_one_process_and_with_forks(cert, workers):
    """The same progress as through an executor, from the sequential replay (workers = 1)
    and from local forks (workers = 2, MIN_CHUNK lowered to 4)."""
    steps: list = []
    rep = check_certificate(copy.deepcopy(cert), lambda k, t: steps.append((k, t)),
                            workers=workers)
    assert rep.valid, rep.message
    assert _every_step_once(steps, cert)


@pytest.mark.parametrize("workers", [2, 4])
def test_forked_chunks_are_used_and_not_replayed_again_by_the_parent(cert, reference,
                                                                     monkeypatch, workers):
    """With local forks, the parent replays chunk 0 only: every other chunk's result
    comes from its fork. A fork submitted with the wrong bounds, or results never taken
    as usable, would still give the right report (the parent then replays the rest in
    order), so the parent's own calls of ``_run`` are what shows it (``_parent_runs``:
    the forks inherit the spy, but their calls stay in their own memory)."""
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    calls = _parent_runs(monkeypatch)
    rep = check_certificate(copy.deepcopy(cert), workers=workers)
    assert (rep.valid, rep.message) == (reference.valid, reference.message)
    n = len(cert["integration"]["steps"])  # one replay record per step
    assert calls == [(0, n // workers)], calls
