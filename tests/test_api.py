"""The Python API: verify and simulate, dense output against an independent oracle."""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
import sympy

import certified
from certified import Instance, InputError, Verdict
from certified.api import float_down, float_up

TWO = Instance.create(V=[[1, 0], [0, 1]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]],
                      X0=[["1", "1/5"], ["-1/2", "3/4"]])


def _oracle(inst: Instance, times: list[F], dps: int = 50) -> dict[F, list[mpmath.mpf]]:
    """z(t) by mpmath.odefun at ``dps`` digits (no certified code involved)."""
    n, d = inst.n, inst.d
    with mpmath.workdps(dps):
        B = mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in r] for r in inst.B])

        def rhs(t, y):
            Z = [mpmath.matrix(y[i * d:(i + 1) * d]) for i in range(n)]
            X = [z * mpmath.exp(t) for z in Z]  # V = I: x = e^t z
            out = []
            for i in range(n):
                s = [(X[i].T * B * X[j])[0] for j in range(n)]
                m = max(s)
                w = [mpmath.exp(v - m) for v in s]
                tot = sum(w)
                for c in range(d):
                    out.append(sum(w[j] * (Z[j][c] - Z[i][c]) for j in range(n)) / tot)
            return out

        y0 = [mpmath.mpf(x.numerator) / x.denominator for row in inst.X0 for x in row]
        f = mpmath.odefun(rhs, 0, y0)
        return {t: [f(mpmath.mpf(t.numerator) / t.denominator)[k] for k in range(n * d)]
                for t in times}


def test_sol_encloses_an_independent_50_digit_solution_at_20_random_times():
    res = certified.simulate(TWO, (0, F(1, 2)), digits=20)
    assert res.success and res.status == 0
    rng = random.Random(20261201)
    times = sorted(F(rng.randrange(1, 10_000), 20_000) for _ in range(20))
    oracle = _oracle(TWO, times)
    for t in times:
        lo, hi = res.sol(t)
        assert lo.shape == (2, 2)
        truth = np.array([float(v) for v in oracle[t]]).reshape(2, 2)
        # containment (the oracle is 50 digits; float rounding of it is below 1e-16)
        assert np.all(lo <= truth + 1e-15) and np.all(truth - 1e-15 <= hi), t
        # and width: a certified 20-digit run, not a trivial box
        assert float(np.max(hi - lo)) < 1e-12, (t, hi - lo)


def test_sol_at_reported_times_matches_the_report_and_rejects_times_outside():
    res = certified.simulate(TWO, (0, F(1, 4)), t_eval=[0, F(1, 8), F(1, 4)], digits=15)
    assert list(res.t_exact) == [0, F(1, 8), F(1, 4)]
    lo, hi = res.sol(F(1, 4))
    assert np.all(res.lower[-1] <= hi) and np.all(lo <= res.upper[-1])
    assert res.mid.shape == res.rad.shape == (3, 2, 2)
    assert np.all(res.attention_lower <= res.attention_upper)
    with pytest.raises(InputError, match="certified span"):
        res.sol(F(1, 2))


def test_verify_result_checks_and_summarizes():
    r = certified.verify("examples/thm2_1_one_dimensional.json", digits=15, t_max=2)
    assert r.verdict is Verdict.CERTIFIED
    assert r.check().valid
    text = r.summary()
    assert "Theorem 2.1: certified" in text and "lemma: T4" in text
    assert "<pre>" in r._repr_html_() and r._repr_markdown_().startswith("```")


def test_instances_accept_lists_numpy_fractions_and_sympy():
    a = Instance.create(V=sympy.eye(2), Q=np.eye(2, dtype=int), K=[[F(1), 0], [0, "1"]],
                        X0=sympy.Matrix([[1, sympy.Rational(1, 5)],
                                         [sympy.Rational(-1, 2), sympy.Rational(3, 4)]]))
    assert a == TWO
    with pytest.raises(InputError, match="t_span"):
        certified.simulate(TWO, (1, 2))


@pytest.mark.parametrize("q", [F(1, 3), F(-1, 3), F(10 ** 400), F(1, 10 ** 400), F(0)])
def test_outward_float_rounding(q):
    assert F(float_down(q)) <= q if float_down(q) != -np.inf else True
    assert q <= F(float_up(q)) if float_up(q) != np.inf else True
    assert float_down(q) <= float_up(q)


def test_dense_output_refuses_discrete_time():
    res = certified.simulate("examples/discrete_layers.json", (0, 1), digits=15)
    assert res.success
    with pytest.raises(InputError, match="continuous dynamics"):
        res.sol(F(1, 2))
