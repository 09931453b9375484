"""Figures (matplotlib, an optional dependency): trajectories and attention matrices.

Plots are drawn from enclosure midpoints (a picture, not a proof); the certified numbers
are in the JSON output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from certified.errors import CertifiedError

__all__ = ["plot_trajectory"]


def _pyplot():
    try:
        import matplotlib  # lazy: optional dependency (the plot extra)
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # lazy: optional dependency (the plot extra)
    except ImportError:  # pragma: no cover - depends on the environment
        raise CertifiedError("--plot needs matplotlib: pip install 'certified[plot]'") from None
    return plt


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull of 2-D points (monotone chain), closed polygon."""
    pts = sorted(map(tuple, points))
    if len(pts) <= 2:
        return np.array(pts + pts[:1])

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    hull = lower[:-1] + upper[:-1]
    return np.array(hull + hull[:1])


def plot_trajectory(times: Sequence[float], tokens: Sequence[np.ndarray],
                    attention: Sequence[np.ndarray], path: str | Path,
                    variable: str = "z", title: str = "") -> None:
    """Tokens over time (first two coordinates, with the hull at the first and last
    time) next to the attention matrix at the last time, saved to ``path`` (PNG).

    Parameters
    ----------
    times : floats, length m
    tokens : arrays, shape (n, d) each (midpoints)
    attention : arrays, shape (n, n) each (midpoints)
    """
    plt = _pyplot()
    fig, (ax, axp) = plt.subplots(1, 2, figsize=(11, 5))
    T = np.stack(tokens)  # (m, n, d)
    n, d = T.shape[1], T.shape[2]
    ys = T[:, :, 1] if d > 1 else np.tile(np.asarray(times)[:, None], (1, n))
    for i in range(n):
        ax.plot(T[:, i, 0], ys[:, i], "-", lw=1)
        ax.plot(T[-1, i, 0], ys[-1, i], "o", ms=4, color="k")
    if d > 1 and n >= 3:
        for k, style in ((0, ":"), (-1, "--")):
            h = _hull(T[k, :, :2])
            ax.plot(h[:, 0], h[:, 1], style, color="grey", lw=1,
                    label=f"hull at t = {times[k]:g}")
        ax.legend(loc="best", fontsize=8)
    ax.set_xlabel(f"{variable}[0]")
    ax.set_ylabel(f"{variable}[1]" if d > 1 else "t")
    ax.set_title(title or f"tokens in {variable}, t ∈ [{times[0]:g}, {times[-1]:g}]")
    im = axp.imshow(np.asarray(attention[-1], dtype=float), vmin=0, vmax=1, cmap="viridis")
    axp.set_title(f"P at t = {times[-1]:g}")
    fig.colorbar(im, ax=axp, fraction=0.046)
    fig.tight_layout()
    tmp = Path(str(path) + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)  # atomic: never a half-written figure


def plot_verification(times: Sequence[float], tokens: Sequence[np.ndarray],
                      P_T: np.ndarray, P_star: Sequence[Sequence[int]] | None,
                      centers: Sequence[Sequence[tuple[float, float]]] | None,
                      path: str | Path, title: str = "",
                      levels: tuple[Sequence[float], Sequence[float]] | None = None) -> None:
    """Trajectories in z with the certified cluster centres (their boxes, drawn as
    rectangles or intervals) and the hull of the centres, or Theorem 4.2's hyperplanes
    {ψ(z) = c} (``levels`` = (ψ, values)); P(T) next to P*.

    Parameters
    ----------
    times : floats, length m
    tokens : arrays, shape (n, d) each (midpoints of the validated run)
    P_T : array, shape (n, n)
        Midpoints of P at the last validated time.
    P_star : n×n 0/1 matrix or None
    centers : per cluster, d pairs (lo, hi) (floats), or None
    """
    plt = _pyplot()
    from matplotlib.patches import Rectangle  # lazy: optional dependency (the plot extra)

    ncols = 3 if P_star is not None else 2
    fig, axes = plt.subplots(1, ncols, figsize=(5 * ncols, 4.6))
    ax = axes[0]
    T = np.stack(tokens)
    n, d = T.shape[1], T.shape[2]
    ys = T[:, :, 1] if d > 1 else np.tile(np.asarray(times)[:, None], (1, n))
    for i in range(n):
        ax.plot(T[:, i, 0], ys[:, i], "-", lw=1)
    if centers:
        for b in centers:
            if d > 1:
                (x0, x1), (y0, y1) = b[0], b[1]
                ax.add_patch(Rectangle((x0, y0), max(x1 - x0, 1e-3), max(y1 - y0, 1e-3),
                                       fill=False, color="black", lw=1.5))
                ax.plot([(x0 + x1) / 2], [(y0 + y1) / 2], "k+", ms=10)
            else:
                ax.axvline((b[0][0] + b[0][1]) / 2, color="black", lw=1, ls="--")
        if d > 1 and len(centers) >= 3:
            h = _hull(np.array([[(b[0][0] + b[0][1]) / 2, (b[1][0] + b[1][1]) / 2]
                                for b in centers]))
            ax.plot(h[:, 0], h[:, 1], "-", color="black", lw=0.8, label="hull of the limits")
            ax.legend(loc="best", fontsize=8)
    if levels is not None and d == 2:
        psi, values = levels
        x0, x1 = ax.get_xlim()
        y0, y1 = ax.get_ylim()
        for c in values:  # ψ₀ z₀ + ψ₁ z₁ = c
            if abs(psi[1]) > 1e-12:
                xs = np.array([x0, x1])
                ax.plot(xs, (c - psi[0] * xs) / psi[1], "--", color="black", lw=1)
            else:
                ax.axvline(c / psi[0], color="black", lw=1, ls="--")
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
    ax.set_xlabel("z[0]")
    ax.set_ylabel("z[1]" if d > 1 else "t")
    ax.set_title(title or "tokens (z) and certified limits")
    im = axes[1].imshow(np.asarray(P_T, dtype=float), vmin=0, vmax=1, cmap="viridis")
    axes[1].set_title(f"P at t = {times[-1]:g}")
    fig.colorbar(im, ax=axes[1], fraction=0.046)
    if P_star is not None:
        axes[2].imshow(np.asarray(P_star, dtype=float), vmin=0, vmax=1, cmap="viridis")
        axes[2].set_title("P* (certified limit)")
    fig.tight_layout()
    tmp = Path(str(path) + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)
