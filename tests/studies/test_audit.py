"""Audit records: Lemma S1 against independent oracles, the shipped Remark 7.9 records,
the T4 path, certificates, and bad records."""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest
from flint import arb, ctx

from certified import Instance
from certified.checker import check_certificate
from certified.cli import main
from certified.errors import InputError
from certified.studies.audit import (
    AuditRecord,
    audit_certificate,
    public,
    run_audit,
    shipped_records,
)
from certified.tail.s1_symmetric import _integral, applies, symmetric_pair_limit
from certified.verdict.certificate import verify_digest
from certified.verdict.certify import certify

I2 = [["1", "0"], ["0", "1"]]


def remark(eps: str, **kw) -> Instance:
    return Instance.from_json({"V": I2, "Q": I2, "K": I2, "X0": [["1", eps], ["1", "-" + eps]],
                               **kw})


@pytest.mark.parametrize("u0", [F(1, 4), F(1, 25), F(1, 100), F(3)])
def test_integral_matches_mpmath_quadrature(u0):
    with mpmath.workdps(40):
        ref = mpmath.quad(lambda u: 1 / (u * mpmath.expm1(2 * u)),
                          [mpmath.mpf(u0.numerator) / u0.denominator, 1, 10, mpmath.inf])
        I = _integral(u0, 160)
        with ctx.workprec(200):
            # the quadrature is good to ~1e-38 (not a proof): compare within that
            diff = abs(I.mid() - arb(mpmath.nstr(ref, 38)))
            assert float(diff.upper()) < 1e-36
        assert float(I.rad()) < 1e-30


def test_limit_distance_matches_a_30_digit_odefun_run():
    # Independent: the two-token z-ODE itself, integrated by mpmath.odefun to t = 4 (the
    # remaining motion after t = 4 is below e^(−200)), against the closed form of S1.
    def f(t, y):
        e = mpmath.exp(2 * t)
        s11, s22 = e * (y[0] ** 2 + y[1] ** 2), e * (y[2] ** 2 + y[3] ** 2)
        s12 = e * (y[0] * y[2] + y[1] * y[3])
        p12, p21 = 1 / (1 + mpmath.exp(s11 - s12)), 1 / (1 + mpmath.exp(s22 - s12))
        return [p12 * (y[2] - y[0]), p12 * (y[3] - y[1]), p21 * (y[0] - y[2]),
                p21 * (y[1] - y[3])]

    with mpmath.workdps(30):
        y = mpmath.odefun(f, 0, [1, mpmath.mpf(1) / 2, 1, -mpmath.mpf(1) / 2])(4)
        gap = y[1] - y[3]
    L = symmetric_pair_limit(remark("1/2"), 128)
    with ctx.workprec(128):
        assert abs(float(L.distance.mid()) - float(gap)) < 1e-25
        assert float(L.distance.rad()) < 1e-30


def test_lemma_S1_limits_lie_in_the_T4_boxes_of_the_integrator(monkeypatch):
    # A second, independent route: validated integration + Lemma T4 (certify) on ε = 1/2
    # (certify would use S1 itself: hide it).
    import certified.verdict.certify as certify_module

    monkeypatch.setattr(certify_module, "find_lemma", lambda inst: None)
    inst = remark("1/2")
    v = certify(inst, "3.1", digits=30, max_seconds=None, refine_t=0)
    assert v.tail.lemma == "T4"
    assert v.verdict == "certified"
    L = symmetric_pair_limit(inst, 128)
    for box, lim in zip(v.tail.centers, L.limits):
        for (lo, hi), c in zip(box, lim):
            assert lo <= F(float(c.mid())) <= hi


@pytest.mark.parametrize("x0, why", [
    ([["1", "1/2"], ["1/2", "-3/4"]], "|x₁(0)| = |x₂(0)|"),
    ([["1", "1/2"], ["1", "1/2"]], "≠"),
])
def test_S1_hypotheses_are_checked_exactly(x0, why):
    inst = Instance.from_json({"V": I2, "Q": I2, "K": I2, "X0": x0})
    assert why in applies(inst)


