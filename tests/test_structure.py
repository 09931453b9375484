"""The package's layout keeps its promises: pipeline subpackages, imports downward only
(no cycle), few flat modules, no module over 700 lines, every function-level import
with its reason on its line, and one producer module converting digits to bits."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "certified"

#: The pipeline's order: a module may import only from its own stage or stages before
#: it (``studies``, ``practice`` and ``cli`` sit beside the pipeline, above it).
STAGES = {"errors": 0, "logic": 0, "precision": 0, "exact": 1, "enclose": 2, "approx": 3,
          "tail": 3, "verdict": 4, "plots": 4, "studies": 5, "strategies": 6,
          "practice": 5, "api": 6, "cli": 7, "checker": 1, "__init__": 0, "__main__": 8}
#: What the independent checker may import (besides the standard library).
CHECKER_MAY_IMPORT = {"certified.errors", "numpy", "mpmath", "jsonschema", "threadpoolctl"}


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        rel = p.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> list[str]:
    if node.level:
        base = mod.split(".") if is_pkg else mod.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        full = ".".join(base + ([node.module] if node.module else []))
    else:
        full = node.module or ""
    # "from pkg import submodule" imports the submodule
    return [f"{full}.{a.name}" if f"{full}.{a.name}" in MODULES else full for a in node.names]


def _imports(mod: str, path: Path, top_level_only: bool) -> list[tuple[str, ast.stmt]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            out += [(t, node) for t in _resolve(mod, path.name == "__init__.py", node)]
        elif isinstance(node, ast.Import):
            out += [(a.name, node) for a in node.names]
    return out


def _graph() -> dict[str, set[str]]:
    return {m: {t for t, _ in _imports(m, p, True) if t in MODULES and t != m}
            for m, p in MODULES.items()}


def test_no_import_cycle():
    graph = _graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t, stack + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == []


def _stage(mod: str) -> int:
    parts = mod.split(".")
    return STAGES[parts[1] if len(parts) > 1 else "__init__"]


def test_imports_go_downward_only():
    upward = [(m, t) for m, targets in _graph().items() for t in targets
              if t.startswith("certified") and _stage(t) > _stage(m)
              and m != "certified"]  # the package root re-exports lazily
    assert upward == []


def test_checker_imports_only_its_allowlist():
    bad = []
    for m, p in MODULES.items():
        if not m.startswith("certified.checker"):
            continue
        for t, _ in _imports(m, p, False):
            top = t.split(".")[0]
            if t.startswith("certified.checker") or t in CHECKER_MAY_IMPORT or \
                    top in CHECKER_MAY_IMPORT or top in _STDLIB:
                continue
            bad.append((m, t))
    assert bad == []


_STDLIB = {"__future__", "abc", "argparse", "collections", "concurrent", "contextlib",
           "dataclasses", "decimal", "enum", "fractions", "functools", "gzip", "hashlib",
           "importlib", "io", "itertools", "json", "math", "multiprocessing", "operator",
           "os", "pathlib", "re", "struct", "sys", "threading", "time", "typing",
           "warnings"}


def test_few_flat_modules_and_none_too_long():
    flat = sorted(p.name for p in PKG.glob("*.py"))
    assert len(flat) <= 8, flat
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 700}
    assert long == {}


def test_every_function_level_import_says_why():
    """Allowed only for optional dependencies and start-up time, each with a reason on
    its line (a comment) or on the line above."""
    missing = []
    for m, p in MODULES.items():
        lines = p.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    here = lines[node.lineno - 1]
                    above = lines[node.lineno - 2].strip()
                    block = lines[node.lineno - 1:node.end_lineno]
                    if not any("#" in b for b in block) and not above.startswith("#"):
                        missing.append(f"{p.relative_to(PKG.parent)}:{node.lineno}: "
                                       f"{here.strip()}")
    assert missing == []


@pytest.mark.parametrize("pattern", [r"log2\(10\)", r"log10\(2\)", r"3\.3[23]", r"0\.30103"])
def test_digits_become_bits_in_one_producer_module(pattern):
    """The producer converts digits ↔ bits in certified/precision.py only; the checker
    keeps its own conversion (it imports nothing from the producer)."""
    where = sorted(str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                   if re.search(pattern, p.read_text(encoding="utf-8"))
                   and "checker" not in p.parts)
    assert set(where) <= {"precision.py"}, where


def test_public_api_is_reexported():
    import certified
    import certified.strategies as st

    for name in certified.__all__:
        assert getattr(certified, name) is not None
    assert set(st.__all__) == {"THEOREMS", "VIOLATIONS", "inside", "violating", "tokens",
                               "rationals", "discrete", "discrete_split", "STEP_SIZES"}
