"""The replay's own rules, each refusal word for word, on hand-made records of one or two
tokens (milliseconds each): the time chain of the steps, checked before any step; a
Picard step's h < ρ, its a-priori box and velocity counts and exact entries; the Picard
test's failure after its retries; a step's failure reported at its index; the check at T.
Then a Picard step against mpmath's flow (seconds each): its narrowed tube, its final
set, and its a-priori box and coarse tube, read where the step uses them."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

import certified.checker.replay as R
from certified.checker.balls import BallError, const, interval, scaled
from certified.checker.dynamics import Field
from certified.checker.errors import CheckFailure
from certified.checker.fballs import FB, FC
from certified.checker.lohner import LohnerSet, _identity
from certified.checker.replay import PICARD_TRIES, _run, check_step, initial_set, replay_steps

FIELD = Field(F(1), [[F(1)]], 2, "z")  # two tokens in d = 1, V = B = 1
X0 = [[F(-1)], [F(1)]]


def _set(c=("-1", "1"), r=("-1/8", "1/8")) -> dict:
    return {"c": list(c), "A": [["1", "0"], ["0", "1"]], "r": [list(r), list(r)]}


def _rec(**edits) -> dict:
    rec = {"order": 8, "rho": "1/4", "apriori": [["-1/2", "1/2", "-1/2", "1/2"]] * 2,
           "set": _set()}
    rec.update(edits)
    return rec


def _replay_message(steps, records, t_end) -> str:
    with pytest.raises(CheckFailure) as exc:
        with scaled(256):
            replay_steps(FIELD, X0, steps, records, F(t_end))
    return str(exc.value)


# -- the time chain, before any step -------------------------------------------------------

def test_more_records_than_steps_is_refused():
    assert _replay_message([["0", "1/8"]], [_rec(), _rec()], "1/8") == (
        "integration.replay: Expected at most one record per step. Got 2 records for 1 "
        "steps.")


@pytest.mark.parametrize("h", ["0", "-1/8"])
def test_a_step_of_length_zero_or_less_is_refused(h):
    steps = [["0", "1/8"], ["1/8", h]]
    assert _replay_message(steps, [_rec(), _rec()], "1/4") == (
        f"integration.steps[1]: Expected a step h > 0. Got {h}.")


@pytest.mark.parametrize("t0", ["0", "1/4", "1/16"])
def test_steps_must_chain(t0):
    steps = [["0", "1/8"], [t0, "1/8"]]
    assert _replay_message(steps, [_rec(), _rec()], "1/4") == (
        f"integration.steps[1]: Expected t0 = 1/8 (steps must chain). Got t0 = {F(t0)}.")


def test_the_first_step_starts_at_zero():
    assert _replay_message([["1/8", "1/8"]], [_rec()], "1/4") == (
        "integration.steps[0]: Expected t0 = 0 (steps must chain). Got t0 = 1/8.")


@pytest.mark.parametrize("t_end", ["1/8", "1/2"])
def test_the_steps_must_reach_the_stated_end(t_end):
    steps = [["0", "1/8"], ["1/8", "1/8"]]
    assert _replay_message(steps, [_rec(), _rec()], t_end) == (
        f"integration.replay: Expected steps reaching t = {F(t_end)}. Got t = 1/4.")


def test_steps_without_records_are_not_chained():
    """Only the replayed steps are chained (the others are refused elsewhere:
    certified_until must equal replay.t_end)."""
    with scaled(256):
        S = replay_steps(FIELD, X0, [["0", "1/8"], ["5", "-1"]], [], F(0))
        centre = [(b.lo_q(), b.hi_q()) for b in S.c.flat]
    assert centre == [(F(-1), F(-1)), (F(1), F(1))]  # the exact initial tokens


# -- a Picard step's own refusals ----------------------------------------------------------

def _step_message(h="1/8", rho="1/4", apriori=None, velocity=None, stored=None) -> str:
    apriori = [["-1/2", "1/2", "-1/2", "1/2"]] * 2 if apriori is None else apriori
    with pytest.raises(CheckFailure) as exc:
        with scaled(256):
            check_step(FIELD, initial_set(X0), F(0), F(h), 8, F(rho), apriori,
                       stored or _set(), "step 0", velocity)
    return str(exc.value)


@pytest.mark.parametrize("h, rho", [("1/4", "1/4"), ("1/2", "1/4"), ("0", "1/4")])
def test_h_must_be_inside_rho(h, rho):
    assert _step_message(h=h, rho=rho) == (
        f"step 0: Expected 0 < h < rho. Got h = {F(h)}, rho = {F(rho)}.")


@pytest.mark.parametrize("apriori, message", [
    ([["1/2", "-1/2", "-1/2", "1/2"], ["-1/2", "1/2", "-1/2", "1/2"]],
     "step 0.apriori: Expected lo <= hi. Got [1/2, -1/2]."),
    ([["-1/2", "1/2", "-1/2", "1/2"], ["-1/2", "1/2", "1/2", "-1/2"]],
     "step 0.apriori: Expected lo <= hi. Got [1/2, -1/2]."),
    ([["-1/2", "1/2", "-1/2", "x"], ["-1/2", "1/2", "-1/2", "1/2"]],
     "step 0.apriori: Expected an interval [lo, hi] of exact numbers. Got ['-1/2', 'x'].")])
def test_each_a_priori_interval_is_read_exactly_real_and_imaginary(apriori, message):
    assert _step_message(apriori=apriori) == message


def test_a_stored_set_of_the_wrong_shape_is_named():
    assert _step_message(stored={"c": ["0"], "A": [["1"]], "r": [["0", "1"]]}) == (
        "step 0.set: Expected c of length 2, A 2×2, r of length 2. Got other shapes.")


def test_one_a_priori_interval_per_coordinate():
    assert _step_message(apriori=[["-1/2", "1/2", "-1/2", "1/2"]]) == (
        "step 0: Expected 2 a-priori intervals. Got 1.")


@pytest.mark.parametrize("velocity, message", [
    (["1"], "step 0.velocity: Expected 2 exact numbers. Got 1."),
    (["1", "x"], "step 0.velocity: Expected exact numbers. Got ['1', 'x']."),
    (["1", None], "step 0.velocity: Expected exact numbers. Got ['1', None].")])
def test_a_velocity_has_one_exact_number_per_coordinate(velocity, message):
    assert _step_message(velocity=velocity) == message


class _Expanding(Field):
    """A field F(y) = 8y on complex boxes: the Picard image D·F(W) is ≈ 8ρ√2 ≈ 2.8 times
    the box W, while a retry grows W by 1.25, so no retry ever contains its image."""
    def velocity(self, Z, c, D=None):
    
        return Z * FC(FB(8.0), FB(0.0))


def test_a_picard_box_that_never_contains_its_image_is_refused_after_the_retries():
    with pytest.raises(CheckFailure) as exc:
        with scaled(256):
            check_step(_Expanding(F(1), [[F(1)]], 2, "z"), initial_set(X0), F(0), F(1, 8),
                       8, F(1, 4), [["-1/2", "1/2", "-1/2", "1/2"]] * 2, _set(), "step 0")
    message = str(exc.value)
    assert message.startswith("step 0.apriori[0]: Expected (Y − c) + D·(F(c + D·a + W, t0 + "
                              "D) − a) inside the interior of W (Picard). Got "), message
    assert message.endswith(f"(after {PICARD_TRIES - 1} Picard iterations).")


def test_a_ball_error_in_a_step_is_reported_at_its_record(monkeypatch):
    def broken(*args, **kwargs):
        raise BallError("a sum of exponentials met 0")
    monkeypatch.setattr(R, "check_step", broken)
    with pytest.raises(CheckFailure) as exc:
        _run(FIELD, initial_set(X0), [["0", "1/8"], ["1/8", "1/8"]], [_rec(), _rec()], 1, 2)
    assert str(exc.value) == ("integration.replay[1]: Expected finite enclosures in the "
                              "step. Got a sum of exponentials met 0.")


def test_grow_keeps_the_centre_and_widens_every_radius():
    W = FC(FB(np.array([0.5, -1.0]), np.array([0.0, 0.25])),
           FB(np.array([0.0, 2.0]), np.array([1.0, 0.0])))
    G = R._grow(W)
    assert list(G.re.m) == [0.5, -1.0] and list(G.im.m) == [0.0, 2.0]
    for old, new in ((W.re.r, G.re.r), (W.im.r, G.im.r)):
        assert all(b >= 1.25 * a + 2.0 ** -200 for a, b in zip(old, new))
        assert all(b <= (1.25 * a + 2.0 ** -200) * (1 + 2.0 ** -45) for a, b in zip(old, new))


def test_a_picard_hint_too_small_is_grown_until_it_holds(monkeypatch):
    """Tokens ∓1/4, ρ = 1/16, h = 1/32 and the hint W = {0}: the Picard test fails on the
    hint and holds after a few grown boxes; the step is then checked as usual."""
    grown: list = []
    grow = R._grow
    monkeypatch.setattr(R, "_grow", lambda W: (grown.append(W), grow(W))[1])
    X = [[F(-1, 4)], [F(1, 4)]]
    stored = {"c": ["-1/4", "1/4"], "A": [["1", "0"], ["0", "1"]],
              "r": [["-1/8", "1/8"], ["-1/8", "1/8"]]}
    with scaled(256):
        S = check_step(FIELD, initial_set(X), F(0), F(1, 32), 8, F(1, 16),
                       [["0", "0", "0", "0"]] * 2, stored, "step 0")
        box = [(b.lo_q(), b.hi_q()) for b in S.box()]
    assert 1 <= len(grown) < PICARD_TRIES
    # the two tokens attract (z-variable, V = B = 1): each moves toward the other
    assert F(-1, 4) < box[0][0] and box[0][1] < 0 < box[1][0] and box[1][1] < F(1, 4)


# -- the narrowed tube (Lemma C3b) against the true solutions -------------------------------

def _field_c(z: list, t):
    """F(z, t) for two tokens in d = 1, V = B = 1, in z, at complex z and t (mpmath)."""
    c = mpmath.exp(2 * t)
    out = []
    for i in range(2):
        w = [mpmath.exp(c * z[i] * z[j]) for j in range(2)]
        out.append((w[0] * z[0] + w[1] * z[1]) / (w[0] + w[1]) - z[i])
    return out


def _true_solution(y0: list, t0, taus: list) -> list:
    """Two tokens in d = 1, V = B = 1, in z = e^{−t}x: ż_i = Σ_j P_ij z_j − z_i with
    P_ij ∝ exp(e^{2t} z_i z_j); mpmath's Taylor integrator at 25 digits (an oracle
    independent of the checker's arithmetic)."""
    with mpmath.workdps(25):
        sol = mpmath.odefun(lambda t, z: _field_c(z, t), mpmath.mpf(t0.numerator) / t0.denominator,
                            [mpmath.mpf(y.numerator) / y.denominator for y in y0])
        return [[sol(mpmath.mpf(t0.numerator) / t0.denominator + tau)[i] for i in range(2)]
                for tau in taus]


