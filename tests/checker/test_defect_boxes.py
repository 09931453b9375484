"""The defect step's complex-box evaluations (Lemma C20, items 2–3), each against an
independent oracle, without replaying a certificate:

* ``_Poly.at``: p, p′ and the token differences on complex boxes contain mpmath's values of
  the polynomial at points of the boxes (and are tight on point boxes);
* ``_row_exps``, ``_velocities``: the softmax factors, their row sums and the field F(p)
  contain mpmath's complex softmax and field at the point (d = 2, B not symmetric, both
  variables), and a row sum that vanishes (1 + e^{iπ} = 0) is flagged;
* ``_disk``, ``_circle``: the cover's geometry (which boxes and arcs are evaluated, halved,
  dropped), counted exactly for a predicate that fails at known points, the failures'
  messages, and the circle's bound against mpmath's sup of the defect on fine arcs;
* item 4 on a synthetic step: the tubes against ball Horner in Fractions, the pieces'
  product order, the bootstrap's and the Jacobian's failures, and the record's own rules
  word for word at their boundaries.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath as mp
import numpy as np
import pytest

from certified.checker import defect
from certified.checker.dynamics import Field, pairwise
from certified.checker.errors import CheckFailure
from certified.checker.fballs import FB, FC

N_TOK, DIM, ORDER = 3, 2, 4
H = F(1, 4)
B_Q = [[F(1), F(1, 2)], [F(-1, 4), F(3, 4)]]  # not symmetric
V_Q = [[F(1), F(1, 3)], [F(0), F(-1, 2)]]


def _coefficients(seed: int = 0) -> np.ndarray:
    """p̂ (K + 1, n, d): dyadic coefficients (exact in binary64 and in mpmath)."""
    rng = np.random.default_rng(seed)
    return rng.integers(-48, 48, size=(ORDER + 1, N_TOK, DIM)) / 32.0


def _boxes(points: list[complex], rad: float) -> FC:
    re = FB(np.array([z.real for z in points]), np.full(len(points), rad))
    im = FB(np.array([z.imag for z in points]), np.full(len(points), rad))
    return FC(re, im)


def _in(box: FC, z) -> bool:
    """The complex number z (mpmath) in the rectangle, compared exactly."""
    z = mp.mpc(z)
    return (mp.mpf(float(box.re.lo())) <= z.real <= mp.mpf(float(box.re.hi()))
            and mp.mpf(float(box.im.lo())) <= z.imag <= mp.mpf(float(box.im.hi())))


def _poly_values(P: np.ndarray, s, h: F = H):
    """mpmath: z_j(σ) = Σ_k p̂_kj s^k and z_j′(σ) = Σ_k k p̂_kj s^{k−1} / h at s = σ/h."""
    K = P.shape[0] - 1
    z = [[sum(mp.mpf(P[k, j, a]) * s ** k for k in range(K + 1)) for a in range(DIM)]
         for j in range(N_TOK)]
    dz = [[sum(k * mp.mpf(P[k, j, a]) * s ** (k - 1) for k in range(1, K + 1)) / _q(h)
           for a in range(DIM)] for j in range(N_TOK)]
    return z, dz


def _q(x: F):
    return mp.mpf(x.numerator) / x.denominator


@pytest.fixture(autouse=True)
def _precision():
    with mp.workprec(200):
        yield


def test_poly_at_contains_the_polynomial_its_derivative_and_the_differences():
    P = _coefficients(1)
    poly = defect._Poly(FB(P), H)
    rng = np.random.default_rng(2)
    centres = [complex(*rng.uniform(-1.2, 1.2, 2)) for _ in range(12)]
    rad = 1e-3
    Z, dZ, D = poly.at(_boxes(centres, rad))
    assert Z.shape == dZ.shape == (12, N_TOK, DIM) and D.shape == (12, N_TOK, N_TOK, DIM)
    for b, c in enumerate(centres):
        for corner in (0, 1 + 1j, 1 - 1j, -1 + 1j, -1 - 1j):
            s = mp.mpc(c.real, c.imag) + mp.mpf(rad) * mp.mpc(corner.real, corner.imag)
            z, dz = _poly_values(P, s)
            for j in range(N_TOK):
                for a in range(DIM):
                    assert _in(Z[b, j, a], z[j][a]), (b, j, a)
                    assert _in(dZ[b, j, a], dz[j][a]), (b, j, a)
                    for ell in range(N_TOK):  # D[b, l, j] ∋ z_j − z_l
                        assert _in(D[b, ell, j, a], z[j][a] - z[ell][a]), (b, ell, j, a)
        for j in range(N_TOK):  # a token minus itself: exactly 0
            assert not np.any(D.re.m[b, j, j]) and not np.any(D.re.r[b, j, j])
            assert not np.any(D.im.m[b, j, j]) and not np.any(D.im.r[b, j, j])


def test_poly_at_is_tight_on_point_boxes():
    """Radius-0 boxes: only rounding is left (≤ 10⁻¹³ relative to the terms' size)."""
    P = _coefficients(3)
    poly = defect._Poly(FB(P), H)
    pts = [0.3 - 0.8j, -1.1 + 0.2j, 0.0 + 0.0j, 1.0 + 0.0j]
    Z, dZ, D = poly.at(_boxes(pts, 0.0))
    size = float(np.abs(P).sum()) * 2 ** ORDER
    for part in (Z.re, Z.im, D.re, D.im):
        assert float(part.r.max()) <= 1e-13 * size
    assert float(dZ.re.r.max()) <= 1e-13 * size * ORDER * 4
    # at s = 0 the value is p̂_0 and the derivative p̂_1 / h (radii: the products' rounding)
    assert np.array_equal(Z.re.m[2], P[0]) and not Z.im.m[2].any()
    assert np.array_equal(dZ.re.m[2], P[1] * 4) and not dZ.im.m[2].any()
    assert float(Z.re.r[2].max()) < 1e-14 and float(dZ.re.r[2].max()) < 1e-13


def _field(variable: str) -> Field:
    if variable == "z":
        return Field(F(1, 2), B_Q, N_TOK, "z")
    return Field(None, B_Q, N_TOK, "x", V=V_Q)


def _mp_field(variable: str, z, c):
    """mpmath: F_i = λ Σ_j P_ij (z_j − z_i) (z) or V Σ_j P_ij x_j (x), with the complex
    softmax P_ij ∝ exp(c · z_iᵀ B z_j)."""
    Bm = [[mp.mpf(x.numerator) / x.denominator for x in row] for row in B_Q]
    out = []
    for i in range(N_TOK):
        sc = [c * sum(z[i][a] * Bm[a][b] * z[j][b] for a in range(DIM) for b in range(DIM))
              for j in range(N_TOK)]
        top = max(sc, key=lambda u: u.real)
        w = [mp.exp(u - top) for u in sc]
        P = [x / sum(w) for x in w]
        if variable == "z":
            out.append([mp.mpf(1) / 2 * sum(P[j] * (z[j][a] - z[i][a]) for j in range(N_TOK))
                        for a in range(DIM)])
        else:
            m = [sum(P[j] * z[j][a] for j in range(N_TOK)) for a in range(DIM)]
            Vm = [[mp.mpf(x.numerator) / x.denominator for x in row] for row in V_Q]
            out.append([sum(Vm[a][b] * m[b] for b in range(DIM)) for a in range(DIM)])
    return out


@pytest.mark.parametrize("variable", ["z", "x"])
def test_row_exps_and_velocities_contain_the_complex_softmax_and_field(variable):
    """At point boxes of s (complex σ = h s) and t = t0 + σ: E[b, i, k] ∋ exp(c·z_iᵀB(z_k −
    z_l)) with l the column of largest real part of z_iᵀBz_k (the choice of the code,
    pinned here), Σ the row sums, and F ∋ mpmath's field; ok is True everywhere."""
    P = _coefficients(4)
    field = _field(variable)
    poly = defect._Poly(FB(P), H)
    pts = [0.4 + 0.3j, -0.7 - 0.5j, 1.0 + 0.0j, -0.2 + 0.9j]
    t0 = F(3, 8)
    s = _boxes(pts, 0.0)
    Z, _, D = poly.at(s)
    t = FC(FB(np.array([float(t0 + H * F(p.real)) for p in pts])),
           FB(np.array([float(H * F(p.imag)) for p in pts])))
    c = field.score_factor(t)
    if variable == "x":
        c = FC(FB(np.ones(len(pts))), FB(np.zeros(len(pts))))
    E, S = defect._row_exps(field, Z, c, D)
    Fv, ok = defect._velocities(field, Z, c, D)
    assert ok.tolist() == [True] * len(pts)
    Bm = [[mp.mpf(x.numerator) / x.denominator for x in row] for row in B_Q]
    for b, p in enumerate(pts):
        sp = mp.mpc(p.real, p.imag)
        z, _ = _poly_values(P, sp)
        cb = mp.exp(_q(t0) + _q(H) * sp) if variable == "z" else mp.mpf(1)  # e^{2λt}, λ = 1/2
        want = _mp_field(variable, z, cb)
        for i in range(N_TOK):
            raw = [sum(z[i][a] * Bm[a][bb] * z[k][bb] for a in range(DIM) for bb in range(DIM))
                   for k in range(N_TOK)]
            ell = max(range(N_TOK), key=lambda k: raw[k].real)
            e = [mp.exp(cb * (raw[k] - raw[ell])) for k in range(N_TOK)]
            for k in range(N_TOK):
                assert _in(E[b, i, k], e[k]), (variable, b, i, k)
            assert _in(S[b, i], sum(e)), (variable, b, i)
            for a in range(DIM):
                assert _in(Fv[b, i, a], want[i][a]), (variable, b, i, a)
                assert float(Fv.re.r[b, i, a]) <= 1e-10 * (1 + abs(want[i][a]))


def test_real_point_boxes_keep_every_row_sum_between_1_and_n():
    """On real boxes with c > 0, the column of largest score gives the factor e⁰ = 1 and
    every other factor ≤ 1, so Σ ∈ [1, n] even with score gaps of hundreds (a choice of
    the smallest score would overflow)."""
    field = Field(F(1), [[F(1), F(0)], [F(0), F(1)]], N_TOK, "z")
    Z = FC(FB(np.array([[[12.0, 0.0], [-11.0, 3.0], [0.5, -13.0]]])), FB(np.zeros((1, 3, 2))))
    D = pairwise(Z)
    c = FC(FB(np.array([2.0])), FB(np.zeros(1)))
    _, S = defect._row_exps(field, Z, c, D)
    assert np.all(S.re.lo() >= 1 - 1e-12) and np.all(S.re.hi() <= N_TOK + 1e-12)
    assert np.all(np.isfinite(S.re.m)) and float(S.im.mag().max()) < 1e-13
    assert defect._row_sums_nonzero(field, Z, c, D).tolist() == [True]


def test_a_vanishing_row_sum_is_flagged():
    """n = 2, d = 1, B = 1, c = 1: the second row's sum is 1 + exp(w²), zero at w² = iπ.
    A box around w = √π e^{iπ/4} is flagged (row sum not proved non-zero, ok False); at
    w = 1 nothing is."""
    field = Field(None, [[F(1)]], 2, "x", V=[[F(1)]])
    c = FC(FB(np.ones(2)), FB(np.zeros(2)))
    w = complex(mp.sqrt(mp.pi) * mp.expj(mp.pi / 4))
    Z = FC(FB(np.array([[[0.0], [w.real]], [[0.0], [1.0]]]), 1e-9),
           FB(np.array([[[0.0], [w.imag]], [[0.0], [0.0]]]), 1e-9))
    # box 0: tokens (0, w); box 1: tokens (0, 1)
    assert _in(Z[0, 1, 0], mp.sqrt(mp.pi) * mp.expj(mp.pi / 4)) and _in(Z[1, 1, 0], mp.mpf(1))
    D = pairwise(Z)
    assert defect._row_sums_nonzero(field, Z, c, D).tolist() == [False, True]
    _, ok = defect._velocities(field, Z, c, D)
    assert ok.tolist() == [False, True]


# -- the disk's cover and the circle's arcs, with the predicate replaced ----------------------

class _FakePoly:
    """Records the boxes s it is evaluated on; returns placeholders of the right shapes."""

    n, d = 1, 1

    def __init__(self) -> None:
        self.calls: list[FC] = []

    def at(self, s: FC):
        self.calls.append(s)
        B = s.shape[0]
        zero = FC(FB(np.zeros((B, 1, 1))), FB(np.zeros((B, 1, 1))))
        return zero, zero, FC(FB(np.zeros((B, 1, 1, 1))), FB(np.zeros((B, 1, 1, 1))))


class _FakeField:
    def __init__(self) -> None:
        self.times: list[FC] = []

    def score_factor(self, t: FC):
        self.times.append(t)
        return t


RHO, T0, BAD = F(1, 2), F(5, 4), (F(7, 10) / 2, F(7, 10) / 2)  # BAD = 0.7ρ(1, 1), |BAD| < ρ


def _fails_at_bad(poly: _FakePoly, min_width: F | None, bad=(BAD,)):
    """A predicate for _row_sums_nonzero: a box of ``poly``'s last evaluation fails if it
    holds a point of ``bad`` and (None: always) its width exceeds min_width."""
    def pred(field, Z, c, D):
        s = poly.calls[-1]
        x0, x1 = s.re.lo() * float(H), s.re.hi() * float(H)
        y0, y1 = s.im.lo() * float(H), s.im.hi() * float(H)
        holds = np.zeros(x0.shape, bool)
        for bx, by in bad:
            holds |= (x0 <= float(bx)) & (float(bx) <= x1) & (y0 <= float(by)) & (float(by) <= y1)
        wide = np.ones_like(holds) if min_width is None else (x1 - x0) > float(min_width) * 1.01
        return ~(holds & wide)
    return pred


def _run_disk(monkeypatch, min_width, bad=(BAD,)):
    poly, field = _FakePoly(), _FakeField()
    monkeypatch.setattr(defect, "_row_sums_nonzero", _fails_at_bad(poly, min_width, bad))
    return defect._disk(field, poly, T0, H, RHO, "integration.replay[3]"), poly, field


def test_the_disk_cover_where_every_box_passes(monkeypatch):
    """4 × 4 boxes of side ρ/2 tile [−ρ, ρ]²; every one meets the disk: 16 evaluations,
    and t = t0 + σ on each."""
    count, poly, field = _run_disk(monkeypatch, min_width=F(10))
    assert count == 16 and len(poly.calls) == 1
    s, t = poly.calls[0], field.times[0]
    xs = sorted(set(zip(np.round(s.re.lo() * 0.25, 12), np.round(s.re.hi() * 0.25, 12))))
    assert xs == [(-0.5, -0.25), (-0.25, 0.0), (0.0, 0.25), (0.25, 0.5)]
    ys = sorted(set(zip(np.round(s.im.lo() * 0.25, 12), np.round(s.im.hi() * 0.25, 12))))
    assert ys == xs
    assert np.allclose(t.re.lo(), 1.25 + s.re.lo() * 0.25, atol=1e-15)
    assert np.allclose(t.re.hi(), 1.25 + s.re.hi() * 0.25, atol=1e-15)
    assert np.allclose(t.im.lo(), s.im.lo() * 0.25, atol=1e-15)
    assert np.all(t.re.lo() <= 1.25 + s.re.lo() * 0.25) and np.all(
        t.re.hi() >= 1.25 + s.re.hi() * 0.25)


def test_the_disk_cover_quarters_failed_boxes_and_drops_those_off_the_disk(monkeypatch):
    """BAD = 0.7ρ(1, 1) fails on boxes wider than ρ/8. Level 0: 16 boxes, [ρ/2, ρ]² fails.
    Level 1 (side ρ/4): its quarter [3ρ/4, ρ]² misses the disk (corner (3/4, 3/4)ρ, |·|² =
    1.125ρ²) and is dropped, 3 evaluated, [ρ/2, 3ρ/4]² fails. Level 2 (side ρ/8): 4
    evaluated, all pass. 16 + 3 + 4 = 23 boxes."""
    count, poly, _ = _run_disk(monkeypatch, min_width=RHO / 8)
    assert [c.shape[0] for c in poly.calls] == [16, 3, 4]
    assert count == 23
    for s in poly.calls:  # every box evaluated meets the disk (exact test on its ends)
        for x0, x1, y0, y1 in zip(s.re.lo(), s.re.hi(), s.im.lo(), s.im.hi()):
            dx = 0 if x0 <= 0 <= x1 else min(abs(x0), abs(x1)) * 0.25
            dy = 0 if y0 <= 0 <= y1 else min(abs(y0), abs(y1)) * 0.25
            assert dx * dx + dy * dy <= 0.25 + 1e-12


def test_every_failed_box_of_a_level_is_quartered(monkeypatch):
    """Two failing points in two level-0 boxes: BAD (as above: 3 live quarters, then 4) and
    (−0.3ρ, −0.6ρ) in [−ρ/2, 0] × [−ρ, −ρ/2] (4 live quarters; [−ρ/2, −ρ/4] × [−3ρ/4, −ρ/2]
    fails again, 4 more). Every failed box's quarters are kept: 16, 7, 8 boxes."""
    other = (F(-3, 10) / 2, F(-6, 10) / 2)
    count, poly, _ = _run_disk(monkeypatch, min_width=RHO / 8, bad=(BAD, other))
    assert [c.shape[0] for c in poly.calls] == [16, 7, 8] and count == 31


def test_a_box_that_fails_at_the_last_depth_rejects_the_step(monkeypatch):
    with pytest.raises(CheckFailure) as exc:
        _run_disk(monkeypatch, min_width=None)
    msg = str(exc.value)
    assert "integration.replay[3].rho" in msg and "fails at depth 7" in msg, msg
    assert "every softmax row sum is proved non-zero" in msg, msg


def _run_circle(monkeypatch, failing):
    """_circle with _velocities replaced: an arc's 'defect' is its midpoint angle + 1 (so M
    is the largest over the arcs that pass); ``failing(level, angles)`` says which fail
    (a failed arc's value is 10⁶). Returns M, the fake poly and field, and per level the
    (angles, failed) it saw."""
    poly, field = _FakePoly(), _FakeField()
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def velocities(field_, Z, c, D):
        s = poly.calls[-1]
        ang = np.arctan2(s.im.m, s.re.m) % (2 * np.pi)
        bad = failing(len(seen), ang)
        seen.append((ang, bad))
        val = FB(np.where(bad, 1e6, ang + 1.0).reshape(-1, 1, 1))
        return FC(-val, FB(np.zeros_like(val.m))), ~bad
    monkeypatch.setattr(defect, "_velocities", velocities)
    M = defect._circle(field, poly, T0, H, RHO, "integration.replay[2]", 32)
    return M, poly, field, seen


THETA = 2 * np.pi * 0.3


def test_the_circle_covers_itself_and_halves_only_the_failed_arcs(monkeypatch):
    """32 arcs; the arc holding θ* = 2π·0.3 fails while longer than 2π/128: halved twice,
    32 + 2 + 2 evaluations; M is the largest value over the arcs that passed (never a
    failed arc's 10⁶); the score factor is taken at t0 + σ."""
    def failing(level, ang):
        arc = 2 * np.pi / 32 / 2 ** level
        return (np.abs(ang - THETA) < arc / 2) & (arc > 2 * np.pi / 128 * 1.01)
    M, poly, field, seen = _run_circle(monkeypatch, failing)
    assert [len(a) for a, _ in seen] == [32, 2, 2]
    assert [int(b.sum()) for _, b in seen] == [1, 1, 0]
    s0 = poly.calls[0]  # the arcs' boxes cover the circle σ = ρe^{iθ} (s = σ/h: radius 2)
    for th in np.linspace(0, 2 * np.pi, 1000, endpoint=False):
        x, y = 2 * np.cos(th), 2 * np.sin(th)
        assert np.any((s0.re.lo() <= x) & (x <= s0.re.hi()) & (s0.im.lo() <= y) &
                      (y <= s0.im.hi())), th
    for level, (a, _) in enumerate(seen[1:]):  # the halves lie on the arc that failed
        assert np.all(np.abs(a - THETA) < 2 * np.pi / 32 / 2 ** level)
    passed = np.concatenate([(a + 1.0)[~b] for a, b in seen])
    assert M.shape == (1,) and M[0] == pytest.approx(passed.max(), rel=1e-12) and M[0] < 1e6
    t = field.times[0]
    cos = np.cos(seen[0][0])
    assert np.all(t.re.lo() <= 1.25 + 0.5 * cos + 1e-12)
    assert np.all(t.re.hi() >= 1.25 + 0.5 * cos - 1e-12)
    assert np.all(t.re.hi() - t.re.lo() < 0.5 * 2 * np.pi / 32 + 1e-9)


def test_an_arc_that_fails_at_the_last_depth_rejects_the_step(monkeypatch):
    """The arc holding θ* fails at every depth: after 6 halvings it is named, its ends
    2π·[a, b] around 0.3 with b − a = 1/(32·2⁶), printed to 4 digits."""
    import re
    with pytest.raises(CheckFailure) as exc:
        _run_circle(monkeypatch, lambda level, ang: np.abs(ang - THETA) < np.pi / 32 / 2 ** level)
    msg = str(exc.value)
    got = re.fullmatch(r"integration\.replay\[2\]\.rho: Expected the defect p′ − F\(p\) finite "
                       r"on the circle \|σ\| = rho \(Lemma C20\)\. Got an arc θ ∈ "
                       r"2π\[([0-9.]+), ([0-9.]+)\] that fails at depth 6\.", msg)
    assert got, msg
    a, b = float(got.group(1)), float(got.group(2))
    assert a < 0.3 < b and b - a == pytest.approx(1 / 2048, abs=2e-4)  # (4 digits)


@pytest.mark.parametrize("re, im, nonzero", [
    ((1.0, 2.0), (-1.0, 1.0), True),     # real part > 0
    ((-2.0, -1.0), (-1.0, 1.0), True),   # real part < 0
    ((-1.0, 1.0), (0.5, 0.75), True),    # imaginary part > 0 (and below 1)
    ((-1.0, 1.0), (-0.75, -0.5), True),  # imaginary part < 0
    ((0.0, 1.0), (-1.0, 1.0), False),    # an end exactly 0 does not exclude 0
    ((-1.0, 0.0), (-1.0, 1.0), False),
    ((-1.0, 1.0), (0.0, 1.0), False),
    ((-1.0, 1.0), (-1.0, 0.0), False),
    ((-1.0, 1.0), (-1.0, 1.0), False),
    ((np.nan, np.nan), (-1.0, 1.0), False),  # a NaN part decides nothing
    ((np.nan, np.nan), (1.0, 2.0), True),    # the other part still can
])
def test_the_row_sum_predicate_needs_one_part_of_one_sign(monkeypatch, re, im, nonzero):
    """_row_sums_nonzero on a row sum given directly (its _row_exps replaced): True only
    where the real or the imaginary part's enclosure lies strictly on one side of 0; a box
    is True only if every row's is."""
    def ball(lo, hi):
        return FB(np.array([[(lo + hi) / 2, 1.5]]), np.array([[(hi - lo) / 2, 0.0]]))
    S = FC(ball(*re), ball(*im))  # row 2: 1.5 + 0i, always non-zero
    monkeypatch.setattr(defect, "_row_exps", lambda field, Z, c, D: (None, S))
    assert defect._row_sums_nonzero(None, None, None, None).tolist() == [nonzero]


def test_a_disk_cover_of_one_box_straddling_0_is_evaluated(monkeypatch):
    """With a 1 × 1 start the only box is [−ρ, ρ]², which holds 0 in both coordinates: its
    distance to 0 is 0, so it meets the disk and is evaluated (taking the nearer end
    instead would drop it and check nothing)."""
    monkeypatch.setattr(defect, "DISK_START", 1)
    count, poly, _ = _run_disk(monkeypatch, min_width=F(10))
    assert count == 1 and [c.shape[0] for c in poly.calls] == [1]


# -- item 4 (tubes, bootstrap, the pieces' product) on a synthetic step ------------------------

def test_tubes_are_ball_horner_on_each_piece_widened_by_R():
    """The tube of piece j is midpoint-radius Horner of p̂ on s ∈ [j/m, (j + 1)/m], widened
    by R. Oracle: the same ball Horner in Fractions ((a ± r)(b ± q) ⊆ ab ± (|a|q + r|b| +
    rq), exact); the binary64 tube must contain it and exceed it only by rounding. It then
    contains p(s) ± R at sampled s of the piece (checked too)."""
    rng = np.random.default_rng(6)
    P = rng.integers(-40, 40, size=(5, 2, 1)) / 16.0  # K = 4, n = 2, d = 1
    m, R = 3, F(1, 8)
    T = defect._tubes(FB(P), m, R)
    assert T.shape == (m, 2, 1)
    for piece in range(m):
        sm, sr = F(2 * piece + 1, 2 * m), F(1, 2 * m)  # s = sm ± sr
        for j in range(2):
            am, ar = F(P[4, j, 0]), F(0)
            for k in range(3, -1, -1):
                am, ar = am * sm + F(P[k, j, 0]), abs(am) * sr + ar * abs(sm) + ar * sr
            lo, hi = am - ar - R, am + ar + R
            t_lo, t_hi = F(float(T.lo()[piece, j, 0])), F(float(T.hi()[piece, j, 0]))
            assert t_lo <= lo and hi <= t_hi, (piece, j)
            assert lo - t_lo < F(1, 10 ** 12) and t_hi - hi < F(1, 10 ** 12), (piece, j)
            for q in range(5):  # p(s) ± R inside, s in the piece
                s_ = F(4 * piece + q, 4 * m)
                v = sum((F(P[k, j, 0]) * s_ ** k for k in range(5)), F(0))
                assert t_lo <= v - R and v + R <= t_hi


class _SynthField(Field):
    """Two tokens on the line (V = I, B = 1), with the pieces' Jacobians replaceable."""

    def __init__(self, jac=None) -> None:
        super().__init__(F(1), [[F(1)]], 2, "z")
        self._jac = jac

    def jacobian(self, Z, c):
        return super().jacobian(Z, c) if self._jac is None else self._jac(Z, c)


def _pieces(field, m=3, M=0.0, r0=0.01, R=F(1)):
    Phat = FB(np.array([[[0.0], [1.0]], [[0.0], [0.0]]]))  # p = (0, 1): a constant
    a_hat = np.zeros((1, 2))
    return defect._pieces(field, Phat, a_hat, np.full(2, M), F(0), F(1, 16), F(1, 4), m, R,
                          r0, "integration.replay[5]")


def test_the_pieces_product_is_taken_in_time_order(monkeypatch):
    """S = S_{m−1}⋯S_1 S_0, checked with non-commuting stand-ins for the pieces' S_j."""
    mats = [np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [1.0, 1.0]]),
            np.array([[2.0, 0.0], [0.0, 1.0]])]
    seen = {}

    def variational(J, w, where):
        seen["where"], seen["w"], seen["shape"] = where, w, J.shape
        return FB(np.stack(mats))
    monkeypatch.setattr(defect, "variational_many", variational)
    e, S = _pieces(_SynthField())
    assert np.array_equal(S.m, mats[2] @ mats[1] @ mats[0]) and S.r.max() < 1e-14
    assert seen == {"where": "integration.replay[5]", "w": F(1, 48), "shape": (3, 2, 2)}
    assert 0 <= e < F(1, 10 ** 300)  # no defect: the remainder is (upward-rounded) 0


