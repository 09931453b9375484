"""Re-checking Lemma T8 (Theorem 5.2, paranormal V, dim F ≥ 1; with dim F = 1 also
Theorem 4.2) — Lemma C11.

From the stored basis S alone the checker re-derives, in exact rationals: S invertible,
V' = S⁻¹VS = diag(λI_k, V_G) (F and G invariant, V|_F = λ Id), B' = SᵀBS and its F–G
blocks, ν ≥ ‖V_G‖∞ with ν ≤ λ (or, with a stored quadratic norm N(y) = (yᵀPy)^{1/2} on G,
P − I ≻ 0 and ν²P − V_GᵀPV_G ≻ 0 by Sylvester's criterion), g ≥ Σ|B'_GG|, Y ≥ the norm
of every stored G box (for N: Y² ≥ yᵀPy at each vertex, exactly), and
κ ≥ 2gY²e^{−2λT} (its own exp) — or, with F–G blocks or 2ν > λ, the combined margin's
constants (:func:`_check_cross`). Then Lemma T4 on B'_FF with the margins reduced by κ
(:func:`.lemmas.check_leader_follower`), and, after the replay in x, that the stored
F and G boxes contain the replayed set mapped by S⁻¹ (scaled by e^{−λT} for F).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath.libmp as L
import numpy as np

from .balls import (Ball, add_up, const, div_up, exp_down, exp_up, le_q, mpf_down, mpf_up,
                    mul_down, mul_up, sqrt_up)
from .errors import CheckFailure
from .hypotheses import is_positive_definite, rank
from .lemmas import (
    T4_KEYS,
    _contains,
    _iv,
    _q,
    check_enclosure_at_T,
    check_leader_follower,
    check_stored_boxes,
    check_t4_verdict,
    stored_contains,
)
from .projected import _inverse
from .replay import LohnerSet

__all__ = ["T8_KEYS", "T8_TITLE", "check_paranormal", "check_paranormal_boxes", "check_paranormal_enclosure",
           "check_paranormal_verdict"]

Mat = list[list[Fraction]]

#: Lemma T8's title and fields (continuous time; discrete time adds "dt" and "layer")
T8_TITLE = "T8 (leader-follower in F, paranormal V)"
T8_KEYS = T4_KEYS | {"kappa", "basis", "dim_F", "B_FF", "nu", "g", "Y", "G_boxes_at_T",
                     "coordinates", "Z", "kappa_mu", "Delta1", "Delta0", "G_differences_at_T",
                     "G_metric"}

#: Largest dim G with a quadratic norm: its bound on a box is a maximum over 2^dim G
#: vertices.
MAX_METRIC_DIM = 8


def _mul(A: Mat, B: Mat) -> Mat:
    return [[sum((A[i][s] * B[s][j] for s in range(len(B))), Fraction(0))
             for j in range(len(B[0]))] for i in range(len(A))]


def _metric(lemma: dict, Vp: Mat, k: int, d: int, nu: Fraction) -> Mat | None:
    """The stored quadratic norm N(y) = (yᵀPy)^{1/2} on G (``tail_lemma.G_metric``), or
    None (the max-norm in the basis). P must be symmetric with P − I ≻ 0 (so N ≥ |·|∞ and
    every bilinear bound stated with |·|∞ holds with N), ν > 0 and ν²P − V_GᵀPV_G ≻ 0 (so
    N(V_G y) ≤ νN(y), the G-growth rate), decided exactly."""
    if "G_metric" not in lemma:
        return None
    m, raw = d - k, lemma["G_metric"]
    if not (isinstance(raw, list) and len(raw) == m and 1 <= m <= MAX_METRIC_DIM
            and all(isinstance(r, list) and len(r) == m for r in raw)):
        raise CheckFailure("tail_lemma.G_metric", f"a {m}×{m} matrix (dim G = {m}, at most "
                           f"{MAX_METRIC_DIM})", repr(raw)[:60])
    P = [[_q(x, f"tail_lemma.G_metric[{i}][{j}]") for j, x in enumerate(r)]
         for i, r in enumerate(raw)]
    if not is_positive_definite([[P[i][j] - int(i == j) for j in range(m)] for i in range(m)]):
        raise CheckFailure("tail_lemma.G_metric", "a symmetric P with P − I positive definite "
                           "(Sylvester, exact)", repr(raw)[:60])
    if not nu > 0:  # (N2) holds for −ν as well: the rate's sign is checked on its own
        raise CheckFailure("tail_lemma.nu", "> 0 (the growth rate in G_metric's norm)",
                           str(lemma["nu"]))
    VG = [row[k:] for row in Vp[k:]]
    VPV = [[sum((VG[a][i] * P[a][b] * VG[b][j] for a in range(m) for b in range(m)),
                Fraction(0)) for j in range(m)] for i in range(m)]
    if not is_positive_definite([[nu * nu * P[i][j] - VPV[i][j] for j in range(m)]
                                 for i in range(m)]):
        raise CheckFailure("tail_lemma.nu", "nu with nu²·G_metric − V_Gᵀ·G_metric·V_G positive "
                           "definite (N(V_G y) <= nu·N(y), exact)", str(lemma["nu"]))
    return P


def _vertex_max(P: Mat, box: list) -> Fraction:
    """max yᵀPy over the box's vertices: the maximum over the box (yᵀPy is convex)."""
    m = len(box)
    # the product of m two-point sets is never empty (one empty vertex when m = 0)
    return max(sum((v[i] * P[i][j] * v[j] for i in range(m) for j in range(m)), Fraction(0))
               for v in itertools.product(*box))


