"""The checker on discrete time (Lemma C21), written from the survivors of a whole-module
mutation run of ``discrete.py``:

* the stored boxes against the checker's own iteration of the layer map, on balls whose
  ends are known exactly: a box equal to the enclosure is accepted, a box that misses it
  is refused naming the entry (and, at a layer, that the enclosure is the iterated
  one), and a refusal is final exactly
  when the box is disjoint from the enclosure (touching is not disjoint: the true iterate
  may sit on the shared end);
* the retry ladder: a refusal that is not final is retried on every finer rung, and the
  layers claimed beyond the lemma's are iterated to the end (the layer map's calls
  counted);
* the integration block of a discrete-time certificate and the setting ``check_discrete``
  is about (Δt, R = I + ΔtV, the theorem, no replay records), each refusal word for
  word."""

from __future__ import annotations

import copy
from fractions import Fraction as F

import numpy as np
import pytest

from certified.checker import CheckFailure, digest
from certified.checker.balls import BallError, interval, scale, scaled
from certified.checker.discrete import (T7_TITLE, T8_TITLE, T9D_TITLE, T10_TITLE, T11_TITLE,
                                       _check_x_boxes, _discrete_integration,
                                       _iterate_until_fine, check_boxes_at_layer,
                                       check_discrete, retry_ladder)

from .tamper import claims_outcome

Q = F(1, 4), F(3, 4)  # dyadic: the ball [1/4, 3/4] has exactly these ends


def _X() -> np.ndarray:
    X = np.empty((1, 1), dtype=object)
    X[0, 0] = interval(*Q)
    assert (X[0, 0].lo_q(), X[0, 0].hi_q()) == Q
    return X


def test_a_box_equal_to_the_enclosure_is_accepted():
    _check_x_boxes([[Q]], _X())


@pytest.mark.parametrize("box, final", [
    ((F(0), F(1, 4)), False),      # touches the enclosure's lower end
    ((F(0), F(1, 8)), True),       # below it
    ((F(3, 4), F(1)), False),      # touches the upper end
    ((F(7, 8), F(1)), True),       # above it
    ((F(1, 4), F(5, 8)), False),   # inside, one end short
    ((F(3, 8), F(3, 4)), False)])
def test_a_missing_box_is_refused_and_final_only_when_disjoint(box, final):
    with pytest.raises(CheckFailure) as exc:
        _check_x_boxes([[box]], _X())
    assert exc.value.where == "tail_lemma.boxes_at_T[0][0]"
    assert str(exc.value).endswith(f"Got [{box[0]}, {box[1]}].")
    assert exc.value.final is final


def test_layer_boxes_name_the_iterated_enclosure():
    """z^[K] = (1 + λΔt)^{−K} x^[K]; with λΔt = 1, K = 2 the factor is 1/4 exactly."""
    X = np.empty((2, 1), dtype=object)
    X[0, 0], X[1, 0] = interval(F(1), F(1)), interval(F(2), F(2))
    lf = {"leader": [0, 0], "boxes": [[(F(1, 4), F(1, 4))], [(F(1, 2), F(1, 2))]],
          "diffs": {1: [(F(1, 4), F(1, 4))]}}
    check_boxes_at_layer(lf, X, F(1), F(1), 2)  # exact: z = (1/4, 1/2), z_1 − z_0 = 1/4
    lf["diffs"] = {1: [(F(1, 4), F(3, 10))]}  # still contains 1/4
    check_boxes_at_layer(lf, X, F(1), F(1), 2)
    lf["diffs"] = {1: [(F(3, 10), F(1, 2))]}
    with pytest.raises(CheckFailure) as exc:
        check_boxes_at_layer(lf, X, F(1), F(1), 2)
    assert exc.value.where == "tail_lemma.differences_at_T[1][0]"
    assert "an interval containing the iterated " in str(exc.value)
    lf["diffs"], lf["boxes"][1] = {1: [(F(1, 4), F(1, 4))]}, [(F(0), F(1, 4))]
    with pytest.raises(CheckFailure) as exc:
        check_boxes_at_layer(lf, X, F(1), F(1), 2)
    assert exc.value.where == "tail_lemma.boxes_at_T[1][0]"
    assert "an interval containing the iterated " in str(exc.value)