def test_a_non_finite_jacobian_is_reported_with_its_piece():
    def jac(Z, c):
        J = np.zeros((3, 2, 2))
        J[1, 0, 1] = np.nan
        return FB(J)
    with pytest.raises(CheckFailure) as exc:
        _pieces(_SynthField(jac))
    assert str(exc.value) == ("integration.replay[5]: Expected a finite Jacobian on every "
                              "tube piece (Lemma C20). Got a non-finite one on piece 1.")


def test_a_failed_bootstrap_reports_e_plus_g():
    """M = 8 on a step of h = 1/16, ρ = 1/4: e_1 ≈ Δw with Δ = M(τ/ρ)^K, K = 1; e + g
    passes R = 1/8 on a piece, and the reported e + g (scaled back by 2^E) is ≥ R."""
    import re
    with pytest.raises(CheckFailure) as exc:
        _pieces(_SynthField(), M=8.0, r0=0.05, R=F(1, 8))
    msg = str(exc.value)
    got = re.fullmatch(r"integration\.replay\[5\]\.R: Expected the bootstrap e_j \+ g_j < R "
                       r"on every piece \(Lemma C20\)\. Got e \+ g = ([0-9.e-]+) ≥ R = 0\.125 "
                       r"on piece ([0-9])\.", msg)
    assert got, msg
    assert float(got.group(1)) >= 0.125


