"""The checker's rules for Lemma T7 (check_t7_verdict, check_projected) on the stored fixtures, each
written against a mutant of the mutation run that no other test killed: a weaker rate
constant is accepted, an empty or negative one is not, Theorem 5.2 needs its clusters,
clusters given for 4.2 are checked, prose fields are strings, and a certified verdict has
no evidence. Claims only (no replay), as in test_claims_fast.py."""

from __future__ import annotations

import copy

import pytest

from certified.checker import CheckFailure, Malformed, _check_claims_only

from . import tamper
from .producer import load


DELETE = object()


def _outcome(name: str, path: tuple, new) -> str:
    c = copy.deepcopy(load(name))
    if new is DELETE:
        del tamper.get(c, path[:-1])[path[-1]]
    else:
        tamper.get(c, path[:-1])[path[-1]] = new
    c["digest"] = tamper.digest(c)
    try:
        return "VALID " + _check_claims_only(c)
    except (CheckFailure, Malformed) as exc:
        return str(exc)


@pytest.mark.parametrize("name", ["t7_52", "t7_42_discrete"])
def test_a_smaller_cross_group_rate_is_a_weaker_true_claim(name):
    assert _outcome(name, ("limit", "cross_group_rate", "m"), "1/2").startswith("VALID")


@pytest.mark.parametrize("value", ["0", "-1/2"])
def test_a_cross_group_rate_of_zero_or_less_is_rejected(value):
    out = _outcome("t7_52", ("limit", "cross_group_rate", "m"), value)
    assert out.startswith("limit.cross_group_rate.m"), out


def test_theorem_5_2_needs_its_clusters():
    out = _outcome("t7_52", ("limit", "clusters"), DELETE)
    assert out.startswith("limit.clusters"), out


def test_clusters_given_for_theorem_4_2_are_checked():
    bogus = [{"members": [0], "center": [["0", "0"], ["0", "0"]], "is_hull_vertex": True,
              "is_zero": False}]
    out = _outcome("t7_42_discrete", ("limit", "clusters"), bogus)
    assert out.startswith("limit.clusters"), out


def test_prose_fields_must_be_strings():
    out = _outcome("t7_52", ("limit", "not_proved"), 5)
    assert out.startswith("limit.not_proved"), out


def test_a_certified_verdict_carries_no_evidence():
    out = _outcome("t7_52", ("evidence",), {"entry": [0, 1]})
    assert out.startswith("evidence"), out


def test_the_discrete_leakage_bound_includes_the_step_term():
    """t7_42_discrete (Δt = 1/10, m ≈ 6.0): the continuous bound |G|·D·e^{−m}/(2m) ≈ 0.0043
    is below the discrete one |G|·D·e^{−m}(α + 1/(2m)) ≈ 0.0104; a δ₀ of 0.005 between them
    is rejected (a checker that used the continuous form in discrete time would accept)."""
    out = _outcome("t7_42_discrete", ("tail_lemma", "delta0"), "0.005")
    assert out.startswith("tail_lemma.delta0: Expected >="), out


@pytest.mark.parametrize("name", ["t7_52", "t7_42_discrete"])
@pytest.mark.parametrize("key", ["+", "-"])
@pytest.mark.parametrize("end", [0, 1])
def test_limits_shrunk_by_a_millionth_at_one_end_are_rejected(name, key, end):
    """Each stored limit interval is the proved one rounded outward at the certificate's
    digits; moved in by 10⁻⁶ of its width at one end it no longer contains the proved one
    (a checker that proved a narrower interval at that end, e.g. with the wrong end of
    e^{−λ₁T} or q^{−K}, or without δ₀, would accept)."""
    from fractions import Fraction

    lo, hi = (Fraction(x) for x in load(name)["tail_lemma"]["limits_psi_z"][key])
    w = (hi - lo) / 10 ** 6
    new = [str(lo + w), str(hi)] if end == 0 else [str(lo), str(hi - w)]
    out = _outcome(name, ("tail_lemma", "limits_psi_z", key), new)
    assert out.startswith(f"tail_lemma.limits_psi_z.{key}"), out
