"""Open variants as instance options: validation, certified enclosures against an
independent 40-digit mpmath.odefun run, and the approximate path."""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

from certified import Instance
from certified.approx.float64 import approx_variant
from certified.cli import main
from certified.enclose.driver import enclose_trajectory
from certified.errors import InputError

BASE = {"V": [["1", "0"], ["0", "1"]], "Q": [["1", "0"], ["0", "1"]],
        "K": [["1", "0"], ["0", "1"]], "X0": [["1", "1/10"], ["1/2", "-1"], ["-3/4", "1/2"]]}
HEAD2 = {"V": [["0", "1/2"], ["-1/2", "0"]], "Q": [["1", "0"], ["0", "2"]],
         "K": [["1", "1/3"], ["0", "1"]]}
VARIANTS = {
    "heads": {"heads": [HEAD2]},
    "tanh": {"feedforward": {"sigma": "tanh", "W": [["1", "1/4"], ["0", "1"]]}},
    "pieces": {"pieces": [{"from": "1/2", "V": [["1/2", "0"], ["0", "1"]],
                           "Q": [["1", "0"], ["0", "1"]], "K": [["0", "1"], ["1", "0"]]}]},
}


def mp(m):
    return mpmath.matrix([[mpmath.mpf(F(x).numerator) / F(x).denominator for x in row]
                          for row in m])


def attn_out(X, V, Q, K):
    """Rows Σ_j P_ij (V x_j) for tokens X (list of mp column vectors)."""
    out = []
    for xi in X:
        s = [((Q * xi).T * (K * xj))[0] for xj in X]
        m = max(s)
        w = [mpmath.exp(v - m) for v in s]
        tot = mpmath.fsum(w)
        out.append(V * sum((w[j] / tot * X[j] for j in range(len(X))), mpmath.matrix(2, 1)))
    return out


def oracle(kind, T):
    """mpmath.odefun (Taylor series, 32 digits; not rigorous, an independent check)."""
    with mpmath.workdps(32):  # every constant (1/10, 1/3, …) at 32 digits too
        return _oracle(kind, T)


def _oracle(kind, T):
    V, Q, K = mp(BASE["V"]), mp(BASE["Q"]), mp(BASE["K"])

    def flat_to(X):
        return [mpmath.matrix([X[2 * i], X[2 * i + 1]]) for i in range(3)]

    def to_flat(cols):
        return [c[r] for c in cols for r in range(2)]

    def field(weights):
        def f(t, y):
            X = flat_to(y)
            if kind == "heads":
                A = attn_out(X, V, Q, K)
                B = attn_out(X, mp(HEAD2["V"]), mp(HEAD2["Q"]), mp(HEAD2["K"]))
                return to_flat([a + b for a, b in zip(A, B)])
            if kind == "tanh":
                W = mp(VARIANTS["tanh"]["feedforward"]["W"])
                return to_flat([W * u.apply(mpmath.tanh) for u in attn_out(X, V, Q, K)])
            return to_flat(attn_out(X, *weights))
        return f

    y0 = [mpmath.mpf(F(x).numerator) / F(x).denominator for row in BASE["X0"] for x in row]
    if kind != "pieces":
        return mpmath.odefun(field(None), 0, y0)(T)
    p = VARIANTS["pieces"]["pieces"][0]
    mid = mpmath.odefun(field((V, Q, K)), 0, y0)(mpmath.mpf(1) / 2)
    return mpmath.odefun(field((mp(p["V"]), mp(p["Q"]), mp(p["K"]))), mpmath.mpf(1) / 2,
                         mid)(T)


@pytest.mark.parametrize("kind", sorted(VARIANTS))
def test_certified_enclosure_contains_the_oracle_and_is_narrow(kind):
    inst = Instance.from_json({**BASE, "variant": VARIANTS[kind]})
    tr = enclose_trajectory(inst, 1, digits=22, variable="x")
    assert tr.certified_until == 1
    ref = oracle(kind, 1)
    box = tr.tokens[-1].reshape(-1)
    with mpmath.workdps(32), ctx.workprec(200):
        for b, r in zip(box, ref):
            point = arb(mpmath.nstr(r, 30))  # the oracle, ±1e-30 from rounding its digits
            assert b.contains(point.mid())
            assert float(b.rad()) < 1e-17


