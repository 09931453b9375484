"""The open variants (approximate runs): checked against the plain attention dynamics
where the variant reduces to it, and against its own invariants."""

from __future__ import annotations

import numpy as np

from certified.approx.float64 import approx_trajectory_float
from certified.practice.forward import idealized_run
from certified.practice.variants import AUTHORS_V2, feedforward_run, layered_run


def test_tanh_on_tiny_tokens_is_the_attention_dynamics():
    # tanh(u) = u + O(u³): on tokens of size 1e-4 both readings of the variant must agree
    # with the plain rescaled dynamics (an independent RK4 implementation) to ~1e-8.
    X0 = np.random.default_rng(1).uniform(-1, 1, (5, 2)) * 1e-4
    ref = approx_trajectory_float(AUTHORS_V2, np.eye(2), np.eye(2), X0, 1.0, h=1e-3)
    for form in ("z", "x"):
        run = feedforward_run(AUTHORS_V2, np.eye(2), "tanh", X0, 1.0, h=1e-3, form=form)
        err = np.abs(run.Z[-1] - ref.tokens[-1]).max() / np.abs(ref.tokens[-1]).max()
        assert err < 1e-6, (form, err)


def test_relu_in_the_positive_orthant_is_the_attention_dynamics():
    # V has positive entries and x > 0, so V Σ_j P_ij x_j > 0 and ReLU is the identity:
    # the x-form must reproduce the plain dynamics (in z) to RK4 accuracy.
    X0 = np.random.default_rng(2).uniform(0.1, 1, (6, 2))
    ref = approx_trajectory_float(AUTHORS_V2, np.eye(2), np.eye(2), X0, 1.5, h=1e-3)
    run = feedforward_run(AUTHORS_V2, np.eye(2), "relu", X0, 1.5, h=1e-3, form="x")
    assert np.abs(run.Z[-1] - ref.tokens[-1]).max() < 1e-8


def test_relu_z_form_moves_every_coordinate_upwards():
    X0 = np.random.default_rng(3).uniform(-5, 5, (8, 2))
    run = feedforward_run(AUTHORS_V2, np.eye(2), "relu", X0, 2.0, h=2e-3, snapshots=5)
    for a, b in zip(run.Z, run.Z[1:]):
        assert np.all(b >= a - 1e-12)
    assert np.any(run.Z[-1] > run.Z[0] + 1e-3)  # and something does move


def test_layered_run_with_one_shared_head_is_the_idealized_run():
    rng = np.random.default_rng(4)
    X0 = rng.standard_normal((7, 6))
    Q, K = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    V = 0.3 * rng.standard_normal((6, 6))
    a = layered_run(X0, [[(Q, K, V)]], 20, score_scale=1 / np.sqrt(32), record=(0, 5, 10, 20))
    b = idealized_run(X0, Q, K, V, layers=20, record=(0, 5, 10, 20))
    assert a.finite and b.finite
    assert [lst[0] for lst in a.leaders] == b.leaders
    assert np.allclose(a.boolean, b.boolean, rtol=1e-12)  # same formula, other order


def test_layer_dependent_weights_are_used_in_turn():
    rng = np.random.default_rng(5)
    X0 = rng.standard_normal((5, 3))
    I3 = np.eye(3)
    zero = np.zeros((3, 3))
    # Alternating V = 0 and V = I over 4 layers is V = I over 2 layers with the same P.
    a = layered_run(X0, [[(I3, I3, zero)], [(I3, I3, I3)]], 4, record=(4,))
    b = layered_run(X0, [[(I3, I3, I3)]], 2, record=(2,))
    assert a.leaders == b.leaders and a.groups == b.groups
