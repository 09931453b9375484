"""Classification agrees with construction.

V = S D S⁻¹ with D block diagonal of chosen exact spectrum (real Jordan blocks and
real 2×2 blocks for complex pairs) and S a random invertible integer matrix; the
verdicts on Definition 4.1, paranormality and ⟨Qφ₁, Kφ₁⟩ then follow from D and S.
QᵀK = Pᵀ diag(signs) P has the inertia of ``signs`` (Sylvester's law).
"""

from __future__ import annotations

from fractions import Fraction as F

from hypothesis import assume, event, given
from hypothesis import strategies as st

from certified import Instance, classify
from certified.exact.linalg import from_fmpq_mat, inertia, to_fmpq_mat

small = st.fractions(min_value=-3, max_value=3, max_denominator=2)


@st.composite
def blocks(draw):
    """A list of ("real", r, size) and ("complex", a, b) blocks of total size ≤ 5.

    Eigenvalues are drawn from a small set so that exact ties (equal values,
    opposite values, complex pairs on the same circle as a real one) are common.
    """
    out, d = [], 0
    n_blocks = draw(st.integers(1, 4))
    for _ in range(n_blocks):
        if d >= 5:
            break
        kind = draw(st.sampled_from(["real", "real", "complex"]))
        if kind == "complex" and d <= 3:
            a = draw(st.sampled_from([F(0), F(1), F(-1), F(6, 5), F(3, 5), F(1, 2)]))
            b = draw(st.sampled_from([F(1), F(8, 5), F(4, 5), F(2), F(-1, 2)]))
            out.append(("complex", a, b))
            d += 2
        else:
            r = draw(st.sampled_from([F(2), F(-2), F(1), F(-1), F(1, 2), F(0), F(3)]))
            size = draw(st.integers(1, 2)) if d <= 3 else 1
            out.append(("real", r, size))
            d += size
    return out


def block_matrix(bl):
    d = sum(2 if k == "complex" else s for k, _, s in bl)
    D = [[F(0)] * d for _ in range(d)]
    starts, off = [], 0
    for kind, a, b in bl:
        starts.append(off)
        if kind == "complex":
            D[off][off], D[off][off + 1], D[off + 1][off], D[off + 1][off + 1] = a, -b, b, a
            off += 2
        else:
            for i in range(b):
                D[off + i][off + i] = a
                if i + 1 < b:
                    D[off + i][off + i + 1] = F(1)
            off += b
    return D, starts


def invertible(draw, d):
    S = draw(st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d),
                      min_size=d, max_size=d))
    assume(to_fmpq_mat([[F(x) for x in r] for r in S]).det() != 0)
    return S


def expected(bl):
    mod2 = [a * a if k == "real" else a * a + b * b for k, a, b in bl]
    top = max(mod2)
    dom = [blk for blk, m in zip(bl, mod2) if m == top]
    # distinct dominant eigenvalues (a complex block contributes two)
    values = set()
    for k, a, b in dom:
        values |= {(a, F(0))} if k == "real" else {(a, b), (a, -b)}
    good = len(dom) == 1 and dom[0][0] == "real" and dom[0][1] > 0 and dom[0][2] == 1
    para = (all(k == "real" and s == 1 for k, _, s in dom) and len({a for _, a, _ in dom}) == 1
            and dom[0][1] > 0)
    return values, good, para, dom


@given(st.data())
def test_definition_4_1_and_paranormal_follow_construction(data):
    bl = data.draw(blocks())
    D, starts = block_matrix(bl)
    d = len(D)
    S = invertible(data.draw, d)
    Sq = to_fmpq_mat([[F(x) for x in r] for r in S])
    V = from_fmpq_mat(Sq * to_fmpq_mat(D) * Sq.inv())
    Q = data.draw(st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d),
                           min_size=1, max_size=3))
    K = data.draw(st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d),
                           min_size=len(Q), max_size=len(Q)))
    inst = Instance.create(V=V, Q=Q, K=K, X0=[[0] * d])
    r = classify(inst)
    values, good, para, dom = expected(bl)
    event(f"4.1(i) holds: {good}; paranormal: {para}; dominant values: {len(values)}")
    assert len(r.spectrum["dominant_eigenvalues"]) == len(values)
    c42 = {c.name: c.holds for c in r.theorems["4.2"].checks}
    assert c42["largest modulus attained by one eigenvalue"] == (len(values) == 1)
    simple_good = good
    if good:
        # φ₁ = S e_j for the column j of the dominant block; the sign of φᵀ(QᵀK)φ is exact.
        j = starts[bl.index(dom[0])]
        phi = [F(S[i][j]) for i in range(d)]
        B = inst.B
        form = sum(phi[a] * B[a][b] * phi[b] for a in range(d) for b in range(d))
        assert c42["⟨Qφ₁, Kφ₁⟩ > 0"] == (form > 0)
        norm2 = sum(x * x for x in phi)
        assert r.spectrum["Qphi1_Kphi1"] == (
            str(form / norm2) if (form / norm2).denominator != 1 else str((form / norm2).numerator))
        simple_good = form > 0
    assert r.theorems["4.2"].hypotheses_hold == simple_good
    assert r.spectrum.get("paranormal", False) == para


@given(st.data())
def test_inertia_follows_sylvester_law(data):
    d = data.draw(st.integers(1, 5))
    signs = data.draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=d, max_size=d))
    scales = data.draw(st.lists(st.integers(1, 4), min_size=d, max_size=d))
    P = invertible(data.draw, d)
    # Q = P, K = diag(signs·scales) P, so QᵀK = Pᵀ diag P is symmetric with those signs.
    K = [[signs[i] * scales[i] * P[i][j] for j in range(d)] for i in range(d)]
    inst = Instance.create(V=[[int(i == j) for j in range(d)] for i in range(d)],
                           Q=P, K=K, X0=[[0] * d])
    want = (signs.count(1), signs.count(0), signs.count(-1))
    assert inertia(inst.B) == want
    r = classify(inst)
    assert r.theorems["3.1"].hypotheses_hold == (want == (d, 0, 0))
    assert r.theorems["3.1"].informational[0].holds == (want == (d, 0, 0))
