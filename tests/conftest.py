"""Shared test configuration: hypothesis profiles and small helpers.

Profiles: ``ci`` (default) keeps the whole run within CI's budget and is derandomized, so
that a clean clone runs the same examples every time and a pass or a failure reproduces;
``thorough`` (``pytest --hypothesis-profile=thorough``) draws 1000 fresh random examples per
property, to hunt for new counterexamples. The example database is on, so a failure found
once replays first.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


def M(rows):
    """An exact matrix from rows of ints/strings/Fractions."""
    return tuple(tuple(Fraction(x) for x in r) for r in rows)


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run tests marked slow (minutes each)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        return
    import pytest

    skip = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _balls_scale_restored():
    """The checker's balls' scale is module state (``set_scale``): every test gets it back
    as it found it, so a test that sets it cannot change how a later test reads its balls
    (two pytest sessions in one process, as a mutation run makes, showed it)."""
    from certified.checker import balls

    before = balls.scale()
    yield
    balls.set_scale(before)