@pytest.mark.parametrize("h", [F(1, 64), F(1, 32)])
def test_the_tight_tube_contains_every_solution_from_the_set_and_is_narrower(h):
    """Tokens c = ∓1/4 with every start within dev = 1/64 of them, t0 = 1/4: the narrowed
    tube holds the true solutions from the corners of that set at τ ∈ [0, h] (mpmath),
    and is much narrower than the coarse tube [−1, 1] it was given (Lh < 1/2: the
    narrowing applies). With h = 1/16 (the Jacobian over [−1, 1] makes Lh ≥ 1/2) the
    coarse tube comes back unchanged."""
    t0, dev = F(1, 4), F(1, 64)
    coarse = FB(np.zeros(2), np.ones(2))  # [−1, 1]: every token stays inside (convexity)
    rem = FB(np.zeros(2), np.full(2, 1e-12))  # ≥ the order-24 remainder (≈ 1e-47 here)
    with scaled(256):
        c = np.array([[interval(F(-1, 4), F(-1, 4))], [interval(F(1, 4), F(1, 4))]],
                     dtype=object)
        jets = FIELD.jets(c, t0, 24)
        tube = R._tight_tube(FIELD, coarse, jets, rem, float(dev), t0, h)
        same = R._tight_tube(FIELD, coarse, jets, rem, float(dev), t0, F(1, 16))
    lo, hi = tube.lo(), tube.hi()
    assert all(hi - lo < 0.07)  # 2·dev/(1 − Lh) and the motion, not the coarse width 2
    taus = [h * k / 4 for k in range(5)]
    # the corners that push each token outward or inward (each coordinate's extremes)
    for s0, s1 in ((-dev, dev), (dev, -dev)):
        for y in _true_solution([F(-1, 4) + s0, F(1, 4) + s1], t0, taus):
            assert all(float(lo[i]) <= y[i] <= float(hi[i]) for i in range(2)), (
                s0, s1, y, lo, hi)
    assert list(same.lo()) == list(coarse.lo()) and list(same.hi()) == list(coarse.hi())