def _norm_up(P: Mat | None, box: list) -> Fraction:
    """An upper bound of the norm on G over a box: max |end| (max-norm), or
    (⌊√(q·d·4^64)⌋ + 1)/(d·2^64) ≥ √q for q = n/d the vertex maximum of yᵀPy."""
    if P is None:
        return max((max(abs(lo), abs(hi)) for lo, hi in box), default=Fraction(0))
    return sqrt_up(_vertex_max(P, box), 64)


def check_paranormal(lemma: dict, V: Mat, B: Mat, n: int, dt: Fraction | None = None) -> dict:
    """Verify Lemma T8's constants and its T4 part; return the parsed data. With ``dt``
    (discrete time, the layer K = T/Δt): the step-size condition (1 + νΔt)² ≤ 1 + λΔt
    instead of 2ν ≤ λ, κ ≥ 2gY²q^{−2K} (q = 1 + λΔt, exact), and T10's sums."""
    d = len(V)
    T = _q(lemma["T"], "tail_lemma.T")
    lam = _q(lemma["lambda"], "tail_lemma.lambda")
    k = lemma["dim_F"]
    # dim F = 1 is T4 on a line (the proof never uses k ≥ 2); the producer uses it where
    # Lemma T7 cannot (⟨Qφ₁, Kφ₁⟩ ≤ 0)
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= d or lam <= 0:
        raise CheckFailure("tail_lemma.dim_F", f"1 <= dim_F <= {d} and lambda > 0",
                           f"dim_F = {k!r}, lambda = {lam}")
    # F is the whole eigenspace ker(V − λI) (exact rank): with a smaller k, λ would also be
    # an eigenvalue of V_G, and φ₁ (dim F = 1, Theorem 4.2) would not be determined
    kernel = d - rank([[V[i][j] - lam * int(i == j) for j in range(d)] for i in range(d)])
    if k != kernel:
        raise CheckFailure("tail_lemma.dim_F", f"dim ker(V − lambda I) = {kernel} (lambda = "
                           f"{lam})", f"dim_F = {k}")
    S = [[_q(x, "tail_lemma.basis") for x in row] for row in lemma["basis"]]
    if len(S) != d or any(len(row) != d for row in S):
        raise CheckFailure("tail_lemma.basis", f"a {d}×{d} matrix", "another shape")
    Sinv = _inverse(S, "tail_lemma.basis")
    Vp = _mul(_mul(Sinv, V), S)
    for i in range(d):
        for j in range(d):
            want = lam * int(i == j) if i < k and j < k else (
                None if i >= k and j >= k else Fraction(0))
            if want is not None and Vp[i][j] != want:
                raise CheckFailure("tail_lemma.basis",
                                   f"S⁻¹VS = diag(lambda·I_dim_F, V_G) = diag({lam}·I_{k}, "
                                   "V_G) (F, G invariant)",
                                   f"entry ({i}, {j}) = {Vp[i][j]}")
    St = [list(col) for col in zip(*S)]
    Bp = _mul(_mul(St, B), S)
    h_FG = sum((abs(Bp[i][j]) for i in range(k) for j in range(k, d)), Fraction(0))
    h_GF = sum((abs(Bp[i][j]) for i in range(k, d) for j in range(k)), Fraction(0))
    cross = bool(h_FG or h_GF)
    if cross and dt is not None:
        raise CheckFailure("tail_lemma.basis", "SᵀBS without F–G blocks (T8's discrete form "
                           "has no cross terms)", "a non-zero cross entry")
    nu, g, Y = (_q(lemma[key], f"tail_lemma.{key}") for key in ("nu", "g", "Y"))
    metric = _metric(lemma, Vp, k, d, nu)
    # with the quadratic norm ν is checked by _metric (any ν > 0 it accepts is a bound)
    nu_min = max((sum(abs(Vp[i][j]) for j in range(k, d)) for i in range(k, d)),
                 default=Fraction(0)) if metric is None else nu
    low = f"‖V_G‖∞ = {nu_min}" if metric is None else "ν's G_metric bound"
    if dt is None and not (nu_min <= nu and nu <= lam):
        raise CheckFailure("tail_lemma.nu", f"{low} <= nu <= λ = {lam}",
                           str(lemma["nu"]))
    # the combined margin (Hμ̂), (HΔ): F–G cross terms, or λ/2 < ν ≤ λ (tail.md)
    combined = cross or 2 * nu > lam
    present = [key for key in CROSS_KEYS if key in lemma]
    if not combined and present:
        raise CheckFailure(f"tail_lemma.{present[0]}", "absent (SᵀBS has no F–G blocks and "
                           "2ν <= λ: the plain margin reduction)", "present")
    if combined and not cross and not present:
        raise CheckFailure("tail_lemma.nu", f"{low} <= nu <= λ/2 = {lam / 2} "
                           "(above it, the combined margin's fields)", str(lemma["nu"]))
    if dt is not None and not (nu_min <= nu and (1 + nu * dt) ** 2 <= 1 + lam * dt):
        raise CheckFailure("tail_lemma.nu", f"{low} <= nu with (1 + nu·Δt)² <= "
                           f"1 + λΔt (Δt = {dt}, λ = {lam})", str(lemma["nu"]))
    g_min = sum((abs(Bp[i][j]) for i in range(k, d) for j in range(k, d)), Fraction(0))
    if g < g_min:
        raise CheckFailure("tail_lemma.g", f">= {g_min} (Σ|B'_GG|, B' = SᵀBS, S = basis)", str(lemma["g"]))
    gb = [[_iv(p, f"tail_lemma.G_boxes_at_T[{i}]") for p in row]
          for i, row in enumerate(lemma["G_boxes_at_T"])]
    if len(gb) != n or any(len(row) != d - k for row in gb):
        raise CheckFailure("tail_lemma.G_boxes_at_T", f"{n}×{d - k} intervals", "another shape")
    if metric is None:
        Ymin = max((_norm_up(None, row) for row in gb), default=Fraction(0))
        if Y < Ymin:
            raise CheckFailure("tail_lemma.Y", f">= {float(Ymin)!r} (G_boxes_at_T)",
                               str(lemma["Y"]))
    else:  # Y ≥ N over every G box: Y ≥ 0 and Y² ≥ every vertex's yᵀPy (exact)
        Y2 = max((_vertex_max(metric, row) for row in gb), default=Fraction(0))
        if Y < 0 or Y * Y < Y2:
            raise CheckFailure("tail_lemma.Y", f">= sqrt({float(Y2)!r}) (the norm of "
                               "G_boxes_at_T with G_metric)", str(lemma["Y"]))
    kappa = _q(lemma.get("kappa", "0"), "tail_lemma.kappa")
    if combined:  # Lemma T8's combined margin (tail.md): κ_m, κ_μ, (Hμ̂), (HΔ)
        return dict(_check_cross(lemma, Bp, k, d, n, lam, T, nu, g, Y, kappa, h_FG, h_GF,
                                 S, Sinv, gb, metric), nu=nu)
    if dt is None:
        # 2gY²e^{−2λT} rounded up in mpmath floats (relative precision: κ may be tiny)
        need = mul_up(mpf_up(2 * g * Y * Y), exp_up(mpf_up(-2 * lam * T)))
        if not le_q(need, kappa):
            raise CheckFailure("tail_lemma.kappa", f">= 2gY²e^(-2λT) <= {L.to_str(need, 17)}",
                               str(kappa))
    else:
        K = T / dt
        if K.denominator != 1:
            raise CheckFailure("tail_lemma.T", f"a layer time k·Δt (Δt = {dt})", str(T))
        exact = 2 * g * Y * Y / (1 + lam * dt) ** (2 * int(K))
        if kappa < exact:
            raise CheckFailure("tail_lemma.kappa", f">= 2gY²(1 + λΔt)^(-2K) = {float(exact)!r}",
                               str(kappa))
    BFF = [row[:k] for row in Bp[:k]]
    if [[_q(x, "tail_lemma.B_FF") for x in row] for row in lemma["B_FF"]] != BFF:
        raise CheckFailure("tail_lemma.B_FF", f"SᵀBS's F block {BFF} (S = basis)",
                           repr(lemma["B_FF"]))
    lf = check_leader_follower(lemma, lam, BFF, n, kappa=kappa, dt=dt)
    return dict(lf, lam=lam, k=k, nu=nu, S=S, Sinv=Sinv, BFF=BFF, g_boxes=gb)