def test_S1_other_hypotheses():
    three = Instance.from_json({"V": I2, "Q": I2, "K": I2, "X0": [["1", "0"], ["0", "1"],
                                                                  ["1", "1"]]})
    assert "two tokens" in applies(three)
    skew = Instance.from_json({"V": [["1", "1"], ["0", "1"]], "Q": I2, "K": I2,
                               "X0": [["1", "1/2"], ["1", "-1/2"]]})
    assert "λI" in applies(skew)
    d3 = Instance.from_json({"V": [["2", "0", "0"], ["0", "2", "0"], ["0", "0", "2"]],
                             "Q": [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]],
                             "K": [["3", "0", "0"], ["0", "3", "0"], ["0", "0", "3"]],
                             "X0": [["1", "2", "2"], ["2", "1", "-2"]]})  # equal norms 3
    assert applies(d3) is None
    L = symmetric_pair_limit(d3)
    assert L.u0 == 3 * F(1 + 1 + 16, 4)  # β|w₀|², w₀ = (−1/2, 1/2, 2)


EXPECTED = {
    "remark_7_9": {"one-cluster": "fails", "P-to-identity": "holds", "P-to-half-ones": "fails"},
    "theorem_2_1_middle_token": {"generic-rank": "fails", "boolean": "fails",
                                 "row-structure": "holds", "three-limits": "holds"},
    "theorem_5_2_third_party": {"conclusion-5-2": "holds", "two-limits": "holds",
                                "boolean": "fails"},
    "theorem_2_1_d2_boundary": {"two-leaders": "fails", "low-rank": "fails", "boolean": "holds"},
}

#: Records whose replay (and independent check) takes minutes: run with --run-slow.
SLOW = {"theorem_2_1_d2_boundary_183"}


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem in SLOW
                                  else p for p in shipped_records()], ids=lambda p: p.stem)
def test_shipped_records_replay(path, tmp_path, capsys):
    out = tmp_path / "cert.json"
    code = main(["audit", str(path), "--out", str(out)])
    printed, err = capsys.readouterr()
    assert code == 0, err
    res = json.loads(printed)
    verdicts = {c["id"]: c["verdict"] for c in res["claims"]}
    want = next(v for k, v in EXPECTED.items() if path.stem.startswith(k))
    assert verdicts == want
    cert = json.loads(out.read_text())
    assert verdict_digest_ok(cert)
    ev = res["claims"][0]["evidence"]
    # the certificate checks valid with the independent checker
    rep = check_certificate(json.loads(out.read_text()))
    assert rep.valid, rep.message
    if "distance_between_limits" in ev:  # S1/S2: the limits are apart, narrowly enclosed
        lo, hi = (F(x) for x in ev["distance_between_limits"])
        assert 0 < lo <= hi and (hi - lo) / lo < F(1, 10 ** 25)
    elif "tail_lemma" in ev:  # through certify (Lemma T4): the replayed steps were checked
        assert rep.steps_checked > 0 and ev["verdict_of_certify"] == "refuted"
    else:  # S0: exact limits
        assert ev["limits_z"] == [[str(x) for x in row] for row in
                                  json.loads(path.read_text())["instance"]["X0"]]


def verdict_digest_ok(cert):
    if not verify_digest(cert):
        return False
    tampered = json.loads(json.dumps(cert))
    v = tampered["audit"]["claims"][0]["verdict"]
    tampered["audit"]["claims"][0]["verdict"] = "fails" if v == "holds" else "holds"
    return not verify_digest(tampered)


def test_middle_token_lemma_matches_a_30_digit_odefun_run():
    def f(t, y):
        e = mpmath.exp(2 * t)
        out = []
        for i in range(3):
            s = [e * y[i] * y[j] for j in range(3)]
            m = max(s)
            w = [mpmath.exp(v - m) for v in s]
            out.append(sum(w[j] / sum(w) * (y[j] - y[i]) for j in range(3)))
        return out

    with mpmath.workdps(30):
        y = mpmath.odefun(f, 0, [-1, 0, 1])(5)
    inst = Instance.from_json({"V": [["1"]], "Q": [["1"]], "K": [["1"]],
                               "X0": [["-1"], ["0"], ["1"]]})
    from certified.tail.s1_symmetric import symmetric_triple_limit

    L = symmetric_triple_limit(inst, 128)
    assert abs(float(L.limits[2].mid()) - float(y[2])) < 1e-25 and y[1] == 0
    assert L.attention_limit[1] == [F(1, 3)] * 3 and float(L.limits[2].rad()) < 1e-30


def test_remark_7_9_numbers_and_the_float64_view():
    rec = AuditRecord(json.loads(next(p for p in shipped_records()
                                      if p.stem.endswith("1_10")).read_text()))
    assert "1/10" in rec.name
    res = public(run_audit(rec))
    with mpmath.workdps(30):
        lo, hi = (mpmath.mpf(x) for x in res["claims"][0]["evidence"]["distance_between_limits"])
        assert mpmath.mpf("5.1317308496e-22") < lo <= hi < mpmath.mpf("5.1317308497e-22")
    # float64 cannot see a score gap of 2·(2.6e-22)²·e^{2t} next to scores e^{2t}: it
    # reports uniform attention, the opposite of the proved limit P* = I.
    P = res["float64"]["attention_at_t_final"]
    assert abs(P[0][1] - 0.5) < 1e-9


