"""The checker's replay of defect steps (Lemma I10; the checker's Lemma C20): a valid
certificate checks valid, every search datum of a record is used and an edit that breaks
its consequence is rejected at its step, mixed runs (defect steps and the Picard fallback)
chain, and a producer with a planted bug is caught by the checker."""

from __future__ import annotations

import copy
from fractions import Fraction as F

import numpy as np
import pytest

from certified.checker import check_certificate, digest
from certified.checker.errors import CheckFailure, Malformed
from tests.checker.producer import Instance, certify, to_certificate

#: d = 1, tokens −2, 1, 2 (two clusters): a few defect steps to Lemma T4's T at 8 digits
LINE = dict(V=[[1]], Q=[[1]], K=[[1]], X0=[[-2], [1], [2]])


def _cert(**kw) -> dict:
    v = certify(Instance.create(**LINE), "2.1", digits=8, max_seconds=None, refine_t=0, **kw)
    assert v.verdict == "certified"
    import json
    return json.loads(json.dumps(to_certificate(v)))


@pytest.fixture(scope="module")
def cert() -> dict:
    return _cert()


def _redigest(c: dict) -> dict:
    c["digest"] = digest(c)
    return c


def _failure(c: dict) -> str:
    try:
        rep = check_certificate(c)
    except Malformed as exc:  # the schema's rejection comes as an exception
        return f"schema: {exc}"
    assert not rep.valid, "an edited certificate checked valid"
    return rep.message


def test_defect_certificate_checks_valid(cert):
    recs = cert["integration"]["replay"]["records"]
    assert recs and all(r.get("method") == "defect" for r in recs)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.valid and rep.steps_checked == len(recs), rep.message


def test_shrunk_set_at_a_defect_step_rejected(cert):
    c = copy.deepcopy(cert)
    k = len(c["integration"]["replay"]["records"]) - 1
    r = c["integration"]["replay"]["records"][k]["set"]["r"]
    lo, hi = F(r[0][0]), F(r[0][1])
    r[0] = [str((lo + hi) / 2 - (hi - lo) / 100), str((lo + hi) / 2 + (hi - lo) / 100)]
    assert _failure(_redigest(c)).startswith(f"integration.replay[{k}].set.r[0]")


def test_a_two_dimensional_defect_certificate_checks_valid_and_an_edit_is_caught():
    """d = 2 (n = 3, V = Q = K = I; every other replay test here is on the line, where
    n·d = n and the token differences are scalars): every step is a defect step, the
    certificate checks valid, and a set shrunk in its second coordinate at a middle step
    is rejected at that step."""
    import json
    inst = Instance.create(V=[[1, 0], [0, 1]], Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]],
                           X0=[[-1, "1/2"], [1, 0], ["1/2", "3/2"]])
    v = certify(inst, "3.1", digits=8, max_seconds=None, refine_t=0)
    c = json.loads(json.dumps(to_certificate(v)))
    recs = c["integration"]["replay"]["records"]
    assert v.verdict == "certified" and all(r.get("method") == "defect" for r in recs)
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid and rep.steps_checked == len(recs), rep.message
    k = len(recs) // 2
    r = recs[k]["set"]["r"]
    lo, hi = F(r[1][0]), F(r[1][1])
    r[1] = [str((lo + hi) / 2 - (hi - lo) / 100), str((lo + hi) / 2 + (hi - lo) / 100)]
    assert _failure(_redigest(c)).startswith(f"integration.replay[{k}].set.r[1]")


@pytest.mark.parametrize("field,value,where", [
    ("rho", "1/1000000", "integration.replay[0]"),          # ρ ≤ h: the lemma needs h < ρ
    ("R", "1/10**60", "integration.replay[0].R"),             # below the set's spread
    ("R", "-1", "integration.replay[0]"),
    ("pieces", 0, "schema"),
    ("order", 2, "integration.replay[0]"),                  # order 2: the defect is huge
])
def test_search_data_edits_rejected_at_their_step(cert, field, value, where):
    c = copy.deepcopy(cert)
    rec = c["integration"]["replay"]["records"][0]
    rec[field] = value if field != "R" or value != "1/10**60" else str(F(1, 10 ** 60))
    assert _failure(_redigest(c)).startswith(where)


def test_defect_record_with_a_picard_field_is_malformed(cert):
    c = copy.deepcopy(cert)
    c["integration"]["replay"]["records"][0]["apriori"] = []
    assert "schema" in _failure(_redigest(c))
    c = copy.deepcopy(cert)
    c["integration"]["replay"]["records"][0]["method"] = "picard"
    assert "schema" in _failure(_redigest(c))