@pytest.mark.parametrize("where, box, diff, final", [
    ("differences_at_T[1][0]", (F(1, 2), F(3, 4)), (F(3, 5), F(1)), True),
    ("boxes_at_T[1][0]", (F(1, 4), F(5, 8)), (F(1, 4), F(1, 2)), False)])
def test_layer_and_difference_boxes_are_final_only_when_disjoint(where, box, diff, final):
    """The rule of ``_check_x_boxes`` holds for every stored comparison (one helper,
    ``lemmas.stored_contains``): T10's boxes and differences at the layer (the factor is
    1/4: z_0 = 1/4, z_1 ∈ [1/2, 3/4], z_1 − z_0 ∈ [1/4, 1/2]). A difference box [3/5, 1]
    is disjoint from it (final); a box [1/4, 5/8] cuts z_1's (not final)."""
    X = np.empty((2, 1), dtype=object)
    X[0, 0], X[1, 0] = interval(F(1), F(1)), interval(F(2), F(3))
    lf = {"leader": [0, 0], "boxes": [[(F(1, 4), F(1, 4))], [box]], "diffs": {1: [diff]}}
    with pytest.raises(CheckFailure) as exc:
        check_boxes_at_layer(lf, X, F(1), F(1), 2)
    assert exc.value.where == f"tail_lemma.{where}"
    assert exc.value.final is final


def test_paranormal_f_and_g_boxes_are_final_only_when_disjoint():
    """Lemma T8's stored F boxes and G boxes (``check_paranormal_boxes``) follow the same
    rule: a G box disjoint from the iterate is final, one that only cuts it is not."""
    from certified.checker.balls import const
    from certified.checker.paranormal import check_paranormal_boxes

    X = np.empty((1, 2), dtype=object)
    X[0, 0], X[0, 1] = interval(F(1), F(1)), interval(*Q)  # S = I: u = x
    pb = {"k": 1, "Sinv": [[F(1), F(0)], [F(0), F(1)]], "leader": [0],
          "boxes": [[(F(1), F(1))]], "diffs": {}, "g_boxes": [[Q]]}
    check_paranormal_boxes(pb, X, const(1))
    for g, final in (((F(7, 8), F(1)), True), ((F(1, 2), F(1)), False)):
        pb["g_boxes"] = [[g]]
        with pytest.raises(CheckFailure) as exc:
            check_paranormal_boxes(pb, X, const(1))
        assert exc.value.where == "tail_lemma.G_boxes_at_T[0][0]"
        assert exc.value.final is final
    pb["g_boxes"], pb["boxes"] = [[Q]], [[(F(2), F(3))]]
    with pytest.raises(CheckFailure) as exc:
        check_paranormal_boxes(pb, X, const(1))
    assert exc.value.where == "tail_lemma.boxes_at_T[0][0]" and exc.value.final


def test_paranormal_g_boxes_with_two_coordinates_are_read_in_order_word_for_word():
    """dim G = 2 (the shipped discrete T8 fixture has dim G = 1, and a diagonal V): G box c
    holds the coordinate k + c of u = S⁻¹x, with S⁻¹ not the identity (rows
    (1, 0, 0), (1, 1, 0), (0, 0, 1)): x = (1, [1/4, 3/4], 2) gives u = (1, [5/4, 7/4], 2).
    A refusal names the iterated enclosure."""
    from certified.checker.balls import const
    from certified.checker.paranormal import check_paranormal_boxes

    X = np.empty((1, 3), dtype=object)
    X[0, 0], X[0, 1], X[0, 2] = interval(F(1), F(1)), interval(*Q), interval(F(2), F(2))
    Sinv = [[F(1), F(0), F(0)], [F(1), F(1), F(0)], [F(0), F(0), F(1)]]
    u1 = (F(5, 4), F(7, 4))
    pb = {"k": 1, "Sinv": Sinv, "leader": [0], "boxes": [[(F(1), F(1))]], "diffs": {},
          "g_boxes": [[u1, (F(2), F(2))]]}
    check_paranormal_boxes(pb, X, const(1))
    for g, where in (([Q, (F(2), F(2))], 0),  # x's coordinate, not u's
                     ([u1, (F(1), F(1))], 1)):  # the F coordinate's value in G's second box
        pb["g_boxes"] = [g]
        with pytest.raises(CheckFailure) as exc:
            check_paranormal_boxes(pb, X, const(1))
        assert exc.value.where == f"tail_lemma.G_boxes_at_T[0][{where}]", str(exc.value)
    assert str(exc.value) == ("tail_lemma.G_boxes_at_T[0][1]: Expected an interval containing "
                              f"the iterated {X[0, 2]!r}. Got [1.0, 1.0].")
    assert exc.value.final


