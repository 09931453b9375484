"""Lemma S3 (two tokens; proofs_notes/audits.md) against an independent oracle: a float64
RK4 integration of ẋ_i = Σ_j P_ij V x_j (numpy, h = 10⁻³, no code of the library), with the
left eigenvector from numpy. Checked along the trajectory: the identity
w(t) = w(0)exp(−λ∫σ) (part 1), the convergence bound |ψ(z_i(t)) − ψ(z_i(0))| ≤
|λ||w(0)|/Re λ (part 2), and in the negative case every intermediate bound of part 3
(N(δ) ≤ Δ, N(m) ≤ M, |a|, |b| ≤ A, σ ≥ 2p) and |w(t)| ≥ |w(0)|e^{gt}; then the reading
decided on constructed spectra, and `verify` with `certified check` on drawn instances."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from certified import Instance
from certified.checker import check_certificate
from certified.strategies import violating
from certified.tail.s3_two_tokens import leading_reading, two_tokens
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import certify


def _trajectory(inst: Instance, t_end: float = 6.0, h: float = 1e-3):
    """Times, x(t) (shape (steps + 1, 2, d)) and σ(t) = P₁₂ + P₂₁ by RK4."""
    V = np.array([[float(x) for x in r] for r in inst.V])
    B = np.array([[float(x) for x in r] for r in inst.B])

    def P(X):
        S = X @ B @ X.T
        S = S - S.max(axis=1, keepdims=True)
        E = np.exp(S)
        return E / E.sum(axis=1, keepdims=True)

    def f(X):
        return P(X) @ X @ V.T

    X = np.array([[float(x) for x in r] for r in inst.X0])
    xs, sig = [X], [P(X)[0, 1] + P(X)[1, 0]]
    for _ in range(int(round(t_end / h))):
        k1 = f(X)
        k2 = f(X + h / 2 * k1)
        k3 = f(X + h / 2 * k2)
        k4 = f(X + h * k3)
        X = X + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        Pm = P(X)
        xs.append(X)
        sig.append(Pm[0, 1] + Pm[1, 0])
    return np.arange(len(xs)) * h, np.array(xs), np.array(sig), V


def _left(V: np.ndarray, lam: complex) -> np.ndarray:
    w, vl = np.linalg.eig(V.T)
    return vl[:, int(np.argmin(np.abs(w - lam)))]


def _inst(V, K=((1, 0), (0, 1)), X0=((1, 2), (-1, 1))) -> Instance:
    return Instance.create(V=[list(r) for r in V], Q=[[1, 0], [0, 1]], K=[list(r) for r in K],
                           X0=[list(r) for r in X0])


TIED = _inst([[0, 1], [1, 0]], K=[[2, 1], [1, 1]], X0=[[1, 2], [-1, Fraction(1, 2)]])
COMPLEX = _inst([[Fraction(1, 2), -1], [1, Fraction(1, 2)]], X0=[[2, 0], [0, 1]])
NEGATIVE = _inst([[-2, 1], [0, -1]], X0=[[1, 0], [0, 1]])


@pytest.mark.parametrize("inst, lam", [(TIED, 1.0), (COMPLEX, 0.5 + 1j), (NEGATIVE, -2.0)],
                         ids=["tied", "complex", "negative"])
def test_the_difference_identity_along_the_trajectory(inst, lam):
    """Part 1: ψ(z₁) − ψ(z₂) = w(0)exp(−λ∫σ), to 10⁻⁵ relative over t ∈ [0, 6] (∫σ by the
    trapezoidal rule)."""
    ts, xs, sig, V = _trajectory(inst)
    psi = _left(V, lam)
    integral = np.concatenate([[0.0], np.cumsum((sig[1:] + sig[:-1]) / 2) * 1e-3])
    w0 = psi @ (xs[0, 0] - xs[0, 1])
    for k in range(0, len(ts), 500):
        w = np.exp(-lam * ts[k]) * (psi @ (xs[k, 0] - xs[k, 1]))  # ψe^{−tV} = e^{−λt}ψ
        want = w0 * np.exp(-lam * integral[k])
        assert abs(w - want) <= 1e-5 * abs(want), (ts[k], w, want)


@pytest.mark.parametrize("inst, lam", [(TIED, 1.0), (COMPLEX, 0.5 + 1j)], ids=["tied", "complex"])
def test_each_coordinate_settles_within_the_proved_distance(inst, lam):
    """Part 2: |ψ(z_i(t)) − ψ(z_i(0))| ≤ |λ||w(0)|/Re λ at every t, and the coordinate
    moves by less than 10⁻⁴ of that distance over the last time unit."""
    ts, xs, _, V = _trajectory(inst)
    psi = _left(V, lam)
    w0 = abs(psi @ (xs[0, 0] - xs[0, 1]))
    bound = abs(lam) * w0 / lam.real
    coords = np.array([[np.exp(-lam * t) * (psi @ x) for x in X] for t, X in zip(ts, xs)])
    assert np.all(np.abs(coords - coords[0]) <= bound * (1 + 1e-9))
    last = np.max(np.abs(coords[-1] - coords[-1001]))
    assert last < 1e-4 * bound, last


def test_the_negative_case_bounds_hold_along_the_trajectory():
    """Part 3 on `thm4_2_two_tokens_negative`'s instance: the lemma's P, Δ, M, A, p and g
    (from the producer) against the integrated trajectory: N(δ) ≤ Δ, N(m) ≤ M,
    |a|, |b| ≤ A, σ ≥ 2p, and |w(t)| ≥ |w(0)|e^{gt}; also |w| really grows (by > e^5
    over 6 time units: the true exponent is about 2μσ, far above the proved g)."""
    s3, why = two_tokens(NEGATIVE)
    assert s3 is not None and s3.case == "negative", why
    d = s3.data
    P = np.array([[float(x) for x in r] for r in d["P"]])
    Delta, M = float(d["Delta_squared"]) ** 0.5, float(d["M_squared"]) ** 0.5
    A, p, g = float(d["A_upper"]), float(d["p_lower"]), float(d["growth_exponent_lower"])
    ts, xs, sig, V = _trajectory(NEGATIVE)
    B = np.array([[float(x) for x in r] for r in NEGATIVE.B])
    psi = np.array([float(x) for x in d["psi"]])
    w0 = psi @ (xs[0, 0] - xs[0, 1])
    for t, X, s in zip(ts, xs, sig):
        dlt, m = X[0] - X[1], (X[0] + X[1]) / 2
        assert dlt @ P @ dlt <= Delta ** 2 * (1 + 1e-9)
        assert m @ P @ m <= M ** 2 * (1 + 1e-9)
        assert abs(X[0] @ B @ dlt) <= A and abs(X[1] @ B @ dlt) <= A
        assert s >= 2 * p
        w = np.exp(2 * t) * (psi @ dlt)  # λ = −2: ψe^{−tV} = e^{2t}ψ
        assert abs(w) >= abs(w0) * np.exp(g * t) * (1 - 1e-9)
    assert abs(np.exp(12) * (psi @ (xs[-1, 0] - xs[-1, 1]))) > abs(w0) * np.exp(5)


@pytest.mark.parametrize("V, want", [
    ([[0, 1], [1, 0]], "tied"),                          # ±1
    ([[2, 0, 0], [0, -2, 0], [0, 0, 1]], "tied"),        # 2, −2 and a smaller one
    ([[Fraction(1, 2), -1], [1, Fraction(1, 2)]], "complex"),
    ([[-2, 1], [0, -1]], "negative"),
    ([[-2, 0], [0, 1]], "negative"),                     # not Hurwitz: read, refused later
    ([[2, 0], [0, 1]], None),                            # Definition 4.1(i) holds
    ([[-1, 1], [-1, -1]], None),                         # complex pair with Re < 0
    ([[1, 0], [0, 1]], None),                            # 1 twice: not simple
    ([[0, 1, 0], [0, 0, 1], [2, 0, 0]], None),           # x³ − 2: irreducible cubic
])
def test_the_reading_is_decided_from_the_exact_factorization(V, want):
    got = leading_reading([[Fraction(x) for x in r] for r in V])
    assert (got[0] if got else None) == want


def test_a_negative_leading_value_without_hurwitz_v_is_not_refuted():
    inst = _inst([[-2, 0], [0, 1]])
    s3, why = two_tokens(inst)
    assert s3 is None and "Hurwitz" in why
    v = certify(inst, "4.2", digits=12, t_max=1)
    assert v.verdict == "undecided" and "Hurwitz" in v.reason


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(violating("4.2", "leading_tied", n=2) | violating("4.2", "leading_complex", n=2))
def test_drawn_two_token_instances_with_tied_or_complex_leaders_are_certified(inst):
    v = certify(inst, "4.2", digits=12, t_max=1)
    assert v.verdict == "certified" and v.tail is not None and v.tail.lemma == "S3", v.reason
    rep = check_certificate(json.loads(json.dumps(to_certificate(v))))
    assert rep.valid, rep.message


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(violating("4.2", "leading_negative", n=2))
def test_drawn_two_token_instances_with_a_negative_leader_are_refuted_iff_hurwitz(inst):
    """Refuted exactly when V is Hurwitz (numpy's eigenvalues, an independent reading:
    the drawn spectra are rational, far from the imaginary axis), ψ(δ₀) ≠ 0 and the score
    bound A stays below A_MAX (a badly conditioned Lyapunov matrix can exceed it)."""
    v = certify(inst, "4.2", digits=12, t_max=1)
    hurwitz = bool(np.all(np.linalg.eigvals(np.array(
        [[float(x) for x in r] for r in inst.V])).real < -1e-9))
    if v.verdict == "refuted":
        assert hurwitz
        rep = check_certificate(json.loads(json.dumps(to_certificate(v))))
        assert rep.valid, rep.message
    else:
        assert v.verdict == "undecided"
        assert not hurwitz or any(r in v.reason for r in (
            "φ₁*(z₁(0)) = φ₁*(z₂(0))", "the bound A on the scores")), v.reason
