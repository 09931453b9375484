"""The producer's Taylor jets (``AttentionField.jets``, Lemma I2 with its centred forms)
against the independent series oracle of ``tests/checker/test_jets_oracle.py`` (Picard
iteration on truncated power series in mpmath at 400 bits, no shared algorithm).

Containment: every coefficient ball contains the oracle's coefficient, on both backends.
Width: every radius is at most 2^{−bits}·A·G^k. The cases are a tight cluster far from the
origin, where the uncentred terms G_k Z_0ᵀ and P_k Z_0 made the radii grow ≈ 60× an
order (order-16 radius 10^{−30} at 200 bits) and the centred forms ≈ 3× (10^{−52}); and
spread tokens around 0 (V = −I/2), where centring must not make them wider. A start box's
jets contain the oracle's jets of its corners (the centred terms carry the box's radius).
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from certified import Instance
from certified.enclose.arith import get_backend
from certified.enclose.field import AttentionField
from tests.checker.test_jets_oracle import ORACLE_BITS, oracle_jets

I2 = [[F(1), F(0)], [F(0), F(1)]]
TIGHT = [[F(4), F(3)], [F(41, 10), F(29, 10)], [F(39, 10), F(31, 10)], [F(-3), F(1)]]
SPREAD = [[F(2), F(1, 3)], [F(-1, 2), F(1)], [F(1, 3), F(-3, 2)], [F(-3, 2), F(-1)]]
BITS, K = 200, 16

# (name, λ (V = λI), X0, t0, variable, A, G): A about twice the measured envelope
# max_k rad_k·2^BITS/G^k (flint's; mpmath's is about half)
CASES = [
    ("tight cluster, z, t0 = 1", F(1), TIGHT, F(1), "z", 60, 3.0),
    ("tight cluster, x", F(1), TIGHT, F(0), "x", 1000, 3.0),
    ("spread tokens, V = -I/2, z", F(-1, 2), SPREAD, F(1, 2), "z", 16, 1.5),
]


def _mp(q: F) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _radius(bk, x) -> mpmath.mpf:
    lo, hi = bk.bounds(x)
    return _mp(hi - lo) / 2


@pytest.mark.parametrize("backend", ["flint", "mpmath"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_point_jets_contain_the_oracle_and_grow_slowly(case, backend):
    name, lam, X0, t0, variable, A, G = case
    V = [[lam, F(0)], [F(0), lam]]
    ref = oracle_jets(X0, t0, K, I2, variable, lam)
    bk = get_backend(backend)
    inst = Instance.create(V=V, Q=I2, K=I2, X0=X0)
    with bk.workprec(BITS):
        field = AttentionField(inst, bk, variable)
        c = bk.array(X0)
        Z = field.jets(c, t0, K, field.leaders(c, t0))
    with mpmath.workprec(ORACLE_BITS):
        for k, (zk, rk) in enumerate(zip(Z, ref)):
            for i in range(len(X0)):
                for a in range(2):
                    lo, hi = bk.bounds(zk[i, a])
                    r = rk[i][a]
                    assert _mp(lo) <= r <= _mp(hi), (name, k, i, a)
                    assert _radius(bk, zk[i, a]) <= mpmath.mpf(2) ** -BITS * A * G ** k, \
                        (name, k, i, a, _radius(bk, zk[i, a]) * 2 ** BITS / G ** k)


#: corner sign patterns of a start box (n·d = 8 coordinates)
SIGNS = [[1] * 8, [-1] * 8, [1, -1] * 4, [1, 1, -1, 1, -1, -1, 1, -1]]


@pytest.mark.parametrize("backend", ["flint", "mpmath"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_box_jets_contain_the_jets_of_their_corners(case, backend):
    """Jets of a start box (radius 2^-40 in every coordinate) contain the oracle's jets of
    its corners: the centred terms (z_j − z_l)_0 and (z_j − c_i)_0 are built from the box
    itself, so their radii carry the box's (built from midpoints, a corner falls out)."""
    name, lam, X0, t0, variable, _, _ = case
    V = [[lam, F(0)], [F(0), lam]]
    bk = get_backend(backend)
    inst = Instance.create(V=V, Q=I2, K=I2, X0=X0)
    r = F(1, 2 ** 40)
    order = 8
    with bk.workprec(BITS):
        field = AttentionField(inst, bk, variable)
        Zb = bk.array(X0)
        Zb = np.array([[x + bk.interval(-r, r) for x in row] for row in Zb], dtype=object)
        Z = field.jets(Zb, t0, order, field.leaders(bk.array(X0), t0))
    for signs in SIGNS:
        corner = [[X0[i][a] + signs[2 * i + a] * r for a in range(2)] for i in range(4)]
        ref = oracle_jets(corner, t0, order, I2, variable, lam)
        with mpmath.workprec(ORACLE_BITS):
            for k, (zk, rk) in enumerate(zip(Z, ref)):
                for i in range(4):
                    for a in range(2):
                        lo, hi = bk.bounds(zk[i, a])
                        assert _mp(lo) <= rk[i][a] <= _mp(hi), (name, signs, k, i, a)