def test_a_forged_start_under_t8_is_refused_without_climbing_the_ladder(certs, monkeypatch):
    """X0 edited in a T8 discrete certificate: the stored boxes at K are disjoint from the
    checker's iterate, so the refusal is final at the first rung that iterates (here the
    second: the check's own scale overflows the score's exp), never at 2,400 or 9,600
    bits (it used to climb every rung: 160 s, against 0.5 s for the honest check)."""
    import certified.checker.discrete as D
    from certified.checker import check_certificate

    seen = []
    real = D.iterate_layers

    def spy(*a, **k):
        seen.append(scale())
        return real(*a, **k)
    monkeypatch.setattr(D, "iterate_layers", spy)
    cert = copy.deepcopy(certs["t8_52_discrete"])
    cert["instance"]["X0"][0][0] = "3"
    cert["digest"] = digest(cert)
    rep = check_certificate(cert)
    assert not rep.valid and rep.message.startswith("tail_lemma.boxes_at_T[0][0]: Expected an "
                                                    "interval containing the iterated")
    ladder = retry_ladder(seen[0], 8)
    assert seen == ladder[:2], (seen, ladder)


class _Ctx:
    """What ``_iterate_until_fine`` reads of the checker's context: one token at rest
    (V = 0), so every rung iterates quickly and ``compare`` decides the outcome."""
    X0 = [[F(1)]]
    V = [[F(0)]]
    B = [[F(1)]]
    obj = {"precision": {"digits": 10}}


def _failing(seen: list, final: bool):
    def compare(X):
        seen.append(scale())
        exc = CheckFailure("tail_lemma.boxes_at_T[0][0]", "a box", f"rung {len(seen)}")
        exc.final = final
        raise exc
    return compare


def test_every_rung_is_tried_until_a_failure_is_final():
    """A comparison that fails at every scale is retried on every rung of the ladder and
    the last failure is the one reported; a final failure is reported at once."""
    ladder = retry_ladder(scale(), 10)
    assert len(ladder) == 4
    seen: list = []
    with pytest.raises(CheckFailure) as exc:
        _iterate_until_fine(_Ctx, F(1, 10), 2, 3, _failing(seen, final=False))
    assert seen == ladder and str(exc.value).endswith("Got rung 4.")
    seen = []
    with pytest.raises(CheckFailure) as exc:
        _iterate_until_fine(_Ctx, F(1, 10), 2, 3, _failing(seen, final=True))
    assert seen == ladder[:1] and str(exc.value).endswith("Got rung 1.")


def test_a_comparison_that_passes_on_a_finer_rung_is_accepted():
    seen: list = []

    def compare(X):
        seen.append(scale())
        assert X[0, 0].lo_q() <= 1 <= X[0, 0].hi_q()  # V = 0: the token stays at 1
        if len(seen) < 3:
            raise CheckFailure("tail_lemma.boxes_at_T[0][0]", "a box", "too narrow")

    _iterate_until_fine(_Ctx, F(1, 10), 2, 3, compare)
    assert seen == retry_ladder(scale(), 10)[:3]


def _counting_layer_map(monkeypatch, fail_at: int | None = None) -> list:
    """Count the layer map's calls (``iterate_layers`` calls it through the module too);
    with ``fail_at``, the call of that number (from 1, counted per rung) raises
    OverflowError, as a float conversion of a huge score does."""
    from certified.checker import discrete

    calls: list = []
    real = discrete.layer_map

    def layer_map(X, V, B, dt):
        calls.append(scale())
        if fail_at is not None and calls.count(scale()) == fail_at:
            raise OverflowError("stand-in")
        return real(X, V, B, dt)

    monkeypatch.setattr(discrete, "layer_map", layer_map)
    return calls


