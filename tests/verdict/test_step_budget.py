"""The deterministic step budget (``max_steps``): a run stops after exactly that many
validated steps, at the same t on every run, certified up to there; a budget that is not
reached changes nothing; a budget-stopped verdict's certificate checks valid."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from certified import Instance
from certified.checker import check_certificate
from certified.enclose.driver import enclose_trajectory
from certified.errors import InputError
from certified.studies.explore import family_instance
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify


def _hard():
    # B = K indefinite (eigenvalues of K + Kᵀ ≈ −1.03, 1.13): no verdict for thousands of
    # steps (measured: 1358 steps to t ≈ 4.1, still undecided)
    return family_instance("section-12.1", 2, n=3, d=2, seed=0)


def test_budget_stops_at_the_same_step_every_time():
    runs = [certify(_hard(), "3.1", digits=15, t_max=6, refine_t=0, max_steps=25)
            for _ in range(2)]
    for v in runs:
        assert str(v.verdict) == "undecided"
        assert v.trajectory.stop.kind == "step budget"
        assert len(v.trajectory.steps) == 25
        assert "max_steps = 25" in v.reason
    assert runs[0].trajectory.certified_until == runs[1].trajectory.certified_until
    assert 0 < runs[0].trajectory.certified_until < 6
    cert = to_certificate(runs[0])
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.valid, rep.message
    assert rep.steps_checked == 25


def test_budget_not_reached_changes_nothing():
    inst = family_instance("section-12.1", 5, n=3, d=2, seed=0)  # certified in a few steps
    free = certify(inst, "3.1", digits=15, t_max=6, refine_t=0)
    capped = certify(inst, "3.1", digits=15, t_max=6, refine_t=0, max_steps=10_000)
    assert str(free.verdict) == str(capped.verdict) == "certified"
    assert free.trajectory.certified_until == capped.trajectory.certified_until
    assert free.limit == capped.limit
    assert len(free.trajectory.steps) < 10_000


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10"])
def test_bad_budget_is_a_one_line_input_error(bad):
    with pytest.raises(InputError, match="max_steps"):
        certify(_hard(), "3.1", digits=15, t_max=1, max_steps=bad)
    with pytest.raises(InputError, match="max_steps"):  # also where no integration runs
        certify(Instance.create(V=[[0]], Q=[[1]], K=[[1]], X0=[[1], [2]]), "3.1",
                max_steps=bad)


def test_budget_counts_layers_in_discrete_time():
    inst = Instance.create(V=[[1, 0], [0, 1]], Q=[[1, 0], [0, 1]], K=[[1, "1/2"], [0, 1]],
                           X0=[[1, 0], [0, 1], ["1/2", "-1/3"]], time={"discrete": "1/10"})
    v = certify(inst, "3.1", digits=15, t_max=3, refine_t=0, max_steps=2)
    assert str(v.verdict) == "undecided" and "max_steps = 2" in v.reason
    assert len(v.trajectory.steps) == 2 and v.trajectory.stop.kind == "step budget"
    assert v.trajectory.certified_until == Fraction(2, 10)
    tr = enclose_trajectory(inst, 2, digits=15, max_steps=5)
    assert len(tr.steps) == 5 and tr.stop.kind == "step budget"


def test_budget_is_for_the_whole_run_across_pieces():
    I2 = [[1, 0], [0, 1]]
    inst = Instance.create(V=I2, Q=I2, K=I2, X0=[[1, 0], [0, 1]], variant={"pieces": [
        {"from": "1/1024", "V": I2, "Q": I2, "K": I2},
        {"from": "2/1024", "V": I2, "Q": I2, "K": I2}]})
    free = enclose_trajectory(inst, "3/1024", digits=15, variable="x", coordinates="x")
    assert len(free.steps) == 3 and free.stop.kind == "t_final"
    tr = enclose_trajectory(inst, "3/1024", digits=15, max_steps=2, variable="x",
                            coordinates="x")
    assert len(tr.steps) == 2 and tr.stop.kind == "step budget"
    assert tr.certified_until == Fraction(2, 1024)
