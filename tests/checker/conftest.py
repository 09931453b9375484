from __future__ import annotations

import pytest

from .producer import load, names


@pytest.fixture(scope="session", autouse=True)
def _empty_checker_caches():
    """Each test session starts with the checker's caches empty (the audits' quadrature,
    ln 2 and π). A mutation run forks every mutant's session from a process that already
    ran the tests: a value cached there would hide a mutant of the code that computes it."""
    from certified.checker import audits, elementary

    for cached in (audits._integral_at, elementary.ln2_scaled, elementary.pi_scaled):
        cached.cache_clear()


@pytest.fixture(scope="session")
def certs() -> dict:
    return {n: load(n) for n in names()}


@pytest.fixture(scope="session")
def edge_messages() -> dict[str, str]:
    """The stored outcomes of the edge tests (edges.py), read once."""
    from .edges import stored

    return stored()
