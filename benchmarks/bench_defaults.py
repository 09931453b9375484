"""Wall-clock of what a user runs with the defaults: every `certified` command in the README
and the tutorials (in order, in one scratch folder, as a reader would), and `verify` on
every shipped example (defaults, the theorem its name gives, else auto).

Targets: every README and tutorial command within 60 s; every shipped example within
120 s. Commands that the docs mark as long sweeps (`explore` with more than 20 samples)
are listed, not run.

Usage: python benchmarks/bench_defaults.py [--markdown] [--only commands|examples]
       [--cap SECONDS]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs" / "tutorials").glob("*.md")),
        ROOT / "docs" / "index.md"]
#: a command line in a markdown file: indented by four spaces, or after "$ "
COMMAND = re.compile(r"^(?:    |\$ )(certified \S.*?)\s*(?:#.*)?$")


#: Commands of the benchmarks page itself: a near tie |λ₂| ≈ λ₁, whose limits cannot reach
#: 10^-digits, with the defaults and with a wall-clock cap after its first verdict.
EXTRA = [("benchmarks page", "certified verify examples/near_tie_subdominant.json --digits 12"),
         ("benchmarks page", "certified verify examples/near_tie_subdominant.json --digits 12 "
                             "--max-seconds 10")]


def commands() -> list[tuple[str, str]]:
    """(file, command) for every `certified …` command line of the docs, in order, then
    :data:`EXTRA`."""
    out = []
    for doc in DOCS:
        for line in doc.read_text(encoding="utf-8").splitlines():
            m = COMMAND.match(line)
            if m:
                out.append((doc.relative_to(ROOT).as_posix(), m.group(1)))
    return out + EXTRA


def long_sweep(cmd: str) -> bool:
    m = re.search(r"--samples (\d+)", cmd)
    return cmd.startswith("certified explore") and m is not None and int(m.group(1)) > 20


def theorem_of(name: str) -> str:
    m = re.match(r"thm(\d)_(\d)_", name)
    return f"{m.group(1)}.{m.group(2)}" if m else "auto"


def run(argv: list[str], cwd: str, cap: float) -> tuple[float, str]:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=cap,
                              check=False)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, f"still running at the {cap:.0f} s cap"
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        return wall, f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}"
    first = proc.stdout.strip().splitlines()[:1]
    return wall, first[0][:90] if first else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--only", choices=["commands", "examples"])
    ap.add_argument("--cap", type=float, default=600.0,
                    help="outer cap per command (the table says when it was reached)")
    args = ap.parse_args()
    if args.markdown:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from mdheader import header

        print(header())
    exe = str(Path(sys.executable).with_name("certified"))
    with tempfile.TemporaryDirectory() as scratch:
        for link in ("examples", "certified"):  # paths in the docs are from the root
            os.symlink(ROOT / link, Path(scratch) / link)
        if args.only != "examples":
            print("| where | command (defaults) | wall (s) | target 60 s | first line |")
            print("|---|---|---:|---|---|")
            for where, cmd in commands():
                if long_sweep(cmd):
                    print(f"| {where} | `{cmd}` | — | not run (a long sweep) | |")
                    continue
                argv = shlex.split(cmd)
                wall, first = run([exe, *argv[1:]], scratch, args.cap)
                ok = "met" if wall <= 60 and "exit" not in first and "cap" not in first \
                    else "**missed**"
                print(f"| {where} | `{cmd}` | {wall:.1f} | {ok} | `{first}` |", flush=True)
        if args.only != "commands":
            print()
            print("| example | theorem | wall (s) | target 120 s | first line |")
            print("|---|---|---:|---|---|")
            for path in sorted((ROOT / "examples").glob("*.json")):
                name = path.stem
                if name.startswith("variant_"):  # verify refuses the open variants
                    continue
                thm = theorem_of(name)
                wall, first = run([exe, "verify", f"examples/{name}.json", "--theorem", thm,
                                   "--out", f"{name}.certificate.json"], scratch, args.cap)
                ok = "met" if wall <= 120 and "exit" not in first and "cap" not in first \
                    else "**missed**"
                print(f"| {name} | {thm} | {wall:.1f} | {ok} | `{first}` |", flush=True)


if __name__ == "__main__":
    main()
