"""The checks of Lemmas S0, S1 and S2 (``checker/audits.py``: ``check_stationary``,
``check_symmetric`` and their interval comparisons), called directly on the fixtures'
lemma data, each refusal word for word and each comparison at its edges.

Written from the survivors of a mutation run of these functions against the fast
dispatcher selection: an interval compared at one end only, or not at all, and the
refusals' fields, were not seen by a test that checks messages.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import mpmath
import mpmath.libmp as L
import pytest

from certified.checker import CheckFailure
from certified.checker.audits import _inside, _inside_mpf, check_stationary, check_symmetric
from certified.checker.balls import interval, scaled

Q4 = (F(1, 4), F(3, 4))


def _mpf(x: F) -> tuple:
    return L.from_rational(x.numerator, x.denominator, 53, L.round_nearest)


@pytest.mark.parametrize("pair,ok", [
    (["1/4", "3/4"], True),  # equal ends: inside
    (["0", "1"], True),
    (["1/2", "3/4"], False),  # misses the lower end only
    (["1/4", "1/2"], False),  # misses the upper end only
    (["1", "2"], False),
])
def test_stored_intervals_contain_the_recomputed_ones_at_both_ends(pair, ok):
    lo, hi = (_mpf(x) for x in Q4)
    with scaled(256):
        b = interval(*Q4)
        for check in (lambda: _inside_mpf(pair, lo, hi, "w"), lambda: _inside(pair, b, "w")):
            if ok:
                check()
            else:
                with pytest.raises(CheckFailure) as exc:
                    check()
                assert exc.value.where == "w" and str(exc.value).endswith(
                    f". Got [{pair[0]}, {pair[1]}].")
    if not ok:
        with pytest.raises(CheckFailure) as exc:
            _inside_mpf(pair, lo, hi, "w")
        assert str(exc.value) == ("w: Expected an interval containing the recomputed "
                                  f"[0.25, 0.75]. Got [{pair[0]}, {pair[1]}].")


def test_stored_ends_are_rounded_so_that_success_proves_the_inclusion():
    """A stored end that is not a binary64 number: 1/3 rounds (to nearest) below 1/3, so a
    lower end of 1/3 is compared as the float above it, and an upper end of 2/3 as the
    float below it; the recomputed [lo, hi] touching 1/3 or 2/3 from inside is refused."""
    from certified.checker.balls import mpf_down, mpf_up

    with pytest.raises(CheckFailure):  # the stored 1/3 may exceed lo = fl↓(1/3)
        _inside_mpf(["1/3", "1"], mpf_down(F(1, 3)), mpf_up(F(1, 2)), "w")
    with pytest.raises(CheckFailure):  # the stored 2/3 may fall below hi = fl↑(2/3)
        _inside_mpf(["0", "2/3"], mpf_down(F(1, 2)), mpf_up(F(2, 3)), "w")
    _inside_mpf(["1/4", "3/4"], mpf_down(F(1, 3)), mpf_up(F(2, 3)), "w")


def _parsed(cert: dict) -> tuple:
    inst = cert["instance"]
    m = {k: [[F(x) for x in r] for r in inst[k]] for k in ("V", "Q", "K", "X0")}
    d = len(m["V"])
    B = [[sum((m["Q"][r][a] * m["K"][r][b] for r in range(len(m["Q"]))), F(0))
          for b in range(d)] for a in range(d)]
    return copy.deepcopy(cert["tail_lemma"]), m["V"], B, m["X0"]


def _refusal(fn, *args) -> str:
    with pytest.raises(CheckFailure) as exc:
        fn(*args)
    return str(exc.value)


# -- Lemma S0 ------------------------------------------------------------------------------

def test_s0_facts_of_the_fixtures(certs):
    with scaled(256):
        assert check_stationary(*_parsed(certs["s0_85"]), None) == {"clusters": 1}
        # s0_52: V = diag(1, 0), z = (0, 1), (0, 2): V z_i = 0, so P is constant (and
        # enclosed: no entry 0 or 1)
        assert check_stationary(*_parsed(certs["s0_52"]), None) == {"clusters": 2,
                                                                    "boolean": False}


def test_s0_a_single_token_is_stationary():
    lemma = {"limits_z": [["1", "2"]], "clusters": 1}
    V = [[F(-1), F(0)], [F(0), F(-1)]]
    assert check_stationary(lemma, V, V, [[F(1), F(2)]], None) == {"clusters": 1}


def test_s0_refusals_word_for_word(certs):
    lemma, V, B, X0 = _parsed(certs["s0_85"])
    moved = [X0[0], [F(0), F(0)], X0[2]]  # V(z_1 − z_0) ≠ 0 for V = −I
    assert _refusal(check_stationary, lemma, V, B, moved, None) == (
        "instance: Expected V(z_j − z_i) = 0 for all tokens (Lemma S0). Got a moving "
        "configuration.")
    third = [X0[0], X0[1], [F(0), F(0)]]  # the first two agree, the third moves
    assert _refusal(check_stationary, lemma, V, B, third, None).startswith("instance: ")
    bad = dict(lemma, limits_z=[["1", "2"], ["1", "2"], ["1", "3"]])
    assert _refusal(check_stationary, bad, V, B, X0, None) == (
        "tail_lemma.limits_z: Expected the initial tokens (they never move). Got "
        "[['1', '2'], ['1', '2'], ['1', '3']].")
    bad = dict(lemma, limits_z=[["1", "2"], ["1", "2"], ["1", "x"]])
    assert _refusal(check_stationary, bad, V, B, X0, None).startswith("tail_lemma.limits_z")
    assert _refusal(check_stationary, dict(lemma, clusters=2), V, B, X0, None).startswith(
        "tail_lemma.clusters: Expected 1.")


def test_s0_attention_constant_refusals_word_for_word(certs):
    lemma, V, B, X0 = _parsed(certs["s0_52"])
    with scaled(256):
        P = lemma["attention_constant"]
        bad = copy.deepcopy(lemma)
        bad["attention_constant"][0][1] = ["0.9", "1"]
        msg = _refusal(check_stationary, bad, V, B, X0, None)
        assert msg.startswith("tail_lemma.attention_constant[0][1]: Expected an interval "
                              "containing the recomputed [0.7772998") and msg.endswith(
            ". Got [0.9, 1].")
        bad = dict(lemma, attention_constant=P[:1])
        assert _refusal(check_stationary, bad, V, B, X0, None) == (
            "tail_lemma.attention_constant: Expected 2×2 intervals [lo, hi]. Got "
            + repr(P[:1])[:60] + ".")
        moving = [[F(1), F(1)], [F(1), F(2)]]  # V z ≠ 0 (V = diag(1, 0)), V(z_1 − z_0) = 0
        assert _refusal(check_stationary, dict(lemma, limits_z=[["1", "1"], ["1", "2"]]),
                        V, B, moving, None) == (
            "tail_lemma.attention_constant: Expected absent (P is not constant: V z_i ≠ 0 "
            "for some token). Got present.")


# -- Lemmas S1 and S2 ----------------------------------------------------------------------

def test_s1_s2_setting_refusals_word_for_word(certs):
    lemma, V, B, X0 = _parsed(certs["s1_21"])
    two = [[F(2), F(0)], [F(0), F(1)]]
    assert _refusal(check_symmetric, lemma, two, B, X0) == (
        "instance: Expected V = λI and QᵀK = βI with λ, β > 0 (Lemmas S1, S2). Got another V "
        "or B.")
    assert _refusal(check_symmetric, lemma, V, two, X0).startswith("instance: ")
    for other in ([[F(-1), F(0)], [F(0), F(-1)]], [[F(0), F(0)], [F(0), F(0)]]):  # λ, β ≤ 0
        assert _refusal(check_symmetric, lemma, other, B, X0).startswith("instance: ")
        assert _refusal(check_symmetric, lemma, V, other, X0).startswith("instance: ")
    three = [X0[0], X0[1], [F(-2), F(-1)]]  # equal norms, but three tokens
    assert _refusal(check_symmetric, lemma, V, B, three).startswith("instance.X0: ")
    assert _refusal(check_symmetric, lemma, V, B, [X0[0], [F(1), F(1)]]) == (
        "instance.X0: Expected two distinct tokens of equal norm (Lemma S1). Got another "
        "configuration.")
    assert _refusal(check_symmetric, lemma, V, B, [X0[0], X0[0]]).startswith("instance.X0")
    assert _refusal(check_symmetric, dict(lemma, m=["3/2", "1/2"]), V, B, X0) == (
        "tail_lemma.m: Expected m = [Fraction(3, 2), Fraction(-1, 2)], w0 = [Fraction(1, 2), "
        "Fraction(3, 2)]. Got m = ['3/2', '1/2'], w0 = ['1/2', '3/2'].")
    assert _refusal(check_symmetric, dict(lemma, w0=["1/2", "1/2"]), V, B, X0).startswith(
        "tail_lemma.m: ")
    assert _refusal(check_symmetric, dict(lemma, u0="2"), V, B, X0) == (
        "tail_lemma.u0: Expected 5/2. Got 2.")


def test_s2_setting_refusals_word_for_word(certs):
    lemma, V, B, X0 = _parsed(certs["s2_31"])
    for tokens in ([[F(1)], [F(0)], [F(-2)]], [[F(1)], [F(1, 2)], [F(-1)]],
                   [[F(-1)], [F(0)], [F(1, 1)]][:2]):
        assert _refusal(check_symmetric, lemma, V, B, tokens) == (
            "instance.X0: Expected d = 1 and tokens {−a, 0, a}, a > 0 (Lemma S2). Got another "
            "configuration.")
    zero = [[F(0)], [F(0)], [F(0)]]
    assert _refusal(check_symmetric, lemma, V, B, zero).startswith("instance.X0")
    assert _refusal(check_symmetric, dict(lemma, a0="2"), V, B, X0) == (
        "tail_lemma.a0: Expected 1. Got 2.")
    # the outer tokens swapped: the middle token's row of P* is the one that spreads
    # (the outer tokens attend to themselves)
    lemma2 = dict(lemma, limits_z=[lemma["limits_z"][2], lemma["limits_z"][1],
                                   lemma["limits_z"][0]])
    with scaled(256):
        assert check_symmetric(lemma2, V, B, [X0[2], X0[1], X0[0]]) == {
            "clusters": 3, "P_star": [[1, 0, 0], [F(1, 3)] * 3, [0, 0, 1]]}
    lemma3 = dict(lemma, limits_z=[lemma["limits_z"][1], lemma["limits_z"][0],
                                   lemma["limits_z"][2]],
                  attention_limit=[["1/3", "1/3", "1/3"], ["0", "1", "0"], ["0", "0", "1"]])
    with scaled(256):  # the middle token first
        assert check_symmetric(lemma3, V, B, [X0[1], X0[0], X0[2]])["P_star"] == [
            [F(1, 3)] * 3, [0, 1, 0], [0, 0, 1]]


def test_s1_s2_limit_objects_refusals_word_for_word(certs):
    with scaled(256):
        for name, n, d in (("s1_21", 2, 2), ("s2_31", 3, 1)):
            lemma, V, B, X0 = _parsed(certs[name])
            key = "integral_I_u0" if name == "s1_21" else "integral_J_u0"
            fac = "contraction_exp_minus_I" if name == "s1_21" else "contraction_exp_minus_J"
            for k in (key, fac, "distance_between_limits"):
                bad = dict(lemma, **{k: ["0", "0"]})
                assert _refusal(check_symmetric, bad, V, B, X0).startswith(
                    f"tail_lemma.{k}: Expected an interval containing the recomputed ")
            bad = dict(lemma, limits_z=lemma["limits_z"][:-1])
            assert _refusal(check_symmetric, bad, V, B, X0) == (
                f"tail_lemma.limits_z: Expected {n}×{d} intervals (one per token and "
                f"coordinate). Got {repr(bad['limits_z'])[:60]}.")
            bad = copy.deepcopy(lemma)
            bad["limits_z"][n - 1][d - 1] = ["5", "6"]
            assert _refusal(check_symmetric, bad, V, B, X0).startswith(
                f"tail_lemma.limits_z[{n - 1}][{d - 1}]: Expected an interval containing")
            P = lemma["attention_limit"]
            bad = dict(lemma, attention_limit=[list(reversed(r)) for r in P])
            assert _refusal(check_symmetric, bad, V, B, X0).startswith(
                "tail_lemma.attention_limit: Expected P* = ")
            assert _refusal(check_symmetric, dict(lemma, clusters=1), V, B, X0).startswith(
                "tail_lemma.clusters: Expected ")


def _mp(q: F):
    """The rational q as an mpf at mpmath's working precision."""
    return mpmath.mpf(q.numerator) / q.denominator


