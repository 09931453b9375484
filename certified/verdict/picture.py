"""What ``verify --plot`` draws: the run's trajectory in z, P(T), and the lemma's limits.

Floats throughout: a picture is never a certified result.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from certified.approx.float64 import expm_float
from certified.enclose.driver import trajectory_midpoints
from certified.enclose.field import AttentionField
from certified.exact.rationals import float_matrix
from certified.tail.protocol import LemmaPicture
from certified.verdict.certify import Verification

__all__ = ["VerificationPicture", "verification_picture"]


@dataclass(frozen=True)
class VerificationPicture:
    """Floats for a figure of one verification.

    Attributes
    ----------
    times : list of float
    tokens : list of ndarray, shape (n, d)
        Midpoints of the token enclosures in z at each time.
    attention_at_T : ndarray, shape (n, n)
        Midpoints of P at the last certified time.
    lemma : LemmaPicture
        What the verified tail lemma proves (empty when none held).
    title : str
    """

    times: list[float]
    tokens: list[np.ndarray]
    attention_at_T: np.ndarray
    lemma: LemmaPicture
    title: str


def verification_picture(v: Verification) -> VerificationPicture | None:
    """The picture of ``v`` (None when it has no trajectory)."""
    traj = v.trajectory
    if traj is None:
        return None
    inst = v.instance
    ts, toks, _ = trajectory_midpoints(traj)
    bk, var = traj.backend, traj.variable
    with bk.workprec(traj.bits):
        # certify integrates in one variable (z for T4, x for T6–T8): P from it
        field = AttentionField(inst, bk, var)
        Y = traj.steps[-1].output_set.box(bk).reshape(inst.n, inst.d) \
            if traj.steps else bk.array(inst.X0)
        P_T = bk.float_array(field.attention(Y, traj.certified_until, clip=True))
    if var == "x":  # the picture is in z (float conversion: a picture only)
        Vf = float_matrix(inst.V, "V (for --plot)")
        toks = [X @ expm_float(-t * Vf).T for t, X in zip(ts, toks)]
    lemma = v.tail.picture() if v.tail is not None else LemmaPicture()
    return VerificationPicture(ts, toks, P_T, lemma, f"Theorem {v.theorem}: {v.verdict}")
