"""Mutation testing of the checker's trusted core with mutmut (not part of the test suite).

    python benchmarks/mutation_checker.py [--modules lemmas projected ...] [--jobs 2]
                                          [--workdir /tmp/mutation-checker]

Copies the working tree (certified/, tests/checker/) to WORKDIR, writes mutmut's
configuration there ([mutmut] in setup.cfg: the modules to mutate, the test selection
tests/checker/test_claims_fast.py + test_hypotheses.py), runs ``mutmut run`` and prints the
score per module and every surviving mutant (``mutmut show NAME`` in WORKDIR shows its diff).
The test selection re-checks every claim of the fixture certificates without replaying
their steps (``certified.checker._check_claims_only``), so one mutant costs seconds; replay.py
is mutated only in its comparison functions (see COMPARISONS).

Results and the reason each survivor survives: proofs_notes/checker.md, "Mutation testing".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["lemmas", "projected", "paranormal", "hypotheses", "__init__", "selftest"]
#: replay.py: only the functions that compare a stored claim with the checker's own
COMPARISONS = ["parse_interval", "_pair", "parse_set"]
TESTS = ["tests/checker/test_claims_fast.py", "tests/checker/test_hypotheses.py",
         "tests/checker/test_selftest_and_independence.py"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--modules", nargs="*", default=MODULES)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workdir", default="/tmp/mutation-checker")
    args = ap.parse_args()
    work = Path(args.workdir)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    shutil.copytree(ROOT / "certified", work / "certified",
                    ignore=shutil.ignore_patterns("__pycache__", "practice"))
    (work / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "__init__.py", work / "tests" / "__init__.py") \
        if (ROOT / "tests" / "__init__.py").exists() else (work / "tests" / "__init__.py").touch()
    shutil.copytree(ROOT / "tests" / "checker", work / "tests" / "checker",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "examples", work / "examples")
    paths = [f"certified/checker/{m}.py" for m in args.modules]
    if "replay" in args.modules:
        paths = [p for p in paths if not p.endswith("replay.py")]
    cfg = ["[mutmut]",
           "paths_to_mutate =\n    " + "\n    ".join(paths + (
               ["certified/checker/replay.py"] if "replay" in args.modules else [])),
           "source_paths = certified",
           "tests_dir =\n    " + "\n    ".join(TESTS),
           "also_copy =\n    tests\n    examples",
           "pytest_add_cli_args = -p no:cacheprovider -p no:xdist -q",
           ""]
    if "replay" in args.modules:  # only the comparison functions of replay.py
        cfg.insert(2, "do_not_mutate_patterns =\n    " + "\n    ".join(
            f"certified.checker.replay.x_{f}*" for f in ()))
    (work / "setup.cfg").write_text("\n".join(cfg))
    env = dict(os.environ, PYTHONPATH=str(work / "mutants"))
    mutmut = [sys.executable, "-m", "mutmut"]
    subprocess.run(mutmut + ["run", "--max-children", str(args.jobs)], cwd=work, env=env)
    out = subprocess.run(mutmut + ["results", "--all", "true"], cwd=work, env=env,
                         capture_output=True, text=True).stdout
    return report(out, args.modules)


def report(results: str, modules: list[str]) -> int:
    per: dict[str, Counter] = {}
    survivors = []
    for line in results.splitlines():
        m = re.match(r"\s*(certified\.checker\.(\w+)\.\S+):\s*(\w[\w ]*)", line)
        if not m:
            continue
        name, mod, status = m.group(1), m.group(2), m.group(3).strip()
        per.setdefault(mod, Counter())[status] += 1
        if status == "survived":
            survivors.append(name)
    rows = {}
    for mod, c in sorted(per.items()):
        total = sum(c.values())
        killed = c["killed"] + c["timeout"]
        rows[mod] = {"mutants": total, "killed": killed, "survived": c["survived"],
                     "other": total - killed - c["survived"],
                     "score": round(100 * killed / max(1, killed + c["survived"]), 1)}
    print(json.dumps({"modules": rows, "survivors": survivors}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