def test_mixed_defect_and_picard_steps_chain(monkeypatch):
    """Every second defect step rejected: the Picard fallback takes those; the replay
    checks both kinds in one chain."""
    from certified.enclose import defect_step as ds

    calls = {"n": 0}
    real = ds.DefectStepper.__call__

    def every_other(self, *a, **k):
        calls["n"] += 1
        if calls["n"] % 2 == 0:
            raise ds.DefectRejected("planted rejection", t=None, h=None, box=None)
        return real(self, *a, **k)

    monkeypatch.setattr(ds.DefectStepper, "__call__", every_other)
    c = _cert()
    kinds = {r.get("method", "picard") for r in c["integration"]["replay"]["records"]}
    assert kinds == {"defect", "picard"}
    rep = check_certificate(c)
    assert rep.valid, rep.message


def test_planted_bug_in_the_producer_is_caught_by_the_checker(monkeypatch):
    """The defect step's centre value p(h) off by 2⁻⁴⁰ (an evaluation slip far below the
    tokens' size, far above the sets' radii): the stored sets miss the solution, and the
    checker, which evaluates its own p(h), rejects the certificate at the first step.
    (Dropping the error bound E is not such a bug here: at 8 digits E is below the
    rounding radii, and the stored sets stay true.)"""
    from certified.enclose import defect_step as ds

    real = ds._lohner_update

    def shifted(bk, S, T, S_tot, extra):
        return real(bk, S, T + bk.const(F(1, 2 ** 40)), S_tot, extra)  # the planted bug

    monkeypatch.setattr(ds, "_lohner_update", shifted)
    c = _cert()
    assert all(r.get("method") == "defect" for r in c["integration"]["replay"]["records"])
    assert _failure(c).startswith("integration.replay[0].set.r")


def _coarse_first_circle(monkeypatch) -> list[int]:
    """Make the circle's bound 10⁹ times too coarse with ARCS arcs (not with 4 × ARCS);
    returns the list of the arc counts it is called with."""
    from certified.checker import defect

    real = defect._circle
    calls: list[int] = []

    def coarse_first(field, poly, t0, h, rho, where, arcs=defect.ARCS):
        calls.append(arcs)
        M = real(field, poly, t0, h, rho, where, arcs)
        return M * 1e9 if arcs == defect.ARCS else M

    monkeypatch.setattr(defect, "_circle", coarse_first)
    return calls


def test_a_too_coarse_circle_is_checked_again_with_more_arcs(cert, monkeypatch):
    """A first circle bound M too coarse for the stored sets (here: inflated 10⁹-fold on
    the first attempt) fails the step; it is checked again with 4 × ARCS arcs and passes
    (Lemma C20, item 3). Inflated on every attempt, the certificate is rejected."""
    from certified.checker import defect

    real = defect._circle
    calls = _coarse_first_circle(monkeypatch)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.valid, rep.message
    assert calls.count(4 * defect.ARCS) == len(cert["integration"]["replay"]["records"])

    monkeypatch.setattr(defect, "_circle",
                        lambda *a, **k: real(*a, **k) * 1e9)  # coarse on every attempt
    assert _failure(copy.deepcopy(cert)).startswith("integration.replay[0]")


@pytest.fixture(scope="module")
def captured(cert) -> list[dict]:
    """Check ``cert`` once, recording per step what the checker derived: its polynomial's
    coefficients (exact rationals: the exact jets' midpoints, the continuation's binary64
    midpoints over h^k), â, the circle's bound M and the step's data."""
    from certified.checker import defect
    from certified.checker.balls import scale

    seen: dict = {"steps": []}
    real_poly, real_pieces = defect._polynomial, defect._pieces

    def poly(jets, h):
        P = scale()
        seen["exact"] = [[F(b.m, 2 ** P) for b in Zk.flat] for Zk in jets.exact]
        seen["tail"] = None if jets.tail is None else [
            [F(x) / h ** (len(jets.exact) + j) for x in row.flat]
            for j, row in enumerate(jets.tail.m)]
        return real_poly(jets, h)

    def pieces(field, Phat, a_hat, M, t0, h, rho, m, R, r0, where):
        seen["steps"].append(dict(
            coeffs=seen["exact"] + (seen["tail"] or []), tail=seen["tail"] is not None,
            a_hat=a_hat.copy(), M=M.copy(), t0=t0, h=h, rho=rho, lam=field.lam,
            B=field.Bq, where=where))
        return real_pieces(field, Phat, a_hat, M, t0, h, rho, m, R, r0, where)

    defect._polynomial, defect._pieces = poly, pieces
    try:
        rep = check_certificate(copy.deepcopy(cert))
    finally:
        defect._polynomial, defect._pieces = real_poly, real_pieces
    assert rep.valid, rep.message
    return seen["steps"]


