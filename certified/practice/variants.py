"""The open variants of Section 12 and of the paper's open questions, simulated.

**Approximate measurements only** (float64 RK4 or the discrete maps, no enclosures).
Certified enclosures of these variants would need their own Taylor jets in
:mod:`certified.enclose.field`; they are not implemented, and nothing here is called certified.

* :func:`feedforward_run` – Section 12.2: ż_i = W σ(V Σ_j P_ij (z_j − z_i)), σ = ReLU or
  tanh, P from the scores of x = e^{tV} z. The paper's three rows: ReLU with W = I (tokens
  "follow one of three hyperplanes"), tanh with W = I ("all collapse to 0"), ReLU with a
  random W ("all collapse to 0").
* :func:`layered_run` – discrete time with weights that depend on the layer
  (piecewise constant), and multi-head attention Σ_h P^h V_h: x^{k+1} = x^k +
  Δt Σ_h P^h(x^k) X^k V_{h,k}ᵀ with per-layer weight sets used in turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from certified.approx.float64 import SIGMAS, approx_variant, expm_float, softmax_rows
from certified.exact.instance import Instance
from certified.practice.forward import forward, groups, leaders, tokenize

__all__ = ["SIGMAS", "FFRun", "feedforward_run", "section_12_2", "layered_run",
           "LayeredRun", "plot_section_12_2", "weight_sharing_study", "plot_weight_sharing"]

#: The authors' 2×2 example value matrix (the paper, Section 4), eigenvalues
#: ≈ 1.348 and −0.068: a good triple with Q = K = I.
AUTHORS_V2 = np.array([[0.64709742, 0.81911926], [0.61210449, 0.63263484]])


@dataclass(frozen=True)
class FFRun:
    """One feed-forward run (approximate): snapshots of z, and what they show."""

    sigma: str
    W: np.ndarray
    form: str
    times: list[float]
    Z: list[np.ndarray]
    hyperplane_groups: int  # groups of φ₁*(z) at the end (1% of the initial spread)
    radius_ratio: float  # max_i |z_i(T)| / max_i |z_i(0)|
    phi_ratio: float  # max_i |φ₁*(z_i(T))| / max_i |φ₁*(z_i(0))|

    def to_json(self) -> dict[str, Any]:
        return {"sigma": self.sigma, "W": self.W.tolist(), "form": self.form,
                "times": self.times,
                "hyperplane_groups_at_T": self.hyperplane_groups,
                "radius_ratio_T_over_0": self.radius_ratio,
                "phi1_ratio_T_over_0": self.phi_ratio}


def _left_leading(V: np.ndarray) -> np.ndarray:
    w, vl = np.linalg.eig(V.T)
    return vl[:, int(np.argmax(w.real))].real


FORMS = ("z", "x")


def feedforward_run(V: np.ndarray, W: np.ndarray, sigma: str, X0: np.ndarray, T: float,
                    Q: np.ndarray | None = None, K: np.ndarray | None = None,
                    h: float = 1e-3, snapshots: int = 3, form: str = "z") -> FFRun:
    """RK4 for the feed-forward variant (approximate), in one of two readings.

    ``form="z"``: ż_i = W σ(V Σ_j P_ij (z_j − z_i)) as written in
    the paper, P from the scores of x = e^{tV}z. ``form="x"``:
    ẋ_i = W σ(V Σ_j P_ij x_j) (σ applied to the attention output, as in a transformer
    layer), reported as z = $e^{-tV}x$. Without σ and W both are the same dynamics.

    Parameters
    ----------
    V, W : arrays (d, d); Q, K : arrays (k, d), default identity
    sigma : {"relu", "tanh"}
    X0 : array (n, d)
    T, h : float
        Final time and RK4 step.
    """
    if form not in FORMS:
        raise ValueError("form must be 'z' or 'x'")

    d = V.shape[0]
    # The same dynamics as an instance option: floats enter as their exact binary values
    # and come back unchanged, so this is the float64 run of certified.exact.variant_spec.
    inst = Instance.create(V=V, Q=np.eye(d) if Q is None else Q,
                           K=np.eye(d) if K is None else K, X0=X0,
                           variant={"feedforward": {"sigma": sigma, "W": W, "form": form}})
    steps = int(round(T / h))
    marks = sorted({int(round(s * steps / (snapshots - 1))) for s in range(snapshots)})
    run = approx_variant(inst, T, h=h, times=[k * h for k in marks])
    times = run["times"]
    # the x-form runs in x; its pictures and measures are in z = $e^{-tV}x$
    snaps = [Z @ expm_float(-t * V).T if form == "x" else Z
             for t, Z in zip(times, run["tokens"])]
    phi = _left_leading(V)
    w0 = snaps[0] @ phi
    g = groups((snaps[-1] @ phi)[:, None], scale=float(w0.max() - w0.min()))
    r = float(np.linalg.norm(snaps[-1], axis=1).max() / np.linalg.norm(snaps[0], axis=1).max())
    pr = float(np.abs(snaps[-1] @ phi).max() / np.abs(w0).max())
    return FFRun(sigma, W, form, times, snaps, g, r, pr)


def section_12_2(n: int = 20, T: float = 5.0, seed: int = 0, h: float = 1e-3,
                 form: str = "z") -> list[FFRun]:
    """The three rows of the Section 12.2 figure, in the authors' setting.

    n tokens uniform in [−5, 5]², Q = K = I, V the authors' 2×2 example, T = 5; rows:
    (ReLU, W = I), (tanh, W = I), (ReLU, W with i.i.d. N(0, 1) entries from ``seed``).
    """
    rng = np.random.default_rng(seed)
    X0 = rng.uniform(-5, 5, (n, 2))
    Wr = rng.standard_normal((2, 2))
    return [feedforward_run(AUTHORS_V2, np.eye(2), "relu", X0, T, h=h, form=form),
            feedforward_run(AUTHORS_V2, np.eye(2), "tanh", X0, T, h=h, form=form),
            feedforward_run(AUTHORS_V2, Wr, "relu", X0, T, h=h, form=form)]


@dataclass(frozen=True)
class LayeredRun:
    """A discrete run with per-layer (and per-head) weights (approximate)."""

    steps: list[int]
    leaders: list[list[int]]  # per recorded step, per head
    groups: list[int]  # groups of the directions x_i/|x_i| (1% of 2)
    boolean: list[float]
    finite: bool

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "leaders": self.leaders, "groups": self.groups,
                "boolean": [round(b, 6) for b in self.boolean], "finite": self.finite}


def layered_run(X0: np.ndarray, layers_weights: Sequence[Sequence[tuple[np.ndarray, ...]]],
                n_layers: int, dt: float = 1.0, record: Sequence[int] = (0, 5, 10, 20, 40),
                score_scale: float = 1.0) -> LayeredRun:
    """x^{k+1} = x^k + Δt Σ_h P^h(x^k) X^k V_{h,k}ᵀ, weights of layer k = list[k mod L].

    Parameters
    ----------
    X0 : array (n, d)
    layers_weights : sequence over layers of sequences over heads of (Q_h, K_h, V_h)
        One weight set per layer, used in turn (a single entry = shared weights).
    n_layers : int
        Number of steps.
    score_scale : float
        Scores are ⟨Q x_i, K x_j⟩·score_scale (e.g. 1/√d_head).

    Notes
    -----
    With several V_h there is no common rescaling e^{−tV}, so groups are counted on the
    directions x_i/|x_i| (a cone picture), at 1% of their largest possible distance 2.
    """
    x = np.asarray(X0, dtype=float).copy()
    out_k, out_l, out_g, out_b = [], [], [], []
    finite = True
    for k in range(n_layers + 1):
        heads = layers_weights[k % len(layers_weights)]
        with np.errstate(over="ignore", invalid="ignore"):
            Ps = [softmax_rows((x @ Q.T) @ (x @ K.T).T * score_scale) for Q, K, _ in heads]
        if not (np.all(np.isfinite(x)) and all(np.all(np.isfinite(P)) for P in Ps)):
            finite = False  # the run left float64's range: later counts are not reported
            break
        if k in record:
            u = x / np.linalg.norm(x, axis=1, keepdims=True)
            out_k.append(k)
            out_l.append([leaders(P) for P in Ps])
            out_g.append(groups(u, scale=2.0))
            out_b.append(float(np.mean([P.max(axis=1).mean() for P in Ps])))
        if k == n_layers:
            break
        x = x + dt * sum((P @ x) @ V.T for P, (_, _, V) in zip(Ps, heads))
    return LayeredRun(out_k, out_l, out_g, out_b, finite)


def weight_sharing_study(weights: dict[str, np.ndarray], sentences: list[str],
                         n_layers: int = 40, head: tuple[int, int] = (2, 0)
                         ) -> dict[str, list[LayeredRun]]:
    """Does clustering survive multi-head attention and layer-dependent weights?

    From each sentence's embedding output (the model's own tokens entering layer 0), three
    discrete runs with MiniLM's weights (no biases, LayerNorm or MLP), Δt = 1:

    * ``one head, shared``: the single head ``head`` (a good triple) at every layer;
    * ``12 heads, shared``: all heads of that layer, Σ_h P^h X V_hᵀ, at every layer;
    * ``12 heads, per layer``: the six layers' multi-head attention in turn (0, 1, …, 5,
      0, …): no weight sharing, as in the trained model.
    """

    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}

    def layer_heads(L: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        p = f"encoder.layer.{L}.attention."
        Wq, Wk = w[p + "self.query.weight"], w[p + "self.key.weight"]
        Wv, Wo = w[p + "self.value.weight"], w[p + "output.dense.weight"]
        return [(Wq[32 * h:32 * h + 32], Wk[32 * h:32 * h + 32],
                 Wo[:, 32 * h:32 * h + 32] @ Wv[32 * h:32 * h + 32]) for h in range(12)]

    L0, h0 = head
    shared = layer_heads(L0)
    per_layer = [layer_heads(L) for L in range(6)]
    out: dict[str, list[LayeredRun]] = {"one head, shared": [], "12 heads, shared": [],
                                        "12 heads, per layer": []}
    scale = 1 / np.sqrt(32)
    for text in sentences:
        ids, toks = tokenize(text)
        X0 = forward(w, ids, toks).hidden[0]  # w: float64 already, no copy
        out["one head, shared"].append(layered_run(X0, [[shared[h0]]], n_layers,
                                                   score_scale=scale))
        out["12 heads, shared"].append(layered_run(X0, [shared], n_layers, score_scale=scale))
        out["12 heads, per layer"].append(layered_run(X0, per_layer, n_layers,
                                                      score_scale=scale))
    return out


def plot_weight_sharing(study: dict[str, list[LayeredRun]], path: str) -> None:
    """Leaders (mean over heads and sentences) and direction groups against the layer."""
    import matplotlib  # lazy: optional dependency (the plot extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: optional dependency (the plot extra)

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
    for name, runs in study.items():
        ks = runs[0].steps
        lead = [np.mean([np.mean(r.leaders[i]) for r in runs if i < len(r.steps)])
                for i in range(len(ks))]
        grp = [np.mean([r.groups[i] for r in runs if i < len(r.steps)]) for i in range(len(ks))]
        axes[0].plot(ks, lead, marker="o", label=name)
        axes[1].plot(ks, grp, marker="o", label=name)
    axes[0].set_title("leaders of P (mean over heads and sentences)", fontsize=9)
    axes[1].set_title("groups of token directions x_i/|x_i| (1% tolerance)", fontsize=9)
    for ax in axes:
        ax.set_xlabel("layer k")
        ax.legend(fontsize=8)
    fig.suptitle("all-MiniLM-L6-v2 attention only (no biases, LayerNorm, MLP), Δt = 1, from "
                 "the model's embeddings of the shipped sentences (approximate, float64)",
                 fontsize=9)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_section_12_2(runs: list[FFRun], path: str) -> None:
    """Three rows (ReLU W = I; tanh W = I; ReLU random W) × snapshots, tokens in z."""
    import matplotlib  # lazy: optional dependency (the plot extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: optional dependency (the plot extra)

    cols = len(runs[0].times)
    fig, axes = plt.subplots(len(runs), cols, figsize=(3.2 * cols, 3.0 * len(runs)),
                             layout="constrained")
    phi = _left_leading(AUTHORS_V2)
    for r, run in enumerate(runs):
        lim = 1.05 * max(np.abs(run.Z[0]).max(), 1e-9)
        label = (f"{run.form}-form, σ = {run.sigma}, "
                 f"W = {'I' if np.allclose(run.W, np.eye(2)) else 'random'}")
        for c, (t, Z) in enumerate(zip(run.times, run.Z)):
            ax = axes[r, c]
            ax.scatter(Z[:, 0], Z[:, 1], s=12)
            if c == cols - 1 and run.sigma == "relu" and np.allclose(run.W, np.eye(2)):
                for val in sorted(set(np.round(Z @ phi, 3))):
                    # the lines {z : φ₁*(z) = value} the tokens are on
                    xs = np.linspace(-lim, lim, 2)
                    if abs(phi[1]) > 1e-12:
                        ax.plot(xs, (val - phi[0] * xs) / phi[1], lw=0.6, color="grey")
            ax.set_xlim(-lim, lim)
            ax.set_ylim(-lim, lim)
            ax.set_title(f"{label}, t = {t:g}", fontsize=8)
            ax.tick_params(labelsize=7)
        axes[r, -1].text(0.02, 0.02, f"groups of φ₁*: {run.hyperplane_groups}\n"
                         f"max|z(T)|/max|z(0)| = {run.radius_ratio:.2g}\n"
                         f"max|φ₁*(z(T))|/max|φ₁*(z(0))| = {run.phi_ratio:.2g}",
                         transform=axes[r, -1].transAxes, fontsize=7, va="bottom")
    fig.suptitle("Section 12.2 feed-forward variant (approximate, float64 RK4), authors' V, "
                 "Q = K = I, n = 20 in [−5, 5]²\nz-form: ż = W σ(V Σ_j P_ij (z_j − z_i));  "
                 "x-form: ẋ = W σ(V Σ_j P_ij x_j), shown in z = $e^{-tV}x$", fontsize=9)
    fig.savefig(path, dpi=110)
    plt.close(fig)