def test_the_layers_claimed_beyond_the_lemmas_layer_are_iterated_to_the_end(monkeypatch):
    """Layers K + 1 … L are part of the claim (finite enclosures up to certified_until):
    K = 2, L = 5 iterates five layers, and a failure in layer 5 is reported after every
    rung."""
    calls = _counting_layer_map(monkeypatch)
    _iterate_until_fine(_Ctx, F(1, 10), 2, 5, lambda X: None)
    assert calls == [scale()] * 5
    calls = _counting_layer_map(monkeypatch, fail_at=5)
    with pytest.raises(BallError) as exc:
        _iterate_until_fine(_Ctx, F(1, 10), 2, 5, lambda X: None)
    ladder = retry_ladder(scale(), 10)
    assert str(exc.value) == f"the layer map's enclosure at {ladder[-1]} bits: stand-in"
    assert calls == [bits for bits in ladder for _ in range(5)]


# -- the integration block of a discrete-time certificate ---------------------------------

class _Run:
    """The context ``_discrete_integration`` reads: the integration block, the lemma, λ."""

    def __init__(self, integ, title=None, lam=F(1)):
        self.integ, self.lam = integ, lam
        self.lemma = None if title is None else {"lemma": title}


def _integ(layers: int = 3, dt: F = F(1, 2), **edits) -> dict:
    out = {"variable": "z", "order": 1, "certified_until": str(layers * dt),
           "steps": [[str(k * dt), str(dt)] for k in range(layers)], "backend": "flint",
           "replay_note": "", "precision_attempts": ["60"]}
    out.update(edits)
    return out


def _refusal(integ, K: int = 0, title=None, lam=F(1)) -> str:
    with pytest.raises(CheckFailure) as exc:
        _discrete_integration(_Run(integ, title, lam), F(1, 2), K)
    return str(exc.value)


def test_a_valid_integration_block_returns_its_layers():
    assert _discrete_integration(_Run(_integ()), F(1, 2), 3) == 3
    assert _discrete_integration(_Run(_integ(layers=0)), F(1, 2), 0) == 0
    for title in (T8_TITLE, T7_TITLE, T9D_TITLE, T11_TITLE):  # lemmas read in x
        assert _discrete_integration(_Run(_integ(variable="x"), title), F(1, 2), 2) == 3
    assert _discrete_integration(_Run(_integ(), T10_TITLE), F(1, 2), 2) == 3
    optional = _integ()
    for key in ("precision_attempts", "replay_note", "backend"):  # each may be absent
        del optional[key]
    assert _discrete_integration(_Run(optional), F(1, 2), 3) == 3
    # no lemma: z where V = λI with λ > 0 (T10's run), x otherwise
    assert _discrete_integration(_Run(_integ(variable="x"), lam=None), F(1, 2), 0) == 3
    assert _discrete_integration(_Run(_integ(variable="x"), lam=F(-1)), F(1, 2), 0) == 3


