"""Regenerate the benchmarks page from one commit: run every marked block's command and put
its output in place.

    python benchmarks/run_all.py --list                 # the blocks, their commands, state
    python benchmarks/run_all.py [--only NAME ...]      # run them (resumable)
    python benchmarks/run_all.py --page PAGE --state STATE.json

A generated block of ``docs/benchmarks.md`` sits between two markers::

    <!-- run NAME: COMMAND -->
    …the command's standard output (its --markdown header and table)…
    <!-- end NAME -->

Each block's COMMAND runs from the repository root with this interpreter (a leading
``python`` is replaced by ``sys.executable``); a block whose command exits non-zero is left
as it was and reported, and the run goes on with the next. The page is rewritten after each
block (to a temporary file, then renamed: an interrupted run loses at most the block it was
running). The state file records, per block, the commit it was regenerated at: a second run
at the same commit skips the blocks already done, so a run of many hours can be resumed.
The tree must be clean (``git status --porcelain`` empty for tracked files) but for the
files the blocks themselves write (:data:`OUTPUTS`: the page, and the rows and figure two
scripts keep): the page's rows then all name the one commit they were measured at, and
``mdheader`` says so (``RUN_ALL_CLEAN_AT`` in the commands' environment). A block whose
command cannot be started (no such program, bad quoting) is reported as failed, like one
that exits non-zero.

Blocks are run one at a time, in page order: the timing rows are meant for an otherwise
idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "benchmarks.md"
STATE = ROOT / "benchmarks" / "out" / "run_all_state.json"
#: tracked files the blocks write (besides the page): a resumed run must not see them as
#: uncommitted changes of the code
OUTPUTS = ("docs/results/dt_map.jsonl", "docs/figures/boundary_maps.png")

_START = re.compile(r"^<!-- run (?P<name>[A-Za-z0-9_.-]+): (?P<cmd>.+?) -->$")
_END = "<!-- end {} -->"


class PageError(ValueError):
    """The page's markers are malformed (unclosed, nested, or a name used twice)."""


@dataclass(frozen=True)
class Block:
    """One generated block: its name, command, and the line span of its body
    (``start`` is the opening marker's index, ``end`` the closing marker's)."""

    name: str
    command: str
    start: int
    end: int


def _is_marker(line: str) -> bool:
    return bool(_START.match(line)) or line.startswith("<!-- end ")


def _entry(commit: str, b: Block) -> dict[str, str]:
    """What the state file records for a block done: at this commit, with this command."""
    return {"commit": commit, "command": b.command}


def blocks(lines: list[str]) -> list[Block]:
    """The marked blocks of a page, in order; :class:`PageError` on a malformed page."""
    found: list[Block] = []
    open_: tuple[str, str, int] | None = None
    for i, line in enumerate(lines):
        m = _START.match(line)
        if m:
            if open_ is not None:
                raise PageError(f"line {i + 1}: block {m['name']!r} opens inside {open_[0]!r}")
            open_ = (m["name"], m["cmd"], i)
        elif line.startswith("<!-- end "):
            if open_ is None or line != _END.format(open_[0]):
                raise PageError(f"line {i + 1}: {line!r} closes no open block")
            found.append(Block(open_[0], open_[1], open_[2], i))
            open_ = None
    if open_ is not None:
        raise PageError(f"block {open_[0]!r} (line {open_[2] + 1}) is never closed")
    names = [b.name for b in found]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise PageError(f"block names used twice: {', '.join(dup)}")
    return found


def replace(lines: list[str], name: str, body: str) -> list[str]:
    """The page with block ``name``'s body replaced by ``body`` (markers kept)."""
    b = next((b for b in blocks(lines) if b.name == name), None)
    if b is None:
        raise PageError(f"no block named {name!r}")
    new = body.rstrip("\n").split("\n") if body.strip() else []
    return lines[:b.start + 1] + new + lines[b.end:]


def _argv(command: str) -> list[str]:
    argv = shlex.split(command)
    return [sys.executable] + argv[1:] if argv and argv[0] == "python" else argv


