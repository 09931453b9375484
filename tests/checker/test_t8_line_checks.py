"""The checker on Lemma T8 with dim F = 1 (C11 on a line) and Theorem 4.2 judged from it:
edits of the fixtures t8_42_line and t8_52_line, digest recomputed, are rejected naming
the field (claims without replay: the boxes at T are covered by the tamper suite)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from certified.checker import CheckFailure, _check_claims_only

from . import tamper
from .producer import load


def _claims(c: dict) -> str:
    c["digest"] = tamper.digest(c)
    return _check_claims_only(c)


@pytest.fixture(scope="module")
def cert42():
    c = load("t8_42_line")
    assert _claims(json.loads(json.dumps(c))).startswith("claims checked")
    return c


def _edited(c: dict, edit) -> dict:
    bad = json.loads(json.dumps(c))
    edit(bad)
    return bad


def test_one_cluster_on_the_line_cannot_be_called_refuted(cert42):
    bad = _edited(cert42, lambda c: c.update(verdict="refuted", limit=None,
                                             evidence={"hyperplane_values": [["-1", "1"]]}))
    with pytest.raises(CheckFailure, match="^verdict: Expected 'certified'"):
        _claims(bad)


def test_theorem_4_2_needs_nu_below_lambda(cert42):
    """With ν = λ, λ is not proved strictly dominant and Theorem 4.2 may not be judged
    from T8 (on the parsed lemma: raising ν in the fixture breaks (HΔ) first)."""
    from certified.checker.paranormal import check_paranormal_verdict

    for nu, lam in ((Fraction(1), Fraction(1)), (Fraction(3, 2), Fraction(1))):
        with pytest.raises(CheckFailure, match="^verdict: .*nu < lambda also Theorem 4.2"):
            check_paranormal_verdict({"theorem": "4.2", "verdict": "certified"},
                                     {"k": 1, "nu": nu, "lam": lam}, [])
    with pytest.raises(CheckFailure, match="^verdict"):  # and dim F = 1
        check_paranormal_verdict({"theorem": "4.2", "verdict": "certified"},
                                 {"k": 2, "nu": Fraction(1, 2), "lam": Fraction(1)}, [])
    bad = _edited(cert42, lambda c: c["tail_lemma"].update(nu="1"))
    with pytest.raises(CheckFailure):
        _claims(bad)


def test_theorem_4_2_needs_dim_F_one(cert42):
    bad = _edited(cert42, lambda c: c["tail_lemma"].update(dim_F=2))
    with pytest.raises(CheckFailure):
        _claims(bad)


@pytest.mark.parametrize("key", ["hyperplane_values", "coordinate_limits"])
def test_a_limit_value_moved_off_is_rejected(cert42, key):
    def edit(c):
        lo, hi = (Fraction(x) for x in c["limit"][key][0])
        c["limit"][key][0] = [str(lo + 1), str(hi + 1)]
    with pytest.raises(CheckFailure, match=f"^limit.{key}\\[0\\]"):
        _claims(_edited(cert42, edit))


def test_a_narrower_limit_value_is_rejected(cert42):
    """The hyperplane value moved in at its upper end by half its width: it no longer
    contains the leader's box ± δ₀."""
    def edit(c):
        lo, hi = (Fraction(x) for x in c["limit"]["hyperplane_values"][0])
        c["limit"]["hyperplane_values"][0] = [str(lo), str((lo + hi) / 2)]
    with pytest.raises(CheckFailure, match=r"^limit.hyperplane_values\[0\]"):
        _claims(_edited(cert42, edit))


def test_a_missing_coordinate_limit_is_rejected(cert42):
    bad = _edited(cert42, lambda c: c["limit"]["coordinate_limits"].pop())
    with pytest.raises(CheckFailure, match="^limit.coordinate_limits"):
        _claims(bad)


def test_the_5_2_line_certificate_checks_dim_F_as_an_integer():
    c = load("t8_52_line")
    for bad_k in (True, 0, "1", 3):
        bad = _edited(c, lambda x: x["tail_lemma"].update(dim_F=bad_k))
        with pytest.raises(CheckFailure, match="^tail_lemma.dim_F"):
            _claims(bad)
