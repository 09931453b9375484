"""Sweeps on a real Dask cluster: a scheduler and two workers started here as separate
processes on 127.0.0.1, one worker killed mid-sweep; every instance is answered exactly
once, a rerun adds nothing, and the answers are those of local processes."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from certified.studies import explore as ex  # noqa: E402
from certified.studies.engine import open_engine  # noqa: E402

N = 6
T_MAX = "1/2"


def _instances():
    return [ex.family_instance("section-12.1", i, n=2, d=2, seed=3) for i in range(N)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask_cli() -> list[str]:
    exe = shutil.which("dask", path=os.path.dirname(sys.executable)) or shutil.which("dask")
    if exe is None:
        pytest.skip("the dask command is not installed")
    return [exe]


def _answers(path: Path) -> dict[int, str]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    indices = [r["index"] for r in rows]
    assert len(indices) == len(set(indices)), "an instance was written twice"
    return {r["index"]: (r["verdict"], r["attention_rank"], r["certified_until"]) for r in rows}


@pytest.fixture
def cluster():
    """A scheduler and two single-threaded workers, as separate processes."""
    port = _free_port()
    cli = _dask_cli()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    procs = [subprocess.Popen(cli + ["scheduler", "--host", "127.0.0.1", "--port", str(port),
                                     "--no-dashboard"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    address = f"tcp://127.0.0.1:{port}"
    for _ in range(2):
        procs.append(subprocess.Popen(cli + ["worker", address, "--nworkers", "1",
                                             "--nthreads", "1", "--host", "127.0.0.1",
                                             "--no-dashboard", "--no-nanny"], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    try:
        client = distributed.Client(address, timeout="60s")
        client.wait_for_workers(2, timeout=120)
        client.close()
        yield address, procs
    finally:
        # workers first: a worker whose scheduler is gone retries the connection for its
        # death timeout before it exits (the teardown took 30 s in the other order)
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()


def test_sweep_survives_a_lost_worker_and_matches_local_processes(cluster, tmp_path):
    address, procs = cluster
    out = tmp_path / "dask.jsonl"
    result: dict = {}

    def run():
        result["rows"] = ex.sweep(_instances(), "3.1", out, t_max=T_MAX, digits=15,
                                  progress=False, scheduler=address)

    th = threading.Thread(target=run)
    th.start()
    # Kill one worker once the sweep is under way (a row written, or a few seconds in).
    deadline = time.monotonic() + 300  # a safety bound on waiting, not on a result
    while time.monotonic() < deadline and not (out.exists() and out.read_text().strip()):
        time.sleep(0.2)
    procs[1].kill()
    th.join(timeout=900)
    assert not th.is_alive()
    dask_answers = _answers(out)
    assert sorted(dask_answers) == list(range(N))  # every instance answered exactly once
    assert len(result["rows"]) == N

    # A rerun adds nothing.
    before = out.read_text()
    ex.sweep(_instances(), "3.1", out, t_max=T_MAX, digits=15, progress=False,
             scheduler=address)
    assert out.read_text() == before

    # The same sweep on local processes gives the same answers.
    local = tmp_path / "local.jsonl"
    ex.sweep(_instances(), "3.1", local, t_max=T_MAX, digits=15, progress=False, workers=2)
    assert _answers(local) == dask_answers


def test_local_engine_runs_in_this_process_with_one_worker():
    with open_engine(None, 1) as engine:
        assert engine.description == "this process"
        assert sorted(engine.map_unordered(abs, [-2, 1, -3])) == [1, 2, 3]


def _tasks_finished(address: str) -> int:
    """Tasks the scheduler has seen finish on a worker (``Engine`` tasks only)."""
    with distributed.Client(address, timeout="60s") as client:
        counts = client.run_on_scheduler(lambda dask_scheduler: {
            k: dict(v.state_counts) for k, v in dask_scheduler.task_prefixes.items()})
    return counts.get("one_blas_thread_call", {}).get("memory", 0)


def test_check_replays_chunks_on_the_cluster(cluster, tmp_path):
    """``certified check --scheduler tcp://…``: the chunks of a 71-step certificate run as
    tasks on the two workers; the report is the one-process report, for the valid
    certificate and for one edited in its second chunk."""
    from click.testing import CliRunner

    from certified.cli import cli
    from tests.test_checker import redigest

    address, _ = cluster
    data = Path(__file__).parents[1] / "checker" / "data" / "t8_52_cross.json.gz"
    cert = json.loads(gzip.decompress(data.read_bytes()))
    bad = json.loads(json.dumps(cert))
    bad["integration"]["replay"]["records"][60]["rho"] = "1"
    redigest(bad)
    runner = CliRunner()
    outs = {}
    for name, obj in (("ok", cert), ("bad", bad)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(obj))
        for opts in (["--workers", "1"], ["--scheduler", address]):
            before = _tasks_finished(address)
            r = runner.invoke(cli, ["check", str(path), "--format", "json", *opts])
            assert r.exit_code == (0 if name == "ok" else 1), r.output
            outs[name, opts[0]] = json.loads(r.stdout)
            # two chunks ran on the cluster with --scheduler, none without
            assert _tasks_finished(address) - before == (2 if "--scheduler" in opts else 0)
    for name in ("ok", "bad"):
        one, dask = outs[name, "--workers"], outs[name, "--scheduler"]
        assert {k: v for k, v in one.items() if k != "seconds"} == \
            {k: v for k, v in dask.items() if k != "seconds"}
    assert outs["ok", "--scheduler"]["valid"] is True
    assert "replay[60].rho" in outs["bad", "--scheduler"]["message"]


def test_check_scheduler_errors_are_one_line(tmp_path, capsys):
    """A bad address, and a scheduler without workers (the chunks would wait forever):
    exit 2 with one line naming --scheduler, before any replay."""
    from certified.cli import main

    data = Path(__file__).parents[1] / "checker" / "data" / "t8_52_cross.json.gz"
    cert = tmp_path / "c.json"
    cert.write_bytes(gzip.decompress(data.read_bytes()))
    assert main(["check", str(cert), "--scheduler", "foo"]) == 2
    _, err = capsys.readouterr()
    assert "--scheduler" in err and err.count("\n") == 1
    with distributed.LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None,
                                  processes=True) as empty:
        assert main(["check", str(cert), "--scheduler", empty.scheduler_address]) == 2
    _, err = capsys.readouterr()
    assert "no workers" in err and err.count("\n") == 1
