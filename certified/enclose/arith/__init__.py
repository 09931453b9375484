"""Ball-arithmetic backends behind one small protocol.

Two rigorous backends implement :class:`~certified.enclose.arith.base.Backend`:

* ``"flint"`` (default): Arb balls from python-flint, ``arb_mat`` for matrix products;
* ``"mpmath"``: mpmath's interval arithmetic (``mpmath.iv``), directed rounding.

Both satisfy the same containment contract (see :mod:`certified.enclose.arith.base`): every
operation returns a ball/interval containing the exact result for every choice of
points in its inputs. Algorithms in ``field``, ``stepper`` and ``flow`` are written once
against the protocol, on numpy object arrays of backend scalars.
"""

from __future__ import annotations

from certified.enclose.arith.base import Backend
from certified.enclose.arith.flint_backend import FlintBackend
from certified.enclose.arith.mpmath_backend import MpmathBackend
from certified.errors import InputError

__all__ = ["Backend", "get_backend", "BACKENDS"]

BACKENDS = ("flint", "mpmath")


def get_backend(name: str = "flint") -> Backend:
    """The backend called ``name`` (``"flint"`` or ``"mpmath"``)."""
    if name == "flint":
        return FlintBackend()
    if name == "mpmath":
        return MpmathBackend()
    raise InputError("backend", f"{name!r} is not a backend", "'flint' or 'mpmath'")