#: the fields of Lemma T8 with F–G cross terms
CROSS_KEYS = ("Z", "kappa_mu", "Delta1", "Delta0", "G_differences_at_T")


def _check_cross(lemma: dict, Bp: Mat, k: int, d: int, n: int, lam: Fraction, T: Fraction,
                 nu: Fraction, g: Fraction, Y: Fraction, kappa: Fraction, h_FG: Fraction,
                 h_GF: Fraction, S: Mat, Sinv: Mat, gb: list, metric: Mat | None) -> dict:
    """Lemma T8 with F–G cross terms: every constant recomputed exactly or bounded in
    mpmath floats rounded outward; then Lemma T4 on B'_FF with (Hμ̂)'s cross vectors
    c_l = e^{−λT}B'_FG(W_l⁺Δ₁) and the margins reduced by κ_m (m) and κ_μ (μ)."""
    for key in CROSS_KEYS:
        if key not in lemma:
            raise CheckFailure(f"tail_lemma.{key}", "present (SᵀBS has F–G blocks)", "missing")
    Z, kappa_mu, D1, D0 = (_q(lemma[key], f"tail_lemma.{key}")
                           for key in ("Z", "kappa_mu", "Delta1", "Delta0"))
    leader = lemma["leader_map"]
    if not (isinstance(leader, list) and len(leader) == n and all(
            type(x) is int and 0 <= x < n for x in leader)):
        raise CheckFailure("tail_lemma.leader_map", f"a list of {n} token indices", repr(leader))
    followers = [j for j in range(n) if leader[j] != j]
    boxes = [[_iv(p, f"tail_lemma.boxes_at_T[{i}]") for p in row]
             for i, row in enumerate(lemma["boxes_at_T"])]
    Zmin = max((max(abs(lo), abs(hi)) for row in boxes for lo, hi in row), default=Fraction(0))
    if Z < Zmin:
        raise CheckFailure("tail_lemma.Z", f">= {float(Zmin)!r} (max |boxes_at_T|)", str(Z))
    raw = lemma["G_differences_at_T"]
    if not isinstance(raw, dict) or sorted(raw) != sorted(str(j) for j in followers):
        raise CheckFailure("tail_lemma.G_differences_at_T", f"boxes for the followers "
                           f"{followers}", repr(raw)[:60])
    W = {int(j): [_iv(p, f"tail_lemma.G_differences_at_T[{j}]") for p in row]
         for j, row in raw.items()}
    short = [j for j, row in sorted(W.items()) if len(row) != d - k]
    if short:
        raise CheckFailure(f"tail_lemma.G_differences_at_T[{short[0]}]",
                           f"{d - k} intervals (dim G)", str(len(W[short[0]])))
    if not D1 > 0:
        raise CheckFailure("tail_lemma.Delta1", "> 0", str(D1))
    eps = max((max(abs(lo), abs(hi)) for row in lemma["differences_at_T"].values()
               for p in row for lo, hi in [_iv(p, "tail_lemma.differences_at_T")]),
              default=Fraction(0))
    eta = _q(lemma["eta"], "tail_lemma.eta")
    Wmax = max((_norm_up(metric, row) for row in W.values()), default=Fraction(0))
    dbar = Wmax + D1
    e1, e2 = exp_up(mpf_up(-lam * T)), exp_up(mpf_up(-2 * lam * T))
    need_m = add_up(mul_up(mpf_up(2 * Z * Y * (h_FG + h_GF)), e1), mul_up(mpf_up(2 * g * Y * Y), e2))
    if not le_q(need_m, kappa):
        raise CheckFailure("tail_lemma.kappa", ">= 2ZY(h_FG + h_GF)e^(-λT) + 2gY²e^(-2λT) <= "
                           f"{L.to_str(need_m, 17)}", str(kappa))
    need_mu = add_up(mul_up(mpf_up(Y * h_GF * (eps + eta)), e1),
                     mul_up(mpf_up(g * Y * dbar), e2))
    if not le_q(need_mu, kappa_mu):
        raise CheckFailure("tail_lemma.kappa_mu", ">= Y h_GF (ε + η) e^(-λT) + gYΔ̄e^(-2λT) "
                           "with Δ̄ = max|G_differences_at_T| + Delta1, "
                           f"<= {L.to_str(need_mu, 17)}", str(kappa_mu))
    # c_l = e^{−λT}·B'_FG·(W_l⁺Δ₁): exact interval arithmetic, e^{−λT} as a rational ball
    eb = const(-lam * T).exp()
    elo, ehi = eb.lo_q(), eb.hi_q()
    cross = {}
    for j in followers:
        Wi = [(lo - D1, hi + D1) for lo, hi in W[j]]
        row = []
        for r in range(k):
            lo = sum((min(Bp[r][k + c] * Wi[c][0], Bp[r][k + c] * Wi[c][1])
                      for c in range(d - k)), Fraction(0))
            hi = sum((max(Bp[r][k + c] * Wi[c][0], Bp[r][k + c] * Wi[c][1])
                      for c in range(d - k)), Fraction(0))
            cands = [lo * elo, lo * ehi, hi * elo, hi * ehi]
            row.append((min(cands), max(cands)))
        cross[j] = row
    BFF = [row[:k] for row in Bp[:k]]
    if [[_q(x, "tail_lemma.B_FF") for x in row] for row in lemma["B_FF"]] != BFF:
        raise CheckFailure("tail_lemma.B_FF", f"SᵀBS's F block {BFF} (S = basis)",
                           repr(lemma["B_FF"]))
    lf = check_leader_follower(lemma, lam, BFF, n, kappa=kappa, kappa_mu=kappa_mu,
                               cross=cross)
    # (HΔ): Δ₀ ≥ (ν/λ)·max_k [2(c_k − 1)Δ̄e^{−a}/a + 2(n − c_k)Ye^{−b}/b] and Δ₀ < Δ₁
    beta = exp_down(mpf_down(2 * lam * T))

    def tail(x: Fraction) -> tuple:  # ≥ e^{−xβ}/(xβ)
        b = mul_down(mpf_down(x), beta)
        return div_up(exp_up(L.mpf_neg(b)), b)
    tb = tail(lf["m"])
    ta = tail(lf["mu"]) if lf["mu"] is not None else None
    worst = L.fzero
    for lead in sorted(set(leader)):
        ck = sum(1 for i in range(n) if leader[i] == lead)
        v = mul_up(mpf_up(Fraction(2 * (n - ck)) * Y), tb)
        if ck > 1 and ta is not None:
            v = add_up(v, mul_up(mpf_up(Fraction(2 * (ck - 1)) * dbar), ta))
        worst = v if L.mpf_gt(v, worst) else worst
    need_d0 = mul_up(worst, mpf_up(nu / lam))
    if not (le_q(need_d0, D0) and D0 < D1):
        raise CheckFailure("tail_lemma.Delta0", f"{L.to_str(need_d0, 17)} <= Delta0 < Delta1 = "
                           f"{float(D1)!r} (the bootstrap (HΔ))", str(D0))
    return dict(lf, lam=lam, k=k, S=S, Sinv=Sinv, BFF=BFF, g_boxes=gb, W=W)