# -- a whole Picard step (Lemmas C3, C4) against the true flow ------------------------------

def _start_set(c0: list, lo: F, hi: F) -> LohnerSet:
    """The set c0 + [lo, hi]² with A = I (inside ``scaled``)."""
    return LohnerSet(np.array([const(x) for x in c0], dtype=object), _identity(2),
                     np.array([interval(lo, hi)] * 2, dtype=object), FB(np.eye(2)))


def _picard_case(delta: F, velocity: bool, order: int = 24, lo_delta: F | None = None):
    """The set (−1/4, 1/4) + [−lo_delta, delta]² at t0 = 1/4 (lo_delta = delta unless
    given), one step of h = 1/64 and ρ = 1/16: a runner that checks the step against a
    stored set and returns the checker's own set, and the true images of the set's
    corners at t0 + h (mpmath)."""
    t0, h = F(1, 4), F(1, 64)
    c0 = [F(-1, 4), F(1, 4)]

    def run(stored: dict):
        with scaled(256):
            S = _start_set(c0, -lo, delta)
            if velocity:  # W around the affine path c + τa, a ≈ F(c, t0) (Lemma I6)
                vel, W = ["9/40", "-9/40"], [["-1/64", "1/64", "-1/64", "1/64"]] * 2
            else:  # the plain box: it holds the tokens themselves
                vel, W = None, [["-5/16", "-3/16", "-1/32", "1/32"], ["3/16", "5/16", "-1/32", "1/32"]]
            return check_step(FIELD, S, t0, h, order, F(1, 16), W, stored, "step", vel)
    lo = delta if lo_delta is None else lo_delta
    images = [_true_solution([c0[0] + s0, c0[1] + s1], t0, [h])[0]
              for s0 in (-lo, delta) for s1 in (-lo, delta)]
    return run, images