def _pair_f(u):  # the S1 integrand 1/(u(e^{2u} − 1))
    return 1 / (u * mpmath.expm1(2 * u))


def _triple_f(u):  # the S2 integrand (1 + 2e^{−u})/(2u(e^u − e^{−u}))
    return (1 + 2 * mpmath.exp(-u)) / (2 * u * (mpmath.exp(u) - mpmath.exp(-u)))


@pytest.mark.parametrize("kind,u0", [("pair", F(1, 3)), ("triple", F(5, 2))])
def test_the_cached_integral_is_keyed_on_the_scale_and_contains_mpmaths(kind, u0):
    """``_integral`` is cached per (kind, u₀, field, scale): each scale gets its own ball,
    which contains mpmath's quadrature at 60 digits and narrows with the scale, and a
    repeated call is the same ball."""
    from certified.checker.audits import _integral

    f = _pair_f if kind == "pair" else _triple_f
    with mpmath.workdps(60):
        ref = mpmath.quad(f, [_mp(u0), 8, 64, mpmath.inf])
        tol = mpmath.mpf(10) ** -55  # mpmath's own error at 60 digits, below both widths
        widths = []
        for bits in (160, 256, 160):
            with scaled(bits):
                b = _integral(kind, u0, "w")
                assert _integral(kind, u0, "w") is b
                lo, hi = _mp(b.lo_q()), _mp(b.hi_q())
                assert lo - tol <= ref <= hi + tol, (bits, lo, ref, hi)
                widths.append(hi - lo)
    # narrow enough at both scales that a ball read at the other scale (2^96 off) misses:
    # measured 3e-15 (pair) and 1.3e-30 (triple) at 160 bits; at 256 bits the tail bound at
    # U = 64 (≈ 2e-58 for the pair, ≈ 1.3e-30 for the triple, whose tail is e^-U)
    assert widths[0] < mpmath.mpf(10) ** -12 and widths[1] < mpmath.mpf(10) ** -29
    assert widths[1] < widths[0] and widths[2] == widths[0]


