"""The edits issue 25 found accepted, each now rejected with "Expected … Got …" naming the
field (digest recomputed), and the refutation evidence recomputed."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from certified.checker import CheckFailure, _check_claims_only, check_certificate
from certified.checker.lemmas import check_t4_verdict

from . import tamper

T6_BOUND = ("limit", "proved", "sup_{t>=T} max_i x_i^T B x_i <=")

EDITS = [  # (certificate, path, new value, the failing field)
    ("t7_52", ("tail_lemma", "psi"), [["0", "0"], ["1", "1"]], "tail_lemma.psi[0]"),
    ("t7_52", ("limit", "functional", "psi"), [["0", "0"], ["1", "1"]],
     "limit.functional.psi[0]"),
    ("t7_52", ("limit", "groups"), {"+": [0, 1, 2, 3, 4]}, "limit.groups"),
    ("t7_52", ("limit", "cross_group_rate", "m"), "1e6", "limit.cross_group_rate.m"),
    ("t6_small", T6_BOUND, "1e-9", "limit.proved.sup_{t>=T} max_i x_i^T B x_i <="),
    ("t4_85_ref", ("evidence", "entry"), [0, 0], "evidence.entry"),
    ("audit_theorem_2_1_d2_boundary_183", ("evidence", "rows_outside_two_leaders"), [2],
     "evidence.rows_outside_two_leaders"),
] + [("t7_52", ("tail_lemma", k), None, f"tail_lemma.{k}")
     for k in ("nu", "c1", "c2", "Y", "Omega", "beta_lower", "delta0", "D")] + [
    ("t7_52", ("tail_lemma", "limits_psi_z", "+"), ["3", "31/10"], "tail_lemma.limits_psi_z.+"),
    ("t7_52", ("tail_lemma", "omega_at_T", 0), ["5", "5"], "tail_lemma.omega_at_T[0]"),
]


@pytest.mark.parametrize("name,path,new,where", EDITS, ids=[e[3] for e in EDITS])
def test_issue_edit_rejected(certs, name, path, new, where):
    cert = certs[name]
    if new is None:  # a bound made tighter than what the checker recomputes
        old = F(tamper.get(cert, path))
        new = str(old * 2 if path[-1] == "beta_lower" else old / 2)
    with tamper.edited(cert, path, new) as c:
        with pytest.raises(CheckFailure) as exc:
            _check_claims_only(c)
    assert exc.value.where == where, str(exc.value)


def test_rate_constant_is_compared_with_the_lower_end(certs):
    """c is a lower bound of min(m, μ)·e^{λT}: a value above the lower end of the
    checker's enclosure (by 10⁻⁹ relative) is rejected — .hi_q() accepted it."""
    cert = certs["t4_21"]
    for path in (("limit", "rate", "c_lower_bound"), ("limit", "rate_constant"),
                 ("tail_lemma", "rate_constant")):
        lemma = cert["tail_lemma"]
        m, mu = F(lemma["m"]), F(lemma["mu"])
        import mpmath

        with mpmath.workdps(60):
            true = min(m, mu) * F(str(mpmath.exp(mpmath.mpf(F(lemma["T"]).numerator)
                                                / F(lemma["T"]).denominator)))
        with tamper.edited(cert, path, str(true * (1 + F(1, 10 ** 9)))) as c:
            with pytest.raises(CheckFailure) as exc:
                _check_claims_only(c)
        assert exc.value.where == ".".join(path), str(exc.value)


def _lf(leader, boxes):
    return {"leader": leader, "boxes": [[(F(a), F(b))] for a, b in boxes],
            "delta0": F(1, 100), "rate_lo": F(1), "diffs": {}}


def test_refuted_4_2_hyperplane_values_recomputed():
    """Theorem 4.2 in d = 1 refuted by three clusters: each stored value must contain its
    cluster's box ± δ₀ (no shipped instance reaches this branch: B > 0 in d = 1 gives ≤ 2
    clusters, so the lemma's output is built by hand)."""
    lf = _lf([0, 1, 2], [(-2, -2), ("1/10", "1/10"), (2, 2)])
    X0 = [[F(-2)], [F(1, 10)], [F(2)]]
    cert = {"theorem": "4.2", "verdict": "refuted", "limit": None,
            "evidence": {"hyperplane_values": [["-2.02", "-1.98"], ["0.08", "0.12"],
                                               ["1.98", "2.02"]]}}
    check_t4_verdict(cert, lf, X0, [[F(1)]])
    cert["evidence"]["hyperplane_values"][1] = ["0.5", "0.6"]
    with pytest.raises(CheckFailure) as exc:
        check_t4_verdict(cert, lf, X0, [[F(1)]])
    assert exc.value.where == "evidence.hyperplane_values[1]"
    cert["evidence"]["hyperplane_values"] = cert["evidence"]["hyperplane_values"][:2]
    with pytest.raises(CheckFailure) as exc:
        check_t4_verdict(cert, lf, X0, [[F(1)]])
    assert exc.value.where == "evidence.hyperplane_values"


