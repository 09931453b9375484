"""Certificates of every shipped example under a deterministic budget, for comparing two
revisions of the producer (e.g. before and after a refactoring).

Usage, from two checkouts A and B of the repository:

    PYTHONPATH=A python benchmarks/compare_certificates.py write OUT_A A
    PYTHONPATH=B python benchmarks/compare_certificates.py write OUT_B B
    python benchmarks/compare_certificates.py diff OUT_A OUT_B

Each certificate is produced by ``certify(..., theorem="auto", digits=30, t_max=3
(1/8 for the authors' n = 20 setting), no wall-clock budget, no refinement)`` and stored
without the fields that legitimately differ between runs or versions (``wall_seconds``,
``digest``, ``software``). ``diff`` prints, per example, IDENTICAL or the differing paths.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import time

T_MAX = {"authors_setting_n20": "1/8"}
IGNORED = ("wall_seconds", "digest", "software", "seconds")


def _strip(o):
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items() if k not in IGNORED}
    if isinstance(o, list):
        return [_strip(v) for v in o]
    return o


def write(out_dir: str, repo: str) -> None:
    try:  # the layout since the pipeline subpackages
        from certified.exact.instance import Instance
        from certified.verdict.certificate import to_certificate
        from certified.verdict.certify import certify
        kwargs = {"refine_t": 0}
    except ImportError:  # the flat layout before it
        from certified.certificate import to_certificate
        from certified.certify import certify
        from certified.instance import Instance
        kwargs = {"refine_seconds": 0}
    os.makedirs(out_dir, exist_ok=True)
    for f in sorted(glob.glob(os.path.join(repo, "examples", "*.json"))):
        name = os.path.basename(f)[:-5]
        t0 = time.time()
        try:
            v = certify(Instance.load(f), "auto", digits=30, t_max=T_MAX.get(name, "3"),
                        max_seconds=None, **kwargs)
            cert = _strip(to_certificate(v))
        except Exception as e:  # an input the producer refuses is part of its behaviour
            cert = {"error": type(e).__name__, "message": str(e)}
        with open(os.path.join(out_dir, name + ".json"), "w") as fh:
            json.dump(cert, fh, indent=0, sort_keys=True)
        print(name, cert.get("verdict", cert.get("error")), round(time.time() - t0, 1),
              flush=True)


def _paths(x, y, path=""):
    if type(x) is not type(y):
        yield path
    elif isinstance(x, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                yield f"{path}/{k}"
            else:
                yield from _paths(x[k], y[k], f"{path}/{k}")
    elif isinstance(x, list):
        if len(x) != len(y):
            yield path
        else:
            for i, (u, v) in enumerate(zip(x, y)):
                yield from _paths(u, v, f"{path}[{i}]")
    elif x != y:
        yield path


def diff(a: str, b: str) -> None:
    for f in sorted(os.listdir(a)):
        x = json.load(open(os.path.join(a, f)))
        y = json.load(open(os.path.join(b, f)))
        where = list(_paths(x, y))
        print(f[:-5], "IDENTICAL" if not where else "DIFFER at " + ", ".join(where))


if __name__ == "__main__":
    {"write": write, "diff": diff}[sys.argv[1]](sys.argv[2], sys.argv[3])