# -- the quadrature's ingredients (Lemma C8): sup bounds, disks, the tail at U -----------------

@pytest.mark.parametrize("kind", ["pair", "triple"])
@pytest.mark.parametrize("c,R", [(F(1), F(1, 2)), (F(3), F(1)), (F(10), F(4)),
                                 (F(1, 2), F(1, 4))])
def test_sup_bounds_are_the_lemmas_formula_and_hold_on_the_disk(kind, c, R):
    """``_pair_sup``/``_triple_sup`` on the disk |u − c| ≤ R (x = c − R > 0) are the
    lemma's closed forms at x, rounded up by at most 2^-40 relative, and bound |f| at the
    disk's real point x (where |f| attains them for the pair integrand) and at 64 points of
    its boundary circle."""
    from certified.checker.audits import _pair_sup, _triple_sup

    f, sup = (_pair_f, _pair_sup) if kind == "pair" else (_triple_f, _triple_sup)
    with mpmath.workdps(60):
        x = _mp(c - R)
        closed = f(x)  # the lemma's closed form is the integrand at the disk's real point x
        with scaled(256):
            s = _mp(sup(c, R))
        assert closed <= s <= closed * (1 + mpmath.mpf(2) ** -40)
        assert abs(f(x)) <= s
        for k in range(64):
            u = x + _mp(R) * (1 + mpmath.expjpi(
                mpmath.mpf(k) / 32))
            assert abs(f(u)) <= s