def test_pieces_are_continuous_at_the_switch_and_change_the_motion():
    inst = Instance.from_json({**BASE, "variant": VARIANTS["pieces"]})
    plain = Instance.from_json(BASE)
    a = enclose_trajectory(inst, 1, digits=20, variable="x", times=[F(1, 2), 1])
    b = enclose_trajectory(plain, 1, digits=20, variable="x", times=[F(1, 2), 1],
                           coordinates="x")
    # identical up to the switch, different after it (enclosures disjoint)
    assert all(x.overlaps(y) for x, y in zip(a.tokens[0].flat, b.tokens[0].flat))
    assert any(not x.overlaps(y) for x, y in zip(a.tokens[1].flat, b.tokens[1].flat))
    assert [s.t0 for s in a.steps] == sorted(s.t0 for s in a.steps)
    assert any(s.t0 == F(1, 2) for s in a.steps)  # a step starts exactly at the switch


def test_approximate_path_agrees_with_the_certified_one():
    for kind, var in VARIANTS.items():
        inst = Instance.from_json({**BASE, "variant": var})
        tr = enclose_trajectory(inst, 1, digits=20, variable="x")
        ap = approx_variant(inst, 1.0, h=1e-3)
        mids = np.array([float(v.mid()) for v in tr.tokens[-1].flat]).reshape(3, 2)
        assert np.abs(ap["tokens"][-1] - mids).max() < 1e-9, kind


def test_relu_is_approximate_only_and_says_why():
    inst = Instance.from_json({**BASE, "variant": {"feedforward": {"sigma": "relu"}}})
    with pytest.raises(InputError, match="not smooth"):
        enclose_trajectory(inst, 1, variable="x")
    ap = approx_variant(inst, 1.0, h=1e-3)
    assert "approximate" in ap["method"] and ap["tokens"][-1].shape == (3, 2)


def test_variant_round_trips_through_json():
    for var in VARIANTS.values():
        inst = Instance.from_json({**BASE, "variant": var})
        again = Instance.loads(inst.dumps())
        assert again == inst and again.variant == inst.variant


@pytest.mark.parametrize("variant, field", [
    ({"feedforward": {"sigma": "gelu"}}, "variant.feedforward.sigma"),
    ({"feedforward": {"sigma": "tanh", "W": [["1"]]}}, "variant.feedforward.W"),
    ({"heads": []}, "variant.heads"),
    ({"heads": [{"V": [["1"]], "Q": [["1", "0"]], "K": [["1", "0"]]}]}, "variant.heads[0].V"),
    ({"pieces": [{"from": "0", **HEAD2}]}, "variant.pieces[0].from"),
    ({"pieces": [{"V": [["1"]]}]}, "variant.pieces[0]"),
    ({"feedforward": {"sigma": "tanh"}, "heads": []}, "variant"),
    ({"dropout": {}}, "variant"),
])
def test_bad_variants_name_the_field(variant, field):
    with pytest.raises(InputError) as err:
        Instance.from_json({**BASE, "variant": variant})
    assert str(err.value).startswith(field) and "\n" not in str(err.value)


def test_cli_simulate_a_variant(tmp_path, capsys):
    f = tmp_path / "mh.json"
    f.write_text(json.dumps({**BASE, "variant": VARIANTS["heads"]}))
    code = main(["simulate", str(f), "--t-final", "1/2", "--variable", "x", "--digits", "20",
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["certified_until"] == "1/2"
    code = main(["simulate", str(f), "--t-final", "1/2"])  # default variable z
    _, err = capsys.readouterr()
    assert code == 2 and "variable" in err