def test_unknown_fields_are_rejected(certs):
    for name, path in (("t4_21", ("limit", "extra")), ("t7_52", ("tail_lemma", "extra")),
                       ("t4_21", ("limit", "clusters", 0, "radius")),
                       ("t7_52", ("limit", "cross_group_rate", "rate")),
                       ("t4_21", ("limit", "rate", "c"))):
        cert = certs[name]
        parent = tamper.get(cert, path[:-1])
        parent[path[-1]] = "1"
        try:
            cert["digest"] = tamper.digest(cert)
            rep = check_certificate(cert) if path[0] != "tail_lemma" else None
            if rep is None:
                with pytest.raises(CheckFailure) as exc:
                    _check_claims_only(cert)
                msg = str(exc.value)
            else:
                msg = rep.message
        except Exception as exc:  # the schema's closure
            msg = str(exc)
        finally:
            del parent[path[-1]]
            from .producer import load

            cert["digest"] = load(name)["digest"]
        assert path[-1] in msg and ("Expected no such field" in msg or "schema" in msg), msg


def _tight(cert: dict, kind: str) -> list:
    """The checker's own centre intervals (box ± δ₀, and S_F·(box ± δ₀) for T8) from the
    fixture's lemma, computed here from its parsed data."""
    from certified.checker import _matrix
    from certified.checker.lemmas import check_leader_follower
    from certified.checker.paranormal import check_paranormal

    inst = cert["instance"]
    V, Q, K = (_matrix(inst, k) for k in ("V", "Q", "K"))
    d = len(V)
    B = [[sum((Q[r][a] * K[r][b] for r in range(len(Q))), F(0)) for b in range(d)]
         for a in range(d)]
    n = len(inst["X0"])
    lemma = cert["tail_lemma"]
    from certified.checker.balls import scaled

    with scaled(int(cert["integration"]["bits"]) + 64):  # the check's own scale
        lf = (check_paranormal(lemma, V, B, n) if kind == "T8"
              else check_leader_follower(lemma, V[0][0], B, n))
    out = []
    for k in sorted(set(lf["leader"])):
        box = [(lo - lf["delta0"], hi + lf["delta0"]) for lo, hi in lf["boxes"][k]]
        if kind == "T8":
            S, kk = lf["S"], lf["k"]
            full = []
            for r in range(len(S)):
                lo = sum((S[r][c] * (box[c][0] if S[r][c] >= 0 else box[c][1])
                          for c in range(kk)), F(0))
                hi = sum((S[r][c] * (box[c][1] if S[r][c] >= 0 else box[c][0])
                          for c in range(kk)), F(0))
                full.append((lo, hi))
            out.append((box, full))
        else:
            out.append((box, None))
    return out


@pytest.mark.parametrize("name,kind,key", [("t4_21", "T4", "center"),
                                          ("t8_52", "T8", "center_F_coordinates"),
                                          ("t8_52", "T8", "center")])
def test_centres_tight_are_accepted_and_a_hair_less_rejected(certs, name, kind, key):
    """Each stored centre must contain the proved one: set to exactly the proved interval
    it passes; moved in by 10⁻³⁰ at either end it is rejected (kills comparisons that
    enclose less than box ± δ₀)."""
    cert = certs[name]
    tight = _tight(cert, kind)
    eps = F(1, 10 ** 30)
    for idx, (box, full) in enumerate(tight):
        ivs = full if key == "center" and full is not None else box
        for c, (lo, hi) in enumerate(ivs):
            path = ("limit", "clusters", idx, key, c)
            with tamper.edited(cert, path, [str(lo), str(hi)]) as t:
                _check_claims_only(t)
            for new in ([str(lo + eps), str(hi)], [str(lo), str(hi - eps)]):
                with tamper.edited(cert, path, new) as t:
                    with pytest.raises(CheckFailure) as exc:
                        _check_claims_only(t)
                assert exc.value.where == f"limit.clusters[{idx}].{key}[{c}]", str(exc.value)


@pytest.mark.parametrize("name,other,verdict", [("t4_21", "evidence", "certified"),
                                                ("t4_42", "evidence", "certified"),
                                                ("t4_85_ref", "limit", "refuted")])
def test_the_other_object_must_be_null(certs, name, other, verdict):
    """A certified certificate carries no evidence, a refuted one no limit: even an empty
    object there is rejected, word for word."""
    c = tamper.tampered(certs[name], (other,), {})  # the key is absent: a copy
    with pytest.raises(CheckFailure) as exc:
        _check_claims_only(c)
    assert str(exc.value) == f"{other}: Expected null (the verdict is {verdict!r}). Got {{}}."


def test_t8_limit_prose_must_be_text_and_clusters_present(certs):
    cert = certs["t8_52"]
    for key in ("F", "not_proved"):
        with tamper.edited(cert, ("limit", key), 1) as c:
            with pytest.raises(CheckFailure) as exc:
                _check_claims_only(c)
        assert str(exc.value) == f"limit.{key}: Expected a string. Got another type."
    clusters = cert["limit"].pop("clusters")
    try:
        with tamper.edited(cert, ("limit", "F"), cert["limit"]["F"]) as c:
            with pytest.raises(CheckFailure) as exc:
                _check_claims_only(c)
    finally:
        cert["limit"]["clusters"] = clusters
    assert str(exc.value) == "limit.clusters: Expected a list of clusters. Got None."