@pytest.mark.parametrize("u", [F(1, 10), F(1), F(7), F(8), F(9), F(100)])
def test_each_disk_stays_in_the_right_half_plane(u):
    """The disk around a centre u has Re ≥ u/2 > 0 (where both integrands are analytic)."""
    from certified.checker.audits import _disk_radius

    assert 0 < _disk_radius(u) <= u / 2


@pytest.mark.parametrize("kind,u0", [("pair", F(1, 3)), ("pair", F(7, 2)),
                                     ("triple", F(5, 2)), ("triple", F(1, 5))])
def test_the_integral_at_256_bits_contains_mpmaths_and_is_as_wide_as_its_tail(kind, u0):
    """At 256 bits the enclosure of I(u₀) or J(u₀) contains mpmath's quadrature at 100
    digits to 10^-90, and is no wider than the lemma's tail bound at U = 64 plus 2^-200: a
    tail bound too small misses the value (the true tail is ≈ 10^-58), one too large shows
    in the width."""
    from certified.checker.audits import _integral

    f = _pair_f if kind == "pair" else _triple_f
    with mpmath.workdps(100):
        a = _mp(u0)
        ref = mpmath.quad(f, [a, a + 1, 8, 32, 64, 96, mpmath.inf])
        U = mpmath.mpf(64)
        tail = mpmath.exp(-2 * U) / (2 * U * (1 - mpmath.exp(-2 * U))) if kind == "pair" \
            else (1 + 2 * mpmath.exp(-U)) * mpmath.exp(-U) / (2 * U * (1 - mpmath.exp(-2 * U)))
        with scaled(256):
            b = _integral(kind, u0, "w")
            lo, hi = _mp(b.lo_q()), _mp(b.hi_q())
        tol = mpmath.mpf(10) ** -90
        assert lo - tol <= ref <= hi + tol
        assert hi - lo <= tail + mpmath.mpf(2) ** -200


