"""The checker's Lohner sets {c + A·r} and the update of Lemma C4, shared by the replay of
Picard steps (:mod:`.replay`, Lemma C3) and of defect steps (:mod:`.defect`, Lemma C20).

A set's centre c and basis A are exact (stored rationals); its coordinates r are exact
balls, carried in binary64 scaled by a power of two during a step (:func:`_coords`). Each
step ends in :func:`_lohner_check`: the checker's own image of the set, written in the
stored coordinates, must lie inside the stored set.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np

from .balls import Ball, bdot, const, interval, one, scale
from .dynamics import Field, Jets
from .errors import CheckFailure
from .fballs import FB, bilinear, dn, fconst, finterval, from_balls, from_ends, nx, to_balls, up, upper

__all__ = ["LohnerSet", "parse_set", "initial_set", "centre_value",
           "TOL_FRACTION"]

#: The binary64 tail of the centre's Taylor polynomial may add at most this fraction of
#: the narrowest stored radius per step (a choice of work, never of rigor: Lemma C15).
#: The excess can add up over a run (the stored sets carry 1/8 of slack): 2⁻²⁰ keeps it
#: below 1% over 10⁴ steps; at 2⁻¹² Remark 7.9's replay failed at step 54.
TOL_FRACTION = 2.0 ** -20

def _pair(pair: list, where: str) -> tuple[Fraction, Fraction]:
    try:
        lo, hi = Fraction(pair[0]), Fraction(pair[1])
    except (TypeError, ValueError, IndexError, ZeroDivisionError) as exc:
        raise CheckFailure(where, "an interval [lo, hi] of exact numbers", repr(pair)) from exc
    if lo > hi:
        raise CheckFailure(where, "lo <= hi", f"[{pair[0]}, {pair[1]}]")
    return lo, hi


def parse_set(rec: dict, N: int, where: str) -> "LohnerSet":
    """The stored Lohner set {c + A·r} of a replay record (c, A exact; r intervals)."""
    try:
        c = [Fraction(x) for x in rec["c"]]
        A = rec["A"]
        Af = FB(np.array([[_float(x) for x in row] for row in A], dtype=np.float64))
        r = rec["r"]
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise CheckFailure(where, "a set {c, A, r} of exact numbers", repr(exc)) from None
    except OverflowError:
        raise CheckFailure(where + ".A", "entries within binary64's range", "larger ones") from None
    if len(c) != N or Af.shape != (N, N) or len(r) != N:
        raise CheckFailure(where, f"c of length {N}, A {N}×{N}, r of length {N}",
                           "other shapes")
    Af = FB(Af.m, up(2 * 2.0 ** -53 * np.abs(Af.m), 1))  # each entry rounded once (C13.5)
    rq = [_pair(x, where + ".r") for x in r]
    # Balls containing the exact c and A (exact when dyadic at this scale): the checks
    # below only need enclosures of them (Lemma C4). The steps use A in binary64; the
    # exact balls of A are made only if a check at T reads them.
    return LohnerSet(np.array([const(x) for x in c], dtype=object), None,
                     np.array([interval(lo, hi) for lo, hi in rq], dtype=object), Af, rq, A)


_RATIO = re.compile(r"-?[0-9]+(?:/[0-9]+)?")


def _float(x: str) -> float:
    """The binary64 number nearest the exact number x (a string). For an integer or p/q
    this is int(p)/int(q) — CPython's int division rounds to nearest — and the same
    number Fraction reads; any other form goes through Fraction."""
    if isinstance(x, str) and _RATIO.fullmatch(x):
        p, _, q = x.partition("/")
        return int(p) / int(q) if q else float(int(p))
    return float(Fraction(x))


def _identity(N: int) -> np.ndarray:
    """The identity as exact balls."""
    I = np.empty((N, N), dtype=object)
    I.fill(Ball(0, 0))
    for a in range(N):
        I[a, a] = one()
    return I


class LohnerSet:
    """{c + A·ρ : ρ ∈ r}: c and A exact points (radius 0), r balls (Lemma C4).

    ``Af`` holds binary64 balls containing A (for the step's products), ``rq`` the exact
    intervals r of a stored set (for the containment test); A may be given as exact
    rationals ``Aq`` instead of balls (made into balls when first read)."""

    def __init__(self, c: np.ndarray, A: np.ndarray | None, r: np.ndarray,
                 Af: FB | None = None, rq: list | None = None, Aq: list | None = None) -> None:
        self.c, self._A, self.r, self.Af, self.rq, self._Aq = c, A, r, Af, rq, Aq

    @property
    def A(self) -> np.ndarray:
        if self._A is None:
            self._A = np.array([[const(Fraction(x)) for x in row] for row in self._Aq],
                               dtype=object)
        return self._A

    def box(self) -> np.ndarray:
        return self.c + bdot(self.A, self.r)

    def linear_image(self, M: np.ndarray) -> np.ndarray:
        return bdot(M, self.c) + bdot(bdot(M, self.A), self.r)

    def binary64_A(self) -> FB:
        return self.Af if self.Af is not None else from_balls(self.A)


def initial_set(X0: list[list[Fraction]]) -> LohnerSet:
    flat = [const(x) for row in X0 for x in row]
    c = np.array([Ball(b.m, 0) for b in flat], dtype=object)
    r = np.array([Ball(0, b.r) for b in flat], dtype=object)
    N = len(flat)
    return LohnerSet(c, _identity(N), r, FB(np.eye(N)))


def _exponent(x: np.ndarray) -> int:
    """An e with 2^e·max|x| of order 1 for a Ball array x (0 if x is 0): the Lohner
    coordinates are carried as binary64 balls scaled by 2^e, so that radii of any
    precision stay far from binary64's underflow (a choice; scaling by 2^e is exact)."""
    top = max((abs(b.m) + b.r).bit_length() for b in x)
    return scale() - top if top else 0


def _coords(S: LohnerSet) -> tuple[FB, int]:
    """(2^e·r as binary64 balls, e)."""
    e = _exponent(S.r)
    return from_balls(S.r, shift=e), e


def _inverse_fb(A: FB, where: str) -> FB:
    """Balls containing A⁻¹ for a matrix A ∈ A (balls): R + Neumann bound
    ‖A⁻¹ − R‖∞ ≤ ε‖R‖∞/(1 − ε), ε ≥ ‖I − RA‖∞, R a float inverse (Lemma C4)."""
    N = A.shape[0]
    try:
        R = np.linalg.inv(A.m)
    except np.linalg.LinAlgError:
        raise CheckFailure(where, "an invertible basis", "a singular one") from None
    E = FB(np.eye(N)) - bilinear(np.matmul, FB(R), A, N)
    eps = float(up(E.mag().sum(axis=1), N + 1).max())
    normR = float(up(np.abs(R).sum(axis=1), N + 1).max())
    if not eps < 0.5:
        raise CheckFailure(where, "an invertible basis (‖I − RA‖ < 1/2)",
                           f"‖I − RA‖ = {eps:.3g}")
    delta = nx(up(eps * normR, 1) / dn(1.0 - eps))
    return FB(R, np.full(R.shape, delta))


def _times(h: Fraction) -> FB:
    """A binary64 ball containing the time interval [0, h]."""
    return from_ends(np.float64(0.0), np.float64(upper(h)))


def centre_value(jets: Jets, h: Fraction) -> tuple[np.ndarray, FB | None]:
    """(Σ_{k≤k₁} Z_k h^k as exact balls, Σ_{k>k₁} h^k Z_k as binary64 balls or None):
    together they enclose the centre's Taylor polynomial at h (shape (N,))."""
    N = jets.exact[0].size
    hb = const(h)
    acc = jets.exact[-1].reshape(N)
    for cf in reversed(jets.exact[:-1]):
        acc = acc * hb + cf.reshape(N)
    return acc, (None if jets.tail is None else jets.tail.sum(axis=0).reshape(N))


def _lohner_check(S: LohnerSet, rs: FB, e0: int, jets: Jets | None, h: Fraction,
                  M: np.ndarray, f: Fraction, Mlin: FB, out: LohnerSet, where: str,
                  centre: tuple | None = None) -> LohnerSet:
    """y₁ ∈ T + Mlin·A·r + R for every y₀ = c + A·r, r ∈ S.r (T the centre's Taylor
    polynomial, R the remainder M·f·[−1, 1]). In the stored coordinates (c₁, A₁):
    y₁ = c₁ + A₁ρ with ρ ∈ r₁' := A₁⁻¹Mlin A·r + A₁⁻¹(T − c₁ + R) (Lemma C4), carried
    scaled by 2^{e₁}. Verify r₁' ⊆ stored r₁ (exactly) and return the checker's own set
    (c₁, A₁, r₁'). ``centre`` (from :func:`centre_value`) replaces T's computation from
    ``jets``."""
    N = rs.shape[0]
    top = max(max(abs(lo), abs(hi)) for lo, hi in out.rq)
    e1 = (top.denominator.bit_length() - top.numerator.bit_length()) if top else 0
    A1inv = _inverse_fb(out.Af, where + ".set.A")
    C = bilinear(np.matmul, A1inv, bilinear(np.matmul, Mlin, S.binary64_A(), N), N)
    # T − c₁ exactly for the orders the jets hold exactly, then in binary64 (scaled)
    acc, tail = centre if centre is not None else centre_value(jets, h)
    rhs = from_balls(acc - out.c, shift=e1)
    if tail is not None:
        rhs = rhs + tail.scaled(e1)
    rhs = rhs + FB(np.zeros(N), up(M * upper(f * Fraction(2) ** e1), 1))
    mv = lambda a, x: a @ x  # noqa: E731  (matrix × vector)
    r1 = bilinear(mv, C, rs, N).scaled(e1 - e0) + bilinear(mv, A1inv, rhs, N)
    lo, hi = r1.lo(), r1.hi()
    scale2 = Fraction(2) ** e1
    for i, (a, b) in enumerate(out.rq):
        if not (a * scale2 <= lo[i] and hi[i] <= b * scale2):  # exact comparisons (NaN: no)
            mine = to_balls(r1[i:i + 1], shift=-e1)[0] if np.isfinite(lo[i] + hi[i]) else \
                "a non-finite enclosure"
            raise CheckFailure(f"{where}.set.r[{i}]",
                               f"an interval containing the recomputed {mine!r}",
                               f"{out.r[i]!r}")
    return LohnerSet(out.c, out._A, to_balls(r1, shift=-e1), out.Af, None, out._Aq)


def _variational(field: Field, tube: FB, t0: Fraction, h: Fraction, where: str,
                 K: FB | None = None) -> FB:
    """I + h·K·J with K = DF(tube, [t0, t0 + h]) (computed unless given) and J a verified
    fixed-point box, I + [0, h]·K·J ⊆ J (Lemma C5)."""
    if K is None:
        K = field.jacobian(tube, field.score_factor(finterval([(t0, t0 + h)]).reshape(())))
    return variational_many(K[None], h, where)[0]


def variational_many(K: FB, h: Fraction, where: str) -> FB:
    """Lemma C5 for B boxes at once: K (B, N, N) ⊇ DF over each piece (all of length h);
    returns I + h·K_b·J_b (B, N, N), each J_b a verified fixed-point box
    I + [0, h]·K_b·J_b ⊆ J_b, found by the same iteration as for one box (a box that
    passes is left as it is while the others are widened)."""
    N = K.shape[-1]
    I = FB(np.eye(N))
    hK = K * _times(h)
    J = I + hK
    done = np.zeros(K.shape[0], dtype=bool)
    for _ in range(8):
        nxt = I + bilinear(np.matmul, hK, J, N)
        done |= np.all(J.contains(nxt), axis=(-2, -1))
        if np.all(done):
            return I + bilinear(np.matmul, K * fconst(h), J, N)
        # Widen by 1/4 of the radius plus 2^-20 of the row's largest radius: entries
        # near 0 that are fed by wider ones through the coupling need room of that size.
        w = J.union(nxt)
        wider = up(1.25 * w.r + 2.0 ** -20 * w.r.max(axis=-1, keepdims=True), 3)
        keep = done[:, None, None]
        J = FB(np.where(keep, J.m, w.m), np.where(keep, J.r, wider))
    raise CheckFailure(where, "a variational enclosure I + [0,h]·DF·J ⊆ J",
                       "no fixed-point box in 8 iterations")
