"""Property tests of Lemma T8's discrete form over drawn instances (the strategy
`certified.strategies.discrete_split`): inside its step-size condition `verify` decides
(a share of at least 3/4 is required and reported) and the checker accepts what it
certifies; outside it `verify` answers undecided and names the condition."""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certified.checker import check_certificate
from certified.strategies import discrete_split
from certified.tail.t8_paranormal import paranormal_split, step_size_condition
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify

CONDITION = "(1 + νΔt)² ≤ 1 + λΔt"


@settings(max_examples=1, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_inside_the_condition_verify_decides_and_the_checker_agrees(data):
    draws = [data.draw(discrete_split(within=True, n=(2, 3)), label=f"instance {i}")
             for i in range(8)]
    decided = 0
    for inst in draws:
        split, _ = paranormal_split(inst.V, inst.B)
        assert step_size_condition(split, inst.time.dt)  # the strategy's promise, exactly
        v = certify(inst, "5.2", digits=12, t_max=12)
        assert CONDITION not in v.reason, v.reason
        if v.verdict == "certified":
            decided += 1
            c = json.loads(json.dumps(to_certificate(v)))
            rep = check_certificate(copy.deepcopy(c))
            assert rep.valid, rep.message
    print(f"T8 discrete inside the condition: {decided}/8 certified")
    assert decided >= 6, f"only {decided} of 8 drawn instances certified"


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(discrete_split(within=False, n=(2, 3)))
def test_outside_the_condition_undecided_naming_it(inst):
    split, _ = paranormal_split(inst.V, inst.B)
    assert not step_size_condition(split, inst.time.dt)
    v = certify(inst, "5.2", digits=12, t_max=12)
    assert v.verdict == "undecided" and CONDITION in v.reason, v.reason
    assert v.trajectory is None  # nothing integrated: no lemma could apply