def _mp(q: F):
    import mpmath as mp
    return mp.mpf(q.numerator) / q.denominator


def _defect(st: dict, sigma) -> list:
    """mpmath (300 bits): p′(σ) − F(p(σ), t0 + σ) per token for the recorded polynomial of
    a d = 1 step, at a real or complex σ, with its own softmax."""
    import mpmath as mp
    coef = [[_mp(c) for c in ck] for ck in st["coeffs"]]
    K, n = len(coef) - 1, len(coef[0])
    lam, b = _mp(st["lam"]), _mp(st["B"][0][0])
    z = [sum(coef[k][i] * sigma ** k for k in range(K + 1)) for i in range(n)]
    dz = [sum(k * coef[k][i] * sigma ** (k - 1) for k in range(1, K + 1)) for i in range(n)]
    c = mp.exp(2 * lam * (_mp(st["t0"]) + sigma))
    out = []
    for i in range(n):
        w = [mp.exp(c * z[i] * b * z[k]) for k in range(n)]
        out.append(dz[i] - lam * sum(w[k] * (z[k] - z[i]) for k in range(n)) / sum(w))
    return out


def test_the_checkers_polynomial_defect_bound_contains_mpmath_defect(cert, captured):
    """Item 1 of Lemma C20 against an independent oracle. The checker's polynomial p
    (exact midpoints of its exact jets, binary64 midpoints of the continuation) has the
    defect δ = p′ − F(p); the checker bounds it on [0, h] by
    Σ_k d_k τ^k + (τ/ρ)^K (M + Σ_k d_k ρ^k) (the bootstrap's Δ). mpmath at 300 bits
    evaluates δ at points of [0, h] from the same coefficients, with its own softmax: every
    |δ_i(τ)| must lie below the bound (containment), and the bound times h must be below
    the stored set's narrowest radius, or it could not certify the step (measured: the
    bound is 50–70 times the true defect, and 10⁻¹¹–10⁻³ of that radius). At least one
    step must use the binary64 continuation, or the test would not exercise it."""
    import mpmath as mp

    assert any(s["tail"] for s in captured), "no step used the binary64 continuation"
    recs = cert["integration"]["replay"]["records"]
    mp.mp.prec = 300
    for st in captured[:6]:
        K = len(st["coeffs"]) - 1
        n = len(st["coeffs"][0])  # d = 1: one coordinate per token
        h, rho = _mp(st["h"]), _mp(st["rho"])
        d_k = [[mp.mpf(float(st["a_hat"][k, i])) / h ** (k + 1) for i in range(n)]
               for k in range(K)]
        k_rec = int(st["where"].split("[")[1].split("]")[0])
        narrow = min(F(hi) - F(lo) for lo, hi in recs[k_rec]["set"]["r"]) / 2
        for j in range(1, 6):
            tau = h * j / 5
            delta = _defect(st, tau)
            for i in range(n):
                ring = mp.mpf(float(st["M"][i])) + sum(d_k[k][i] * rho ** k for k in range(K))
                bound = sum(d_k[k][i] * tau ** k for k in range(K)) + (tau / rho) ** K * ring
                assert abs(delta[i]) <= bound, (st["where"], float(tau), i, delta[i], bound)
                assert float(bound * h) < float(narrow), (st["where"], bound, narrow)


def test_the_circle_bound_contains_the_mpmath_defect_on_the_circle(captured):
    """Item 3 of Lemma C20 against the same oracle: M_i ≥ |δ_i(σ)| at 48 points σ = ρe^{iθ}
    of the circle (complex σ, complex softmax in mpmath), and M_i is at most 10⁸ times the
    largest sampled |δ_i|. Measured: ≈ 10⁶ times (interval Horner of K + 1 terms on arcs
    of width 2πρ/32 wraps); harmless, since M enters the remainder times (τ/ρ)^K."""
    import mpmath as mp

    mp.mp.prec = 300
    for st in captured[:4]:
        n = len(st["coeffs"][0])
        rho = _mp(st["rho"])
        top = [mp.mpf(0)] * n
        for j in range(48):
            sigma = rho * mp.expj(2 * mp.pi * (j + mp.mpf(1) / 3) / 48)
            for i, v in enumerate(_defect(st, sigma)):
                assert abs(v) <= st["M"][i], (st["where"], j, i, abs(v), st["M"][i])
                top[i] = max(top[i], abs(v))
        for i in range(n):
            assert st["M"][i] <= 1e8 * float(top[i]) + 1e-300, (st["where"], i, st["M"][i], top[i])


