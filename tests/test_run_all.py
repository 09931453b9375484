"""benchmarks/run_all.py: the benchmarks page's marked blocks are found, replaced by their
command's output one at a time, resumed at the same commit, and left alone when their
command fails; a malformed page is refused before anything runs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
run_all = importlib.util.module_from_spec(_spec)
sys.modules["run_all"] = run_all  # dataclasses read their module
_spec.loader.exec_module(run_all)

PAGE = """# Page

Prose that stays.

<!-- run first: python -c "print('| a |'); print('|---|'); print('| 1 |')" -->
old first table
<!-- end first -->

More prose.

<!-- run second: python -c "import sys; sys.exit(3)" -->
old second table
<!-- end second -->
"""


def test_the_shipped_page_has_well_formed_blocks():
    found = run_all.blocks((ROOT / "docs" / "benchmarks.md").read_text().split("\n"))
    names = [b.name for b in found]
    assert {"defaults", "checker", "figure_setting", "boundary_maps"} <= set(names)
    # every block's command is a script of benchmarks/ that exists
    for b in found:
        script = b.command.split()[1]
        assert (ROOT / script).is_file(), b


def test_blocks_and_replace():
    lines = PAGE.split("\n")
    found = run_all.blocks(lines)
    assert [(b.name, lines[b.start + 1]) for b in found] == [
        ("first", "old first table"), ("second", "old second table")]
    new = run_all.replace(lines, "first", "x\ny\n")
    assert "\n".join(new) == PAGE.replace("old first table", "x\ny")
    assert run_all.replace(lines, "first", "") == [
        ln for ln in lines if ln != "old first table"]


@pytest.mark.parametrize("page,message", [
    ("<!-- run a: true -->\n", "never closed"),
    ("<!-- run a: true -->\n<!-- run b: true -->\n<!-- end b -->\n<!-- end a -->\n",
     "opens inside 'a'"),
    ("<!-- end a -->\n", "closes no open block"),
    ("<!-- run a: true -->\n<!-- end b -->\n", "closes no open block"),
    ("<!-- run a: true -->\n<!-- end a -->\n<!-- run a: true -->\n<!-- end a -->\n",
     "used twice: a"),
])
def test_a_malformed_page_is_refused(page, message):
    with pytest.raises(run_all.PageError, match=message):
        run_all.blocks(page.split("\n"))


def test_run_replaces_each_block_keeps_failures_and_resumes(tmp_path, capsys):
    page, state = tmp_path / "page.md", tmp_path / "state.json"
    page.write_text(PAGE)
    result = run_all.run(page, state, None, "abc123", cwd=tmp_path)
    assert result == {"first": "done", "second": "failed (exit 3)"}
    text = page.read_text()
    assert text == PAGE.replace("old first table", "| a |\n|---|\n| 1 |")
    # a second run at the same commit skips what is done and retries what failed
    page.write_text(text.replace("\n| 1 |\n", "\n| edited by hand |\n"))
    again = run_all.run(page, state, None, "abc123", cwd=tmp_path)
    assert again == {"first": "skipped (done at abc123)", "second": "failed (exit 3)"}
    assert "| edited by hand |" in page.read_text()
    # at another commit it runs again
    assert run_all.run(page, state, ["first"], "def456", cwd=tmp_path) == {"first": "done"}
    assert "\n| 1 |\n" in page.read_text()


def test_only_names_an_existing_block(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    with pytest.raises(run_all.PageError, match="no block named third"):
        run_all.run(page, tmp_path / "s.json", ["third"], "abc", cwd=tmp_path)
    assert page.read_text() == PAGE


def test_python_is_this_interpreter():
    assert run_all._argv("python -c 'print(1)'") == [sys.executable, "-c", "print(1)"]
    assert run_all._argv("certified verify x.json") == ["certified", "verify", "x.json"]


def test_a_command_that_cannot_start_or_prints_a_marker_fails_and_the_run_goes_on(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- run a: no-such-program-here --x -->\nold a\n<!-- end a -->\n"
                    "<!-- run b: python -c \"print('<!-- end b -->')\" -->\nold b\n"
                    "<!-- end b -->\n<!-- run c: python -c \"print('new c')\" -->\nold c\n"
                    "<!-- end c -->\n")
    page.chmod(0o644)
    result = run_all.run(page, tmp_path / "s.json", None, "abc", cwd=tmp_path)
    assert result["a"].startswith("failed (FileNotFoundError")
    assert result["b"] == "failed (its output holds a block marker)"
    assert result["c"] == "done"
    text = page.read_text()
    assert "old a" in text and "old b" in text and "new c" in text and "old c" not in text
    assert page.stat().st_mode & 0o777 == 0o644  # the rename keeps the page's mode


def test_a_changed_command_runs_again_at_the_same_commit(tmp_path):
    page, state = tmp_path / "page.md", tmp_path / "s.json"
    page.write_text("<!-- run a: python -c \"print(1)\" -->\n<!-- end a -->\n")
    assert run_all.run(page, state, None, "abc", cwd=tmp_path) == {"a": "done"}
    page.write_text(page.read_text().replace("print(1)", "print(2)"))
    assert run_all.run(page, state, None, "abc", cwd=tmp_path) == {"a": "done"}
    assert page.read_text().split("\n")[1] == "2"


def test_the_header_names_a_clean_tree_under_run_all(monkeypatch):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import mdheader
    finally:
        sys.path.pop(0)
    head = mdheader._git("rev-parse", "HEAD")
    if not head:
        pytest.skip("not a git checkout")
    monkeypatch.setenv("RUN_ALL_CLEAN_AT", head)
    assert "(run_all.py, from a clean tree)" in mdheader.header()
    monkeypatch.setenv("RUN_ALL_CLEAN_AT", "0" * 40)  # another commit: the tree is read
    assert "(run_all.py, from a clean tree)" not in mdheader.header()
