"""Wall time and peak memory of `certified check` on the edits that once made it work for
hours or gigabytes: each must be rejected within 10 s and 500 MB.

Each row forges one certificate from a fresh small one (Lemma T4, digits 8; the discrete
one from `examples/discrete_layers.json`), with its digest recomputed, and runs
`certified check` on it in a child process (peak RSS from the kernel's accounting of
that child).

Usage: python benchmarks/bench_checker_blowups.py [--markdown]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

from certified import Instance
from certified.checker import digest
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify

ROOT = Path(__file__).resolve().parents[1]


def _fresh(spec: dict | str, theorem: str) -> dict:
    inst = Instance.load(ROOT / spec) if isinstance(spec, str) else Instance.create(**spec)
    return json.loads(json.dumps(to_certificate(certify(inst, theorem, digits=8,
                                                        refine_t=0))))


def _redigest(c: dict) -> dict:
    c["digest"] = digest(c)
    return c


def forged(scratch: Path) -> list[tuple[str, Path]]:
    t4 = _fresh(dict(V=[[1]], Q=[[1]], K=[[1]], X0=[[-2], [1], [2]]), "2.1")
    disc = _fresh("examples/discrete_layers.json", "3.1")
    out = []

    def put(name: str, cert: dict | None = None, text: str | None = None) -> None:
        path = scratch / f"{name}.json"
        path.write_text(text if text is not None else json.dumps(cert))
        out.append((name, path))

    c = copy.deepcopy(t4)
    c["integration"]["bits"] = 10 ** 6
    put("integration.bits = 10^6", _redigest(c))
    c = copy.deepcopy(t4)
    c["integration"]["replay"]["records"][0]["order"] = 10 ** 6
    put("one record's order = 10^6", _redigest(c))
    c = copy.deepcopy(disc)
    box = c["tail_lemma"]["boxes_at_T"][0][0]
    c["tail_lemma"]["boxes_at_T"][0][0] = [box[0], str(Fraction(box[0]))]  # too narrow
    put("a wrong discrete box (retried)", _redigest(c))
    c = copy.deepcopy(t4)
    c["software"]["pad"] = "x" * (100 * 2 ** 20)
    put("a 100 MB pad in software", _redigest(c))
    big = scratch / "a 1.2 GB file.json"
    with open(big, "wb") as fh:  # 1.2 GB: the certificate's text, then zero bytes
        fh.write(json.dumps(t4).encode())
        fh.truncate(1_200_000_000)
    out.append((big.stem, big))
    return out


#: the child: `certified check FILE`, then its own peak RSS (KiB) on the last stderr line
CHILD = ("import resource, sys\n"
         "from certified.cli import main\n"
         "code = main(['check', sys.argv[1]])\n"
         "print('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
         "sys.exit(code)\n")


def run(path: Path) -> tuple[float, float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True,
                          text=True, timeout=600, check=False)
    wall = time.perf_counter() - t0
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    peak = next((int(x.split()[1]) for x in lines if x.startswith("PEAK ")), 0)
    said = [x for x in lines if not x.startswith("PEAK ")][-1:]
    return wall, peak / 1024, f"exit {proc.returncode}: {said[0][:100] if said else ''}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--measure", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:  # a fresh, small process: its children's peak RSS starts from it
        for path in sorted(Path(args.measure).iterdir()):
            wall, mb, outcome = run(path)
            ok = "met" if wall <= 10 and mb <= 500 and not outcome.startswith("exit 0") \
                else "**missed**"
            print(f"| {path.stem} | {wall:.2f} | {mb:.0f} | {ok} | `{outcome}` |", flush=True)
        return
    if args.markdown:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from mdheader import header

        print(header())
    print("| edit | wall (s) | peak RSS of the child (MB, ≤) | target | outcome |")
    print("|---|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        forged(Path(tmp))
        # Linux keeps a process's peak RSS across exec: measure from a fresh small parent,
        # not from this one, which held the forged certificates.
        subprocess.run([sys.executable, __file__, "--measure", tmp], check=True)


if __name__ == "__main__":
    main()
