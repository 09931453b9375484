from __future__ import annotations

import pytest

from .producer import load, names


@pytest.fixture(scope="session")
def certs() -> dict:
    return {n: load(n) for n in names()}


@pytest.fixture(scope="session")
def edge_messages() -> dict[str, str]:
    """The stored outcomes of the edge tests (edges.py), read once."""
    from .edges import stored

    return stored()
