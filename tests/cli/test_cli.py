"""The command line: spec-shaped output, exit codes, one-line errors, nothing written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from certified.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
THEOREM_OF = {"thm2_1_one_dimensional.json": "2.1", "thm3_1_identity.json": "3.1",
              "thm4_2_good_triple.json": "4.2", "thm4_2_complex_subdominant.json": "4.2",
              "thm5_2_paranormal.json": "5.2", "thm8_5_contracting.json": "8.5",
              "thm4_2_authors_2x2.json": "4.2", "thm5_2_one_dimensional_F.json": "5.2"}


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name, theorem", sorted(THEOREM_OF.items()))
def test_each_theorem_has_an_example_that_satisfies_it(capsys, name, theorem):
    code, out, err = run(capsys, "classify", str(EXAMPLES / name))
    assert code == 0 and err == ""
    report = json.loads(out)
    assert report["theorems"][theorem]["hypotheses_hold"] is True
    assert set(report["theorems"]) == {"2.1", "3.1", "4.2", "5.2", "8.5"}
    for thm in report["theorems"].values():
        assert isinstance(thm["hypotheses_hold"], bool)
        assert thm["hypotheses_hold"] == all(c["holds"] for c in thm["checks"])
        for c in thm["checks"]:
            assert set(c) == {"name", "holds", "detail"} and c["detail"]


def test_spec_output_shape(capsys):
    code, out, _ = run(capsys, "classify", str(EXAMPLES / "remark_7_9.json"))
    report = json.loads(out)
    assert (report["n"], report["d"]) == (2, 2)
    assert report["theorems"]["2.1"]["checks"][0] == {"name": "d == 1", "holds": False,
                                                      "detail": "d = 2"}
    assert report["theorems"]["3.1"]["hypotheses_hold"] is True
    assert "spectrum" in report and report["spectrum"]["sym_QtK_inertia"]["positive"] == 2


def test_table_format(capsys):
    code, out, _ = run(capsys, "classify", str(EXAMPLES / "thm5_2_paranormal.json"),
                       "--format", "table")
    assert code == 0
    assert "Theorem 5.2" in out and "HYPOTHESES HOLD" in out and "[x] V paranormal" in out
    assert "Theorem 4.2" in out and "[ ] that eigenvalue is algebraically simple" in out


MALFORMED = {
    "ragged.json": ('{"V": [[1, 0], [0]], "Q": [[1]], "K": [[1]], "X0": [[1]]}', "V: ragged"),
    "nonsquare.json": ('{"V": [[1, 0]], "Q": [[1, 0]], "K": [[1, 0]], "X0": [[1, 0]]}',
                       "V: shape 1×2 is not square"),
    "qk.json": ('{"V": [[1]], "Q": [[1], [2]], "K": [[1]], "X0": [[1]]}',
                "K: shape 1×1 differs"),
    "text.json": ('{"V": [["one"]], "Q": [[1]], "K": [[1]], "X0": [[1]]}',
                  "V[0][0]: 'one' is not a number"),
    "nan.json": ('{"V": [[NaN]], "Q": [[1]], "K": [[1]], "X0": [[1]]}',
                 "V[0][0]: 'NaN' is not a finite number"),
    "inf.json": ('{"V": [[1]], "Q": [[Infinity]], "K": [[1]], "X0": [[1]]}',
                 "Q[0][0]: 'Infinity' is not a finite number"),
    "empty.json": ('{"V": [], "Q": [[1]], "K": [[1]], "X0": [[1]]}', "V: empty matrix"),
    "n0.json": ('{"V": [[1]], "Q": [[1]], "K": [[1]], "X0": []}', "X0: empty matrix"),
    "d0.json": ('{"V": [[]], "Q": [[1]], "K": [[1]], "X0": [[1]]}', "V[0]: empty row"),
    "dt.json": ('{"V": [[1]], "Q": [[1]], "K": [[1]], "X0": [[1]], "time": {"discrete": 0}}',
                "time.discrete: Δt = 0 is not positive"),
    "singular.json": ('{"V": [[-2]], "Q": [[1]], "K": [[1]], "X0": [[1]], '
                      '"time": {"discrete": "1/2"}}', "time.discrete: R = I + Δt·V is singular"),
    "huge.json": ('{"V": [[1e999999999]], "Q": [[1]], "K": [[1]], "X0": [[1]]}',
                  "V[0][0]: '1e999999999' is too large"),
    "notjson.json": ("{V: 1", "not valid JSON"),
    "list.json": ("[]", "a JSON list is not an instance"),
}


@pytest.mark.parametrize("fname", sorted(MALFORMED))
def test_malformed_input_exit_2_one_line(capsys, tmp_path, fname):
    text, expected = MALFORMED[fname]
    path = tmp_path / fname
    path.write_text(text)
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = run(capsys, "classify", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


@pytest.mark.parametrize("args, expected", [
    (["classify"], "Missing argument 'FILE'"),
    (["classify", "/no/such/file.json"], "/no/such/file.json: cannot be read"),
    (["classify", "x.json", "--format", "xml"], "'xml' is not one of"),
    (["frobnicate"], "No such command 'frobnicate'"),
    (["classify", "x.json", "--bogus"], "No such option '--bogus'"),
])
def test_usage_errors_exit_2(capsys, args, expected):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and expected in err


def test_help_and_version(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "classify" in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and "0.1.0" in out


def test_console_entry_point_subprocess():
    proc = subprocess.run([sys.executable, "-m", "certified", "classify",
                           str(EXAMPLES / "thm8_5_contracting.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["theorems"]["8.5"]["hypotheses_hold"] is True
    proc = subprocess.run([sys.executable, "-m", "certified", "classify", "/nonexistent"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and proc.stdout == ""


@pytest.mark.parametrize("args, option", [
    (["verify", str(EXAMPLES / "thm2_1_one_dimensional.json"), "--out", "{missing}/c.json"],
     "--out"),
    (["simulate", str(EXAMPLES / "thm3_1_identity.json"), "--t-final", "1", "--plot",
      "{missing}/p.png"], "--plot"),
    (["ginibre", "--dims", "2", "--samples", "3", "--out", "{missing}/g.json"], "--out"),
    (["verify", str(EXAMPLES / "thm2_1_one_dimensional.json"), "--out", "{tmp}"], "--out"),
])
def test_output_paths_are_checked_before_any_work(tmp_path, capsys, args, option):
    args = [a.format(missing=tmp_path / "no" / "such", tmp=tmp_path) for a in args]
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2 and option in err and err.count("\n") == 1 and out == ""