def test_integration_block_refusals_word_for_word():
    assert _refusal(None) == ("integration: Expected the layers run (Lemma T10 needs "
                              "layer K). Got null.")
    assert _refusal(_integ(zz=1)) == ("integration.zz: Expected no such field (the checker "
                                      "cannot re-derive it). Got 1.")
    for integ, title, lam in ((_integ(variable="x"), None, F(1)),
                              (_integ(variable="x"), T10_TITLE, F(1)),
                              (_integ(), T7_TITLE, F(1)), (_integ(), None, F(0)),
                              (_integ(), None, None)):
        want = "z" if integ["variable"] == "x" else "x"
        assert _refusal(integ, title=title, lam=lam) == (
            f"integration: Expected variable {want!r} and order 1 (the layer map). Got "
            f"{integ['variable']!r}, 1.")
    assert _refusal(_integ(order=2)) == ("integration: Expected variable 'z' and order 1 "
                                         "(the layer map). Got 'z', 2.")
    assert _refusal(_integ(replay={"records": []})) == (
        "integration.replay: Expected null (the checker iterates the map itself). Got "
        "replay data.")
    for key in ("replay_note", "backend"):
        assert _refusal(_integ(**{key: 1})) == (f"integration.{key}: Expected a string. "
                                                "Got another type.")
    for attempts in ("60", [60]):
        assert _refusal(_integ(precision_attempts=attempts)) == (
            "integration.precision_attempts: Expected a list of strings. Got another type.")
    steps_message = ("integration.steps: Expected [k·Δt, Δt] for k = 0, 1, … (Δt = 1/2). "
                     "Got {}.")
    long_steps = [["0", "1/2"], ["1/2", "1/2"], ["1", "1/2"], ["3/2", "1/2"], ["2", "1"]]
    for steps in ("x", [["0", "1/2"], "x"], [["0", "1/2", "0"]], [["1/2", "1/2"]],
                  [["0", "1"]], long_steps):
        assert _refusal(_integ(steps=steps)) == steps_message.format(repr(steps)[:60])
    for k, steps in ((0, [["0", 0.5]]), (1, [["0", "1/2"], [0.5, "1/2"]])):
        assert _refusal(_integ(steps=steps)) == (f"integration.steps[{k}]: Expected an "
                                                 "exact number (a string). Got 0.5.")
    listed = ["0"] * 30  # not a number; its repr is cut at 40 characters
    assert _refusal(_integ(steps=[[listed, "1/2"]])) == (
        f"integration.steps[0]: Expected an exact number (a string). Got {repr(listed)[:40]}.")
    assert _refusal(_integ(certified_until="2")) == (
        "integration.certified_until: Expected 3/2 (the end of integration.steps, >= "
        "tail_lemma.T = 0). Got '2'.")
    assert _refusal(_integ(), K=4) == (
        "integration.certified_until: Expected 3/2 (the end of integration.steps, >= "
        "tail_lemma.T = 2). Got '3/2'.")
    assert _refusal(_integ(certified_until=1.5)) == (
        "integration.certified_until: Expected an exact number (a string). Got 1.5.")


# -- the setting check_discrete is about ----------------------------------------------------

def _t10(certs, **instance_edits) -> dict:
    c = copy.deepcopy(certs["t10_31"])  # Lemma T10, Δt = 1/10
    c["instance"].update(instance_edits)
    return c


def _claims_refusal(c: dict) -> str:
    """The claims-only checker's line on ``c`` with its digest recomputed (a refusal is
    compared word for word: "VALID …" never equals one)."""
    c["digest"] = digest(c)
    return claims_outcome(c)


@pytest.mark.parametrize("time", ["continuous", {"discrete": "1/10", "dt": "1"}])
def test_lemma_t10_in_another_time_setting_is_refused(certs, time):
    assert _claims_refusal(_t10(certs, time=time)) == (
        "instance.time: Expected discrete time {'discrete': Δt} without variant (what "
        f"Lemma T10 is about). Got {time!r}.")


@pytest.mark.parametrize("dt, message", [
    ("0", "Expected Δt > 0. Got 0."), ("-1/10", "Expected Δt > 0. Got -1/10."),
    ("x", "Expected an exact number. Got 'x'.")])
def test_a_step_that_is_not_a_positive_number_is_refused(certs, dt, message):
    assert _claims_refusal(_t10(certs, time={"discrete": dt})) == (
        f"instance.time.discrete: {message}")


@pytest.mark.parametrize("layer", [-1, "3"])
def test_the_lemmas_layer_must_be_an_index(certs, layer):
    c = _t10(certs)
    c["tail_lemma"]["layer"] = layer
    assert _claims_refusal(c) == ("tail_lemma.layer: Expected a layer index >= 0. Got "
                                  f"{layer!r}.")


def test_a_field_of_another_discrete_lemma_is_refused_naming_it(certs):
    c = _t10(certs)
    c["tail_lemma"]["G_metric"] = [["1"]]  # Lemma T8's, known to the schema
    assert _claims_refusal(c) == ("tail_lemma.G_metric: Expected no such field (the checker "
                                  "cannot re-derive it). Got [['1']].")