def _commit() -> str:
    out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _dirty(page: Path) -> list[str]:
    """Tracked files with uncommitted changes, but for the page and :data:`OUTPUTS`."""
    out = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain",
                          "--untracked-files=no"], capture_output=True, text=True, check=True)
    rel = str(page.resolve().relative_to(ROOT)) if page.resolve().is_relative_to(ROOT) else ""
    return [ln for ln in out.stdout.splitlines() if ln[3:] not in (rel, *OUTPUTS)]


def _write_text(path: Path, text: str) -> None:
    """Write by a temporary file and a rename (an interrupted run leaves the old file),
    keeping the file's mode."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".run_all.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    if path.exists():
        shutil.copymode(path, tmp)
    else:
        os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _read_lines(page: Path) -> list[str]:
    lines = page.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def run(page: Path, state_file: Path, only: list[str] | None, commit: str,
        cwd: Path = ROOT) -> dict[str, str]:
    """Run the page's blocks (or ``only`` those), rewriting the page after each one.

    Returns
    -------
    dict
        name → "done", "skipped (done at COMMIT)" or "failed (exit N)".
    """
    todo = blocks(_read_lines(page))
    unknown = sorted(set(only or []) - {b.name for b in todo})
    if unknown:
        raise PageError(f"--only: no block named {', '.join(unknown)}; the page has "
                        f"{', '.join(b.name for b in todo)}")
    state = json.loads(state_file.read_text()) if state_file.exists() else {}
    result: dict[str, str] = {}
    for b in todo:
        if only and b.name not in only:
            continue
        done = _entry(commit, b)
        if state.get(b.name) == done:
            result[b.name] = f"skipped (done at {commit[:7]})"
            continue
        t0 = time.monotonic()
        print(f"[run_all] {b.name}: {b.command}", file=sys.stderr, flush=True)
        try:
            proc = subprocess.run(_argv(b.command), cwd=cwd, capture_output=True, text=True,
                                  env=dict(os.environ, RUN_ALL_CLEAN_AT=commit))
        except (OSError, ValueError) as exc:  # no such program, or unreadable quoting
            result[b.name] = f"failed ({type(exc).__name__}: {exc})"
            print(f"[run_all] {b.name}: {result[b.name]}", file=sys.stderr, flush=True)
            continue
        took = time.monotonic() - t0
        if proc.returncode != 0:
            result[b.name] = f"failed (exit {proc.returncode})"
            tail = proc.stderr.strip().splitlines()[-1:] or [""]
            print(f"[run_all] {b.name}: exit {proc.returncode} after {took:.0f} s: {tail[0]}",
                  file=sys.stderr, flush=True)
            continue
        if any(_is_marker(ln) for ln in proc.stdout.split("\n")):
            result[b.name] = "failed (its output holds a block marker)"
            continue
        # the page as it is now (it may have been edited by hand during a long run)
        _write_text(page, "\n".join(replace(_read_lines(page), b.name, proc.stdout)) + "\n")
        state[b.name] = done
        state_file.parent.mkdir(parents=True, exist_ok=True)
        _write_text(state_file, json.dumps(state, indent=1) + "\n")
        result[b.name] = "done"
        print(f"[run_all] {b.name}: done in {took:.0f} s", file=sys.stderr, flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--page", type=Path, default=PAGE)
    ap.add_argument("--state", type=Path, default=STATE)
    ap.add_argument("--only", nargs="+", metavar="NAME")
    ap.add_argument("--list", action="store_true", help="list the blocks and stop")
    args = ap.parse_args(argv)
    try:
        found = blocks(_read_lines(args.page))
    except (OSError, PageError) as exc:
        print(f"run_all: {args.page}: {exc}", file=sys.stderr)
        return 2
    commit = _commit()
    if args.list:
        state = json.loads(args.state.read_text()) if args.state.exists() else {}
        for b in found:
            mark = "done" if state.get(b.name) == _entry(commit, b) else "to run"
            print(f"{b.name:28} {mark:7} {b.command}")
        return 0
    dirty = _dirty(args.page)
    if dirty:
        print("run_all: the tree has uncommitted changes (the rows would not name the commit "
              f"they were measured at): {dirty[0].strip()}", file=sys.stderr)
        return 2
    try:
        result = run(args.page, args.state, args.only, commit)
    except PageError as exc:
        print(f"run_all: {exc}", file=sys.stderr)
        return 2
    for name, what in result.items():
        print(f"{name:28} {what}")
    return 1 if any(w.startswith("failed") for w in result.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