def _stored_box(lo: list, hi: list) -> dict:
    c = [(a + b) / 2 for a, b in zip(lo, hi)]
    return {"c": [str(x) for x in c], "A": [["1", "0"], ["0", "1"]],
            "r": [[str(a - m), str(b - m)] for a, b, m in zip(lo, hi, c)]}


def _hull(images: list) -> tuple[list, list]:
    lo = [min(y[i] for y in images) for i in range(2)]
    hi = [max(y[i] for y in images) for i in range(2)]
    with mpmath.workdps(25):  # outward to 10⁻²⁴: far below every width used here
        return ([F(mpmath.nstr(x - mpmath.mpf("1e-24"), 25)) for x in lo],
                [F(mpmath.nstr(x + mpmath.mpf("1e-24"), 25)) for x in hi])


@pytest.mark.parametrize("velocity", [False, True])
@pytest.mark.parametrize("delta, lo_delta, order, excess", [
    (F(1, 2 ** 20), None, 24, F(1, 1000)),   # measured 4.9·10⁻⁴ (plain form)
    (F(1, 2 ** 40), None, 24, F(1, 1000)),
    (F(1, 32), None, 3, F(3, 100)),          # the remainder and the tube matter: 1.8%
    (F(1, 64), F(0), 4, F(3, 100)),          # r = [0, δ]: a set off its centre, 1.6%
])
def test_a_picard_step_encloses_the_true_images_tightly_and_refuses_a_set_missing_one(
        delta, lo_delta, order, excess, velocity):
    """The checker's own set at t0 + h (in the stored coordinates) contains the true images
    of the start set's four corners and exceeds their hull by at most ``excess`` of its
    width plus 10⁻²⁰ (about twice what it measures: a low order or a wide set lets the
    remainder and the tube matter); a stored set that is that hull widened by 5% is
    accepted; one that misses a corner's image by 10⁻³ of the hull's width, at either end
    of either coordinate, is refused (any sound step must refuse it)."""
    run, images = _picard_case(delta, velocity, order, lo_delta)
    lo, hi = _hull(images)
    width = [b - a for a, b in zip(lo, hi)]
    pad = [w / 20 for w in width]
    stored = _stored_box([a - p for a, p in zip(lo, pad)], [b + p for b, p in zip(hi, pad)])
    with scaled(256):
        mine = run(stored)
        c = [F(x) for x in stored["c"]]
        for i in range(2):
            a, b = mine.r[i].lo_q() + c[i], mine.r[i].hi_q() + c[i]
            assert a <= lo[i] and hi[i] <= b
            assert (lo[i] - a) + (b - hi[i]) <= width[i] * excess + F(1, 10 ** 20), (i, a, b, lo, hi)
    for i in range(2):
        for end in (0, 1):
            cut = [[a - p for a, p in zip(lo, pad)], [b + p for b, p in zip(hi, pad)]]
            cut[end][i] = (lo[i] + width[i] / 1000) if end == 0 else (hi[i] - width[i] / 1000)
            with pytest.raises(CheckFailure) as exc:
                run(_stored_box(*cut))
            assert str(exc.value).startswith(f"step.set.r[{i}]: Expected an interval "
                                             "containing the recomputed ")


