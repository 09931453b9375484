"""The checker's dispatcher (``certified/checker/__init__.py``) on small certificates: which
rule checks which certificate, what its report says, and every refusal it makes itself,
each named by its field.

Every certificate here checks in under 2 s with its steps replayed, so the whole file is
the dispatcher's mutation-test selection (``benchmarks/mutation_checker.py --modules
__init__``). The expected report is rebuilt from the certificate's own fields, not stored.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from fractions import Fraction as F

import pytest

from certified.checker import (LEMMAS, CheckFailure, Malformed, Report, check_certificate,
                               check_file, digest)
from certified.checker import _check_claims_only
from certified.checker.errors import NotAnAudit
from certified.checker.reading import MAX_STR_DIGITS

#: certificates whose full check (steps replayed) takes < 2 s, by the rule that checks them
REPLAYED = {"t4_21": "T4", "t4_85_ref": "T4", "t6_small": "T6", "t9_85": "T9",
            "t7_52": "T7", "t8_52": "T8"}
DISCRETE = ["t10_31", "t10_und", "t8_52_discrete", "t7_42_discrete", "t11_85_discrete"]
EXACT = ["s0_52", "s0_85_ref", "s1_21", "s2_31", "s3_42_neg", "s3_42_tied"]
WHAT = {"T4": "; Lemma T4 re-checked", "T6": "; Lemma T6 bound re-checked",
        "T9": "; Lemma T9 re-checked", "T7": " (in x); Lemma T7 re-checked",
        "T8": " (in x); Lemma T8 re-checked"}


def _redigest(c: dict) -> dict:
    c["digest"] = digest(c)
    return c


def _refused(c: dict, where: str, expected: str | None = None) -> str:
    """The claims-only check refuses ``c`` at ``where``; the message."""
    with pytest.raises(CheckFailure) as exc:
        _check_claims_only(_redigest(c))
    message = str(exc.value)
    assert message.startswith(where + ": Expected "), message
    if expected is not None:
        assert expected in message, message
    return message


@pytest.mark.parametrize("name", sorted(REPLAYED))
def test_a_replayed_certificate_reports_its_steps_time_lemma_and_verdict(certs, name):
    c = certs[name]
    steps, end = len(c["integration"]["replay"]["records"]), F(c["integration"]["replay"]["t_end"])
    seen: list = []
    rep = check_certificate(copy.deepcopy(c), lambda k, t: seen.append((k, t)))
    assert rep.valid, rep.message
    assert rep.steps_checked == steps == len(c["integration"]["steps"])
    assert rep.message == (f"valid: {steps} steps re-verified to t = {end}"
                           f"{WHAT[REPLAYED[name]]}; verdict {c['verdict']!r} for Theorem "
                           f"{c['theorem']}")
    st = c["integration"]["steps"]
    assert seen == [(k, F(st[k][0]) + F(st[k][1])) for k in range(steps)]
    js = rep.to_json()
    assert js == {"valid": True, "message": rep.message, "steps_checked": steps,
                  "seconds": round(rep.seconds, 3)}
    assert rep.seconds > 0  # measured, never a budget: no upper bound on a loaded machine


@pytest.mark.parametrize("name", DISCRETE + EXACT)
def test_discrete_and_exact_certificates_go_to_their_own_rules(certs, name):
    c = certs[name]
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message
    lemma = c.get("tail_lemma")
    code = None if lemma is None else lemma["lemma"].split(" ", 1)[0]
    if name in DISCRETE:
        assert "the layer map iterated to layer" in rep.message
        assert (code is None) == ("no lemma" in rep.message)
    else:
        assert rep.message.startswith(f"valid: Lemma {code} re-checked")
        assert rep.steps_checked == 0
    if code is not None:
        assert rep.message.startswith(f"valid: Lemma {code} re-checked")
        assert rep.message.endswith(f"verdict {c['verdict']!r} for Theorem {c['theorem']}"
                                    + (" re-derived from the exact limits" if code == "S0"
                                       else ""))


def test_a_replay_with_no_lemma_is_undecided_and_claims_nothing(certs):
    c = copy.deepcopy(certs["t4_21"])
    c.update(tail_lemma=None, verdict="undecided", limit=None, timescale=None)
    rep = check_certificate(_redigest(c))
    end = F(c["integration"]["replay"]["t_end"])
    steps = len(c["integration"]["replay"]["records"])
    assert rep.valid, rep.message
    assert rep.message == f"valid: {steps} steps re-verified to t = {end}; verdict undecided"
    assert rep.steps_checked == steps
    c["verdict"] = "certified"  # nothing proved: no other verdict
    rep = check_certificate(_redigest(c))
    assert not rep.valid and rep.message.startswith("verdict: Expected "), rep.message


def test_no_integration_and_no_lemma_is_undecided(certs):
    c = copy.deepcopy(certs["s0_52"])
    c.update(tail_lemma=None, integration=None, verdict="undecided", timescale=None,
             hypotheses_hold=None)
    c.pop("limit", None)
    rep = check_certificate(_redigest(c))
    assert rep.valid and rep.message == "valid: no integration, no lemma, verdict undecided"
    assert rep.steps_checked == 0
    c = copy.deepcopy(certs["t4_21"])  # a lemma without its steps
    c["integration"] = None
    assert _refused(c, "integration") == (
        "integration: Expected the validated steps behind the lemma. Got null.")


def test_the_lemma_must_be_one_the_replay_knows_with_its_exact_title(certs):
    assert set(LEMMAS) == {"T4", "T6", "T7", "T8", "T9", None}
    c = copy.deepcopy(certs["t4_21"])
    c["tail_lemma"]["lemma"] = "T5 (leader-follower, V = λI)"
    assert _refused(c, "tail_lemma.lemma") == ("tail_lemma.lemma: Expected T4, T6, T7, T8 or "
                                               "T9. Got 'T5 (leader-follower, V = λI)'.")
    c["tail_lemma"]["lemma"] = "T4 (leader-follower, V = λ I)"  # the code right, the title not
    assert _refused(c, "tail_lemma.lemma") == (
        f"tail_lemma.lemma: Expected {LEMMAS['T4'].title!r}. Got "
        "'T4 (leader-follower, V = λ I)'.")
    c = copy.deepcopy(certs["t7_52"])  # a key of Lemma T8 (the schema allows it in some lemma)
    c["tail_lemma"]["Delta0"] = "1"
    _refused(c, "tail_lemma.Delta0", "no such field")
    c = copy.deepcopy(certs["t8_52"])  # Lemma T8 names its coordinates in words
    c["tail_lemma"]["coordinates"] = 3
    _refused(c, "tail_lemma.coordinates", "a string")


def test_a_lemma_about_v_equal_lambda_i_needs_a_scalar_v(certs):
    c = copy.deepcopy(certs["t4_21"])  # d = 1, V = 1: made d = 2, V = diag(1, 2)
    c["instance"]["V"] = [["1", "0"], ["0", "2"]]
    c["instance"]["Q"] = [["1", "0"], ["0", "1"]]
    c["instance"]["K"] = [["1", "0"], ["0", "1"]]
    c["instance"]["X0"] = [[x[0], "0"] for x in c["instance"]["X0"]]
    c["hypotheses_hold"] = None
    _refused(c, "instance.V", "V = λI")


def test_the_replay_must_exist_and_be_in_the_lemmas_variable_up_to_its_time(certs):
    c = copy.deepcopy(certs["t4_21"])
    c["integration"]["replay"] = None
    _refused(c, "integration.replay", "replay data for every step")
    c = copy.deepcopy(certs["t4_21"])
    c["integration"]["variable"] = "x"
    assert _refused(c, "integration.variable") == (
        "integration.variable: Expected 'z' (Lemma T4 is about z). Got 'x'.")
    c = copy.deepcopy(certs["t4_21"])
    del c["integration"]["variable"]  # absent: the rescaled variable z
    assert _check_claims_only(_redigest(c)) == "claims checked; steps NOT replayed"
    for name, var in (("t4_21", "z"), ("t7_52", "x")):  # the lemma at T, the replay to T/2
        c = copy.deepcopy(certs[name])
        half = F(c["integration"]["replay"]["t_end"]) / 2
        c["integration"]["replay"]["t_end"] = str(half)
        _refused(c, "tail_lemma.T", f"the end of the replay, integration.replay.t_end = {half} "
                 f"(in {var}). Got {F(c['tail_lemma']['T'])}.")


def test_v_not_scalar_is_replayed_in_x_only(certs):
    """Lemmas T7 and T8 name no variable; the field for V ≠ λI is in x."""
    c = copy.deepcopy(certs["t7_52"])
    c.update(tail_lemma=None, verdict="undecided", limit=None, timescale=None)
    c["integration"]["variable"] = "z"
    assert _refused(c, "integration.variable") == (
        "integration.variable: Expected 'x' (the checker's field for V ≠ λI is in the "
        "original variable). Got 'z'.")


def test_replay_step_counts_and_certified_until_are_the_replays(certs):
    c = copy.deepcopy(certs["t4_21"])
    c["integration"]["replay"]["steps"] += 1
    _refused(c, "integration.replay.steps", str(len(c["integration"]["replay"]["records"])))
    c = copy.deepcopy(certs["t4_21"])
    c["integration"]["steps"].pop()
    _refused(c, "integration.steps", "one per replay record")
    c = copy.deepcopy(certs["t4_21"])
    end = F(c["integration"]["replay"]["t_end"])
    c["integration"]["certified_until"] = str(end - F(1, 1024))  # earlier is false too
    _refused(c, "integration.certified_until", f"{end} (the end of the replayed steps")
    c = copy.deepcopy(certs["t4_21"])
    c["integration"].pop("certified_until")  # absent: read as the steps' end
    assert _check_claims_only(_redigest(c)) == "claims checked; steps NOT replayed"


def test_the_steps_must_end_at_the_replays_end(certs):
    """Steps, records and certified_until agree with each other but not with t_end."""
    c = copy.deepcopy(certs["t4_21"])
    integ = c["integration"]
    t_end = F(integ["replay"]["t_end"])
    last = integ["steps"][-1]
    integ["steps"][-1] = [last[0], str(F(last[1]) / 2)]
    integ["certified_until"] = str(F(last[0]) + F(last[1]) / 2)
    _refused(c, "integration.certified_until", f"{t_end} (the end")


def test_hypotheses_claims_are_decided_exactly(certs):
    c = copy.deepcopy(certs["t4_21"])
    assert c["hypotheses_hold"] is True
    c["hypotheses_hold"] = False
    _refused(c, "hypotheses_hold", "true (the hypotheses of theorem 2.1 proved exactly")
    c = copy.deepcopy(certs["t4_85_ref"])  # V = I: Theorem 8.5 asks V = −μI
    c["hypotheses_hold"] = True
    _refused(c, "hypotheses_hold", "the checker disproves the hypotheses of theorem 8.5")
    for claim in (None, False):  # null claims nothing; false is not disproved
        c["hypotheses_hold"] = claim
        assert _check_claims_only(_redigest(c)) == "claims checked; steps NOT replayed"


def test_the_energy_lemmas_need_a_symmetric_positive_definite_form(certs):
    for name, code in (("t6_small", "T6"), ("t9_85", "T9")):
        c = copy.deepcopy(certs[name])
        K = c["instance"]["K"]
        K[0][-1] = str(F(K[0][-1]) + 1)  # QᵀK no longer symmetric
        c["hypotheses_hold"] = None
        assert _refused(c, "tail_lemma") == (
            f"tail_lemma: Expected Lemma {code}'s hypothesis QᵀK symmetric positive definite "
            "(exact). Got another QᵀK.")


@pytest.mark.parametrize("name", ["t6_small", "t9_85", "t7_52"])
def test_a_missing_replay_is_named_before_the_lemmas_data_are_read(certs, name):
    c = copy.deepcopy(certs[name])
    c["integration"]["replay"] = None
    c["integration"]["replay_note"] = "not written"
    assert _refused(c, "integration.replay") == (
        "integration.replay: Expected replay data for every step. Got not written.")


def test_the_facts_an_audit_is_judged_on_are_the_lemmas(certs, monkeypatch):
    """What each rule hands to the audit's judge: T4 its leaders (P* = e_l(i), one cluster
    per leader), T9 one cluster and P* = 1/n, the others the conclusion only; always the
    theorem and verdict of the certificate."""
    import certified.checker as C

    judged: list = []
    record, claims = {"the": "record"}, [{"the": "claims"}]

    def judge(r, c, facts):
        assert (r, c) == (record, claims)  # the audit's own record and claims
        judged.append(facts)
    monkeypatch.setattr(C, "judge_claims", judge)
    for name, code in (("t4_21", "T4"), ("t9_85", "T9"), ("t6_small", "T6"), ("t7_52", "T7"),
                       ("t8_52", "T8")):
        c = certs[name]
        V, Q, K, X0 = (C._matrix(c["instance"], k) for k in ("V", "Q", "K", "X0"))
        d, n = len(V), len(X0)
        B = [[sum((Q[r][a] * K[r][b] for r in range(len(Q))), F(0)) for b in range(d)]
             for a in range(d)]
        ctx = C._Ctx(c, V, B, X0, C._scalar(V), c["tail_lemma"], c["integration"],
                     {"record": record, "claims": claims}, None, 1)
        rule = LEMMAS[code]
        judged.clear()
        ctx.steps_checked = 7
        msg = rule.finish(ctx, rule.prepare(ctx))
        assert msg.startswith("valid: 7 steps re-verified to t = ")
        facts = dict(judged[0])
        assert facts.pop("conclusion") == (c["theorem"], c["verdict"])
        if code == "T4":  # tokens −2, 1, 2 on a line: leaders 0 and 2, token 1 follows 2
            assert c["tail_lemma"]["leader_map"] == [0, 2, 2]
            assert facts == {"clusters": 2, "P_star": [[1, 0, 0], [0, 0, 1], [0, 0, 1]]}
        elif code == "T9":
            assert facts == {"clusters": 1, "P_star": [[F(1, n)] * n] * n}
        else:
            assert facts == {}


def test_a_failure_message_splits_at_its_first_expected():
    from certified.checker import _split_failure

    assert _split_failure("a.b: Expected x. Got y: Expected z.") == ("a.b", "x", "y: Expected z")
    assert _split_failure("a: Expected x. Got y. Got z.") == ("a", "x", "y. Got z")
    assert _split_failure("a: Expected x. Got AX.") == ("a", "x", "AX")


@pytest.mark.parametrize("key,value,where", [
    ("V", [["1", "0"]], "instance.V"),
    ("V", [], "instance.V"),
    ("Q", [["1"], ["1"]], "instance.K"),  # Q 2×1, K 1×1
    ("K", [["1", "1"]], "instance.K"),
    ("Q", [], "instance.Q"),
    ("X0", [], "instance.X0"),
    ("X0", [["1", "2"]], "instance.X0"),
])
def test_instance_shapes(certs, key, value, where):
    c = copy.deepcopy(certs["t4_21"])  # d = 1, Q = K = [[1]]
    c["instance"][key] = value
    c["hypotheses_hold"] = None
    with pytest.raises((CheckFailure, Malformed)) as exc:
        _check_claims_only(_redigest(c))
    assert str(exc.value) == {
        "instance.V": f"instance.V: Expected a d×d matrix, d >= 1. Got {len(value)} rows.",
        "instance.Q": "instance.Q: Expected an r×1 matrix (r >= 1, Q and K alike). Got "
                      "another shape.",
        "instance.K": "instance.K: Expected an r×1 matrix (r >= 1, Q and K alike). Got "
                      "another shape.",
        "instance.X0": "instance.X0: Expected n >= 1 tokens of 1 coordinates. Got another "
                       "shape."}[where]


def test_one_token_is_an_instance(certs):
    """n = 1 (Lemma S0 in verify, Theorem 8.5 with V = −I: P ≡ 1)."""
    c = copy.deepcopy(certs["s0_85"])
    c["instance"]["X0"], c["tail_lemma"]["limits_z"] = [["1", "2"]], [["1", "2"]]
    c["limit"]["attention_limit"] = [["1"]]
    rep = check_certificate(_redigest(c))
    assert rep.valid, rep.message


def test_a_variant_is_refused_word_for_word(certs):
    c = copy.deepcopy(certs["s0_52"])
    c["instance"]["variant"] = {"kind": "multihead", "heads": 2}
    assert _refused(c, "instance.variant") == (
        "instance.variant: Expected absent or null (certificates are about the paper's "
        "dynamics; a variant is simulated, never verified). Got "
        + repr(c["instance"]["variant"])[:60] + ".")


def test_the_digest_is_compared(certs):
    c = copy.deepcopy(certs["t4_21"])
    c["digest"] = "0" * 64
    rep = check_certificate(c)
    assert not rep.valid and rep.message == (f"digest: Expected {digest(c)}. Got "
                                             f"{'0' * 64!r}."), rep.message


def test_an_audit_must_be_of_the_record_it_is_checked_against(certs):
    c = certs["audit_theorem_5_2_third_party"]
    record = c["audit"]["record"]
    assert check_certificate(copy.deepcopy(c), record=copy.deepcopy(record)).valid
    with pytest.raises(NotAnAudit):
        check_certificate(copy.deepcopy(certs["s0_52"]), record=copy.deepcopy(record))
    d = copy.deepcopy(c)
    d["audit"]["record"]["instance"]["X0"][0][0] = str(F(d["audit"]["record"]["instance"]
                                                         ["X0"][0][0]) + 1)
    _refused(d, "audit.record.instance", "the certificate's instance")
    d = copy.deepcopy(c)
    d["audit"]["record"]["instance"]["time"] = {"discrete": {"dt": "1/10"}}
    assert _refused(d, "audit.record.instance") == (
        "audit.record.instance: Expected the certificate's instance. Got another instance.")
    d = copy.deepcopy(c)  # a record about a variant: not the certificate's instance
    d["audit"]["record"]["instance"]["variant"] = {"name": "pre-LN"}
    assert _refused(d, "audit.record.instance") == (
        "audit.record.instance: Expected the certificate's instance. Got another instance.")
    d = copy.deepcopy(c)
    d["audit"]["record"]["instance"]["colour"] = "red"
    assert _refused(d, "audit.record.instance.colour") == (
        "audit.record.instance.colour: Expected no such field (the checker cannot re-derive "
        "it). Got 'red'.")


def test_a_missing_field_raises_malformed_not_a_report(certs):
    c = copy.deepcopy(certs["t4_21"])
    del c["tail_lemma"]["T"]
    with pytest.raises(Malformed, match=r"^certificate field missing or of the wrong type: "
                                        r"KeyError\('T'\)$"):
        check_certificate(_redigest(c))


def test_steps_that_end_before_the_replays_end_are_refused(certs):
    c = copy.deepcopy(certs["t4_21"])
    end = F(c["integration"]["replay"]["t_end"])
    c["integration"]["replay"]["records"] = c["integration"]["replay"]["records"][:-1]
    c["integration"]["steps"] = c["integration"]["steps"][:-1]
    c["integration"]["replay"]["steps"] -= 1
    rep = check_certificate(_redigest(c))
    assert not rep.valid and rep.message.startswith(
        f"integration.certified_until: Expected {end} (the end of the replayed steps"), \
        rep.message


def test_check_file_reads_exactly_and_refuses_unreadable_files(certs, tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(certs["t10_31"]))
    rep = check_file(str(good))
    assert rep.valid and isinstance(rep, Report)
    with pytest.raises(Malformed, match="cannot read"):
        check_file(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(Malformed, match="is not JSON"):
        check_file(str(bad))
    big = tmp_path / "big.json"
    big.write_text("[" + "9" * (MAX_STR_DIGITS + 1) + "]")  # beyond the reader's digit limit
    with pytest.raises(Malformed, match=f"^{big}: .*digits"):
        check_file(str(big))
    dup = tmp_path / "dup.json"  # read exactly: a duplicate key is not "the last one wins"
    dup.write_text(json.dumps(certs["t10_31"])[:-1] + ', "verdict": "refuted"}')
    with pytest.raises(Malformed, match="duplicate key"):
        check_file(str(dup))
    rec = tmp_path / "record.json"
    audit = certs["audit_theorem_5_2_third_party"]
    (tmp_path / "audit.json").write_text(json.dumps(audit))
    rec.write_text(json.dumps(audit["audit"]["record"]))
    assert check_file(str(tmp_path / "audit.json"), record=str(rec)).valid
    with pytest.raises(NotAnAudit):
        check_file(str(good), record=str(rec))


def test_workers_and_an_executor_reach_the_replay(certs):
    """``workers`` and ``run_chunks`` are handed to the replay: with 2 workers the 66 steps
    of ``t8_42_line`` run as two tasks of the given executor, and the report is the
    sequential one. (A chunked replay needs at least ``replay.MIN_CHUNK`` = 16 records per
    worker: the 17-step fixtures replay in order whatever ``workers`` is.)"""
    c = certs["t8_42_line"]
    ran: list = []

    def executor(fn, payloads):
        for p in payloads:
            ran.append((p[6], p[7]))  # the chunk's records lo … hi − 1
            yield fn(p)
    one = check_certificate(copy.deepcopy(c))
    two = check_certificate(copy.deepcopy(c), workers=2, run_chunks=executor)
    n = len(c["integration"]["replay"]["records"])
    assert ran == [(0, n // 2), (n // 2, n)]
    assert two.valid and (two.message, two.steps_checked) == (one.message, one.steps_checked)


def test_check_file_hands_progress_and_the_executor_on(certs, tmp_path):
    path = tmp_path / "t8.json"
    path.write_text(json.dumps(certs["t8_42_line"]))
    seen: list = []
    ran: list = []

    def executor(fn, payloads):
        for p in payloads:
            ran.append(p[0])
            yield fn(p)
    rep = check_file(str(path), lambda k, t: seen.append(k), 2, executor)
    n = len(certs["t8_42_line"]["integration"]["replay"]["records"])
    assert rep.valid and ran == [0, 1] and sorted(seen) == list(range(n))


def test_the_file_size_limit_is_inclusive(tmp_path, monkeypatch):
    """A file of exactly the limit is read (and judged as JSON); one byte more is not."""
    import certified.checker as C
    from certified.checker import reading

    path = tmp_path / "edge.json"
    path.write_text("[" + " " * 98 + "]")  # 100 bytes of valid JSON: not a certificate
    for module in (C, reading):
        monkeypatch.setattr(module, "MAX_FILE_BYTES", 100)
    with pytest.raises(Malformed, match="not a certificate"):
        check_file(str(path))
    path.write_text("[" + " " * 99 + "]")
    with pytest.raises(Malformed, match="101 bytes, over the checker's limit of 100 bytes"):
        check_file(str(path))


def test_integration_claim_refusals_word_for_word(certs):
    c = copy.deepcopy(certs["t4_21"])
    n = len(c["integration"]["replay"]["records"])
    c["integration"]["replay"]["steps"] = n + 1
    assert _refused(c, "integration.replay.steps") == (
        f"integration.replay.steps: Expected {n}. Got {n + 1}.")
    c = copy.deepcopy(certs["t4_21"])
    c["integration"]["steps"].pop()
    assert _refused(c, "integration.steps") == (
        f"integration.steps: Expected {n} steps, one per replay record. Got {n - 1} steps.")
    c = copy.deepcopy(certs["t4_21"])
    end = F(c["integration"]["replay"]["t_end"])
    c["integration"]["certified_until"] = "5"
    assert _refused(c, "integration.certified_until") == (
        f"integration.certified_until: Expected {end} (the end of the replayed steps, "
        "integration.replay.t_end, which the last of integration.steps must end at; "
        "certificates written before version 0.2 could carry unreplayed steps: verify "
        "again). Got 5.")
    c["integration"]["certified_until"] = "five"
    assert _refused(c, "integration.certified_until").startswith(
        "integration.certified_until: Expected ")


def test_a_replay_of_no_steps_certifies_up_to_t_0_only(certs):
    c = copy.deepcopy(certs["t4_21"])
    c.update(tail_lemma=None, verdict="undecided", limit=None, timescale=None)
    integ = c["integration"]
    integ["steps"], integ["replay"]["records"], integ["replay"]["steps"] = [], [], 0
    integ["replay"]["t_end"] = "0"
    integ.pop("certified_until")
    rep = check_certificate(_redigest(c))
    assert rep.valid and rep.message == "valid: 0 steps re-verified to t = 0; verdict undecided"
    integ["certified_until"] = "0"
    assert check_certificate(_redigest(c)).valid
    integ["certified_until"] = "1"
    rep = check_certificate(_redigest(c))
    assert not rep.valid and rep.message.startswith(
        "integration.certified_until: Expected 0 (the end of the replayed steps"), rep.message
    integ["certified_until"], integ["replay"]["t_end"] = "1", "1"  # no step reaches t = 1
    rep = check_certificate(_redigest(c))
    assert not rep.valid and rep.message.startswith(
        "integration.certified_until: Expected 1 (the end of the replayed steps"), rep.message


def test_a_replayed_certificate_is_about_one_of_the_five_theorems(certs):
    c = copy.deepcopy(certs["t4_21"])
    c["theorem"], c["hypotheses_hold"] = "9.9", None
    assert _refused(c, "theorem") == (
        "theorem: Expected one of 2.1, 3.1, 4.2, 5.2, 8.5 (a theorem whose conclusion the "
        "replayed steps and lemma are about). Got '9.9'.")


@pytest.mark.parametrize("name,code", [("audit_theorem_5_2_third_party", "S0"),
                                       ("audit_remark_7_9_eps_1_10", "S1"),
                                       ("audit_theorem_2_1_middle_token", "S2")])
def test_an_audits_hypotheses_are_its_lemmas_setting(certs, name, code):
    """Under Lemmas S0–S2 an audit's ``hypotheses_hold`` is the lemma's setting, which the
    lemma's own check decides: ``true`` and ``null`` pass with it, ``false`` is disproved
    by it. (The audit's theorem is a citation, whose hypotheses the checker could not
    decide: ``true`` would otherwise be refused.)"""
    for claim in (True, None):
        c = copy.deepcopy(certs[name])
        c["hypotheses_hold"] = claim
        assert _check_claims_only(_redigest(c)).startswith(f"valid: Lemma {code} re-checked")
    c = copy.deepcopy(certs[name])
    c["hypotheses_hold"] = False
    assert _refused(c, "hypotheses_hold") == (
        f"hypotheses_hold: Expected true (the setting of Lemma {code}, which its check "
        "decides exactly). Got false.")


@pytest.mark.parametrize("name", sorted(REPLAYED))
def test_the_replayed_set_at_T_reaches_the_lemmas_check(certs, name, monkeypatch):
    """The dispatcher hands the replay the certificate's steps, records, end time, progress
    and workers, and the set the replay ends with goes to the lemma's own check at T (the
    replay is replaced by a stand-in that returns a marker at once)."""
    import dataclasses

    import certified.checker as C

    c = copy.deepcopy(certs[name])
    code = REPLAYED[name]
    marker, seen, handed = object(), [], []

    def replay(field, X0, steps, records, t_end, progress, workers, final, run_chunks=None):
        handed.append((steps, records, t_end, progress, workers, run_chunks))
        final(marker)
        return marker

    rule = C.LEMMAS[code]
    monkeypatch.setattr(C, "replay_steps", replay)
    monkeypatch.setitem(C.LEMMAS, code, dataclasses.replace(
        rule, at_T=lambda ctx, parsed, S: seen.append((parsed is not None, S))))
    progress = lambda k, t: None  # noqa: E731
    report = check_certificate(c, progress, 3)
    integ = c["integration"]
    assert report.valid and seen == [(True, marker)]
    assert handed == [(integ["steps"], integ["replay"]["records"],
                       F(integ["replay"]["t_end"]), progress, 3, None)]


def test_an_oversized_number_anywhere_is_malformed_before_any_work(certs, monkeypatch):
    """The certificate's numbers are bounded in size before anything is read from them:
    an exponent beyond ±100000 in the lemma is malformed, named by its path, and the
    replay is never reached."""
    import certified.checker as C

    c = copy.deepcopy(certs["t4_21"])
    c["tail_lemma"]["T"] = "1e999999"
    monkeypatch.setattr(C, "replay_steps", lambda *a, **k: pytest.fail("replayed"))
    with pytest.raises(Malformed) as exc:
        check_certificate(_redigest(c))
    assert str(exc.value) == ("tail_lemma.T: the number '1e999999' has a decimal exponent "
                              "beyond ±100000")


def test_a_certificates_hypotheses_under_s1_s2_are_the_theorems(certs):
    """Outside an audit, Lemmas S1 and S2 decide a theorem's instance: a ``false`` there is
    refused as the theorem's hypotheses proved (not as the lemma's setting)."""
    c = copy.deepcopy(certs["s2_31"])
    assert c["hypotheses_hold"] is True
    c["hypotheses_hold"] = False
    assert _refused(c, "hypotheses_hold") == (
        "hypotheses_hold: Expected true (the hypotheses of theorem 3.1 proved exactly by the "
        "checker). Got false.")


def test_an_audits_report_is_the_lemmas_then_its_claims(certs):
    rep = check_certificate(copy.deepcopy(certs["audit_theorem_5_2_third_party"]))
    assert rep.valid is True and rep.message == (
        "valid: Lemma S0 re-checked (exact setting, constant P enclosed); 3 claim verdicts "
        "re-judged; claims: conclusion-5-2 [Theorem 5.2's conclusion holds]: holds; "
        "two-limits [number of distinct limits of z = 2]: holds; boolean [lim P is Boolean]: "
        "fails")


@pytest.mark.parametrize("where", ["before", "at_T", "arithmetic"])
def test_a_failures_report_is_false_with_its_steps_and_time(certs, monkeypatch, where):
    """A refused certificate's report: ``valid`` is False itself (not another falsy value),
    the steps replayed before the failure (0 before the replay), and the seconds it took,
    between 0 and the time the call took."""
    import time as _time

    import certified.checker as C
    from certified.checker.balls import BallError

    c = copy.deepcopy(certs["t4_21"])
    n = len(c["integration"]["replay"]["records"])
    if where == "before":
        c["verdict"] = "refuted"
    else:
        def replay(field, X0, steps, records, t_end, progress, workers, final, run_chunks=None):
            if where == "arithmetic":
                raise BallError("a quotient by a ball containing 0")
            final(object())

        def at_T(ctx, parsed, S):
            ctx.steps_checked = n  # the count the context holds when the check fails
            raise CheckFailure("tail_lemma.boxes_at_T[0][0]", "an interval", "another")
        monkeypatch.setattr(C, "replay_steps", replay)
        monkeypatch.setitem(C.LEMMAS, "T4", dataclasses.replace(
            C.LEMMAS["T4"], at_T=at_T))
    t0 = _time.perf_counter()
    rep = check_certificate(_redigest(c))
    took = _time.perf_counter() - t0
    assert rep.valid is False and 0 <= rep.seconds <= took
    assert rep.steps_checked == (n if where == "at_T" else 0)
    if where == "arithmetic":
        assert rep.message.startswith("arithmetic: Expected enclosures the checker can "
                                      "evaluate. ")
