"""Lemma S0 in ``verify`` (checker Lemma C19b): the verdict, limit and evidence the exact
limits imply for each theorem, decided by the checker (``audits.stationary_expected``)
and, independently, by the producer (``tail.s0_stationary.stationary_verdict``, Arb and
its own exact spectrum), on drawn stationary configurations (and, by hand, one of each
outcome) (V(z_j − z_i) = 0: the tokens
differ by vectors of ker V, as ``check_stationary`` requires before this is called):
affine hulls of full and lower dimension, d = 1 and n = 1, simple, tied and negative
leading eigenvalues, paranormal and defective V, tokens in ker V, zero and equal tokens.

The fixtures check only four of the 15 outcomes; a mutation run of the checker's
``audits.py`` left 105 of ``stationary_expected``'s 144 mutants alive.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certified.checker import CheckFailure
from certified.checker.audits import stationary_expected

from .producer import Instance, stationary_verdict

THEOREMS = ["2.1", "3.1", "4.2", "5.2", "8.5"]

#: V that reach every spectral branch (d = 1, 2, 3), as integer rows
_V = [
    [[1]], [[-2]], [[0]],
    [[1, 0], [0, 1]], [[-1, 0], [0, -1]], [[2, 0], [0, 1]], [[1, 0], [0, 0]],
    [[1, 1], [0, 1]],  # defective: not paranormal
    [[0, -1], [1, 0]],  # complex pair: no positive leading eigenvalue
    [[1, 0], [0, -1]],  # tied in modulus
    [[0, 0], [0, 0]], [[0, 1], [0, 0]],
    [[3, 0, 0], [0, 1, 0], [0, 0, 0]], [[2, 0, 0], [0, 2, 0], [0, 0, -1]],
    [[-1, 0, 0], [0, -1, 0], [0, 0, -1]],
]


@st.composite
def instances(draw) -> tuple[list, list]:
    """A V of ``_V`` (V = 0 drawn more often: every configuration is stationary) and tokens
    z_0 + (integer combinations of a basis of ker V), so that V(z_j − z_i) = 0."""
    import sympy

    V = draw(st.sampled_from(_V + [[[0, 0], [0, 0]], [[0]]]))
    d = len(V)
    n = draw(st.integers(1, 3))
    coord = st.integers(-2, 2)
    ker = [[int(x) for x in v * sympy.ilcm(1, 1, *[sympy.fraction(x)[1] for x in v])]
           for v in sympy.Matrix(V).nullspace()]  # integer vectors spanning ker V
    kind = draw(st.sampled_from(["free", "zero", "kernel"]))
    if kind == "zero":
        z0 = [0] * d
    elif kind == "kernel":  # z_0 itself in ker V (V z = 0: the 8.5 refutation)
        z0 = [sum((draw(coord) * v[a] for v in ker), 0) for a in range(d)]
    else:
        z0 = [draw(coord) for _ in range(d)]
    X0 = [list(z0)]
    for _ in range(n - 1):
        X0.append([z0[a] + sum((draw(coord) * v[a] for v in ker), 0) for a in range(d)])
    return V, X0


def _stationary(V: list, X0: list) -> bool:
    d = len(V)
    return all(sum(V[a][b] * (z[b] - X0[0][b]) for b in range(d)) == 0
               for z in X0 for a in range(d))


def _exact(obj):
    """The producer's JSON-ready limit (strings) as the checker's exact numbers."""
    if isinstance(obj, dict):
        return {k: _exact(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_exact(v) for v in obj]
    if isinstance(obj, str):
        return F(obj)
    return obj


@settings(max_examples=300, deadline=None, derandomize=True)
@given(instances(), st.sampled_from(THEOREMS))
def test_the_checker_and_the_producer_imply_the_same_outcome(case, theorem):
    V, X0 = case
    assert _stationary(V, X0)
    d = len(V)
    I = [[int(a == b) for b in range(d)] for a in range(d)]
    mine = stationary_expected(theorem, [[F(x) for x in r] for r in V],
                               [[F(x) for x in r] for r in X0])
    want = stationary_verdict(Instance.create(V=V, Q=I, K=I, X0=X0), theorem)
    assert mine == (want.verdict, _exact(want.limit), want.evidence), (V, X0, theorem)


@pytest.mark.parametrize("theorem,V,X0,want", [
    ("3.1", [[0, 0], [0, 0]], [[0, 0], [1, 0], [0, 1]], "undecided"),  # V = 0, a triangle
    ("3.1", [[1, 0], [0, 0]], [[0, 0], [0, 1], [0, 2]], "certified"),  # on ker V, a line
    ("3.1", [[1, 0], [0, 1]], [[1, 2]], "certified"),  # one token: no differences
    ("2.1", [[0]], [[1], [2]], "refuted"),  # V = 0 freezes x: P constant in (0, 1)
    ("2.1", [[1]], [[3]], "certified"),
    ("2.1", [[1, 0], [0, 1]], [[1, 0]], "undecided"),
    ("4.2", [[2, 0], [0, 1]], [[1, 0]], "certified"),
    ("4.2", [[1, 0], [0, -1]], [[1, 0]], "undecided"),  # tied in modulus
    ("5.2", [[1, 0], [0, 0]], [[1, 0]], "certified"),
    ("5.2", [[1, 1], [0, 1]], [[1, 0]], "undecided"),  # a Jordan block
    ("8.5", [[1, 0], [0, 0]], [[0, 0], [0, 1]], "refuted"),  # z_1 ∈ ker V, z_1 ≠ 0
    ("8.5", [[1, 0], [0, 1]], [[0, 0], [0, 0]], "certified"),
    ("8.5", [[-1, 0], [0, -1]], [[1, 1], [1, 1]], "certified"),
    ("8.5", [[1, 0], [0, 1]], [[1, 1], [1, 1]], "undecided"),
])
def test_each_outcome_by_hand(theorem, V, X0, want):
    """The rules of proofs_notes/audits.md ("Lemma S0 in verify"), one stationary
    configuration each."""
    assert _stationary(V, X0)
    n = len(X0)
    verdict, limit, evidence = stationary_expected(
        theorem, [[F(x) for x in r] for r in V], [[F(x) for x in r] for r in X0])
    assert verdict == want
    if verdict == "undecided":
        assert (limit, evidence) == (None, None)
    elif verdict == "refuted":
        assert limit is None
        assert evidence == ({"rows_outside_two_leaders": list(range(n))} if theorem == "2.1"
                            else {"token_not_to_zero": 1})
    elif theorem == "8.5":
        assert evidence is None and limit == {"attention_limit": [[F(1, n)] * n] * n}
    else:  # every token its own cluster, centred exactly at itself
        assert evidence is None and limit == {"clusters": [
            {"members": [i], "center": [[F(x), F(x)] for x in z]} for i, z in enumerate(X0)]}


def test_an_unknown_theorem_is_refused():
    with pytest.raises(CheckFailure, match=r"^theorem: Expected one of 2\.1, 3\.1, 4\.2, 5\.2, "
                                           r"8\.5\. Got '9\.9'\.$"):
        stationary_expected("9.9", [[F(1)]], [[F(1)]])


# -- Theorem 5.2's conclusion on exact limits, from a witness (λ, P_F) (Lemma C9) ------------

def _on_limits(V, Z, lam, P):
    from certified.checker.audits import _theorem_5_2_on_limits

    q = lambda M: [[F(x) for x in r] for r in M]  # noqa: E731
    return _theorem_5_2_on_limits(q(V), q(Z), {"lambda": str(lam),
                                              "projector_F": [[str(x) for x in r] for r in P]})


_NOT_A_PROJECTOR = ("witness.projector_F: Expected P² = P, VP = PV, (V − λ)P = 0, λ > 0 for "
                    "λ = lambda = {lam}. Got a matrix that is not.")


@pytest.mark.parametrize("V,lam,P,why", [
    ([[0, 0], [0, 1]], 0, [[1, 0], [0, 0]], "λ = 0"),  # a projector onto ker V, λ not > 0
    ([[2, 0], [0, 1]], 2, [[2, 0], [0, 0]], "P² ≠ P"),
    ([[2, 1], [0, 1]], 2, [[1, 0], [0, 0]], "VP ≠ PV"),  # P² = P, (V − 2)P = 0
    ([[2, 0], [0, 1]], 1, [[1, 0], [0, 0]], "(V − λ)P ≠ 0"),  # P² = P, VP = PV
])
def test_a_witness_that_is_not_the_spectral_projector_is_refused_word_for_word(V, lam, P, why):
    with pytest.raises(CheckFailure) as exc:
        _on_limits(V, [[1, 0]], lam, P)
    assert str(exc.value) == _NOT_A_PROJECTOR.format(lam=lam), why


def test_a_witness_must_be_dominant_and_of_rank_one_word_for_word():
    with pytest.raises(CheckFailure) as exc:  # λ = 1 tied with −1 in modulus
        _on_limits([[1, 0], [0, -1]], [[1, 0]], 1, [[1, 0], [0, 0]])
    assert str(exc.value) == ("witness.lambda: Expected a dominant eigenvalue. Got no norm "
                              "bound below λ^k.")
    with pytest.raises(CheckFailure) as exc:  # V = I: F is the whole space
        _on_limits([[1, 0], [0, 1]], [[1, 0]], 1, [[1, 0], [0, 1]])
    assert str(exc.value) == ("witness.projector_F: Expected dim F = 1 (version 1). Got "
                              "rank 2.")
    with pytest.raises(CheckFailure) as exc:  # V − λ = 0 on ker P as well
        _on_limits([[2, 0], [0, 2]], [[1, 0]], 2, [[1, 0], [0, 0]])
    assert str(exc.value) == ("witness.projector_F: Expected V − λ invertible on ker P. Got "
                              "singular.")


def test_the_conclusion_counts_the_distinct_nonzero_f_components():
    V, P = [[2, 0], [0, 1]], [[1, 0], [0, 0]]  # F = the first axis; ‖V(I − P)‖ = 1 < 2
    assert _on_limits(V, [[1, 5], [1, -3], [0, 7]], 2, P) is True  # one nonzero, and 0
    assert _on_limits(V, [[1, 0], [-1, 0], [0, 1]], 2, P) is True  # two
    assert _on_limits(V, [[1, 0], [-1, 0], [2, 0]], 2, P) is False  # three
    assert _on_limits(V, [[1, 5], [1, -3], [1, 7]], 2, P) is True  # one, shared by three
    # an oblique projector (V not normal): P_F = [[1, 1], [0, 0]] for λ = 2 of [[2, 1], [0, 1]]
    Vo, Po = [[2, 1], [0, 1]], [[1, 1], [0, 0]]
    assert _on_limits(Vo, [[0, 1], [0, 2], [0, 3]], 2, Po) is False  # 1, 2, 3
    assert _on_limits(Vo, [[0, 1], [1, 0], [2, -1]], 2, Po) is True  # all 1
    # a dominance bound found only at a higher power: V(I − P) nilpotent of norm 3 > λ = 2
    assert _on_limits([[2, 0, 0], [0, 0, 3], [0, 0, 0]], [[1, 0, 0]], 2,
                      [[1, 0, 0], [0, 0, 0], [0, 0, 0]]) is True


@pytest.mark.parametrize("lam,P,where", [("1/0", [[1]], "witness.lambda"),
                                         ("2", [["one"]], "witness.projector_F")])
def test_a_witness_entry_that_is_not_a_number_is_named(lam, P, where):
    with pytest.raises(CheckFailure) as exc:
        _on_limits([[2]], [[1]], lam, P)
    assert exc.value.where == where, str(exc.value)