def test_pi_is_bracketed():
    """The circle's arcs use rationals π_lo ≤ π ≤ π_hi (mpmath's directed rounding)."""
    import mpmath as mp

    from certified.checker.defect import _pi
    lo, hi = _pi()
    mp.mp.prec = 300
    assert _mp(lo) < mp.pi < _mp(hi) and hi - lo < F(1, 2 ** 70)


def test_upper_horner_and_power_of_two_scaling_bound_the_exact_values():
    """The bootstrap's directed float helpers: _horner_up(a, x) ≥ Σ_k a_k x^k and
    _times_pow2_up(x, e) ≥ 2^e·x (exact rationals), and not looser than 10⁻¹² relative
    (plus fballs' absolute floor ETA = 2⁻¹⁰⁰⁰ where the scaling underflows)."""
    import numpy as np

    from certified.checker.defect import _horner_up, _times_pow2_up
    rng = np.random.default_rng(11)
    a = rng.uniform(0, 1, (12, 5)) * 10.0 ** rng.integers(-30, 5, (12, 5))
    x = rng.uniform(0, 3, (4, 1))
    got = _horner_up(a, x)
    for r in range(4):
        for c in range(5):
            exact = sum(F(float(a[k, c])) * F(float(x[r, 0])) ** k for k in range(12))
            assert F(float(got[r, c])) >= exact
            assert F(float(got[r, c])) <= exact * (1 + F(1, 10 ** 12))
    v = rng.uniform(0, 1, 6) * 10.0 ** rng.integers(-300, 300, 6)
    for e in (-1100, -40, 0, 17):
        up_ = _times_pow2_up(v, e)
        for x_, y in zip(v, up_):
            exact = F(float(x_)) * F(2) ** e
            assert F(float(y)) >= exact
            assert F(float(y)) <= exact * (1 + F(1, 10 ** 12)) + 2 * F(2) ** -1000


def test_the_bootstraps_float_steps_bound_their_exact_values():
    """Item 4 of Lemma C20, against exact rationals on random inputs (directed rounding is
    what these helpers are for, so a rounding to nearest instead of up, or a dropped term,
    makes some result fall below the exact value): Δ (_defect_bounds), μ (_log_norms) and
    the recursion e_j, g_j (_bootstrap, with e^{μw} from mpmath at 200 bits) are ≥ the
    exact values and within 10⁻⁹ (relative) of them."""
    import mpmath as mp
    import numpy as np

    from certified.checker.defect import _bootstrap, _defect_bounds, _log_norms
    from certified.checker.fballs import FB

    def q(x) -> F:
        return F(float(x))
    rng = np.random.default_rng(7)
    tight = 1 + F(1, 10 ** 9)
    for trial in range(20):
        K, N, m = int(rng.integers(3, 30)), int(rng.integers(1, 6)), int(rng.integers(1, 9))
        a = rng.uniform(0, 1, (K, N)) * 10.0 ** rng.integers(-40, 0, (K, N))
        M = rng.uniform(0, 2, N)
        h = F(int(rng.integers(1, 100)), 1024)
        rho = h * F(int(rng.integers(20, 80)), 10)
        got = _defect_bounds(a, M, h, rho, m)
        for j in range(m):
            tau_s = F(j + 1, m)  # s = τ/h
            exact = max(sum(q(a[k, i]) * tau_s ** k for k in range(K)) / h
                        + (h * tau_s / rho) ** K
                        * (q(M[i]) + sum(q(a[k, i]) * (rho / h) ** k for k in range(K)) / h)
                        for i in range(N))
            assert exact <= q(got[j]) <= exact * tight, (trial, j)
        Jm = rng.normal(0, 1, (m, N, N)) * 10.0 ** rng.integers(-3, 3, (m, N, N))
        Jr = rng.uniform(0, 1e-3, (m, N, N))
        mu = _log_norms(FB(Jm, Jr))
        for b in range(m):
            exact = max(q(Jm[b, i, i]) + q(Jr[b, i, i])
                        + sum(abs(q(Jm[b, i, l])) + q(Jr[b, i, l]) for l in range(N) if l != i)
                        for i in range(N))
            assert exact <= q(mu[b]) <= exact + abs(exact) * (tight - 1) + F(1, 10 ** 300), (trial, b)
        Delta = rng.uniform(0, 1, m) * 10.0 ** rng.integers(-20, 0, m)
        mus = rng.normal(0, 3, m)
        w = F(int(rng.integers(1, 64)), 4096)
        g0 = float(rng.uniform(0, 1e-3))
        e, g, fail = _bootstrap(Delta, mus, float(w), g0, 1e300)
        assert fail is None
        mp.mp.prec = 200
        ee, gg = mp.mpf(0), mp.mpf(g0)
        for j in range(m):
            grow = mp.exp(max(mus[j], 0.0) * (mp.mpf(w.numerator) / w.denominator))
            ee = (ee + mp.mpf(float(Delta[j])) * mp.mpf(w.numerator) / w.denominator) * grow
            gg = gg * grow
        assert ee <= e <= ee * (1 + mp.mpf(10) ** -9) + mp.mpf(2) ** -1000, trial
        assert gg <= g <= gg * (1 + mp.mpf(10) ** -9), trial
    # the first piece where e + g reaches R_lo is reported, with its e and g
    e, g, fail = _bootstrap(np.array([0.0, 1.0, 1.0]), np.zeros(3), 1.0, 0.5, 1.2)
    assert fail == 1 and e >= 1.0 and g >= 0.5