def _image(S: LohnerSet, M: Mat, scale: Ball | None) -> LohnerSet:
    """The set {M y : y ∈ S} (times ``scale``) as a Lohner-like set (c, A may be balls)."""
    Mb = np.array([[const(x) for x in row] for row in M], dtype=object)
    c, A = Mb.dot(S.c), Mb.dot(S.A)
    if scale is not None:
        c, A = c * scale, A * scale
    return LohnerSet(c, A, S.r)


def check_paranormal_enclosure(pb: dict, S: LohnerSet, n: int, d: int) -> None:
    """The stored F boxes (z_F = e^{−λT}(S⁻¹x)_F) and G boxes ((S⁻¹x)_G) contain the
    replayed enclosure of x(T)."""
    k = pb["k"]
    zero = Fraction(0)

    def block(rows: range) -> Mat:
        M = [[zero] * (n * d) for _ in range(n * len(rows))]
        for i in range(n):
            for a, r in enumerate(rows):
                for c in range(d):
                    M[i * len(rows) + a][i * d + c] = pb["Sinv"][r][c]
        return M

    decay = const(-pb["lam"] * pb["T"]).exp()
    check_enclosure_at_T(pb, _image(S, block(range(k)), decay))
    if "W" in pb:  # the followers' G-differences y_l − y_k, as linear images of the set
        leader = pb["leader"]
        G = block(range(k, d))
        for j, row in pb["W"].items():
            M = [[G[j * (d - k) + c][col] - G[leader[j] * (d - k) + c][col]
                  for col in range(n * d)] for c in range(d - k)]
            own_w = _image(S, M, None).box()
            for c in range(d - k):
                lo, hi = row[c]
                stored_contains(f"tail_lemma.G_differences_at_T[{j}][{c}]", lo, hi, own_w[c],
                                "replayed", f"[{float(lo)!r}, {float(hi)!r}]")
    own = _image(S, block(range(k, d)), None).box().reshape(n, d - k)
    for i in range(n):
        for c in range(d - k):
            lo, hi = pb["g_boxes"][i][c]
            stored_contains(f"tail_lemma.G_boxes_at_T[{i}][{c}]", lo, hi, own[i, c],
                            "replayed", f"[{float(lo)!r}, {float(hi)!r}]")