def test_T4_path_for_a_pair_of_unequal_norms():
    rec = AuditRecord({"instance": {"V": I2, "Q": I2, "K": I2,
                                    "X0": [["1", "1/2"], ["1/2", "-3/4"]]},
                       "claims": [{"id": "a", "statement": "two clusters",
                                   "reading": {"clusters": 2}},
                                  {"id": "b", "statement": "rank 1",
                                   "reading": {"attention_rank": 1}}],
                       "precision": {"digits": 20, "t_max": "6", "max_seconds": 60},
                       "float64": {"t_final": "10"}})
    res = run_audit(rec)
    assert res["method"].startswith("Lemma T4")
    assert [c["verdict"] for c in res["claims"]] == ["holds", "fails"]
    cert = audit_certificate(rec, res)
    assert cert["verdict"] == "certified" and verify_digest(cert)


@pytest.mark.parametrize("record, field", [
    ({"claims": []}, "instance"),
    ({"instance": {"V": I2, "Q": I2, "K": I2, "X0": [["1", "0"]]}, "claims": []}, "claims"),
    ({"instance": {"V": I2, "Q": I2, "K": I2, "X0": [["1", "0"]]},
      "claims": [{"id": "a", "statement": "s", "reading": {"limit": 1}}]}, "claims[0].reading"),
    ({"instance": {"V": I2, "Q": I2, "K": I2, "X0": [["1", "0"]]}, "claims": [{"id": "a"}]},
     "claims[0]"),
    ({"format": "certified/instance"}, "format"),
    ({"instance": {}, "claims": [], "extra": 1}, "extra"),
])
def test_bad_records_name_the_field(tmp_path, capsys, record, field):
    with pytest.raises(InputError) as err:
        AuditRecord(record)
    assert str(err.value).startswith(field)
    f = tmp_path / "r.json"
    f.write_text(json.dumps(record))
    code = main(["audit", str(f), "--out", str(tmp_path / "c.json")])
    _, e = capsys.readouterr()
    assert code == 2 and e.count("\n") == 1 and not (tmp_path / "c.json").exists()


THIRD_PARTY = {"V": [["1", "0"], ["0", "0"]], "Q": [["1", "1/2"], ["1/2", "1"]],
               "K": [["1", "1/2"], ["1/2", "1"]], "X0": [["0", "1"], ["0", "2"]]}


def test_stationary_lemma_against_the_validated_integrator():
    from certified.enclose.driver import enclose_trajectory
    from certified.tail.s0_stationary import stationary_limit

    inst = Instance.from_json(THIRD_PARTY)
    L = stationary_limit(inst)
    tr = enclose_trajectory(inst, 2, digits=30, times=[0, 1, 2])
    for box in tr.tokens:  # the enclosures stay on the initial tokens
        for b, z in zip(box.flat, [x for row in inst.X0 for x in row]):
            assert b.contains(arb(z.numerator) / z.denominator) and float(b.rad()) < 1e-25
    for P in tr.attention:  # and P stays P(0)
        for row, lrow in zip(P, L.P_constant):
            for p, q in zip(row, lrow):
                assert p.overlaps(q)


def test_theorem_5_2_check_counts_boundary_points_exactly():
    from certified.tail.s0_stationary import applies_stationary, theorem_5_2_holds

    para = {"V": [["1", "0"], ["0", "-1/2"]], "Q": I2, "K": I2}
    three = Instance.from_json({**para, "X0": [["1", "1"], ["2", "3"], ["3", "-1"]]})
    assert "V(z_j − z_i)" in applies_stationary(three)
    assert theorem_5_2_holds(three, three.X0) is False  # F-values 1, 2, 3: ∂K has 2 points
    two = Instance.from_json({**para, "X0": [["1", "1"], ["-2", "3"], ["0", "5"]]})
    assert theorem_5_2_holds(two, two.X0) is True  # F-values 1, −2 and 0
    irr = Instance.from_json({"V": [["1", "1"], ["1", "0"]], "Q": I2, "K": I2,
                              "X0": [["1", "0"], ["0", "1"]]})
    assert theorem_5_2_holds(irr, irr.X0) is None  # λ₁ = golden ratio: not decided here
