from __future__ import annotations

import pytest

from .producer import load, names


@pytest.fixture(scope="session")
def certs() -> dict:
    return {n: load(n) for n in names()}