@pytest.mark.parametrize("name, code", [("t9_85_discrete", "T9"), ("t11_85_discrete", "T11")])
def test_lemmas_t9_and_t11_need_a_positive_definite_form(certs, name, code):
    """Q = 0 gives B = 0. With hypotheses_hold false, as the checker re-derives for B = 0,
    the lemma's own test of B is reached and refuses it."""
    c = copy.deepcopy(certs[name])
    d = len(c["instance"]["Q"])
    c["instance"]["Q"] = [["0"] * d for _ in range(d)]
    c["hypotheses_hold"] = False
    assert _claims_refusal(c) == (f"tail_lemma: Expected Lemma {code}'s hypothesis QᵀK "
                                  "symmetric positive definite (exact). Got another QᵀK.")


@pytest.mark.parametrize("V", [[["0", "0"], ["0", "0"]], [["-1", "0"], ["0", "-1"]]])
def test_lemma_t10_needs_v_a_positive_multiple_of_i(certs, V):
    c = _t10(certs, V=V)
    c["hypotheses_hold"] = False
    assert _claims_refusal(c) == ("instance.V: Expected V = λI with λ > 0 (Lemma T10). Got "
                                  "another V.")


def test_replay_records_in_discrete_time_are_refused_as_continuous_steps(certs):
    c = _t10(certs)
    c["integration"]["replay"] = {"t_end": "3/2", "steps": 0, "records": []}
    assert _claims_refusal(c) == (
        "instance.time: Expected continuous time (the replay records are steps of the "
        "differential equation). Got {'discrete': '1/10'}.")


class _Discrete:
    """The context ``check_discrete`` reads, with no lemma: one token in d = 1, Δt = 1."""

    def __init__(self, V: F, layers: int, theorem: str = "3.1"):
        self.V, self.B, self.X0 = [[V]], [[F(1)]], [[F(1)]]
        self.lam, self.lemma, self.n, self.steps_checked = V, None, 1, 0
        self.obj = {"instance": {"time": {"discrete": "1"}}, "theorem": theorem,
                    "verdict": "undecided", "precision": {"digits": 8}}
        self.integ = _integ(layers=layers, dt=F(1), variable="z" if V > 0 else "x")
        self.judged = 0

    def judge(self, facts=None):
        self.judged += 1


def test_no_lemma_iterates_the_layers_and_says_so(monkeypatch):
    calls = _counting_layer_map(monkeypatch)
    ctx = _Discrete(F(0), 0)  # zero layers claimed: nothing to iterate, still valid
    assert check_discrete(ctx) == ("valid: the layer map iterated to layer 0 (Δt = 1); no "
                                   "lemma, verdict undecided")
    assert calls == []
    ctx = _Discrete(F(1, 2), 4)
    assert check_discrete(ctx).startswith("valid: the layer map iterated to layer 4 ")
    assert (ctx.steps_checked, ctx.judged, len(calls)) == (4, 1, 4)


def test_r_must_be_invertible_and_the_theorem_known():
    """Remark 3.4's rescaling needs R = I + ΔtV invertible: V = −1 with Δt = 1 gives R = 0;
    V = 0 gives R = I (then the theorem is read)."""
    with pytest.raises(CheckFailure) as exc:
        check_discrete(_Discrete(F(-1), 1))
    assert str(exc.value) == ("instance.time.discrete (R = I + Δt·V): Expected an invertible "
                              "matrix. Got a singular one.")
    with pytest.raises(CheckFailure) as exc:
        check_discrete(_Discrete(F(0), 1, theorem="9.9"))
    assert str(exc.value) == "theorem: Expected one of 2.1, 3.1, 4.2, 5.2, 8.5. Got '9.9'."


# -- what check_discrete hands on: the facts judged, the layers counted, T_first ----------

DISCRETE = ["t10_31", "t10_und", "t8_52_discrete", "t7_42_discrete", "t9_85_discrete",
            "t11_85_discrete"]


def _rows(*leaders: int) -> list:
    """P* with row i the unit vector e_{leaders[i]} (each token attends to its leader)."""
    n = len(leaders)
    return [[F(int(j == l)) for j in range(n)] for l in leaders]


