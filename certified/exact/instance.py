"""Instances: exact (V, Q, K, X0, time mode), their JSON format and validation.

The JSON format is ``certified/instance`` version 1 (docs: the CLI and JSON reference)::

    {"format": "certified/instance", "version": 1, "name": "optional label",
     "V": [["1","0"],["0","1"]], "Q": ..., "K": ..., "X0": [["1","1/10"],["1","-1/10"]],
     "time": "continuous"}          # or {"discrete": "1/10"}

Every number is exact (see :mod:`certified.exact.rationals`). Every validation failure raises
:class:`~certified.errors.InputError` naming the field (``"V[1][0]"``, ``"K"``,
``"time.discrete"``) and what would be accepted.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping, Union

from certified.errors import InputError
from certified.exact.linalg import Matrix, matmul, to_fmpq_mat, transpose
from certified.exact.rationals import (
    JsonNumber,
    fraction_to_str,
    loads_exact,
    parse_matrix,
    shape_str,
    to_fraction,
)
from certified.exact.variant_spec import parse_variant

__all__ = ["Continuous", "Discrete", "TimeMode", "Instance", "FORMAT", "VERSION"]

FORMAT = "certified/instance"
VERSION = 1
_KEYS = ("format", "version", "name", "V", "Q", "K", "X0", "time", "variant")


@dataclass(frozen=True)
class Continuous:
    """The ODE ``ẋ_i = Σ_j P_ij V x_j`` (and its rescaling ``z = e^{-tV} x``)."""

    def to_json(self) -> str:
        return "continuous"


@dataclass(frozen=True)
class Discrete:
    """One layer = one forward-Euler step of size ``dt`` (Remarks 1.1 and 3.4)."""

    dt: Fraction

    def to_json(self) -> dict[str, str]:
        return {"discrete": fraction_to_str(self.dt)}


TimeMode = Union[Continuous, Discrete]


def _time(value: Any) -> TimeMode:
    if isinstance(value, (Continuous, Discrete)):
        if isinstance(value, Discrete):
            return _time({"discrete": value.dt})
        return value
    accepted = "\"continuous\" or {\"discrete\": Δt} with Δt > 0"
    if value is None or value == "continuous":
        return Continuous()
    if isinstance(value, Mapping):
        if set(value) != {"discrete"}:
            raise InputError("time", f"unexpected keys {sorted(value)}", accepted)
        dt = to_fraction(value["discrete"], "time.discrete")
        if dt <= 0:
            raise InputError("time.discrete", f"Δt = {fraction_to_str(dt)} is not positive",
                             "a number Δt > 0")
        return Discrete(dt)
    raise InputError("time", f"{value!r} is not a time mode", accepted)


@dataclass(frozen=True)
class Instance:
    """An exact instance of the self-attention dynamics.

    Attributes
    ----------
    V : Matrix, shape (d, d)
        Value matrix.
    Q, K : Matrix, shape (k, d)
        Query and key matrices; only ``B = QᵀK`` enters the scores.
    X0 : Matrix, shape (n, d)
        Initial tokens, one per row (numbered from 0 in every output).
    time : Continuous or Discrete
        The ODE, or one Euler step of size ``dt`` per layer.
    name : str or None
        Optional label.

    Notes
    -----
    Build instances with :meth:`create` (Python values), :meth:`from_json` (a parsed
    JSON object) or :meth:`load` (a file); all validate. A Python ``float`` is taken
    as its exact binary value: ``0.1`` becomes 3602879701896397/36028797018963968.
    """

    V: Matrix
    Q: Matrix
    K: Matrix
    X0: Matrix
    time: TimeMode = field(default_factory=Continuous)
    name: str | None = None
    #: An open variant (:mod:`certified.exact.variant_spec`): feed-forward, multi-head or piecewise
    #: weights; None for the paper's dynamics.
    variant: Any = None

    # -- construction ---------------------------------------------------------------
    @classmethod
    def create(cls, *, V: Any, Q: Any, K: Any, X0: Any, time: Any = "continuous",
               name: str | None = None, variant: Any = None) -> "Instance":
        """Validate and build an instance from Python values (see module docstring)."""
        Vm, Qm, Km, Xm = (parse_matrix(V, "V"), parse_matrix(Q, "Q"), parse_matrix(K, "K"),
                          parse_matrix(X0, "X0"))
        d = len(Vm)
        if len(Vm[0]) != d:
            raise InputError("V", f"shape {shape_str(Vm)} is not square", "a d×d matrix")
        if len(Qm[0]) != d:
            raise InputError("Q", f"shape {shape_str(Qm)} has {len(Qm[0])} columns but V is "
                                  f"{d}×{d}", f"a k×d matrix with d = {d} columns")
        if len(Km) != len(Qm) or len(Km[0]) != len(Qm[0]):
            raise InputError("K", f"shape {shape_str(Km)} differs from Q's shape {shape_str(Qm)}",
                             "Q and K of the same shape k×d")
        if len(Xm[0]) != d:
            raise InputError("X0", f"shape {shape_str(Xm)}: tokens have {len(Xm[0])} coordinates "
                                   f"but V is {d}×{d}", f"an n×d matrix with d = {d} columns")
        mode = _time(time)
        if name is not None and (not isinstance(name, str) or isinstance(name, JsonNumber)):
            kind = "number" if isinstance(name, JsonNumber) else type(name).__name__
            raise InputError("name", f"a {kind} is not a label", "a string")
        var = None
        if variant is not None:

            var = parse_variant(variant, d)
            if isinstance(mode, Discrete):
                raise InputError("variant", "is for continuous time only",
                                 "time \"continuous\" with a variant")
        inst = cls(Vm, Qm, Km, Xm, mode, name, var)
        if isinstance(mode, Discrete) and inst.R_determinant == 0:
            raise InputError("time.discrete",
                             f"R = I + Δt·V is singular for Δt = {fraction_to_str(mode.dt)}",
                             "a Δt > 0 with I + Δt·V invertible (the rescaled discrete form, "
                             "Remark 3.4, needs R⁻¹)")
        return inst

    @classmethod
    def from_json(cls, obj: Any) -> "Instance":
        """Build from a parsed JSON object (numbers as text, see :func:`loads_exact`)."""
        if not isinstance(obj, Mapping):
            raise InputError("instance", f"a JSON {type(obj).__name__} is not an instance",
                             "a JSON object with keys V, Q, K, X0 (and optional time, name)")
        unknown = sorted(set(obj) - set(_KEYS))
        if unknown:
            raise InputError(unknown[0], "unknown key", "keys " + ", ".join(_KEYS))
        if "format" in obj and obj["format"] != FORMAT:
            raise InputError("format", f"{obj['format']!r} is not an instance format",
                             f"{FORMAT!r}")
        if "version" in obj and str(obj["version"]) != str(VERSION):
            raise InputError("version", f"{obj['version']!r} is not supported", f"{VERSION}")
        for key in ("V", "Q", "K", "X0"):
            if key not in obj:
                raise InputError(key, "missing", f"a matrix under the key {key!r}")
        return cls.create(V=obj["V"], Q=obj["Q"], K=obj["K"], X0=obj["X0"],
                          time=obj.get("time", "continuous"), name=obj.get("name"),
                          variant=obj.get("variant"))

    @classmethod
    def loads(cls, text: str) -> "Instance":
        """Parse instance JSON text exactly (JSON numbers never become floats)."""
        try:
            obj = loads_exact(text)
        except json.JSONDecodeError as exc:
            raise InputError("instance", f"not valid JSON ({exc.msg} at line {exc.lineno} "
                                         f"column {exc.colno})", "a JSON object") from None
        return cls.from_json(obj)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Instance":
        """Read an instance file."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(str(path), f"cannot be read ({exc.__class__.__name__})",
                             "a readable UTF-8 JSON file") from None
        return cls.loads(text)

    # -- output ---------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The JSON object of the spec, every number as exact text."""
        def mat(m: Matrix) -> list[list[str]]:
            return [[fraction_to_str(x) for x in row] for row in m]
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        if self.name is not None:
            out["name"] = self.name
        out.update(V=mat(self.V), Q=mat(self.Q), K=mat(self.K), X0=mat(self.X0),
                   time=self.time.to_json())
        if self.variant is not None:
            out["variant"] = self.variant.to_json()
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"

    def dump(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a reader never sees a half-written file."""
        path = Path(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(self.dumps())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    # -- derived exact data ---------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of tokens."""
        return len(self.X0)

    @property
    def d(self) -> int:
        """Dimension of the tokens."""
        return len(self.V)

    @property
    def k(self) -> int:
        """Number of rows of Q and K."""
        return len(self.Q)

    @cached_property
    def B(self) -> Matrix:
        """``QᵀK`` (d×d), the only combination of Q and K that enters the scores."""
        return matmul(transpose(self.Q), self.K)

    @cached_property
    def scalar_V(self) -> Fraction | None:
        """λ when ``V = λI`` exactly, else None."""
        v0, d = self.V[0][0], self.d
        if all(self.V[i][j] == (v0 if i == j else 0) for i in range(d) for j in range(d)):
            return v0
        return None

    @cached_property
    def R_determinant(self) -> Fraction:
        """``det(I + Δt V)`` in discrete time; 1 in continuous time."""
        if not isinstance(self.time, Discrete):
            return Fraction(1)
        dt = self.time.dt
        R = tuple(tuple((1 if i == j else 0) + dt * self.V[i][j] for j in range(self.d))
                  for i in range(self.d))
        det = to_fmpq_mat(R).det()
        return Fraction(int(det.p), int(det.q))