def test_a_malformed_record_is_named():
    with pytest.raises(CheckFailure) as exc:
        defect.check_defect_step(_SynthField(), None, F(0), F(1, 8), {"order": 3},
                                 "integration.replay[1]")
    assert str(exc.value) == ("integration.replay[1]: Expected a defect record (order, rho, "
                              "pieces, R, guard_bits). Got KeyError('rho').")


def _first_failure(rec: dict, h: F = F(1, 8)) -> str:
    base = dict(order=1, rho="1", pieces=1, R="1", guard_bits=0, set={})
    with pytest.raises(CheckFailure) as exc:
        defect.check_defect_step(_SynthField(), None, F(0), h, {**base, **rec}, "w")
    return str(exc.value)


#: past the record's own rules, the next check is the stored set's (here: empty)
NEXT = "w.set: Expected a set {c, A, r} of exact numbers. Got KeyError('c')."


@pytest.mark.parametrize("rec, h, want", [
    ({}, F(1, 8), NEXT),                                   # order 1, one piece: allowed
    ({"pieces": 4096}, F(1, 8), NEXT),
    ({"rho": "1/8"}, F(1, 8), "w: Expected 0 < h < rho. Got h = 1/8, rho = 1/8."),
    ({}, F(0), "w: Expected 0 < h < rho. Got h = 0, rho = 1."),
    ({"R": "0"}, F(1, 8), "w: Expected R > 0, 1 ≤ pieces ≤ 4096, order ≥ 1. Got R = 0, "
                          "pieces = 1, order = 1."),
    ({"pieces": 4097}, F(1, 8), "w: Expected R > 0, 1 ≤ pieces ≤ 4096, order ≥ 1. Got R = 1, "
                                "pieces = 4097, order = 1."),
    ({"pieces": 0}, F(1, 8), "w: Expected R > 0, 1 ≤ pieces ≤ 4096, order ≥ 1. Got R = 1, "
                             "pieces = 0, order = 1."),
    ({"order": 0}, F(1, 8), "w: Expected R > 0, 1 ≤ pieces ≤ 4096, order ≥ 1. Got R = 1, "
                            "pieces = 1, order = 0."),
    ({"rho": "x"}, F(1, 8), "w: Expected a defect record (order, rho, pieces, R, guard_bits). "
                            "Got ValueError(\"Invalid literal for Fraction: 'x'\")."),
])
def test_the_records_own_rules_word_for_word(rec, h, want):
    """check_defect_step's first checks (before any arithmetic), at their boundaries."""
    assert _first_failure(rec, h) == want