def test_s2_scaled_by_two_is_the_same_lemma_at_twice_the_distance(certs):
    """x ↦ 2x with β ↦ β/4 leaves every score, so u₀ = βa₀² and the integral, unchanged and
    doubles the limits: the checker accepts the scaled lemma (a u₀ computed as β, or as
    βa₀/a₀, would not match the stored integral at a₀ = 2)."""
    lemma, V, B, X0 = _parsed(certs["s2_31"])
    two = [[2 * x for x in row] for row in X0]
    quarter = [[x / 4 for x in row] for row in B]

    def doubled(iv):
        return [str(2 * F(iv[0])), str(2 * F(iv[1]))]

    scaled_lemma = dict(lemma, a0=str(2 * F(lemma["a0"])),
                        limits_z=[[doubled(iv) for iv in row] for row in lemma["limits_z"]],
                        distance_between_limits=doubled(lemma["distance_between_limits"]))
    with scaled(256):
        facts = check_symmetric(scaled_lemma, V, quarter, two)
        assert facts["P_star"] == check_symmetric(lemma, V, B, X0)["P_star"]
        assert _refusal(check_symmetric, lemma, V, quarter, two).startswith(
            "tail_lemma.a0: Expected ")


@pytest.mark.parametrize("field,edit", [
    ("tail_lemma.a0", lambda m: dict(m, a0="one")),
    ("tail_lemma.attention_limit", lambda m: dict(m, attention_limit=[
        ["x"] + row[1:] for row in m["attention_limit"]])),
])
def test_s2_names_the_field_of_an_unreadable_number(certs, field, edit):
    lemma, V, B, X0 = _parsed(certs["s2_31"])
    with scaled(256):
        assert _refusal(check_symmetric, edit(lemma), V, B, X0).startswith(f"{field}: ")


@pytest.mark.parametrize("got,want,message", [
    ("1/3", F(1, 2), "w: Expected 1/2. Got '1/3'."),
    (True, F(1), "w: Expected 1. Got True."),
    ("9" * 80, F(1), f"w: Expected 1. Got '{'9' * 59}."),
    ([1], {"a": 1}, "w: Expected an object with the fields ['a']. Got [1]."),
    ({"a": 1, "b": 2}, {"a": 1}, "w: Expected an object with the fields ['a']. Got "
                                 "{'a': 1, 'b': 2}."),
    ({"a": 2}, {"a": 1}, "w.a: Expected 1. Got 2."),
    ([1], [1, 2], "w: Expected a list of 2. Got [1]."),
    (5, [1, 2], "w: Expected a list of 2. Got 5."),
    (list(range(30)), [0], f"w: Expected a list of 1. Got {repr(list(range(30)))[:60]}."),
    ([1, 3], [1, 2], "w[1]: Expected 2. Got 3."),
    (True, 1, "w: Expected 1. Got True."),
    (1.0, 1, "w: Expected 1. Got 1.0."),
    ("x" * 80, "y", f"w: Expected 'y'. Got '{'x' * 59}."),
])
def test_same_compares_exactly_and_says_where(got, want, message):
    """``audits.same`` (Lemma S0's clusters and the exact limits): Fractions from their
    text, objects closed, lists by length then item, integers as integers; the stored
    value shown in at most 60 characters."""
    from certified.checker.audits import same

    with pytest.raises(CheckFailure) as exc:
        same(got, want, "w")
    assert str(exc.value) == message
    same(want if not isinstance(want, F) else str(want), want, "w")  # and equal passes
