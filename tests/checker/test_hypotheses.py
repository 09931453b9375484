"""Lemma C16: the checker re-decides ``hypotheses_hold`` exactly (Fractions, Schur–Cohn,
Sturm); it agrees with the producer's classification on every shipped example and on
random instances, and its root counts with numpy's roots."""

from __future__ import annotations

import json
import random
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from certified.checker import check_certificate
from certified.checker.hypotheses import (decide, dominant, is_positive_definite,
                                          schur_cohn_inside, sturm_count_above)

from . import tamper
from .producer import ROOT, Instance

THEOREMS = ("2.1", "3.1", "4.2", "5.2", "8.5")


def _exact(inst) -> tuple:
    V = [[F(x) for x in row] for row in inst.V]
    B = [[F(x) for x in row] for row in inst.B]
    return V, B, [[F(x) for x in row] for row in inst.X0]


def _classify(inst) -> dict:
    from certified.exact.hypotheses import classify

    rep = classify(inst)
    return {t: rep.theorems[t].hypotheses_hold for t in THEOREMS}


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.json")), ids=lambda p: p.stem)
def test_agrees_with_the_producer_on_every_example(path):
    inst = Instance.load(str(path))
    want = _classify(inst)
    V, B, X0 = _exact(inst)
    for t in THEOREMS:
        got = decide(t, V, B, X0)
        assert got is not None, (path.stem, t)  # every shipped example is decided
        assert got == want[t], (path.stem, t, got, want[t])


def test_agrees_with_the_producer_on_random_small_instances():
    rng = random.Random(2026)
    decided = total = 0
    for _ in range(60):
        d = rng.choice([1, 2, 3])
        rnd = lambda: F(rng.randint(-4, 4), rng.choice([1, 2, 3]))  # noqa: E731
        V = [[rnd() for _ in range(d)] for _ in range(d)]
        if rng.random() < 0.3:  # paranormal-like: a repeated dominant eigenvalue
            V = [[F(int(i == j)) * (2 if i < d - 1 else F(1, 2)) for j in range(d)]
                 for i in range(d)]
        Q = [[rnd() for _ in range(d)] for _ in range(d)]
        K = Q if rng.random() < 0.5 else [[rnd() for _ in range(d)] for _ in range(d)]
        X0 = [[rnd() for _ in range(d)] for _ in range(3)]
        inst = Instance.create(V=V, Q=Q, K=K, X0=X0)
        want = _classify(inst)
        Ve, Be, Xe = _exact(inst)
        for t in THEOREMS:
            got = decide(t, Ve, Be, Xe)
            total += 1
            if got is not None:
                decided += 1
                assert got == want[t], (V, Q, K, t, got, want[t])
    assert decided >= 0.9 * total, (decided, total)  # undecided only at exact ties


def test_schur_cohn_and_sturm_agree_with_numpy():
    rng = random.Random(7)
    checked = 0
    for _ in range(1500):
        n = rng.randint(1, 6)
        a = [F(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(n)] + \
            [F(rng.choice([-3, -1, 1, 2, 5]))]
        r = F(rng.randint(1, 20), rng.randint(1, 10))
        roots = np.roots([float(c) for c in reversed(a)])
        if any(abs(abs(z) - float(r)) < 1e-6 for z in roots):
            continue
        got = schur_cohn_inside([c * r ** i for i, c in enumerate(a)])
        if got is None:
            continue
        assert got == sum(abs(z) < float(r) for z in roots), (a, r)
        if len(set(np.round(roots, 6))) == len(roots):
            real = {round(z.real, 8) for z in roots if abs(z.imag) < 1e-9}
            assert sturm_count_above(a, r) == sum(1 for z in real if z > float(r)), (a, r)
        checked += 1
    assert checked > 1000


def test_definiteness_and_spectral_cases():
    D = lambda *v: [[F(v[i]) if i == j else F(0) for j in range(len(v))]  # noqa: E731
                    for i in range(len(v))]
    I2, I3 = D(1, 1), D(1, 1, 1)
    assert is_positive_definite([[F(2), F(1)], [F(1), F(2)]])
    assert not is_positive_definite([[F(1), F(2)], [F(2), F(1)]])  # indefinite
    assert not is_positive_definite([[F(1), F(1, 10 ** 40)], [F(0), F(1)]])  # not symmetric
    # an exact tie, decided by the exact factorization (hypotheses.reading)
    assert decide("4.2", D(1, -1), I2, []) is False
    assert decide("5.2", D(1, -1), I2, []) is False  # −1 has the modulus of λ = 1
    assert decide("5.2", [[F(2), F(0), F(0)], [F(0), F(0), F(-2)], [F(0), F(2), F(0)]],
                  D(1, 1, 1), []) is False  # 2 tied with the pair ±2i
    assert decide("4.2", D(-2, 1), I2, []) is False  # the dominant eigenvalue is negative
    assert decide("4.2", D(2, 1), [[F(-1), F(0)], [F(0), F(1)]], []) is False  # ⟨φ, Bφ⟩ < 0
    assert decide("4.2", D(1, 1, F(-1, 2)), I3, []) is False  # λ₁ double: not simple
    assert decide("5.2", D(1, 1, F(-1, 2)), I3, []) is True
    jordan = [[F(1), F(1), F(0)], [F(0), F(1), F(0)], [F(0), F(0), F(0)]]
    assert decide("5.2", jordan, I3, []) is False
    rot = [[F(0), F(-1)], [F(1), F(0)]]  # eigenvalues ±i: equal moduli
    assert decide("4.2", rot, I2, []) is None
    assert dominant([[F(3)]])["mult"] == 1


@pytest.mark.parametrize("name", ["t4_21", "t7_52", "t8_52", "t6_small", "t4_85_ref"])
def test_flipped_hypotheses_hold_is_rejected(certs, name):
    cert = certs[name]
    with tamper.edited(cert, ("hypotheses_hold",), not cert["hypotheses_hold"]) as c:
        rep = check_certificate(c)
    assert not rep.valid and rep.message.startswith("hypotheses_hold: Expected"), rep.message
    with tamper.edited(cert, ("hypotheses_hold",), None) as c:  # null claims nothing
        assert check_certificate(c).valid


def test_lemma_t6_needs_B_symmetric_even_without_a_hypotheses_claim(certs):
    """B made non-symmetric by 10⁻⁴⁰ (Q[0][1]): T6's derivative formula needs B = Bᵀ."""
    cert = json.loads(json.dumps(certs["t6_small"]))
    cert["instance"]["Q"][0][1] = "1e-40"
    cert["hypotheses_hold"] = None
    with tamper.edited(cert, ("hypotheses_hold",), None) as c:
        rep = check_certificate(c)
    assert not rep.valid and rep.message.startswith("tail_lemma: Expected Lemma T6's "
                                                    "hypothesis"), rep.message
    with tamper.edited(cert, ("hypotheses_hold",), True) as c:
        rep = check_certificate(c)
    assert rep.message.startswith("hypotheses_hold: Expected"), rep.message


def test_unknown_theorem_true_claim_cannot_be_confirmed(certs):
    with tamper.edited(certs["t4_21"], ("theorem",), "9.9") as c:
        rep = check_certificate(c)
    assert "cannot confirm" in rep.message, rep.message


_ = Path  # (kept for type hints in editors)
