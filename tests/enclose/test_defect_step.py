"""The defect step (Lemma I10, certified/enclose/defect_step.py): containment and width against an
independent high-precision solution (mpmath.odefun), forward/backward consistency, typed
rejection, and planted bugs that these tests must catch. Deterministic budgets only."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certified import Instance
from certified.enclose import defect_pieces as dp
from certified.enclose import defect_step as ds
from certified.enclose.arith import get_backend
from certified.enclose.driver import enclose_trajectory
from certified.enclose.field import AttentionField
from certified.enclose.lohner_set import LohnerSet
from certified.errors import ValidationError

X0 = [[Fraction(3, 5), Fraction(-1, 5)], [Fraction(-2, 5), Fraction(1, 2)],
      [Fraction(1, 10), Fraction(-7, 10)]]
EYE = [[1, 0], [0, 1]]


def _inst(V=EYE, X=X0) -> Instance:
    return Instance.create(V=V, Q=EYE, K=EYE, X0=X)


def _odefun_z(X, T: Fraction, dps: int) -> list:
    """The z-ODE with V = Q = K = I by mpmath.odefun (independent of the library)."""
    n, d = len(X), len(X[0])

    def f(t, y):
        Z = [y[i * d:(i + 1) * d] for i in range(n)]
        e2t = mpmath.exp(2 * t)
        out = []
        for i in range(n):
            s = [e2t * mpmath.fsum(Z[i][c] * Z[j][c] for c in range(d)) for j in range(n)]
            m = max(s)
            w = [mpmath.exp(x - m) for x in s]
            tot = mpmath.fsum(w)
            for c in range(d):
                out.append(mpmath.fsum(w[j] / tot * (Z[j][c] - Z[i][c]) for j in range(n)))
        return out

    with mpmath.workdps(dps):
        y0 = [mpmath.mpf(x.numerator) / x.denominator for row in X for x in row]
        sol = mpmath.odefun(f, 0, y0)
        return sol(mpmath.mpf(T.numerator) / T.denominator)


def _contains(bk, box, values) -> bool:
    for v, y in zip(box.reshape(-1), values):
        lo, hi = bk.bounds(v)
        # compare in mpmath at high precision: lo ≤ y ≤ hi
        with mpmath.workdps(80):
            if not (mpmath.mpf(lo.numerator) / lo.denominator <= y <=
                    mpmath.mpf(hi.numerator) / hi.denominator):
                return False
    return True


@pytest.fixture(scope="module")
def reference():
    return _odefun_z(X0, Fraction(1, 2), 50)


def test_defect_run_contains_odefun_and_is_narrow(reference):
    tr = enclose_trajectory(_inst(), Fraction(1, 2), digits=30, step="defect", max_bits=None)
    assert tr.certified_until == Fraction(1, 2)
    methods = [getattr(s, "method", "picard") for s in tr.steps]
    assert methods.count("defect") == len(methods)  # no fallback needed here
    assert len(tr.steps) <= 8  # I6 needs dozens of steps for the same run
    bk = tr.backend
    box = tr.final_box()
    assert _contains(bk, box, reference)
    assert float(bk.max_rad(box)) < 1e-25


def test_default_is_the_defect_step_and_picard_a_switch():
    tr = enclose_trajectory(_inst(), Fraction(1, 16), digits=20)
    assert [getattr(s, "method", "picard") for s in tr.steps] == ["defect"]
    tr = enclose_trajectory(_inst(), Fraction(1, 16), digits=20, step="picard")
    assert len(tr.steps) > 1 and all(getattr(s, "method", "picard") == "picard"
                                     for s in tr.steps)


def test_forward_backward_in_x():
    """x-dynamics are autonomous: integrate forward with V = I, then backward with V = −I
    from the final box; the result must contain X0 and stay narrow."""
    T = Fraction(1, 4)
    fw = enclose_trajectory(_inst(), T, digits=30, step="defect", coordinates="x",
                            variable="x", max_bits=None)
    assert fw.certified_until == T
    assert any(getattr(s, "method", "") == "defect" for s in fw.steps)
    back = enclose_trajectory(_inst(V=[[-1, 0], [0, -1]]), T, digits=30, step="defect",
                              coordinates="x", variable="x", initial_box=fw.final_box(),
                              max_bits=None)
    assert back.certified_until == T
    bk = back.backend
    box = back.final_box()
    for v, x in zip(box.reshape(-1), [x for row in X0 for x in row]):
        lo, hi = bk.bounds(v)
        assert lo <= x <= hi
    assert float(bk.max_rad(box)) < 1e-24


def _one_step(order=12, tol=Fraction(1, 10 ** 8), bits=120):
    """One defect step of low order from X0 at t = 0 (the truncation error is then large,
    ≈ tol, so a dropped remainder shows)."""
    bk = get_backend("flint")
    with bk.workprec(bits):
        f = AttentionField(_inst(), bk, "z")
        S = LohnerSet.from_exact([x for row in X0 for x in row], bk)
        res = ds.defect_step(f, S, Fraction(0), Fraction(1), order, tol, ds.DefectStepper())
        box = res.output_set.box(bk)
    return res, box, bk


def test_one_step_contains_odefun():
    res, box, bk = _one_step()
    ref = _odefun_z(X0, res.h, 40)
    assert _contains(bk, box, ref)
    assert res.error <= Fraction(1, 10 ** 8)
    # the remainder is needed: p(h) alone misses the solution by more than its radius
    assert float(res.error) > 1e-20


def test_planted_bug_dropped_remainder_is_caught(monkeypatch):
    real = dp.pieces

    def drop_error(*a, **k):
        out = real(*a, **k)
        if isinstance(out, str):
            return out
        e, g, S, hull = out
        return Fraction(0), g, S, hull  # the planted bug: E := 0

    monkeypatch.setattr(dp, "pieces", drop_error)
    res, box, bk = _one_step()
    ref = _odefun_z(X0, res.h, 40)
    assert not _contains(bk, box, ref)  # the containment test above would fail


def test_planted_bug_dropped_circle_term_is_caught(monkeypatch):
    real = ds.circle_defect

    def zero_circle(*a, **k):
        M = real(*a, **k)
        return None if M is None else [Fraction(0)] * len(M)  # the planted bug: M := 0

    monkeypatch.setattr(ds, "circle_defect", zero_circle)
    res, box, bk = _one_step()
    ref = _odefun_z(X0, res.h, 40)
    assert not _contains(bk, box, ref)


def test_rejection_is_typed():
    bk = get_backend("mpmath")
    with bk.workprec(100):
        f = AttentionField(_inst(), bk, "z")
        S = LohnerSet.from_exact([x for row in X0 for x in row], bk)
        with pytest.raises(ValidationError):
            ds.defect_step(f, S, Fraction(0), Fraction(1), 12, Fraction(1, 10 ** 8))
    # an impossible tolerance: no admissible h, a typed error, never a kept step
    bkf = get_backend("flint")
    with bkf.workprec(60):
        f = AttentionField(_inst(), bkf, "z")
        S = LohnerSet.from_exact([x for row in X0 for x in row], bkf)
        with pytest.raises(ds.DefectRejected):
            ds.defect_step(f, S, Fraction(0), Fraction(1), 12, Fraction(1, 10 ** 60))


def test_step_switch_is_validated():
    with pytest.raises(Exception):
        enclose_trajectory(_inst(), 1, step="bogus")


def test_certify_default_records_defect_steps_for_the_checker():
    """certify integrates with Lemma I10 by default; its certificate records each defect
    step's search data (no a-priori box) and the checker replays it (Lemma C20).
    Budget: T ≤ 2, 20 digits (deterministic)."""
    from certified.checker import check_certificate
    from certified.verdict.certificate import to_certificate
    from certified.verdict.certify import certify
    inst = Instance.create(V=EYE, Q=EYE, K=EYE,
                           X0=[[Fraction(1), Fraction(0)], [Fraction(-1), Fraction(1, 2)],
                               [Fraction(1, 2), Fraction(-1)]])
    v = certify(inst, "3.1", digits=20, t_max=2, max_seconds=None, refine_t=0)
    cert = to_certificate(v)
    recs = cert["integration"]["replay"]["records"]
    assert recs and all(r["method"] == "defect" and "apriori" not in r for r in recs)
    rep = check_certificate(cert)
    assert rep.valid and rep.steps_checked == len(recs), rep.message
