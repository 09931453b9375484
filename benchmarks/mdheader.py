"""The header of a benchmark's ``--markdown`` table: when, at which commit, on what machine.

Used by every script in this folder: ``python benchmarks/bench_X.py … --markdown`` prints
its table as markdown preceded by this header, ready for docs/benchmarks.md.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10,
                             cwd=os.path.dirname(os.path.abspath(__file__)), check=False)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _versions() -> str:
    from importlib import metadata

    parts = [f"Python {platform.python_version()}"]
    for pkg in ("certified", "python-flint", "mpmath", "numpy"):
        try:
            parts.append(f"{pkg} {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(parts)


def header() -> str:
    """Markdown lines: the command, the UTC date, the commit and the machine."""
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    # run_all.py checks the tree once, before its first block, and then writes the page
    # (and the rows some scripts keep) itself: those writes are not uncommitted changes
    # of the code measured
    clean_at = os.environ.get("RUN_ALL_CLEAN_AT")
    if clean_at and clean_at == _git("rev-parse", "HEAD"):
        commit += " (run_all.py, from a clean tree)"
    elif _git("status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        load = "load average %.2f at start" % os.getloadavg()[0]
    except OSError:
        load = "load average unknown"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = "python " + " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:])
    return (f"`{cmd}`  \n"
            f"Measured {now}, commit {commit}.  \n"
            f"Machine: {_cpu()}, {cores} usable cores, {platform.system()} "
            f"{platform.release()}, {load}; {_versions()}.\n")
