"""The one place the checker's tests import producer code from (the producer package is
being moved: only this file changes with it).

Also regenerates the stored certificates of ``tests/checker/data`` (deterministic budgets:
``max_seconds=None, refine_t=0``, digits 8)::

    python -m tests.checker.producer            # all of them
    python -m tests.checker.producer t7_52      # some
"""

from __future__ import annotations

import gzip
import json
import sys
from fractions import Fraction
from pathlib import Path

from certified import Instance  # noqa: F401 - re-exported for the tests
from certified.cli import main  # noqa: F401
from certified.verdict.certificate import canonical_digest, to_certificate  # noqa: F401
from certified.verdict.certify import certify  # noqa: F401
from certified.tail.s0_stationary import stationary_verdict  # noqa: F401 - Lemma S0's oracle

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parents[2]

_LINE = dict(V=[[1]], Q=[[1]], K=[[1]], X0=[[-2], [1], [2]])
_TRIPLE = dict(V=[[1]], Q=[[1]], K=[[1]], X0=[[1], [0], [-1]])
#: Lemma T8 with a quadratic norm on G (the pair 3/5 ± 3i/5: |a| + |b| = 6/5 > λ = 1)
_ROTATING = dict(V=[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, "3/5", "-3/5"], [0, 0, "3/5", "3/5"]],
                 Q=[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
                 K=[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
                 X0=[[2, 1, "1/2", "-1/2"], [-1, 2, 0, "1/2"]])
#: Lemma S1: two tokens of equal norm, V = λI, QᵀK = βI
_PAIR = dict(V=[[1, 0], [0, 1]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]], X0=[[2, 1], [1, -2]])
_EQUAL = dict(V=[[-1, 0], [0, -1]], Q=[[1, 0], [0, 1]], K=[[2, 1], [1, 2]],
              X0=[[1, 2], [1, 2], [1, 2]])

#: name: (instance file or Instance.create arguments, theorem, t_max) — one certificate of
#: each kind: Lemma T4 certified (2.1, 4.2) and refuted (8.5; 2.1 is the d = 2 audit), T6
#: (for 3.1: T6 bounds, proves no limit), T7, T8, T9, T10 (discrete time; T7, T8 and T9's
#: discrete forms), T11 (8.5 refuted in discrete time), S0, S1, S2 and S3 (verify).
CASES = {
    "t4_21": (_LINE, "2.1", 8),
    "t4_42": (_LINE, "4.2", 8),
    "t4_85_ref": (_LINE, "8.5", 8),
    "t6_small": ("examples/thm8_5_contracting.json", "3.1", 2),
    "t9_85": ("examples/thm8_5_contracting.json", "8.5", 1),
    "t7_52": ("examples/thm5_2_one_dimensional_F.json", "5.2", 8),
    "t8_52": ("examples/thm5_2_two_clusters_in_F.json", "5.2", 8),
    "t8_52_cross": ("examples/thm5_2_cross_terms.json", "5.2", 6),
    "t8_52_line": ("examples/thm5_2_form_negative.json", "5.2", 8),
    "t8_42_line": ("examples/thm5_2_form_negative.json", "4.2", 8),
    "t8_52_metric": (_ROTATING, "5.2", 8),
    # discrete time: Lemma T10 certified, and layers run with no lemma yet (undecided)
    "t10_31": ("examples/discrete_layers.json", "3.1", 8),
    "t10_und": ("examples/discrete_layers.json", "3.1", Fraction(1, 2)),
    "t8_52_discrete": ("examples/discrete_paranormal.json", "5.2", 8),
    "t7_42_discrete": ("examples/discrete_good_triple.json", "4.2", 8),
    "t9_85_discrete": ("examples/discrete_contracting.json", "8.5", 40),
    "t11_85_discrete": ("examples/discrete_divergent.json", "8.5", 8),
    # Lemma S0 in verify (no integration): certified (5.2, 8.5) and refuted (8.5, 2.1)
    "s0_52": ("examples/thm5_2_third_party.json", "5.2", 8),
    "s0_85_ref": ("examples/thm5_2_third_party.json", "8.5", 8),
    "s0_85": (_EQUAL, "8.5", 8),
    "s0_21_ref": (dict(V=[[0]], Q=[[1]], K=[[1]], X0=[[-1], [2]]), "2.1", 8),
    # Lemma S1 in verify (the symmetric pair, solved exactly): certified (2.1), undecided
    # (4.2 with V = λI in d = 2), refuted (8.5)
    "s1_21": (_PAIR, "2.1", 8),
    "s1_42_und": (_PAIR, "4.2", 8),
    "s1_85_ref": (_PAIR, "8.5", 8),
    # and in d = 1 (tokens ±1), where T4's verdict table reads the tokens (2.1) and d (4.2)
    "s1_21_line": (dict(V=[[1]], Q=[[1]], K=[[1]], X0=[[1], [-1]]), "2.1", 8),
    "s1_42_line": (dict(V=[[1]], Q=[[1]], K=[[1]], X0=[[1], [-1]]), "4.2", 8),
    # Lemma S2 in verify (the middle token, solved exactly): certified (3.1), refuted (8.5)
    "s2_31": (_TRIPLE, "3.1", 8),
    "s2_85_ref": (_TRIPLE, "8.5", 8),
    # Lemma S3 (two tokens, Theorem 4.2 outside Definition 4.1(i)): its three readings
    "s3_42_tied": ("examples/thm4_2_two_tokens_tied.json", "4.2", 8),
    "s3_42_complex": ("examples/thm4_2_two_tokens_complex.json", "4.2", 8),
    "s3_42_neg": ("examples/thm4_2_two_tokens_negative.json", "4.2", 8),
}
#: the shipped audit records whose certificates use Lemmas S0, S1, S2 (and T4, refuted)
AUDITS = ("remark_7_9_eps_1_10", "theorem_2_1_middle_token", "theorem_5_2_third_party",
          "theorem_2_1_d2_boundary_183")


def produce(name: str) -> dict:
    if name.startswith("audit_"):
        from certified.studies.audit import audit_certificate, load_record, run_audit

        rec = load_record(str(ROOT / "certified" / "data" / "audits" / f"{name[6:]}.json"))
        return json.loads(json.dumps(audit_certificate(rec, run_audit(rec))))
    spec, theorem, t_max = CASES[name]
    inst = (Instance.load(str(ROOT / spec)) if isinstance(spec, str)
            else Instance.create(**spec))
    v = certify(inst, theorem, digits=8, max_seconds=None, refine_t=0, t_max=t_max)
    return json.loads(json.dumps(to_certificate(v)))


def names() -> list[str]:
    return list(CASES) + [f"audit_{a}" for a in AUDITS]


def load(name: str) -> dict:
    return json.loads(gzip.decompress((DATA / f"{name}.json.gz").read_bytes()))


def store(name: str, cert: dict) -> None:
    DATA.mkdir(exist_ok=True)
    text = json.dumps(cert, sort_keys=True, separators=(",", ":")).encode()
    (DATA / f"{name}.json.gz").write_bytes(gzip.compress(text, mtime=0))


if __name__ == "__main__":
    for nm in sys.argv[1:] or names():
        store(nm, produce(nm))
        print(nm, "stored", flush=True)
