"""The checker's replay of defect steps (Lemma I10; the checker's Lemma C20): a valid
certificate checks valid, every search datum of a record is used and an edit that breaks
its consequence is rejected at its step, mixed runs (defect steps and the Picard fallback)
chain, and a producer with a planted bug is caught by the checker."""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from certified.checker import check_certificate, digest
from certified.checker.errors import Malformed
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


def test_a_too_coarse_circle_is_checked_again_with_more_arcs(cert, monkeypatch):
    """A first circle bound M too coarse for the stored sets (here: inflated 10⁹-fold on
    the first attempt) fails the step; it is checked again with 4 × ARCS arcs and passes
    (Lemma C20, item 3). Inflated on every attempt, the certificate is rejected."""
    from certified.checker import defect

    real = defect._circle
    calls = []

    def coarse_first(field, poly, t0, h, rho, where, arcs=defect.ARCS):
        calls.append(arcs)
        M = real(field, poly, t0, h, rho, where, arcs)
        return M * 1e9 if arcs == defect.ARCS else M

    monkeypatch.setattr(defect, "_circle", coarse_first)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.valid, rep.message
    assert calls.count(4 * defect.ARCS) == len(cert["integration"]["replay"]["records"])

    monkeypatch.setattr(defect, "_circle",
                        lambda *a, **k: real(*a, **k) * 1e9)  # coarse on every attempt
    assert _failure(copy.deepcopy(cert)).startswith("integration.replay[0]")


def test_the_checkers_polynomial_defect_bound_contains_mpmath_defect(cert, monkeypatch):
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

    from certified.checker import defect
    from certified.checker.balls import scale

    seen: dict = {}
    real_poly, real_pieces = defect._polynomial, defect._pieces

    def poly(jets, h):
        P = scale()
        seen["exact"] = [[F(b.m, 2 ** P) for b in Zk.flat] for Zk in jets.exact]
        seen["tail"] = None if jets.tail is None else [
            [F(x) / h ** (len(jets.exact) + j) for x in row.flat]
            for j, row in enumerate(jets.tail.m)]
        return real_poly(jets, h)

    def pieces(field, Phat, a_hat, M, t0, h, rho, m, R, r0, where):
        seen.setdefault("steps", []).append(dict(
            coeffs=seen["exact"] + (seen["tail"] or []), tail=seen["tail"] is not None,
            a_hat=a_hat.copy(), M=M.copy(), t0=t0, h=h, rho=rho, lam=field.lam,
            B=field.Bq, where=where))
        return real_pieces(field, Phat, a_hat, M, t0, h, rho, m, R, r0, where)

    monkeypatch.setattr(defect, "_polynomial", poly)
    monkeypatch.setattr(defect, "_pieces", pieces)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.valid, rep.message
    steps = seen["steps"]
    assert any(s["tail"] for s in steps), "no step used the binary64 continuation"
    recs = cert["integration"]["replay"]["records"]
    mp.mp.prec = 300
    for st in steps[:6]:
        K = len(st["coeffs"]) - 1
        n = len(st["coeffs"][0])  # d = 1: one coordinate per token
        lam, b = mp.mpf(st["lam"].numerator) / st["lam"].denominator, \
            mp.mpf(st["B"][0][0].numerator) / st["B"][0][0].denominator
        coef = [[mp.mpf(c.numerator) / c.denominator for c in ck] for ck in st["coeffs"]]
        h, rho = mp.mpf(st["h"].numerator) / st["h"].denominator, \
            mp.mpf(st["rho"].numerator) / st["rho"].denominator
        t0 = mp.mpf(st["t0"].numerator) / st["t0"].denominator
        d_k = [[mp.mpf(float(st["a_hat"][k, i])) / h ** (k + 1) for i in range(n)]
               for k in range(K)]
        k_rec = int(st["where"].split("[")[1].split("]")[0])
        narrow = min(F(hi) - F(lo) for lo, hi in recs[k_rec]["set"]["r"]) / 2
        for j in range(1, 6):
            tau = h * j / 5
            z = [sum(coef[k][i] * tau ** k for k in range(K + 1)) for i in range(n)]
            dz = [sum(k * coef[k][i] * tau ** (k - 1) for k in range(1, K + 1))
                  for i in range(n)]
            c = mp.exp(2 * lam * (t0 + tau))
            for i in range(n):
                w = [mp.exp(c * z[i] * b * z[k]) for k in range(n)]
                F_i = lam * sum(w[k] * (z[k] - z[i]) for k in range(n)) / sum(w)
                delta = abs(dz[i] - F_i)
                ring = mp.mpf(float(st["M"][i])) + sum(d_k[k][i] * rho ** k for k in range(K))
                bound = sum(d_k[k][i] * tau ** k for k in range(K)) + (tau / rho) ** K * ring
                assert delta <= bound, (st["where"], float(tau), i, delta, bound)
                assert float(bound * h) < float(narrow), (st["where"], bound, narrow)