def test_scale_changes_of_the_centre_value_contain_their_input():
    """_high (scale P → P + g) and _low (P + g → P) return balls containing the input balls
    (exact rational end points), _low at most 2 units wider than needed."""
    import numpy as np

    from certified.checker.balls import Ball, scale, scaled
    from certified.checker.defect import _high, _low

    rng = np.random.default_rng(3)
    with scaled(80):
        P = scale()
        x = np.array([Ball(int(m), int(r)) for m, r in zip(rng.integers(-10 ** 15, 10 ** 15, 6),
                                                         rng.integers(0, 10 ** 6, 6))],
                     dtype=object).reshape(2, 3)
        for g in (0, 7, 64):
            hi_ = _high(x, g)
            assert hi_.shape == (2, 3)
            for a, b in zip(x.flat, hi_.flat):
                lo_a, hi_a = F(a.lo(), 2 ** P), F(a.hi(), 2 ** P)
                assert F(b.lo(), 2 ** (P + g)) <= lo_a and hi_a <= F(b.hi(), 2 ** (P + g))
            y = np.array([Ball(int(m), int(r)) for m, r in zip(
                rng.integers(-10 ** 18, 10 ** 18, 6), rng.integers(0, 10 ** 9, 6))],
                dtype=object).reshape(3, 2)
            low = _low(y, g)
            assert low.shape == (3, 2)
            for a, b in zip(y.flat, low.flat):
                lo_a, hi_a = F(a.lo(), 2 ** (P + g)), F(a.hi(), 2 ** (P + g))
                assert F(b.lo(), 2 ** P) <= lo_a and hi_a <= F(b.hi(), 2 ** P)
                assert F(b.hi() - b.lo(), 2 ** P) <= hi_a - lo_a + F(4, 2 ** P)


def test_the_polynomial_is_the_jets_midpoints(cert):
    """_polynomial on a real step: p̂_k contains h^k·(the exact midpoint of Z_k) (rational
    containment) with radius ≤ 2⁻⁴⁶ of it for k ≤ k₁, equals the continuation's midpoints
    with radius 0 for k > k₁, and rad ≥ h^k·rad Z_k (exact) resp. the continuation's radii."""
    import numpy as np

    from certified.checker.balls import const, scaled
    from certified.checker.defect import _polynomial
    from certified.checker.dynamics import Field

    integ = cert["integration"]
    step, rec = integ["steps"][0], integ["replay"]["records"][0]
    t0, h = F(step[0]), F(step[1])
    X0 = [[F(x) for x in row] for row in cert["instance"]["X0"]]
    P = int(integ["bits"]) + 64 + int(rec["guard_bits"])
    with scaled(P):
        field = Field(F(1), [[F(1)]], len(X0), integ["variable"])
        Z0 = np.array([[const(x) for x in row] for row in X0], dtype=object)
        jets = field.jets(Z0, t0, int(rec["order"]), h, 1e-30)
        Phat, rad = _polynomial(jets, h)
    k1 = len(jets.exact)
    K = int(rec["order"])
    assert 1 <= k1 <= K + 1 and Phat.shape == (K + 1, len(X0), 1) and rad.shape == (K + 1, len(X0))
    for k in range(K + 1):
        for i in range(len(X0)):
            m, r = F(float(Phat.m[k, i, 0])), F(float(Phat.r[k, i, 0]))
            if k < k1:
                b = jets.exact[k][i, 0]
                exact = F(b.m, 2 ** P) * h ** k
                assert m - r <= exact <= m + r
                assert r <= abs(exact) * F(1, 2 ** 46) + F(1, 2 ** 1000)
                assert F(float(rad[k, i])) >= F(b.r, 2 ** P) * h ** k
            else:
                assert Phat.m[k, i, 0] == jets.tail.m[k - k1, i, 0] and r == 0
                assert rad[k, i] >= jets.tail.r[k - k1, i, 0]
    assert jets.tail is not None, "the step should use the continuation (tolerance 1e-30)"


