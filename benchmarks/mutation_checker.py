"""Mutation testing of the checker's trusted core with mutmut (not part of the test suite).

    python benchmarks/mutation_checker.py [--modules lemmas projected paranormal lohner energy divergence
                                           two_tokens hypotheses] [--jobs 2]
                                          [--workdir /tmp/mutation-checker]
    python benchmarks/mutation_checker.py --defect [--jobs 2]   # the defect step's replay

Copies the working tree (certified/, tests/checker/ and any other test file named by
--tests) to WORKDIR, writes mutmut's
configuration there ([mutmut] in setup.cfg: the modules to mutate, the test selection
tests/checker/test_claims_fast.py + test_issue_edits.py), runs ``mutmut run`` and prints the
score per module and every surviving mutant; WORKDIR/survivors.diff has each survivor's
diff (``mutmut show NAME``).
The test selection re-checks every claim of the fixture certificates without replaying
their steps (``certified.checker._check_claims_only``), so one mutant costs seconds; lohner.py
is mutated only in the functions that parse stored intervals and sets (see FUNCTIONS).

Results and the reason each survivor survives: proofs_notes/checker.md, "Mutation testing".
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["lemmas", "projected", "paranormal", "lohner", "energy", "divergence", "two_tokens",
           "hypotheses"]
#: the fast claim checks (no replay; the S1/S2 audits, 3 s each of quadrature, left out:
#: audits.py is not mutated) and the issue-25 edits
TESTS = ["tests/checker/test_readers.py", "tests/checker/test_issue_edits.py",
         "tests/checker/test_claims_fast.py", "tests/checker/test_projected_arith.py",
         "tests/checker/test_t9_discrete_checks.py", "tests/checker/test_t7_verdict_checks.py",
         "tests/checker/test_t11_checks.py", "tests/checker/test_edges_paranormal.py",
         "tests/checker/test_edges_projected.py", "tests/checker/test_edges_lemmas.py",
         "tests/checker/test_edges_energy.py", "tests/checker/test_edges_verdicts.py",
         "tests/checker/test_t8_line_checks.py", "tests/checker/test_two_tokens_checks.py",
         "tests/checker/test_hypotheses.py", "tests/checker/test_g_metric_checks.py"]
SELECT = ["-k", "not remark_7_9 and not middle_token"]
#: The functions mutated by default (mutmut names): every function of lemmas.py,
#: projected.py, paranormal.py and energy.py that checks a claim or a verdict, and lohner.py's
#: functions that read a stored interval or set for comparison. Left out: the exact
#: arithmetic helpers (_add, _mul, _dot, _inverse, _sqrt_up, …: their mutants break every
#: check at once and are killed by any test) and the replay's step arithmetic, covered by
#: tests/checker/test_tamper.py and tests/test_checker.py (each test there replays steps:
#: minutes a mutant). --all mutates every function of --modules.
FUNCTIONS = [f"certified.checker.{m}.x_{f}__mutmut_*" for m, fs in {
    "lemmas": ["check_t4_verdict", "_t4_expected", "closed", "check_centre_flags",
               "check_leader_follower", "_check_clusters", "_contains", "_margins", "_tails",
               "_larger"],
    "projected": ["check_projected", "_covers", "check_t7_verdict", "leakage_bound",
                  "layer_decay", "group_limits"],
    "paranormal": ["check_paranormal", "check_paranormal_verdict", "_metric", "_vertex_max",
                   "_norm_up"],
    "energy": ["check_t6_limit", "_check_proved", "check_t6_data", "check_t9_data",
               "check_t9_limit", "check_t9_discrete", "_energy_constants", "check_layer_step",
               "stored_boxes", "quadratic_form"],
    "divergence": ["check_t11", "check_t11_verdict"],
    # Lemma S3 (C23) and its exact reading of the spectrum (also used by C16 at ties)
    "two_tokens": ["check_two_tokens", "_check_negative"],
    "hypotheses": ["reading", "_exact_factors", "_factors_at", "_multiplicity"],
    # parse_set is read only by the replay: tests/checker/test_tamper.py covers it
    "lohner": ["_pair"]}.items() for f in fs]


#: ``--defect``: the defect step's replay (Lemma C20) — its bootstrap, tubes, polynomial and
#: directed helpers — against tests/checker/test_defect_replay.py (oracle tests: exact
#: rationals, mpmath, odefun). Left out: the disk, the circle and the batch evaluation of
#: the field (≈ 900 more mutants, each replaying certificates).
DEFECT_FUNCTIONS = [f"certified.checker.defect.x_{f}*" for f in (
    "_pieces", "_tubes", "_defect_bounds", "_log_norms", "_bootstrap", "_polynomial",
    "_horner_up", "_times_pow2_up", "_pi", "_low", "_high")]
DEFECT_TESTS = ["tests/checker/test_defect_replay.py"]


#: ``--plan``: the whole checker at one commit, one module a piece, each against the tests
#: that re-derive its results (mutmut runs, for each mutant, only the selected tests that
#: reach the mutated function; a survivor costs all of them, so the selections stay the
#: fast ones: no test here replays a long certificate).
_C = "tests/checker/"
_CLAIMS = TESTS + [_C + t for t in (
    "test_dispatch.py", "test_discrete_boxes.py", "test_exact_lemma_checks.py",
    "test_quadrature.py", "test_audit_lemma_checks.py", "test_stationary_oracle.py",
    "test_limits.py", "test_generated_types.py", "test_accepted_edits.py", "test_reading.py",
    "test_enclosure_at_T.py", "test_cross_terms_oracle.py")]
_ORACLES = [_C + t for t in ("test_balls_oracle.py", "test_balls_exp.py", "test_elementary.py",
                             "test_quadrature.py", "test_selftest_and_independence.py",
                             "test_readers.py")]
_REPLAY = [_C + "test_replay_rules.py", _C + "test_chunk_tasks.py"] + [
    "tests/test_checker.py::test_chunked_replay_" + t for t in (
        "agrees_with_the_sequential_one", "reports_the_sequential_first_failure",
        "falls_back_when_a_restart_fails")]
PLAN: dict[str, tuple[list[str], str | None]] = {
    **{m: (_CLAIMS, None) for m in (
        "lemmas", "projected", "paranormal", "energy", "divergence", "two_tokens",
        "hypotheses", "audits", "claims", "discrete", "exact_lemmas", "limits", "reading",
        "__init__")},
    **{m: (_ORACLES, "not allowlist") for m in ("balls", "elementary", "quadrature",
                                                 "selftest", "errors")},
    "fballs": (["tests/test_fballs.py", _C + "test_elementary.py"], None),
    "dynamics": ([_C + "test_jets_oracle.py", _C + "test_jets_scale.py", "tests/test_fballs.py"],
                 "not cos_sin"),
    "defect": ([_C + "test_defect_replay.py", _C + "test_defect_boxes.py"], None),
    "lohner": ([_C + "test_lohner_oracle.py", _C + "test_replay_rules.py"], None),
    "replay": (_REPLAY, None),
}


def plan(workdir: Path, modules: list[str], jobs: int) -> int:
    """Run PLAN's pieces one after another (each in WORKDIR/<module>, its JSON beside it)
    and write WORKDIR/summary.md: one row per module, with the commit and the date."""
    rows = []
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    if subprocess.run(git + ["status", "--porcelain", "certified", "tests"],
                      capture_output=True, text=True).stdout.strip():
        commit += "+dirty"  # the working tree is what is copied and mutated
    for m in modules:
        tests, keyword = PLAN[m]
        out = workdir / f"{m}.json"
        done = json.loads(out.read_text()) if out.exists() else {}
        if done.get("commit") != commit:  # a piece done at this commit is kept (resumable)
            cmd = [sys.executable, __file__, "--modules", m, "--all", "--jobs", str(jobs),
                   "--workdir", str(workdir / m), "--tests", *tests] + (
                       ["--keyword", keyword] if keyword else [])
            res = subprocess.run(cmd, capture_output=True, text=True)
            # report() prints its JSON last, from a line holding "{" alone (pytest's output
            # before it may hold braces)
            start = res.stdout.rfind("\n{\n")
            try:
                done = dict(json.loads(res.stdout[start + 1:]), commit=commit)
            except ValueError:
                done = {}
            if (done.get("modules", {}).get(m) or {}).get("killed"):
                out.write_text(json.dumps(done))  # only a piece that ran is kept
        r = done.get("modules", {}).get(m)
        rows.append(f"| `{m}.py` | {r['mutants']:,} | {r['killed']:,} | {r['survived']:,} | "
                    f"{r['not run']:,} | {r['score']} % |" if r else f"| `{m}.py` | failed |")
    head = ["| module | mutants | killed | survived | not run | score |",
            "|---|---:|---:|---:|---:|---:|"]
    (workdir / "summary.md").write_text(
        f"Commit {commit}, finished {datetime.datetime.now():%Y-%m-%d %H:%M}, "
        f"{os.cpu_count()} cores, --jobs {jobs}.\n\n" + "\n".join(head + rows) + "\n")
    print((workdir / "summary.md").read_text())
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--modules", nargs="*", default=MODULES)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workdir", default="/tmp/mutation-checker")
    ap.add_argument("--all", action="store_true", help="every function of --modules")
    ap.add_argument("--functions", nargs="*", default=FUNCTIONS)
    ap.add_argument("--tests", nargs="*", default=None,
                    help="the pytest selection instead of the fast claim tests, e.g. "
                         "tests/checker/test_defect_replay.py with --modules defect --all")
    ap.add_argument("--keyword", default=None,
                    help="a pytest -k expression for --tests (e.g. 'not allowlist': the import "
                         "allowlist test fails under mutmut's trampolines by construction)")
    ap.add_argument("--defect", action="store_true",
                    help="the defect replay's selection (DEFECT_FUNCTIONS, DEFECT_TESTS)")
    ap.add_argument("--plan", nargs="*", default=None, metavar="MODULE",
                    help="the whole checker (or the named modules), one module a piece, with "
                         "PLAN's selections; resumable; writes WORKDIR/summary.md")
    args = ap.parse_args()
    if args.plan is not None:
        work = Path(args.workdir)
        work.mkdir(parents=True, exist_ok=True)
        return plan(work, args.plan or list(PLAN), args.jobs)
    if args.defect:
        args.modules, args.functions, args.tests = ["defect"], DEFECT_FUNCTIONS, DEFECT_TESTS
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
    # a selected test outside tests/checker/ (e.g. tests/test_fballs.py) is copied too, with
    # the suite's shared conftest.py
    for name in (args.tests or []):
        path = Path(name.split("::")[0])
        if path.suffix == ".py" and path.parts[:2] != ("tests", "checker"):
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / path, work / path)
            if (ROOT / "tests" / "conftest.py").exists():
                shutil.copy(ROOT / "tests" / "conftest.py", work / "tests" / "conftest.py")
            # and the stored certificates those tests read (tests/data)
            if (ROOT / "tests" / "data").is_dir() and not (work / "tests" / "data").exists():
                shutil.copytree(ROOT / "tests" / "data", work / "tests" / "data")
    paths = [f"certified/checker/{m}.py" for m in args.modules]
    if "replay" in args.modules:
        paths = [p for p in paths if not p.endswith("replay.py")]
    cfg = ["[mutmut]",
           "source_paths = certified",
           "only_mutate =\n    " + "\n    ".join(paths + (
               ["certified/checker/replay.py"] if "replay" in args.modules else [])),
           "also_copy =\n    tests\n    examples",
           "pytest_add_cli_args =\n    -p\n    no:cacheprovider\n    -p\n    no:xdist\n    -q",
           "pytest_add_cli_args_test_selection =\n    " + "\n    ".join(
               TESTS + SELECT if args.tests is None else
               args.tests + (["-k", args.keyword] if args.keyword else [])),
           ""]
    (work / "setup.cfg").write_text("\n".join(cfg))
    env = dict(os.environ, PYTHONPATH=str(work / "mutants"))
    mutmut = [sys.executable, "-m", "mutmut"]
    cmd = mutmut + ["run", "--max-children", str(args.jobs)] + ([] if args.all else
                                                                 args.functions)
    if subprocess.run(cmd, cwd=work, env=env).returncode != 0:
        # mutmut 3.8's first statistics run in a fresh WORKDIR can fail although the same
        # tests pass (seen 3 times of 3 here); a second run reuses the mutants and works
        subprocess.run(cmd, cwd=work, env=env)
    out = subprocess.run(mutmut + ["results", "--all", "true"], cwd=work, env=env,
                         capture_output=True, text=True).stdout
    code = report(out, args.modules)
    with open(work / "survivors.diff", "w") as fh:
        for name in _SURVIVORS:
            fh.write(subprocess.run(mutmut + ["show", name], cwd=work, env=env,
                                    capture_output=True, text=True).stdout + "\n")
    return code


_SURVIVORS: list[str] = []


def report(results: str, modules: list[str]) -> int:
    per: dict[str, Counter] = {}
    survivors = []
    for line in results.splitlines():
        # certified.checker.<module>.x_<function>__mutmut_<k>; the package's own
        # __init__.py has no module part (certified.checker.x_…)
        m = re.match(r"\s*(certified\.checker\.(?:(\w+)\.)?x\S*__mutmut_\d+):\s*(\w[\w ]*)",
                     line)
        if not m:
            continue
        name, mod, status = m.group(1), m.group(2) or "__init__", m.group(3).strip()
        per.setdefault(mod, Counter())[status] += 1
        if status in ("survived", "no tests"):
            survivors.append(name)
    rows = {}
    for mod, c in sorted(per.items()):
        total = sum(c.values())
        killed = c["killed"] + c["timeout"]
        # a mutant no selected test reaches is a survivor too
        survived = c["survived"] + c["no tests"]
        rows[mod] = {"mutants": total, "killed": killed, "survived": survived,
                     "not run": total - killed - survived,
                     "score": round(100 * killed / max(1, killed + survived), 1)}
    print(json.dumps({"modules": rows, "survivors": survivors}, indent=1))
    _SURVIVORS[:] = survivors
    return 0


if __name__ == "__main__":
    sys.exit(main())