def check_paranormal_boxes(pb: dict, X: np.ndarray, scale: Ball) -> None:
    """Discrete time: the stored F boxes (z_F = q^{−K}(S⁻¹x)_F, ``scale`` = q^{−K}), the
    follower differences and the G boxes ((S⁻¹x)_G) contain the checker's own iteration
    X (n, d) of the layer map (Lemma C21)."""
    n, d = X.shape
    k = pb["k"]
    Sb = [[const(x) for x in row] for row in pb["Sinv"]]
    U = np.array([[sum((Sb[r][c] * X[i, c] for c in range(1, d)), Sb[r][0] * X[i, 0])
                   for r in range(d)] for i in range(n)], dtype=object)  # u = S⁻¹x
    Z = np.array([[U[i, r] * scale for r in range(k)] for i in range(n)], dtype=object)
    leader = pb["leader"]
    diffs = {j: [(U[j, r] - U[leader[j], r]) * scale for r in range(k)]
             for j in range(n) if leader[j] != j}
    check_stored_boxes(pb, Z, diffs, "iterated")
    for i in range(n):
        for c in range(d - k):
            lo, hi = pb["g_boxes"][i][c]
            stored_contains(f"tail_lemma.G_boxes_at_T[{i}][{c}]", lo, hi, U[i, k + c],
                            "iterated", f"[{float(lo)!r}, {float(hi)!r}]")