def test_the_linear_part_contains_the_flows_derivative(cert, monkeypatch):
    """Items 4 and 5 of Lemma C20 against mpmath on the first step (whose set is the exact
    initial point): every piece's tube contains the solution at three times of the piece,
    and the checker's S (the pieces' product) contains ∂φ(t0 + h; y)/∂y, both computed by
    mpmath.odefun at 40 digits on the variational system (with its own softmax and
    derivative)."""
    import mpmath as mp

    from certified.checker import defect

    seen = []
    real = defect._pieces

    def pieces(field, Phat, a_hat, M, t0, h, rho, m, R, r0, where):
        e, S = real(field, Phat, a_hat, M, t0, h, rho, m, R, r0, where)
        seen.append((t0, h, m, [float(x) for x in Phat.m[0].reshape(-1)], S,
                     defect._tubes(Phat, m, R)))
        return e, S

    monkeypatch.setattr(defect, "_pieces", pieces)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.valid, rep.message
    mp.mp.dps = 40
    for t0, h, m, c, S, tubes in seen[:1]:
        n = len(c)

        def rhs(t, y):
            z, Y = y[:n], y[n:]
            cf = mp.exp(2 * t)
            w = [[mp.exp(cf * z[i] * z[k]) for k in range(n)] for i in range(n)]
            P = [[w[i][k] / sum(w[i]) for k in range(n)] for i in range(n)]
            F_ = [sum(P[i][k] * (z[k] - z[i]) for k in range(n)) for i in range(n)]
            # dF_i/dz_l: P_il(1 + cf z_i (z_l − z̄_i)) − δ_il(1 − cf Σ_k P_ik z_k (z_k − z̄_i))
            zbar = [sum(P[i][k] * z[k] for k in range(n)) for i in range(n)]
            D = [[P[i][l] * (1 + cf * z[i] * (z[l] - zbar[i]))
                  - (1 - cf * sum(P[i][k] * z[k] * (z[k] - zbar[i]) for k in range(n))
                     if i == l else 0) for l in range(n)] for i in range(n)]
            dY = [sum(D[i][l] * Y[l * n + j] for l in range(n)) for i in range(n) for j in range(n)]
            return F_ + dY
        y0 = [mp.mpf(x) for x in c] + [mp.mpf(int(i == j)) for i in range(n) for j in range(n)]
        t0m, hm = mp.mpf(t0.numerator) / t0.denominator, mp.mpf(h.numerator) / h.denominator
        sol = mp.odefun(rhs, t0m, y0)
        for j in range(m):
            for frac in (F(1, 7), F(1, 2), F(6, 7)):
                tau = (j + frac) * h / m
                z = sol(t0m + mp.mpf(tau.numerator) / tau.denominator)[:n]
                for i in range(n):
                    lo_, hi_ = tubes.m[j, i, 0] - tubes.r[j, i, 0], tubes.m[j, i, 0] + tubes.r[j, i, 0]
                    assert lo_ <= float(z[i]) <= hi_, (j, float(tau), i)
        Dphi = sol(t0m + hm)[n:]
        for i in range(n):
            for j in range(n):
                v = float(Dphi[i * n + j])
                assert S.m[i, j] - S.r[i, j] <= v <= S.m[i, j] + S.r[i, j], (t0, i, j, v)


def test_bootstrap_failures_name_the_field_the_rule_and_the_numbers(cert):
    """The two failures of item 4 of Lemma C20, message for message: R below the spread of
    the set (a later step, whose set is not a point), and R too small for e_j + g_j."""
    import re

    c = copy.deepcopy(cert)
    c["integration"]["replay"]["records"][0]["R"] = str(F(1, 10 ** 60))
    msg = _failure(_redigest(c))
    assert re.fullmatch(r"integration\.replay\[0\]\.R: Expected the bootstrap e_j \+ g_j < R "
                        r"on every piece \(Lemma C20\)\. Got e \+ g = [0-9.]+e-[0-9]+ ≥ "
                        r"R = 1e-60 on piece 0\.", msg), msg
    c = copy.deepcopy(cert)
    c["integration"]["replay"]["records"][3]["R"] = str(F(1, 10 ** 60))
    msg = _failure(_redigest(c))
    assert re.fullmatch(r"integration\.replay\[3\]\.R: Expected R > sup ‖y − c‖ over the set "
                        r"\([0-9.]+e-[0-9]+\)\. Got 1/10{60}\.", msg), msg