@pytest.mark.parametrize("velocity", [False, True])
def test_a_low_order_step_of_a_point_holds_the_truncation_error_in_its_remainder(velocity):
    """Order 3 from a set of width 2⁻⁴⁰: the centre's Taylor polynomial misses the true
    image by its truncation error, 4.5·10⁻¹⁰ (measured), far above the hull of the
    images (1.8·10⁻¹²); only the set's remainder M·f, f = q⁴/(1 − q) with q = h/ρ = 1/4
    (Lemmas C3, C4), brings them in. The checker's set must contain every corner's image
    (a stored set 2⁻¹⁰ wider than their hull is accepted) and be far wider than the hull.
    The step's other tests use orders where the remainder is negligible. (A remainder
    scaled down by a constant, q⁵ for q⁴ or 1/(1 + q), still holds the images: M, the
    Cauchy bound on the disk, is conservative. The mutation runs list those.)"""
    run, images = _picard_case(F(1, 2 ** 40), velocity, order=3)
    lo, hi = _hull(images)
    pad = F(1, 2 ** 10)
    stored = _stored_box([a - pad for a in lo], [b + pad for b in hi])
    with scaled(256):
        mine = run(stored)
        c = [F(x) for x in stored["c"]]
        for i in range(2):
            a, b = mine.r[i].lo_q() + c[i], mine.r[i].hi_q() + c[i]
            assert a <= lo[i] and hi[i] <= b, (i, a, b, lo, hi)
            # the remainder's width dominates: far above the set's 2⁻⁴⁰
            assert (b - a) > 1000 * (hi[i] - lo[i]), (i, b - a, hi[i] - lo[i])


# -- a Picard step's a-priori box and coarse tube, read where the step uses them -----------

def _corners(b) -> list:
    """The four corners of a binary64 complex rectangle (its ball ends, exact floats)."""
    return [mpmath.mpc(x, y) for x in (b.re.lo(), b.re.hi()) for y in (b.im.lo(), b.im.hi())]