#: the facts each fixture's lemma proves, written out: T10 (examples/discrete_layers.json:
#: token 1 follows token 0, token 2 leads itself) and T8 (discrete_paranormal.json: token 3
#: follows token 0) give leader maps, T9 (discrete_contracting.json, five tokens) the
#: constant 1/5; T7, T11 and no lemma prove no P* (the conclusion only)
FACTS = {"t10_31": {"clusters": 2, "P_star": _rows(0, 0, 2)},
         "t8_52_discrete": {"clusters": 3, "P_star": _rows(0, 1, 2, 0)},
         "t9_85_discrete": {"clusters": 1, "P_star": [[F(1, 5)] * 5 for _ in range(5)]},
         "t10_und": None, "t7_42_discrete": None, "t11_85_discrete": None}


@pytest.mark.parametrize("name", DISCRETE)
def test_the_facts_judged_in_discrete_time_are_the_lemmas(certs, monkeypatch, name):
    """An audit's claims are judged from the facts the lemma proved (FACTS), and the
    certificate's own limit states the same."""
    from certified.checker import _Ctx

    seen: list = []
    monkeypatch.setattr(_Ctx, "judge", lambda self, facts=None: seen.append(facts))
    c = certs[name]
    assert claims_outcome(c).startswith("VALID valid:")
    assert seen == [FACTS[name]]
    if FACTS[name] is not None:
        assert [[F(str(p)) for p in row] for row in c["limit"]["attention_limit"]] == \
            FACTS[name]["P_star"]


@pytest.mark.parametrize("name", DISCRETE)
def test_the_report_counts_the_layers_claimed(certs, name):
    from certified.checker import check_certificate

    c = certs[name]
    rep = check_certificate(copy.deepcopy(c))
    assert rep.valid, rep.message
    assert rep.steps_checked == len(c["integration"]["steps"]) > 0


@pytest.mark.parametrize("T_first, T_float", [("1/20", 0.05), ("29/20", 1.45)])
def test_t_first_between_layers_is_refused(certs, T_first, T_float):
    """Δt = 1/10: 1/20 and 29/20 lie in [0, T] but are no layer times k·Δt."""
    c = _t10(certs)
    c["timescale"].update(T_first=T_first, T_first_float=T_float)
    assert _claims_refusal(c) == (f"timescale.T_first: Expected a layer time k·Δt (Δt = "
                                  f"1/10). Got {T_first!r}.")
    c["timescale"].update(T_first="7/5", T_first_float=1.4)  # a layer time: accepted
    assert _claims_refusal(c).startswith("VALID valid: Lemma T10 re-checked")


def test_the_layer_map_shifts_scores_beyond_binary64_exactly():
    """Two equal tokens x = 2^600 in d = 1, B = V = 1, Δt = 1/2: the scores are 2^1200
    (no binary64 number), the attention is 1/2 each, and the layer is x + x/2 exactly.
    The shift column is chosen on the balls' exact midpoints (a float reading overflowed
    and turned a valid certificate into a refusal)."""
    from certified.checker.discrete import layer_map

    x = F(2) ** 600
    X = np.empty((2, 1), dtype=object)
    with scaled(64):
        X[0, 0] = X[1, 0] = interval(x, x)
        out = layer_map(X, [[F(1)]], [[F(1)]], F(1, 2))
        for i in range(2):
            assert out[i, 0].lo_q() <= x * F(3, 2) <= out[i, 0].hi_q()
            assert out[i, 0].hi_q() - out[i, 0].lo_q() <= x * F(2) ** -50


