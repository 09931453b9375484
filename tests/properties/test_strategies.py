"""Each strategy's output, re-classified by :func:`certified.classify`: the stated guarantee holds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certified import Instance, classify
from certified.strategies import THEOREMS, VIOLATIONS, inside, violating

N = max(10, settings.default.max_examples // 3)  # ci: 13; --hypothesis-profile=thorough: 333


def checks(inst, theorem):
    return {c.name: c.holds for c in classify(inst).theorems[theorem].checks}


@pytest.mark.parametrize("theorem", THEOREMS)
def test_inside_satisfies_the_hypotheses(theorem):
    @settings(max_examples=N)
    @given(inside(theorem))
    def run(inst):
        assert classify(inst).theorems[theorem].hypotheses_hold, checks(inst, theorem)

    run()


@pytest.mark.parametrize("kind", ["diagonalizable", "non-diagonalizable", "positive"])
def test_good_triple_kinds(kind):
    from certified.exact.spectrum import Spectrum

    @settings(max_examples=N)
    @given(inside("4.2", kind=kind))
    def run(inst):
        assert classify(inst).theorems["4.2"].hypotheses_hold
        if kind == "positive":
            assert all(x > 0 for row in inst.V for x in row)
        if kind == "non-diagonalizable":
            sp = Spectrum(inst.V)
            assert not all(sp.is_semisimple(e) for e in sp.eigenvalues())

    run()


def test_split_kind_is_inside_5_2_and_in_lemma_t8s_setting():
    from certified.tail.t8_paranormal import paranormal_split

    @settings(max_examples=N)
    @given(inside("5.2", kind="split"))
    def run(inst):
        assert classify(inst).theorems["5.2"].hypotheses_hold, checks(inst, "5.2")
        sp, why = paranormal_split(inst.V, inst.B)
        assert sp is not None and sp.dim_f == 2, why

    run()


CASES = [(t, h) for h, (ts, _) in VIOLATIONS.items() for t in ts]


@pytest.mark.parametrize("theorem, hypothesis", CASES)
def test_violating_breaks_exactly_the_named_check(theorem, hypothesis):
    name = VIOLATIONS[hypothesis][1]

    @settings(max_examples=N)
    @given(violating(theorem, hypothesis))
    def run(inst):
        got = checks(inst, theorem)
        assert got[name] is False, got
        assert not classify(inst).theorems[theorem].hypotheses_hold
        if theorem in ("3.1", "5.2", "2.1"):  # independent checks: the others still hold
            # (QᵀK ≻ 0 is read as *symmetric* positive definite, so a non-symmetric QᵀK
            # fails it too; its symmetric part is positive definite by construction)
            exempt = {name} | ({"QᵀK positive definite"} if hypothesis == "QK_nonsymmetric"
                               else set())
            assert all(v for k, v in got.items() if k not in exempt), got
        if hypothesis in ("form_nonpositive", "leading_negative"):
            assert got["largest modulus attained by one eigenvalue"] is True

    run()


def test_bad_arguments():
    with pytest.raises(ValueError, match="does not apply"):
        violating("3.1", "leading_negative")
    with pytest.raises(ValueError):
        inside("9.9")
    with pytest.raises(ValueError, match="split"):
        inside("4.2", kind="split")


@settings(max_examples=10, deadline=None, derandomize=True)
@given(st.from_type(Instance))
def test_instance_has_a_registered_strategy_inside_some_theorem(inst):
    """``st.from_type(Instance)`` draws instances inside some theorem's hypotheses."""
    report = classify(inst)
    assert any(report.theorems[t].hypotheses_hold for t in THEOREMS)