def test_a_centre_off_the_scale_widens_the_remainder_by_its_radius(cert, monkeypatch):
    """A stored centre that is no number of the checker's scale 2^−P is parsed as a ball of
    radius δ > 0, while the polynomial starts at its midpoint p₀ ≠ c: the next step adds
    ‖S‖∞·δ to its remainder (Lemma C20, item 1) and still checks valid."""
    from certified.checker import defect

    seen: list = []
    real = defect._lohner_check

    def spy(S, rs, e0, jets, h, M, e, Slin, out, where, centre=None):
        seen.append((where, max(b.r for b in S.c.flat), e))
        return real(S, rs, e0, jets, h, M, e, Slin, out, where, centre=centre)

    monkeypatch.setattr(defect, "_lohner_check", spy)
    assert check_certificate(copy.deepcopy(cert)).valid
    plain = dict((w, (r, e)) for w, r, e in seen)
    seen.clear()
    c = copy.deepcopy(cert)
    P = int(c["integration"]["bits"]) + 64
    setc = c["integration"]["replay"]["records"][0]["set"]["c"]
    setc[0] = str(F(setc[0]) + F(1, 3 * 2 ** (P + 1)))
    rep = check_certificate(_redigest(c))
    assert rep.valid, rep.message
    where, radius, e = seen[1]
    assert where == "integration.replay[1]" and radius > 0 and plain[where][0] == 0
    # δ is at least one unit 2^−P (rounded up, further guard bits aside); ‖S‖∞ ≥ 1/2
    assert e - plain[where][1] >= F(1, 2 ** (P + 1)), (e, plain[where][1])


def test_too_few_stored_guard_bits_are_retried_at_retry_guard(cert, monkeypatch):
    """The stored guard bits are a hint (Lemma C20, item 1): where the checker's jets at
    P + g are too wide for the stored sets (here: their radii inflated 10^30-fold below
    P + RETRY_GUARD), every item is derived again at P + RETRY_GUARD and the step passes;
    inflated at every precision, the certificate is rejected at its first step."""
    from certified.checker import defect
    from certified.checker.balls import scale

    P = int(cert["integration"]["bits"]) + 64
    real = defect._polynomial
    seen = []

    def wide_below_retry(jets, h):
        seen.append(scale())
        Phat, rad = real(jets, h)
        return Phat, (rad * 1e30 if scale() < P + defect.RETRY_GUARD else rad)

    monkeypatch.setattr(defect, "_polynomial", wide_below_retry)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.valid, rep.message
    n = len(cert["integration"]["replay"]["records"])
    assert seen.count(P + defect.RETRY_GUARD) == n  # one retry a step, passing first time
    assert all(g < defect.RETRY_GUARD for g in
               (int(r["guard_bits"]) for r in cert["integration"]["replay"]["records"]))

    monkeypatch.setattr(defect, "_polynomial", lambda j, h: (real(j, h)[0], real(j, h)[1] * 1e30))
    assert _failure(copy.deepcopy(cert)).startswith("integration.replay[0]")


def _all_guards(c: dict, g: int) -> dict:
    for r in c["integration"]["replay"]["records"]:
        r["guard_bits"] = g
    return _redigest(c)


def test_a_coarse_circle_is_retried_with_more_arcs_at_the_only_guard(cert, monkeypatch):
    """Records whose guard bits are already RETRY_GUARD get one try of the jets; a circle
    too coarse with ARCS arcs is still checked again with 4 × ARCS within it."""
    from certified.checker import defect

    calls = _coarse_first_circle(monkeypatch)
    c = _all_guards(copy.deepcopy(cert), defect.RETRY_GUARD)
    rep = check_certificate(c)
    n = len(c["integration"]["replay"]["records"])
    assert rep.valid, rep.message
    assert calls == [defect.ARCS, 4 * defect.ARCS] * n


def test_a_disk_that_fails_at_the_stored_guard_is_derived_again(cert, monkeypatch):
    """Items 1–2 failing at the stored guard bits (here: the disk, planted at each step's
    first try) make the step derive them again at RETRY_GUARD, where it passes."""
    from certified.checker import defect

    real = defect._disk
    tries: list[str] = []

    def fails_first(field, poly, t0, h, rho, where):
        tries.append(where)
        if tries.count(where) == 1:
            raise CheckFailure(where + ".rho", "a disk", "a planted failure")
        return real(field, poly, t0, h, rho, where)

    monkeypatch.setattr(defect, "_disk", fails_first)
    rep = check_certificate(copy.deepcopy(cert))
    n = len(cert["integration"]["replay"]["records"])
    assert rep.valid, rep.message
    assert len(tries) == 2 * n


