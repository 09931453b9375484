"""Instances: Python and JSON inputs, round trips, and field-naming validation."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
import sympy

from certified import Continuous, Discrete, InputError, Instance

I2 = [["1", "0"], ["0", "1"]]


def good(**over):
    obj = {"V": I2, "Q": I2, "K": I2, "X0": [["1", "1/10"], ["1", "-1/10"]]}
    obj.update(over)
    return obj


def test_json_reading_is_exact():
    inst = Instance.loads(json.dumps(good(X0=[[1, 0.1], ["1e-3", "-3/4"]])))
    assert inst.X0 == ((1, Fraction(1, 10)), (Fraction(1, 1000), Fraction(-3, 4)))
    assert inst.time == Continuous() and (inst.n, inst.d, inst.k) == (2, 2, 2)


def test_python_inputs():
    inst = Instance.create(V=np.eye(2), Q=[[sympy.Rational(1, 3), 0]], K=np.array([[3, 0]]),
                           X0=[[0.1, Fraction(1, 7)]], time={"discrete": "1/10"})
    assert inst.X0[0][0] == Fraction(3602879701896397, 36028797018963968)
    assert inst.B == ((1, 0), (0, 0))  # QᵀK with k = 1
    assert inst.time == Discrete(Fraction(1, 10))


def test_round_trip_through_file(tmp_path):
    inst = Instance.create(V=[["1/3", 2], [0, "-5"]], Q=[[1, 2], [3, 4], [5, 6]],
                           K=[[0, 1], [1, 0], ["7/9", 1]], X0=[["1e-3", 2]],
                           time={"discrete": "1/8"}, name="round trip")
    path = tmp_path / "inst.json"
    inst.dump(path)
    again = Instance.load(path)
    assert again == inst
    assert json.loads(path.read_text())["format"] == "certified/instance"


BAD = [
    ({"V": [["1", "0"], ["0"]]}, "V: ragged rows"),
    ({"V": [["1", "0", "0"], ["0", "1", "0"]]}, "V: shape 2×3 is not square"),
    ({"V": []}, "V: empty matrix"),
    ({"V": [[]]}, "V[0]: empty row"),
    ({"V": "I"}, "V: is a string, not a matrix"),
    ({"V": [1, 2]}, "V[0]: is a number, not a row"),
    ({"V": None}, "V: is null, not a matrix"),
    ({"V": {"a": [1]}}, "V: is an object, not a matrix"),
    ({"V": [{"a": 1}]}, "V[0]: is an object, not a row"),
    ({"Q": [["1", "0", "0"]], "K": [["1", "0", "0"]]}, "Q: shape 1×3 has 3 columns"),
    ({"K": [["1", "0"]]}, "K: shape 1×2 differs from Q's shape 2×2"),
    ({"X0": []}, "X0: empty matrix"),
    ({"X0": [["1", "2", "3"]]}, "X0: shape 1×3"),
    ({"X0": [["1", "abc"]]}, "X0[0][1]: 'abc' is not a number"),
    ({"V": [["1", "1e999999999"], ["0", "1"]]}, "V[0][1]: '1e999999999' is too large"),
    ({"time": {"discrete": "0"}}, "time.discrete: Δt = 0 is not positive"),
    ({"time": {"discrete": "-1/10"}}, "time.discrete: Δt = -1/10 is not positive"),
    ({"time": "sometimes"}, "time: 'sometimes' is not a time mode"),
    ({"time": {"discrete": "1", "extra": 1}}, "time: unexpected keys"),
    ({"V": [["-1", "0"], ["0", "-1"]], "time": {"discrete": "1"}},
     "time.discrete: R = I + Δt·V is singular"),
    ({"x0": [["1", "2"]]}, "x0: unknown key"),
    ({"format": "certified/certificate"}, "format: 'certified/certificate' is not"),
    ({"version": 2}, "version: '2' is not supported"),
    ({"name": 5}, "name: a number is not a label"),
]


@pytest.mark.parametrize("over, expected", BAD, ids=[b[1][:30] for b in BAD])
def test_bad_input_names_field(over, expected):
    with pytest.raises(InputError) as info:
        Instance.loads(json.dumps(good(**over)))
    assert str(info.value).startswith(expected), str(info.value)
    assert "accepted:" in str(info.value) and "\n" not in str(info.value)


def test_nan_json_literal_and_missing_and_non_object():
    with pytest.raises(InputError, match=r"^V\[0\]\[0\]: 'NaN' is not a finite number"):
        Instance.loads('{"V": [[NaN]], "Q": [[1]], "K": [[1]], "X0": [[1]]}')
    with pytest.raises(InputError, match="^K: missing"):
        Instance.loads('{"V": [[1]], "Q": [[1]], "X0": [[1]]}')
    with pytest.raises(InputError, match="^instance: a JSON list"):
        Instance.loads("[1, 2]")
    with pytest.raises(InputError, match="^instance: not valid JSON"):
        Instance.loads('{"V": ')


def test_numpy_non_2d_rejected():
    with pytest.raises(InputError, match="^X0: is a 1-D array, not a matrix"):
        Instance.create(V=np.eye(2), Q=np.eye(2), K=np.eye(2), X0=np.zeros(2))


def test_dump_is_atomic_on_failure(tmp_path, monkeypatch):
    inst = Instance.loads(json.dumps(good()))
    path = tmp_path / "keep.json"
    path.write_text("original")

    def boom(self):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Instance, "dumps", boom)
    with pytest.raises(RuntimeError):
        inst.dump(path)
    assert path.read_text() == "original"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]