@pytest.mark.parametrize("variable", ["z", "x"])
def test_velocities_contain_the_field_on_wide_boxes(variable):
    """Boxes of s with radius 0.02 (the disk's and the circle's boxes are wide): F(p) on
    each box contains mpmath's field at its corners and centre. Here the row sums'
    radii are not rounding: a reciprocal that dropped them would miss some corner."""
    P = _coefficients(8) / 4
    field = _field(variable)
    poly = defect._Poly(FB(P), H)
    pts = [0.5 + 0.4j, -0.6 - 0.2j, 0.8 + 0.0j]
    rad = 0.02
    Z, _, D = poly.at(_boxes(pts, rad))
    t0 = F(1, 8)
    t = FC(FB(np.array([float(t0) + float(H) * p.real for p in pts]), float(H) * rad * 1.01),
           FB(np.array([float(H) * p.imag for p in pts]), float(H) * rad * 1.01))
    c = field.score_factor(t) if variable == "z" else FC(FB(np.ones(3)), FB(np.zeros(3)))
    Fv, ok = defect._velocities(field, Z, c, D)
    assert ok.tolist() == [True] * 3
    for b, p in enumerate(pts):
        for corner in (0, 1 + 1j, 1 - 1j, -1 + 1j, -1 - 1j):
            sp = mp.mpc(p.real, p.imag) + mp.mpf(rad) * mp.mpc(corner.real, corner.imag)
            z, _ = _poly_values(P, sp)
            cb = mp.exp(_q(t0) + _q(H) * sp) if variable == "z" else mp.mpf(1)
            want = _mp_field(variable, z, cb)
            for i in range(N_TOK):
                for a in range(DIM):
                    assert _in(Fv[b, i, a], want[i][a]), (variable, b, corner, i, a)