@pytest.mark.parametrize("h", [F(1, 64), F(1, 256)])
@pytest.mark.parametrize("velocity", [False, True])
def test_a_picard_steps_box_and_tube_hold_the_true_solutions(velocity, h, monkeypatch):
    """Tokens −1/4 and 1/2 (not a mirror pair), the set c + [0, 1/64]² (off its centre),
    order 4, ρ = 1/16 and h = 1/64 or 1/256 (at 1/256 the tube's motion term F(Y)·[0, h]
    outweighs its remainder term). Read where the step uses them:
    * the accepted Picard box Ĉ = c + D·a + W (the last complex argument of the field)
      maps into itself: for the corners y of the set, σ of D and ζ of Ĉ, mpmath's
      y − c + σ(F(ζ, t0 + σ) − a) lies in W (the inclusion Lemma C3 verifies);
    * the spread ``dev`` handed to the narrowed tube is ≥ ‖y − c‖∞ over the set;
    * the coarse tube holds mpmath's solutions from the set's corners over [t0, t0 + h]."""
    t0, rho, delta = F(1, 4), F(1, 16), F(1, 64)
    c0 = [F(-1, 4), F(1, 2)]
    complex_args, seen = [], {}
    real_velocity = Field.velocity

    def velocity_spy(self, Z, c, D=None):
        if isinstance(Z, FC):
            complex_args.append((Z, c))
        return real_velocity(self, Z, c, D)
    monkeypatch.setattr(Field, "velocity", velocity_spy)
    real_tight = R._tight_tube

    def tight_spy(field, tube, jets, rem, dev, t0_, h_):
        seen["tube"], seen["dev"] = tube, dev
        return real_tight(field, tube, jets, rem, dev, t0_, h_)
    monkeypatch.setattr(R, "_tight_tube", tight_spy)
    if velocity:
        with mpmath.workdps(30):
            a = [F(mpmath.nstr(x, 12)) for x in _field_c([mpmath.mpf(-0.25), mpmath.mpf(0.5)],
                                                          mpmath.mpf(0.25))]
        vel, W = [str(x) for x in a], [["-1/32", "1/32", "-1/32", "1/32"]] * 2
    else:
        a = [F(0), F(0)]
        vel, W = None, [["-5/16", "-3/16", "-1/32", "1/32"], ["7/16", "9/16", "-1/32", "1/32"]]
    stored = {"c": ["0", "0"], "A": [["1", "0"], ["0", "1"]], "r": [["-2", "2"]] * 2}
    with scaled(256):
        check_step(FIELD, _start_set(c0, F(0), delta), t0, h, 4, rho, W, stored, "step", vel)
    # the set's corners and the spread
    starts = [[c0[0] + s0, c0[1] + s1] for s0 in (0, delta) for s1 in (0, delta)]
    assert seen["dev"] >= float(delta)
    # the Picard inclusion, with the accepted box
    C_hat, _ = complex_args[-1]
    C_hat = C_hat.reshape(2)
    with mpmath.workdps(30):
        sig = [mpmath.mpc(x, y) for x in (-float(rho), float(rho)) for y in (-float(rho), float(rho))]
        sig += [mpmath.mpc(0, 0), mpmath.mpc(float(rho), 0), mpmath.mpc(0, -float(rho))]
        zs = [_corners(C_hat[0]), _corners(C_hat[1])]
        for y in starts:
            for s in sig:
                for z0 in zs[0]:
                    for z1 in zs[1]:
                        Fz = _field_c([z0, z1], mpmath.mpf(0.25) + s)
                        for i in range(2):
                            # y + σF(ζ) = c + σa + (y − c + σ(F(ζ) − a)) ∈ c + σa + W ⊆ Ĉ
                            p = y[i] + s * Fz[i]
                            box = C_hat[i]
                            assert box.re.lo() <= p.real <= box.re.hi(), (velocity, i, p)
                            assert box.im.lo() <= p.imag <= box.im.hi(), (velocity, i, p)
    # the coarse tube
    tube = seen["tube"]
    taus = [h * k / 4 for k in range(5)]
    for y0 in starts:
        for y in _true_solution(y0, t0, taus):
            assert all(float(tube.lo()[i]) <= y[i] <= float(tube.hi()[i]) for i in range(2)), (
                y0, y, tube.lo(), tube.hi())


def test_the_check_at_t_is_called_on_the_set_at_t_end():
    """``final`` (the lemma's check at T) is called once, on the set the replay returns,
    and its refusal is the replay's; without records the set is the initial one."""
    called = []

    def final(S):
        called.append(S)
        raise CheckFailure("tail", "the check at T", "a refusal")
    with scaled(256):
        with pytest.raises(CheckFailure) as exc:
            replay_steps(FIELD, X0, [], [], F(0), final=final)
        assert str(exc.value) == "tail: Expected the check at T. Got a refusal."
        assert len(called) == 1
        assert [(b.lo_q(), b.hi_q()) for b in called[0].c.flat] == [(F(-1), F(-1)), (F(1), F(1))]
        S = replay_steps(FIELD, X0, [], [], F(0), final=lambda S: called.append(S))
        assert called[-1] is S and len(called) == 2
