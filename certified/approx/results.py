"""The result types of the approximate paths: plain numbers, never enclosures.

They are different types from :class:`~certified.enclose.driver.Trajectory` and the
certified verdicts, so an approximation cannot be mistaken for a certified result.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ApproxJudgement", "ApproxTrajectory"]


@dataclass
class ApproxTrajectory:
    """An approximate trajectory (no error bounds).

    Attributes
    ----------
    times : list of float
    tokens : list of arrays, shape (n, d)
        Approximate tokens (float64, or mpmath mpf objects) in ``variable``.
    attention : list of arrays, shape (n, n)
    variable : str
    method : str
    """

    times: list[float]
    tokens: list[np.ndarray]
    attention: list[np.ndarray]
    variable: str
    method: str


@dataclass(frozen=True)
class ApproxJudgement:
    """An *approximate* reading of a theorem's conclusion from a float64 run (no proof).

    Attributes
    ----------
    judgement : {"holds", "breaks", "n/a"}
    detail : str
    method : str
    """

    judgement: str
    detail: str
    method: str

    def to_json(self) -> dict[str, str]:
        return {"judgement": self.judgement, "detail": self.detail, "method": self.method}
