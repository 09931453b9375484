"""The Lohner sets and the update of Lemmas C4 and C5 (``certified/checker/lohner.py``),
each function against an oracle that shares nothing with it: exact rationals
(``fractions``), mpmath's Taylor integrator for the flow and its Jacobian, and the
neighbouring binary64 numbers for round-to-nearest. Each test checks containment and a
width (or the exact refusal), in milliseconds."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from certified.checker.balls import Ball, const, interval, scaled
from certified.checker.dynamics import Field, Jets
from certified.checker.errors import CheckFailure
from certified.checker.fballs import FB, finterval
from certified.checker.lohner import (LohnerSet, _coords, _exponent, _float, _inverse_fb,
                                      _lohner_check, _pair, _times, _variational,
                                      centre_value, initial_set, parse_set,
                                      variational_many)


def _q(x) -> F:
    return F(float(x))


def _exact_inverse(A: list[list[F]]) -> list[list[F]]:
    """Gauss–Jordan on rationals (the oracle for _inverse_fb)."""
    N = len(A)
    M = [list(row) + [F(int(i == j)) for j in range(N)] for i, row in enumerate(A)]
    for col in range(N):
        piv = next(r for r in range(col, N) if M[r][col] != 0)
        M[col], M[piv] = M[piv], M[col]
        p = M[col][col]
        M[col] = [x / p for x in M[col]]
        for r in range(N):
            if r != col and M[r][col] != 0:
                f = M[r][col]
                M[r] = [a - f * b for a, b in zip(M[r], M[col])]
    return [row[N:] for row in M]


# -- reading a stored set ---------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1/3", "-7", "2/3", "9007199254740993", "-9007199254740995",
                                  "0.1", "1e-3", "-1234567890123456789/1000", "5e-324",
                                  "1/10", "123456789012345678901234567890"])
def test_float_is_the_nearest_binary64_number(text):
    """Neither neighbour of _float(x) is nearer to x; at a tie the even one is taken."""
    q, x = F(text), _float(text)
    here = abs(_q(x) - q)
    for y in (np.nextafter(x, np.inf), np.nextafter(x, -np.inf)):
        there = abs(_q(y) - q)
        assert here < there or (here == there and int(np.float64(x).view(np.int64)) % 2 == 0)


def test_pair_reads_exact_ends_and_refuses_a_reversed_or_malformed_interval():
    assert _pair(["-1/3", "2"], "w") == (F(-1, 3), F(2))
    assert _pair(["1/3", "1/3"], "w") == (F(1, 3), F(1, 3))
    with pytest.raises(CheckFailure) as exc:
        _pair(["1/2", "1/3"], "w.r")
    assert str(exc.value) == "w.r: Expected lo <= hi. Got [1/2, 1/3]."
    for bad in (["1"], ["a", "1"], [None, "1"], ["1/0", "1"]):
        with pytest.raises(CheckFailure) as exc:
            _pair(bad, "w.r")
        assert str(exc.value) == (f"w.r: Expected an interval [lo, hi] of exact numbers. "
                                  f"Got {bad!r}.")


def _stored(c, A, r) -> dict:
    return {"c": [str(x) for x in c], "A": [[str(x) for x in row] for row in A],
            "r": [[str(a), str(b)] for a, b in r]}


def test_parse_set_encloses_the_exact_basis_and_keeps_the_exact_numbers():
    c, A = [F(1, 3), F(-2)], [[F(1, 3), F(2, 7)], [F(-5, 11), F(1)]]
    r = [(F(-1, 9), F(1, 5)), (F(0), F(0))]
    with scaled(256):
        S = parse_set(_stored(c, A, r), 2, "s")
        assert S.rq == r
        assert [(b.lo_q(), b.hi_q()) for b in S.c] == [
            (const(x).lo_q(), const(x).hi_q()) for x in c]
        assert all(S.c[i].lo_q() <= c[i] <= S.c[i].hi_q() for i in range(2))
        assert all(b.lo_q() <= lo and hi <= b.hi_q() and b.hi_q() - b.lo_q() <= (hi - lo) + F(1, 2 ** 250)
                   for b, (lo, hi) in zip(S.r, r))
        # the exact basis, read on demand
        assert [[(b.lo_q(), b.hi_q()) for b in row] for row in S.A] == [
            [(const(x).lo_q(), const(x).hi_q()) for x in row] for row in A]
    Af = S.binary64_A()
    for i in range(2):
        for j in range(2):
            lo, hi = _q(Af.lo()[i, j]), _q(Af.hi()[i, j])
            assert lo <= A[i][j] <= hi
            assert hi - lo <= 2 ** -50 * abs(A[i][j])  # one rounding, no more


def test_stored_basis_balls_contain_the_exact_entries_by_their_own_radius():
    """The binary64 ball (m, r) of each stored A entry contains it: |A − m| ≤ r exactly
    (not only after lo()/hi() step one float outward)."""
    A = [[F(1, 3), F(2, 7)], [F(-5, 11), F(10 ** 20 + 1)]]
    with scaled(256):
        Af = parse_set(_stored([F(0), F(0)], A, [(F(0), F(0))] * 2), 2, "s").binary64_A()
    for i in range(2):
        for j in range(2):
            assert abs(A[i][j] - _q(Af.m[i, j])) <= _q(Af.r[i, j])


SHAPES = "s: Expected c of length 2, A 2×2, r of length 2. Got other shapes."


@pytest.mark.parametrize("edit, message", [
    ({"c": ["1"]}, SHAPES),
    ({"c": ["1", "2", "3"]}, SHAPES),
    ({"A": [["1", "0"]]}, SHAPES),
    ({"A": [["1", "0", "0"], ["0", "1", "0"]]}, SHAPES),
    ({"r": [["0", "1"]]}, SHAPES),
    ({"A": [["1e400", "0"], ["0", "1"]]},
     "s.A: Expected entries within binary64's range. Got larger ones."),
    ({"r": [["0", "1"], ["2", "1"]]}, "s.r: Expected lo <= hi. Got [2, 1]."),
])
def test_parse_set_refuses_wrong_shapes_and_entries(edit, message):
    rec = dict(_stored([F(0), F(0)], [[F(1), F(0)], [F(0), F(1)]], [(F(0), F(1))] * 2), **edit)
    with scaled(256), pytest.raises(CheckFailure) as exc:
        parse_set(rec, 2, "s")
    assert str(exc.value) == message


@pytest.mark.parametrize("rec, got", [
    ({"A": [["1", "0"], ["0", "1"]], "r": []}, "KeyError('c')"),
    ({"c": ["x", "0"], "A": [["1", "0"], ["0", "1"]], "r": []}, "x"),
    ({"c": ["0", "0"], "A": [["1", None], ["0", "1"]], "r": []}, None)])
def test_parse_set_refuses_a_missing_key_or_an_inexact_entry(rec, got):
    if not isinstance(got, str) or got == "x":  # the reader's own exception, shown as is
        try:
            F(got)
        except (TypeError, ValueError) as e:
            got = repr(e)
    with scaled(256), pytest.raises(CheckFailure) as exc:
        parse_set(rec, 2, "s")
    assert str(exc.value) == f"s: Expected a set {{c, A, r}} of exact numbers. Got {got}."


# -- the sets: the initial set, their images, the scaled coordinates ---------------------------

def test_initial_set_is_the_exact_tokens_with_the_identity_basis():
    X0 = [[F(1, 3), F(-2)], [F(5, 7), F(0)]]
    with scaled(256):
        S = initial_set(X0)
        flat = [x for row in X0 for x in row]
        box = S.box()
        for i, x in enumerate(flat):
            assert box[i].lo_q() <= x <= box[i].hi_q()
            assert box[i].hi_q() - box[i].lo_q() <= F(16, 2 ** 256)  # a few units of 2^-256
            assert S.r[i].m == 0 and S.c[i].r == 0  # centre a point, r centred at 0
        assert [[(b.m, b.r) for b in row] for row in S.A] == [
            [(1 << 256 if i == j else 0, 0) for j in range(4)] for i in range(4)]
        assert S.binary64_A().m.tolist() == np.eye(4).tolist()
        assert not S.binary64_A().r.any()


def test_initial_set_keeps_each_tokens_own_radius():
    """c ± r contains each exact token (no product slack: c and r themselves), when the
    token is not a number of the scale (1/3 has a radius of one unit)."""
    X0 = [[F(1, 3)], [F(-2, 7)]]
    with scaled(256):
        S = initial_set(X0)
        for i, x in enumerate(x for row in X0 for x in row):
            c, r = S.c[i], S.r[i]
            assert c.r == 0 and r.m == 0 and r.r >= 1
            assert F(c.m - r.r, 2 ** 256) <= x <= F(c.m + r.r, 2 ** 256)


def test_linear_image_and_box_contain_every_point_of_the_set():
    """{M(c + A·ρ)} for ρ at the corners of an asymmetric r lies in linear_image(M), and
    c + A·ρ in box(); both are the exact ranges to 10⁻¹³ (the radii of a product are
    carried in binary64, rounded up: Lemma C1)."""
    c = [F(1, 3), F(-2, 7)]
    A = [[F(1), F(1, 2)], [F(-1, 4), F(2)]]
    r = [(F(-1, 8), F(1, 2)), (F(1, 16), F(3, 4))]
    M = [[F(2), F(-1)], [F(1, 3), F(5)]]
    with scaled(256):
        S = LohnerSet(np.array([const(x) for x in c], dtype=object),
                      np.array([[const(x) for x in row] for row in A], dtype=object),
                      np.array([interval(a, b) for a, b in r], dtype=object))
        img = S.linear_image(np.array([[const(x) for x in row] for row in M], dtype=object))
        box = S.box()
        corners = [(x, y) for x in r[0] for y in r[1]]
        pts = [[c[i] + A[i][0] * x + A[i][1] * y for i in range(2)] for x, y in corners]
        ims = [[M[i][0] * p[0] + M[i][1] * p[1] for i in range(2)] for p in pts]
        for got, vals in ((box, pts), (img, ims)):
            for i in range(2):
                lo, hi = min(v[i] for v in vals), max(v[i] for v in vals)
                assert got[i].lo_q() <= lo and hi <= got[i].hi_q()
                assert (lo - got[i].lo_q()) + (got[i].hi_q() - hi) <= F(1, 10 ** 13)


@pytest.mark.parametrize("mags", [[F(3, 8), F(-1, 5)], [F(2) ** 40, F(1)], [F(1, 2 ** 120)] * 2,
                                  [F(0), F(0)]])
def test_the_coordinates_are_scaled_to_order_one_and_enclose_r(mags):
    with scaled(256):
        r = np.array([interval(-abs(x), abs(x)) if x else Ball(0, 0) for x in mags], dtype=object)
        e = _exponent(r)
        S = LohnerSet(np.array([Ball(0, 0)] * 2, dtype=object), None, r, FB(np.eye(2)))
        rs, e2 = _coords(S)
        assert e2 == e
        top = max(abs(x) for x in mags)
        if top == 0:
            assert e == 0
        else:
            assert F(1, 2) <= top * F(2) ** e <= 1
        for i, b in enumerate(r):
            assert _q(rs.lo()[i]) <= b.lo_q() * F(2) ** e and b.hi_q() * F(2) ** e <= _q(rs.hi()[i])
            assert _q(rs.hi()[i]) - _q(rs.lo()[i]) <= (b.hi_q() - b.lo_q()) * F(2) ** e * (1 + F(1, 2 ** 45)) \
                + F(1, 2 ** 200)


def test_exponent_of_a_ball_off_zero():
    """[1/4, 3/4]: the scale puts its largest point 3/4 at [1/2, 1], not its midpoint."""
    with scaled(256):
        r = np.array([interval(F(1, 4), F(3, 4)), interval(F(-1, 16), F(0))], dtype=object)
        e = _exponent(r)
    assert F(1, 2) <= F(3, 4) * F(2) ** e <= 1


# -- the inverse basis and the time interval (Lemma C4) ----------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_inverse_encloses_the_inverse_of_every_matrix_in_the_ball(seed):
    rng = np.random.default_rng(seed)
    N = 3
    m = rng.normal(size=(N, N)) + 3 * np.eye(N)
    rad = 2.0 ** -30
    A = FB(m, np.full((N, N), rad))
    Ainv = _inverse_fb(A, "b")
    # the midpoint and two opposite corners of the ball
    for sign in (0, 1, -1):
        exact = [[_q(m[i, j]) + sign * (-1) ** (i + j) * _q(rad) for j in range(N)] for i in range(N)]
        inv = _exact_inverse(exact)
        for i in range(N):
            for j in range(N):
                assert _q(Ainv.lo()[i, j]) <= inv[i][j] <= _q(Ainv.hi()[i, j])
    # width: of the order of ‖A⁻¹‖²·rad, not more
    assert Ainv.r.max() <= 50 * rad * np.abs(np.linalg.inv(m)).sum(axis=1).max() ** 2


def test_inverse_refuses_a_singular_or_too_uncertain_basis():
    with pytest.raises(CheckFailure) as exc:
        _inverse_fb(FB(np.ones((2, 2))), "b")
    assert str(exc.value) == "b: Expected an invertible basis. Got a singular one."
    with pytest.raises(CheckFailure) as exc:
        _inverse_fb(FB(np.eye(2), np.full((2, 2), 0.3)), "b")
    assert str(exc.value) == "b: Expected an invertible basis (‖I − RA‖ < 1/2). Got ‖I − RA‖ = 0.6."
    # just below 1/2 passes: ‖I − RA‖ = 2·0.24 = 0.48
    assert _inverse_fb(FB(np.eye(2), np.full((2, 2), 0.24)), "b").r.max() < 1


@pytest.mark.parametrize("m, rad", [(F(1, 2), F(1, 5)), (F(1), F(2, 5)), (F(-3), F(1))])
def test_inverse_neumann_bound_holds_where_it_is_attained(m, rad):
    """1 × 1 balls m ± rad with ‖I − RA‖ = rad/|m| far from 0: the bound
    ε‖R‖/(1 − ε) is attained at the end m ∓ rad nearer 0, so a smaller bound misses it."""
    A = FB(np.array([[float(m)]]), np.array([[float(rad)]]))
    inv = _inverse_fb(A, "b")
    mf, rf = _q(A.m[0, 0]), _q(A.r[0, 0])
    for end in (mf - rf, mf + rf):
        assert _q(inv.lo()[0, 0]) <= 1 / end <= _q(inv.hi()[0, 0])
    # and not much more: within 10⁻¹² of the exact range's width
    lo, hi = sorted((1 / (mf - rf), 1 / (mf + rf)))
    assert _q(inv.hi()[0, 0]) - _q(inv.lo()[0, 0]) <= (hi - lo) * (1 + F(1, 10 ** 12)) + \
        2 * abs(1 / mf - (lo + hi) / 2)


@pytest.mark.parametrize("h", [F(1, 3), F(1, 2 ** 70), F(10 ** 6, 7)])
def test_times_is_a_tight_ball_of_zero_to_h(h):
    T = _times(h)
    lo, hi = _q(T.lo()), _q(T.hi())
    assert lo <= 0 and h <= hi
    assert hi - lo <= h * (1 + F(1, 2 ** 50))


# -- the centre's Taylor polynomial -------------------------------------------------------------

def test_centre_value_is_horner_on_the_exact_coefficients_and_the_tail_summed():
    coeffs = [[F(1, 3), F(-2)], [F(1, 7), F(5)], [F(-1, 11), F(1, 2)]]
    h = F(3, 5)
    with scaled(300):
        exact = [np.array([[const(x)] for x in cf], dtype=object) for cf in coeffs]
        acc, tail = centre_value(Jets(exact, None, None), h)
        for i in range(2):
            want = sum(cf[i] * h ** k for k, cf in enumerate(coeffs))
            assert acc[i].lo_q() <= want <= acc[i].hi_q()
            assert acc[i].hi_q() - acc[i].lo_q() <= F(1, 2 ** 290)
        assert tail is None
        t = FB(np.array([[[1.0], [2.0]], [[0.5], [-4.0]]]), np.full((2, 2, 1), 2.0 ** -40))
        acc2, tail2 = centre_value(Jets(exact, t, None), h)
        assert tail2.m.tolist() == [1.5, -2.0]
        assert tail2.r.max() <= 2.0 ** -38 and tail2.r.min() >= 2 * 2.0 ** -40
        assert [(b.m, b.r) for b in acc2] == [(b.m, b.r) for b in acc]


# -- the variational enclosure (Lemma C5) against the matrix exponential -------------------------

def _inside_all(box: FB, M) -> bool:
    """Every entry of the matrix M (numbers of any exact kind) inside the ball matrix."""
    n, m = box.shape
    return all(box.lo()[i, j] <= M[i][j] <= box.hi()[i, j] for i in range(n) for j in range(m))


def _expm(K: np.ndarray, h: F) -> list[list[mpmath.mpf]]:
    with mpmath.workdps(40):
        E = mpmath.expm(mpmath.matrix(K.tolist()) * (mpmath.mpf(h.numerator) / h.denominator))
        return [[E[i, j] for j in range(K.shape[1])] for i in range(K.shape[0])]


@pytest.mark.parametrize("seed", range(3))
def test_variational_box_contains_the_flow_of_a_constant_jacobian(seed):
    """With DF ≡ K (a point), the flow's Jacobian over [0, h] is exp(hK): it lies in
    I + h·K·J, whose width is of the order (h‖K‖)²."""
    rng = np.random.default_rng(seed)
    K = rng.normal(size=(3, 3))
    h = F(1, 16)
    out = variational_many(FB(K[None]), h, "v")[0]
    E = _expm(K, h)
    hK = float(h) * np.abs(K).sum(axis=1).max()
    assert _inside_all(out, E)
    assert out.r.max() <= 2 * hK ** 2


def test_variational_box_contains_every_flow_of_an_interval_jacobian():
    """DF(t) anywhere in K ± 1/8: exp(hK') for the corners K' lie inside."""
    K = np.array([[0.5, -1.0], [2.0, -0.25]])
    h = F(1, 8)
    out = variational_many(FB(K[None], np.full((1, 2, 2), 0.125)), h, "v")[0]
    for s in (-1, 0, 1):
        assert _inside_all(out, _expm(K + s * 0.125 * np.array([[1, -1], [-1, 1]]), h))
    assert out.r.max() < 0.1


@pytest.mark.parametrize("k", [4.0, -4.0])
def test_variational_box_of_a_scalar_flow_with_hk_one_half(k):
    """ẏ = k·y over h = 1/8 (hk = ±1/2): the box contains e^{hk} (its fixed point J must
    hold every e^{sk}, s ∈ [0, h], which a wrong iteration misses)."""
    out = variational_many(FB(np.array([[[k]]])), F(1, 8), "v")[0]
    e = mpmath.exp(mpmath.mpf(k) / 8)
    assert out.lo()[0, 0] <= e <= out.hi()[0, 0]
    assert out.r[0, 0] <= 0.5


def test_a_box_that_passes_is_not_widened_by_the_others():
    easy, hard = np.array([[0.1, 0.0], [0.0, -0.1]]), np.array([[2.0, 0.5], [0.5, -2.0]])
    h = F(1, 8)
    alone = variational_many(FB(easy[None]), h, "v")[0]
    both = variational_many(FB(np.stack([easy, hard])), h, "v")
    assert both[0].m.tolist() == alone.m.tolist() and both[0].r.tolist() == alone.r.tolist()
    assert _inside_all(both[1], _expm(hard, h))


def test_variational_batch_of_more_boxes_than_coordinates():
    Ks = np.stack([np.array([[0.5, 0.0], [0.0, -0.5]]) * (j + 1) for j in range(3)])
    out = variational_many(FB(Ks), F(1, 8), "v")
    for j in range(3):
        assert _inside_all(out[j], _expm(Ks[j], F(1, 8)))


def test_no_fixed_point_box_is_refused():
    with pytest.raises(CheckFailure) as exc:
        variational_many(FB((20.0 * np.eye(2))[None]), F(1), "step.v")
    assert str(exc.value) == ("step.v: Expected a variational enclosure I + [0,h]·DF·J ⊆ J. "
                              "Got no fixed-point box in 8 iterations.")


def _flow_and_jacobian(y0: list, t0: F, h: F) -> tuple[list, list]:
    """Two tokens, d = 1, V = B = 1 in z: the flow and its Jacobian from (t0, y0) to t0 + h,
    by mpmath's Taylor integrator on the variational system (25 digits)."""
    with mpmath.workdps(25):
        def f(t, u):
            z, Phi = u[:2], [[u[2], u[3]], [u[4], u[5]]]
            c = mpmath.exp(2 * t)
            dz, Jm = [], []
            for i in range(2):
                w = [mpmath.exp(c * z[i] * z[j]) for j in range(2)]
                P = [w[j] / (w[0] + w[1]) for j in range(2)]
                mean = P[0] * z[0] + P[1] * z[1]
                dz.append(mean - z[i])
                row = []
                for m in range(2):
                    # ∂(Σ_j P_ij z_j)/∂z_m = P_im + Σ_j P_ij z_j (a_jm − Σ_k P_ik a_km),
                    # a_jm = ∂ log w_ij/∂z_m = c(δ_im z_j + z_i δ_jm)
                    a = [c * ((z[j] if i == m else 0) + (z[i] if j == m else 0)) for j in range(2)]
                    abar = P[0] * a[0] + P[1] * a[1]
                    row.append(P[m] + sum(P[j] * z[j] * (a[j] - abar) for j in range(2))
                               - (1 if i == m else 0))
                Jm.append(row)
            dPhi = [Jm[i][0] * Phi[0][k] + Jm[i][1] * Phi[1][k] for i in range(2) for k in range(2)]
            return dz + dPhi
        start = [mpmath.mpf(y.numerator) / y.denominator for y in y0] + [1, 0, 0, 1]
        t = mpmath.mpf(t0.numerator) / t0.denominator
        u = mpmath.odefun(f, t, start)(t + mpmath.mpf(h.numerator) / h.denominator)
        return u[:2], [[u[2], u[3]], [u[4], u[5]]]


def test_variational_of_the_field_contains_the_flows_jacobian():
    """Lemma C5 on the field itself: the tokens ∓1/4 at t0 = 1/4 stay in the tube
    ∓1/4 ± 1/16 over h = 1/32 (checked on the oracle's path), so the Jacobian of the flow
    lies in _variational's box, which is computed from DF over the tube and [t0, t0 + h]."""
    field = Field(F(1), [[F(1)]], 2, "z")
    t0, h = F(1, 4), F(1, 32)
    for tau in (h / 4, h / 2, h):
        z, _ = _flow_and_jacobian([F(-1, 4), F(1, 4)], t0, tau)
        assert abs(z[0] + 0.25) < 1 / 16 and abs(z[1] - 0.25) < 1 / 16
    tube = FB(np.array([[-0.25], [0.25]]), np.full((2, 1), 1 / 16))
    out = _variational(field, tube, t0, h, "v")
    _, Phi = _flow_and_jacobian([F(-1, 4), F(1, 4)], t0, h)
    assert _inside_all(out, Phi)
    assert out.r.max() < 0.01
    # the same box as the batch form on the Jacobian over the tube and [t0, t0 + h]
    K = field.jacobian(tube, field.score_factor(finterval([(t0, t0 + h)]).reshape(())))
    same = variational_many(K[None], h, "v")[0]
    assert out.m.tolist() == same.m.tolist() and out.r.tolist() == same.r.tolist()


def test_variational_failure_names_its_place():
    field = Field(F(1), [[F(1)]], 2, "z")
    tube = FB(np.array([[-0.25], [0.25]]), np.full((2, 1), 1 / 16))
    with pytest.raises(CheckFailure) as exc:
        _variational(field, tube, F(0), F(1), "step.v", K=FB(20.0 * np.eye(2)))
    assert str(exc.value).startswith("step.v: Expected a variational enclosure")


# -- the update and its containment test (Lemma C4) ----------------------------------------------

def _update_case(scale_r: F, tail: bool = False, f: F = F(1, 1024)):
    """A two-dimensional update with every part exact: the set c + A·r (r scaled by
    ``scale_r``), a point Mlin, the centre polynomial T = Σ Z_k h^k with exact Z_k, the
    remainder M·f·[−1, 1], and the stored basis A₁ with its exact inverse. Returns the
    pieces and the exact r₁' = A₁⁻¹(Mlin·A·r + T − c₁ ± M f) (componentwise intervals)."""
    A = [[F(1), F(1, 2)], [F(0), F(1)]]
    r = [(-scale_r, scale_r), (-scale_r / 2, scale_r / 4)]
    Mlin = [[F(9, 8), F(-1, 4)], [F(1, 16), F(7, 8)]]
    coeffs = [[F(1, 3), F(-2)], [F(1, 7), F(5)], [F(-1, 11), F(1, 2)]]
    h = F(1, 8)
    A1 = [[F(2), F(0)], [F(1, 4), F(1)]]
    M = np.array([2.0 ** -60, 2.0 ** -61])  # (replaced by some tests)
    T = [sum(cf[i] * h ** k for k, cf in enumerate(coeffs)) for i in range(2)]
    # the stored centre is the polynomial's value (as the producer's is, to its precision):
    # the checker resolves T − c₁ to binary64's relative precision of its size
    c1 = list(T)
    tail_vals = [F(3, 2 ** 70), F(-1, 2 ** 71)] if tail else [F(0), F(0)]
    MA = [[sum(Mlin[i][k] * A[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
    inv = _exact_inverse(A1)
    C = [[sum(inv[i][k] * MA[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
    rhs_lo = [T[i] + tail_vals[i] - c1[i] - _q(M[i]) * f for i in range(2)]
    rhs_hi = [T[i] + tail_vals[i] - c1[i] + _q(M[i]) * f for i in range(2)]

    def lin(row, los, his):  # the range of Σ row_k x_k over the box [los, his]
        lo = sum(min(a * l, a * u) for a, l, u in zip(row, los, his))
        hi = sum(max(a * l, a * u) for a, l, u in zip(row, los, his))
        return lo, hi
    exact = []
    for i in range(2):
        a = lin(C[i], [x for x, _ in r], [y for _, y in r])
        b = lin(inv[i], rhs_lo, rhs_hi)
        exact.append((a[0] + b[0], a[1] + b[1]))
    return dict(A=A, r=r, Mlin=Mlin, coeffs=coeffs, h=h, c1=c1, A1=A1, M=M, f=f,
                tail=tail_vals if tail else None), exact


def _accepts_widened(case: dict, exact: list) -> tuple[list, list]:
    """Run the update against the exact image widened by 10⁻⁹ of its width at each end:
    accepted, and the checker's own r₁ contains the image and exceeds it by at most 10⁻¹⁰
    of its width. Returns (the stored intervals, the pads)."""
    pad = [(b - a) * F(1, 10 ** 9) for a, b in exact]
    wide = [(a - p, b + p) for (a, b), p in zip(exact, pad)]
    mine = _run_update(case, wide)
    for i, (a, b) in enumerate(exact):
        assert mine.r[i].lo_q() <= a and b <= mine.r[i].hi_q()
        assert (a - mine.r[i].lo_q()) + (mine.r[i].hi_q() - b) <= (b - a) * F(1, 10 ** 10)
    assert [(x.m, x.r) for x in mine.c] == [(const(x).m, const(x).r) for x in case["c1"]]
    return wide, pad


def _run_update(case: dict, stored_r: list):
    S = LohnerSet(np.array([Ball(0, 0)] * 2, dtype=object),
                  np.array([[const(x) for x in row] for row in case["A"]], dtype=object),
                  np.array([interval(a, b) for a, b in case["r"]], dtype=object))
    rs, e0 = _coords(S)
    exact = [np.array([[const(x)] for x in cf], dtype=object) for cf in case["coeffs"]]
    tail = None
    if case["tail"] is not None:
        tail = FB(np.array([[[float(x)] for x in case["tail"]]]))
    jets = Jets(exact, tail, None)
    out = parse_set(_stored(case["c1"], case["A1"], stored_r), 2, "step")
    Mlin = FB(np.array([[float(x) for x in row] for row in case["Mlin"]]))
    return _lohner_check(S, rs, e0, jets, case["h"], case["M"], case["f"], Mlin, out, "step")


@pytest.mark.parametrize("scale_r, tail", [(F(1, 2 ** 20), False), (F(1, 2 ** 90), False),
                                           (F(1, 2 ** 20), True), (F(1, 2 ** 90), True),
                                           (F(3, 4), False),
                                           (F(2) ** 600, False)])
def test_update_accepts_a_stored_set_just_containing_the_image_and_refuses_one_just_inside(
        scale_r, tail):
    """Stored r₁ = the exact image r₁' widened by 10⁻⁹ of its width: accepted, and the
    checker's own r₁ contains r₁' and is within 10⁻¹⁰ of its width. One end moved inside
    r₁' by 10⁻⁹ of its width (the other end still outside): refused at that coordinate,
    and the message shows an enclosure of r₁' and the stored interval."""
    with scaled(256):
        case, exact = _update_case(scale_r, tail)
        wide, pad = _accepts_widened(case, exact)
        for i in range(2):
            for end in (0, 1):
                narrow = list(wide)
                a, b = exact[i]
                narrow[i] = (a + pad[i], b + pad[i]) if end == 0 else (a - pad[i], b - pad[i])
                with pytest.raises(CheckFailure) as exc:
                    _run_update(case, narrow)
                msg = str(exc.value)
                head = f"step.set.r[{i}]: Expected an interval containing the recomputed ["
                assert msg.startswith(head), msg
                shown = msg[len(head):].split("]")[0].split(", ")
                # (shown to 25 digits: it encloses r₁' to that relative precision)
                tol = (abs(a) + abs(b)) * F(1, 10 ** 22)
                assert F(shown[0]) <= a + tol and b - tol <= F(shown[1]), (shown, a, b)
                assert msg.endswith(f"Got {interval(*narrow[i])!r}.")


def test_update_below_binary64s_range_is_carried_scaled():
    """r of size 2⁻¹¹⁰⁰ (below the smallest binary64 number), remainder 2⁻¹¹⁵⁰: the
    update is carried scaled by 2^{e₁}, so the exact image still fits a stored set only
    10⁻⁹ of its width wider, and one 10⁻⁹ narrower is refused."""
    with scaled(1400):
        case, exact = _update_case(F(1, 2 ** 1100), f=F(1, 2 ** 1090))
        wide, pad = _accepts_widened(case, exact)
        with pytest.raises(CheckFailure):
            _run_update(case, [(exact[0][0] + pad[0], exact[0][1] + pad[0]), wide[1]])


def test_a_non_finite_update_is_refused_in_words():
    with scaled(256):
        case, exact = _update_case(F(1, 2 ** 20))
        case["M"] = np.array([np.inf, 1.0])
        with pytest.raises(CheckFailure) as exc:
            _run_update(case, [(a - 1, b + 1) for a, b in exact])
    assert str(exc.value).startswith("step.set.r[0]: Expected an interval containing the "
                                     "recomputed 'a non-finite enclosure'. Got ")


def test_a_singular_stored_basis_is_named_by_its_record():
    with scaled(256):
        case, exact = _update_case(F(1, 2 ** 20))
        case["A1"] = [[F(1), F(2)], [F(2), F(4)]]
        with pytest.raises(CheckFailure) as exc:
            _run_update(case, [(a - 1, b + 1) for a, b in exact])
    assert str(exc.value) == "step.set.A: Expected an invertible basis. Got a singular one."