def check_paranormal_verdict(cert: dict, pb: dict, X0: Mat,
                             rate_statement: str | None = None) -> None:
    """Theorem 5.2 is certified; the clusters' F-coordinates follow from Lemma T4's
    checks (on B'_FF), and each centre in R^d contains S_F·(F box ± δ₀) (Lemma C11).
    With dim F = 1 also Theorem 4.2, whose coordinate φ₁*(z) is then the F-coordinate
    (φ₁ = S's first column): T4's rule for d = 1 (≤ 2 limits certified, ≥ 3 refuted)."""
    # Theorem 4.2 needs λ strictly dominant: every other eigenvalue has modulus ≤ ρ(V_G)
    # ≤ ‖V_G‖∞ (or ‖V_G‖ in G_metric's norm) ≤ ν < λ (with ν = λ a tie such as −λ could
    # not be excluded)
    line_42 = cert["theorem"] == "4.2" and pb["k"] == 1 and pb["nu"] < pb["lam"]
    if not line_42 and (cert["theorem"] != "5.2" or cert["verdict"] != "certified"):
        raise CheckFailure("verdict", "'certified' for Theorem 5.2 (what Lemma T8 proves; "
                           "with dim_F = 1 and nu < lambda also Theorem 4.2)",
                           f"{cert['verdict']!r} for Theorem {cert['theorem']}")
    if line_42 and cert["verdict"] == "refuted":  # the evidence: T4's rule on the line
        extra = {} if rate_statement is None else {"rate_statement": rate_statement}
        check_t4_verdict(cert, pb, X0, pb["BFF"], set(), "center_F_coordinates", **extra)
        return
    lim = dict(cert.get("limit") or {})
    for key in ("F", "not_proved"):  # prose explaining the limit object (not a claim)
        if not isinstance(lim.pop(key, ""), str):
            raise CheckFailure(f"limit.{key}", "a string", "another type")
    clusters = lim.get("clusters")
    if not isinstance(clusters, list):
        raise CheckFailure("limit.clusters", "a list of clusters", repr(clusters))
    keys = {"leader", "members", "center", "center_F_coordinates", "is_hull_vertex",
            "is_zero", "exposing_functional"}
    extra = {} if rate_statement is None else {"rate_statement": rate_statement}
    check_t4_verdict(dict(cert, limit=lim), pb, X0, pb["BFF"], keys, "center_F_coordinates",
                     **extra)
    k, S, d0 = pb["k"], pb["S"], pb["delta0"]
    leaders = sorted(set(pb["leader"]))
    if len(clusters) != len(leaders):
        raise CheckFailure("limit.clusters", f"{len(leaders)} clusters, one per leader",
                           repr(len(clusters)))
    for idx, (lead, cl) in enumerate(zip(leaders, clusters)):
        box = [(lo - d0, hi + d0) for lo, hi in pb["boxes"][lead]]
        if not isinstance(cl.get("center"), list) or len(cl["center"]) != len(S):
            raise CheckFailure(f"limit.clusters[{idx}].center", f"{len(S)} intervals (one "
                               "per coordinate of R^d)", repr(cl.get("center"))[:60])
        for r in range(len(S)):
            lo = sum((S[r][c] * (box[c][0] if S[r][c] >= 0 else box[c][1]) for c in range(k)),
                     Fraction(0))
            hi = sum((S[r][c] * (box[c][1] if S[r][c] >= 0 else box[c][0]) for c in range(k)),
                     Fraction(0))
            _contains(cl["center"][r], (lo, hi), f"limit.clusters[{idx}].center[{r}]",
                      "S_F·(boxes_at_T ± delta0), S = basis")