def test_disk_circle_and_order_failures_name_the_step(cert, monkeypatch):
    """The three failures of items 1–3 that the record's data cannot cure, each at the
    first step, word for word in their leading part: no row sum proved non-zero on the
    disk, no arc with a finite defect, jets of a lower order than the record's."""
    from certified.checker import defect
    from certified.checker import dynamics

    K = int(cert["integration"]["replay"]["records"][0]["order"])
    with monkeypatch.context() as mpch:
        mpch.setattr(defect, "DISK_DEPTH", 1)
        mpch.setattr(defect, "_row_sums_nonzero", lambda f, Z, c, D: np.zeros(Z.shape[0], bool))
        assert _failure(copy.deepcopy(cert)).startswith(
            "integration.replay[0].rho: Expected a disk |σ| ≤ rho on which every softmax row "
            "sum is proved non-zero (Lemma C20). Got a box [")
    with monkeypatch.context() as mpch:
        mpch.setattr(defect, "ARC_DEPTH", 1)
        real_v = defect._velocities
        mpch.setattr(defect, "_velocities", lambda *a: (real_v(*a)[0], np.zeros(
            a[1].shape[0], bool)))
        assert _failure(copy.deepcopy(cert)).startswith(
            "integration.replay[0].rho: Expected the defect p′ − F(p) finite on the circle "
            "|σ| = rho (Lemma C20). Got an arc θ ∈ 2π[")
    real_jets = dynamics.Field.jets
    monkeypatch.setattr(dynamics.Field, "jets", lambda self, Z0, t0, order, *a, **k:
                        real_jets(self, Z0, t0, order - 1, *a, **k))
    assert _failure(copy.deepcopy(cert)) == (f"integration.replay[0].order: Expected {K}. "
                                             f"Got {K - 1}.")


def _cells_meeting_the_disk(k: int) -> int:
    """Cells of the (4·2^k)² grid of [−1, 1]² whose nearest point to 0 is within 1."""
    m = 4 * 2 ** k
    edges = [F(-1) + F(2 * a, m) for a in range(m + 1)]
    near = [F(0) if lo <= 0 <= hi else min(abs(lo), abs(hi)) for lo, hi in zip(edges, edges[1:])]
    return sum(1 for x in near for y in near if x * x + y * y <= 1)


def test_the_disk_cover_stops_at_its_box_budget(cert, monkeypatch):
    """Every box failing: the boxes of depth 0 and 1 fit a budget of exactly their number,
    and the next level is refused before it is evaluated, naming the count (an oracle
    count of the grid cells meeting the disk)."""
    from certified.checker import defect

    live = [_cells_meeting_the_disk(k) for k in range(3)]
    assert live[:2] == [16, 60]
    evaluated: list = []
    monkeypatch.setattr(defect, "DISK_BOXES", live[0] + live[1])
    monkeypatch.setattr(defect, "_row_sums_nonzero",
                        lambda f, Z, c, D: evaluated.append(Z.shape[0]) or np.zeros(Z.shape[0], bool))
    assert _failure(copy.deepcopy(cert)) == (
        "integration.replay[0].rho: Expected a disk |σ| ≤ rho on which every softmax row sum "
        f"is proved non-zero with at most {live[0] + live[1]} boxes (Lemma C20). Got "
        f"{sum(live)} boxes by depth 2.")
    assert evaluated[:2] == live[:2] and 2 * sum(live[:2]) >= sum(evaluated)


def test_a_far_too_large_rho_is_refused_by_the_box_budget(cert):
    """ρ × 100 on the first record: the disk's cover would need ≈ 10⁵ boxes; it is refused
    once it passes DISK_BOXES (seconds, not minutes)."""
    from certified.checker import defect

    c = copy.deepcopy(cert)
    rec = c["integration"]["replay"]["records"][0]
    rec["rho"] = str(100 * F(rec["rho"]))
    msg = _failure(_redigest(c))
    assert msg.startswith("integration.replay[0].rho: Expected a disk |σ| ≤ rho on which every "
                          f"softmax row sum is proved non-zero with at most {defect.DISK_BOXES} "
                          "boxes (Lemma C20). Got "), msg
    assert int(msg.split("Got ")[1].split()[0]) > defect.DISK_BOXES
