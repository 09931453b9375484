"""certified explore: reproducible families, resumable sweeps, boundary maps, CLI errors."""

from __future__ import annotations

import json

import pytest

from certified.cli import main
from certified.studies import explore as ex
from certified.studies.audit import load_record


def test_family_instances_are_reproducible_one_by_one():
    a = ex.family_instance("section-12.1", 7, seed=3)
    b = ex.family_instance("section-12.1", 7, seed=3)
    c = ex.family_instance("section-12.1", 8, seed=3)
    assert a == b and a != c
    assert all(abs(x) <= 1 for row in a.K for x in row)
    assert all(abs(x) <= 3 for row in a.X0 for x in row)
    assert all(x.denominator <= 100 for row in a.K for x in row)
    p = ex.family_instance("section-12.1-paranormal", 7, seed=3)
    assert p.V[1][1] == -ex.Fraction(1, 2) and p.K == a.K and p.X0 == a.X0
    with pytest.raises(ValueError):
        ex.family_instance("nope", 0)


def test_strategy_instances_are_deterministic():
    a = ex.strategy_instances("2.1", 5, seed=1)
    b = ex.strategy_instances("2.1", 5, seed=1)
    assert len(a) == 5 and a == b


def test_sweep_resumes_where_it_stopped(tmp_path, monkeypatch):
    insts = [ex.family_instance("section-12.1", i) for i in range(3)]
    calls = []
    real = ex._one

    def counting(p):
        calls.append(p[0])
        return real((p[0], p[1], p[2], "1/4", p[4], None, None))  # t ≤ 1/4: undecided is fine

    monkeypatch.setattr(ex, "_one", counting)
    out = tmp_path / "rows.jsonl"
    rows = ex.sweep(insts, "3.1", out, workers=1, progress=False)
    assert sorted(calls) == [0, 1, 2] and [r["index"] for r in rows] == [0, 1, 2]
    lines = out.read_text().splitlines()
    out.write_text(lines[0] + "\n")  # as if interrupted after the first row
    calls.clear()
    rows = ex.sweep(insts, "3.1", out, workers=1, progress=False)
    assert sorted(calls) == [1, 2] and len(rows) == 3
    m = ex.boundary_map(rows)
    assert m["instances"] == 3 and m["certified"] + m["refuted"] + m["undecided"] == 3


def test_a_resumed_sweep_refuses_rows_of_other_instances(tmp_path, monkeypatch):
    """A strategy's draws depend on --samples (hypothesis's schedule), so resuming a file
    with another sample count would attach old rows to new instances: refused, the file
    untouched."""
    insts = [ex.family_instance("section-12.1", i) for i in range(3)]
    monkeypatch.setattr(ex, "_one", lambda p: {"index": p[0], "verdict": "undecided",
                                               "reason": "", "instance": p[1]})
    out = tmp_path / "rows.jsonl"
    ex.sweep(insts[:2], "3.1", out, workers=1, progress=False)
    before = out.read_text()
    with pytest.raises(ex.InputError, match="index 1 was computed on another instance"):
        ex.sweep([insts[0], insts[2]], "3.1", out, workers=1, progress=False)
    assert out.read_text() == before
    assert len(ex.sweep(insts, "3.1", out, workers=1, progress=False)) == 3  # a longer run


def test_refuted_rows_become_audit_records(tmp_path):
    inst = ex.family_instance("section-12.1", 0)
    ex._save_record({"index": 0, "instance": inst.to_json()}, "3.1", tmp_path)
    rec = load_record(next(tmp_path.glob("3.1_0_*.json")))
    assert rec.instance == inst


def test_a_saved_refutation_replays_as_fails(tmp_path):
    # Instance 44 of the attention-boolean family (n = 5, d = 2, seed 0) is refuted
    # (P* of rank 4); its saved record must replay to "fails" on the claim it names.
    from certified.studies.audit import run_audit

    inst = ex.family_instance("attention-boolean", 44, n=5, d=2, seed=0)
    ex._save_record({"index": 44, "instance": inst.to_json()}, "2.1", tmp_path)
    res = run_audit(load_record(next(tmp_path.glob("2.1_44_*.json"))))
    assert [c["verdict"] for c in res["claims"]] == ["fails"]


@pytest.mark.parametrize("args, hint", [
    (["--family", "section-12.1", "--strategy", "3.1"], "exactly one"),
    (["--family", "section-12.1", "--violate", "QK_singular"], "--violate"),
    (["--strategy", "3.1", "--violate", "leading_tied"], "--violate"),
    (["--family", "section-12.1", "--samples", "0"], "--samples"),
])
def test_cli_errors(tmp_path, capsys, args, hint):
    out = tmp_path / "rows.jsonl"
    code = main(["explore", *args, "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 2 and hint in err and err.count("\n") == 1 and not out.exists()


def test_cli_small_sweep(tmp_path, capsys):
    out = tmp_path / "rows.jsonl"
    code = main(["explore", "--strategy", "2.1", "--samples", "2", "--t-max", "1/2",
                 "--workers", "1", "--out", str(out)])
    printed, _ = capsys.readouterr()
    assert code == 0
    res = json.loads(printed)
    assert res["instances"] == 2 and res["refuted"] == 0
    assert len(out.read_text().splitlines()) == 2


def test_a_corrupted_results_file_is_bad_input(tmp_path, capsys):
    out = tmp_path / "rows.jsonl"
    out.write_text("{not json\n")
    code = main(["explore", "--family", "section-12.1", "--samples", "1", "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 2 and "line 1" in err and out.read_text() == "{not json\n"


def test_cli_step_budget_rows_reproduce(tmp_path, capsys):
    """--max-steps is a deterministic budget: two sweeps give the same rows (all but the
    seconds), and an instance stopped by it says so."""
    rows = []
    for k in range(2):
        out = tmp_path / f"rows{k}.jsonl"
        code = main(["explore", "--family", "section-12.1", "--samples", "3", "--seed", "0",
                     "--t-max", "8", "--max-steps", "12", "--workers", "1",
                     "--out", str(out)])
        capsys.readouterr()
        assert code == 0
        rows.append([{k2: v for k2, v in json.loads(line).items() if k2 != "seconds"}
                     for line in out.read_text().splitlines()])
    assert rows[0] == rows[1]
    stopped = [r for r in rows[0] if r["verdict"] == "undecided"]
    assert stopped and all("max_steps = 12" in r["reason"] for r in stopped)