@pytest.mark.parametrize("leader,mu,e1", [
    ([0, 1, 2], None, F(1, 100)),  # no followers: the far term alone
    ([0, 0, 2], F(1, 2), F(1, 100)),  # the leader-only cluster decides the max
    ([0, 0, 2], F(1, 2), F(1)),  # the follower's cluster decides it (Σ_k A dominates)
    ([0, 0, 0], F(1, 2), F(1, 100)),  # one cluster: no far term, two followers
])
def test_lemma_t10_bootstrap_bounds_against_mpmath(leader, mu, e1):
    """(δ₀, η₀) of Lemma T10's bootstrap (Hb′) against the formula evaluated in mpmath at
    200 digits: q = 1 + λΔt, α = λΔt/q, β = q^{2K}, C = e^{−mβ}(1 + 1/(2mβα)),
    A = e^{−μβ}(1 + 1/(μβα)), δ₀ = α max_k [Σ_k A + (n − c_k)DC],
    η₀ = λΔt max_k [2Σ_k A + 2(n − c_k)DC]. Upper bounds, and tight to 1e-12."""
    import mpmath
    from certified.checker.lemmas import _tails_discrete

    m, lam, dt, K, D, eta = F(1), F(1), F(1, 10), 5, F(3), F(1, 1000)
    eps = {1: e1, 2: F(1, 50)}
    d0, e0 = _tails_discrete(m, mu, lam, dt, K, D, leader,
                             {j: eps[j] for j in eps if leader[j] != j}, eta)
    with mpmath.workdps(200):
        f = lambda x: mpmath.mpf(x.numerator) / x.denominator  # noqa: E731
        q = 1 + f(lam * dt)
        alpha, beta = f(lam * dt) / q, q ** (2 * K)
        C = mpmath.exp(-f(m) * beta) * (1 + 1 / (2 * f(m) * beta * alpha))
        A = None if mu is None else mpmath.exp(-f(mu) * beta) * (1 + 1 / (f(mu) * beta * alpha))
        ds, es = [], []
        for k in sorted(set(leader)):
            members = [i for i in range(len(leader)) if leader[i] == k]
            sig = sum((f(eps[j] + eta) for j in members if j != k), mpmath.mpf(0))
            far = (len(leader) - len(members)) * f(D) * C
            ds.append(alpha * (far + (sig * A if sig else 0)))
            es.append(f(lam * dt) * (2 * far + (2 * sig * A if sig else 0)))
        for got, want in ((d0, max(ds)), (e0, max(es))):
            got = mpmath.mp.make_mpf(got)
            assert want <= got <= want * (1 + mpmath.mpf(10) ** -12), (got, want)


def test_lemma_t10_followers_need_a_within_cluster_margin():
    from certified.checker.lemmas import _tails_discrete

    with pytest.raises(CheckFailure) as exc:
        _tails_discrete(F(1), None, F(1), F(1, 10), 5, F(3), [0, 0, 2], {1: F(1, 100)},
                        F(1, 1000))
    assert str(exc.value) == ("tail_lemma.mu: Expected a within-cluster margin (followers "
                              "exist). Got null.")


@pytest.mark.parametrize("w_d,w_e", [(F(1), F(1)), (F(2), F(2)), (F(3, 2), F(1, 3))])
def test_the_bootstraps_shared_maximum_against_its_formula(w_d, w_e):
    """``lemmas._bootstrap_max`` (the shape of (Hb) and (Hb′)) against its formula in mpmath,
    with weights 1 (skipped multiplications), 2 and others, and clusters with and without
    followers: rounded up, by at most 2^-40 relative."""
    import mpmath

    from certified.checker.lemmas import _bootstrap_max

    def mp(x: F):
        return mpmath.mpf(x.numerator) / x.denominator

    leader = [0, 0, 2, 2, 2, 5]
    eps = {1: F(1, 10), 3: F(1, 7), 4: F(2, 9)}
    eta, D = F(1, 100), F(3)
    far, near = mpmath.mpf("1e-3"), mpmath.mpf("1e-2")
    with scaled(256):  # the precision of the directed operations (module state: set it)
        got = _bootstrap_max(leader, eps, eta, D, far._mpf_, near._mpf_, F(1, 2), F(1), w_d,
                             w_e)
    with mpmath.workdps(150):  # far beyond 256 bits: the reference's own error is negligible
        d_ref = e_ref = mpmath.mpf(0)
        for k in sorted(set(leader)):
            members = [i for i in range(len(leader)) if leader[i] == k]
            s = mp(sum((eps[j] + eta for j in members if j != k), F(0)))
            out = len(leader) - len(members)
            d_ref = max(d_ref, mp(w_d) * (out * mp(D) * far / 2 + s * near))
            e_ref = max(e_ref, mp(w_e) * (out * mp(D) * far + 2 * s * near))
        for value, ref in zip(got, (d_ref, e_ref)):
            v = mpmath.mpf(value)
            # v ≥ the exact value, which the 150-digit reference may exceed by 10^-150
            assert ref * (1 - mpmath.mpf(10) ** -140) <= v <= ref * (1 + mpmath.mpf(2) ** -40)