@pytest.mark.parametrize("variable", ["z", "x"])
def test_the_circle_bound_is_the_sup_of_the_defect_on_fine_arcs(variable):
    """M_i ≥ sup_{|σ|=ρ} |p_i′(σ) − F_i(p(σ), t0 + σ)|, and on 512 arcs it is that sup up
    to 10 %: p is the first-order polynomial z0 + σF(z0) (K = 1), whose defect
    F(z0) − F(p(σ)) is O(ρ) while p′ + F(p) is ≈ 2F(z0). Oracle: mpmath at 1536 points."""
    field = _field(variable)
    z0 = np.array([[0.5, -0.25], [-0.75, 0.5], [0.25, 1.0]])
    hq, rho, t0 = F(1, 16), F(1, 8), F(1, 4)
    c0 = mp.exp(_q(t0)) if variable == "z" else mp.mpf(1)
    f0 = _mp_field(variable, [[mp.mpf(x) for x in row] for row in z0], c0)
    P = np.stack([z0, np.array([[float(_q(hq) * v) for v in row] for row in f0])])
    poly = defect._Poly(FB(P), hq)
    M = defect._circle(field, poly, t0, hq, rho, "w", 512)
    top = np.zeros(N_TOK * DIM)
    for j in range(1536):
        sigma = _q(rho) * mp.expj(2 * mp.pi * (j + mp.mpf(1) / 7) / 1536)
        z, dz = _poly_values(P, sigma / _q(hq), hq)
        cb = mp.exp(_q(t0) + sigma) if variable == "z" else mp.mpf(1)
        f = _mp_field(variable, z, cb)
        for i in range(N_TOK):
            for a in range(DIM):
                top[i * DIM + a] = max(top[i * DIM + a], float(abs(dz[i][a] - f[i][a])))
    assert np.all(M >= top), (M, top)
    assert np.all(M <= 1.1 * top), (M / top)
