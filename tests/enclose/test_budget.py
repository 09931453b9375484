"""Input limits before any work: an instance whose attention jets cannot fit in half of
the machine's memory is refused naming X0 and the largest n that fits (exit 2)."""

from __future__ import annotations

import json

import pytest

from certified.enclose import budget
from certified.enclose.budget import check_fits, run_bytes
from certified.errors import InputError


def test_run_bytes_is_the_stated_formula():
    # n² (d + 1) (order + 1) (48 + 8 ⌈bits/64⌉)
    assert run_bytes(3, 2, 10, 128) == 9 * 3 * 11 * (48 + 16)
    assert run_bytes(3, 2, 10, 129) == 9 * 3 * 11 * (48 + 24)


def test_the_largest_n_named_fits_and_the_next_does_not(monkeypatch):
    monkeypatch.setattr(budget, "physical_memory", lambda: 2 * 2 ** 30)  # half: 1 GiB
    with pytest.raises(InputError) as exc:
        check_fits(10 ** 5, 2, 55, 143)
    msg = str(exc.value)
    assert msg.startswith("X0: 100000 tokens in dimension 2 need at least "), msg
    n_max = int(msg.split("at most ")[1].split(" tokens")[0])
    assert run_bytes(n_max, 2, 55, 143) <= 2 ** 30 < run_bytes(n_max + 1, 2, 55, 143)
    check_fits(n_max, 2, 55, 143)  # fits: no error
    with pytest.raises(InputError):
        check_fits(n_max + 1, 2, 55, 143)


@pytest.mark.parametrize("command", [["verify"], ["simulate", "--t-final", "1"]])
def test_too_many_tokens_exit_2_naming_the_field_before_any_work(command, monkeypatch,
                                                                  tmp_path, capsys):
    from certified.cli import main
    from certified.enclose import driver
    from certified.verdict import certify

    def no_work(*args, **kwargs):
        raise AssertionError("work started before the memory check")

    monkeypatch.setattr(budget, "physical_memory", lambda: 2 ** 26)  # 64 MiB
    monkeypatch.setattr(certify, "classify", no_work)  # verify's first work
    monkeypatch.setattr(driver, "get_backend", no_work)  # simulate's first work
    path = tmp_path / "many.json"
    path.write_text(json.dumps({
        "format": "certified/instance", "version": 1, "V": [[1, 0], [0, 1]],
        "Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]],
        "X0": [[i, -i] for i in range(300)], "time": "continuous"}))
    out_file = tmp_path / "c.json"
    assert main([command[0], str(path), *command[1:], "--out", str(out_file)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("certified: bad input: X0: 300 tokens in dimension 2 need"), err
    assert "accepted: at most " in err and len(err.strip().splitlines()) == 1
    assert not out_file.exists()


def test_discrete_time_is_charged_no_taylor_jets(monkeypatch, tmp_path, capsys):
    """Review finding: the layer map has no jets, so discrete time is charged order 0."""
    from certified.cli import main

    # room for 3 tokens with order-0 jets, not with the default order's
    need0 = run_bytes(3, 2, 0, 200)
    monkeypatch.setattr(budget, "physical_memory", lambda: 2 * need0)
    assert main(["simulate", "examples/discrete_layers.json", "--t-final", "1",
                 "--digits", "20"]) == 0, capsys.readouterr().err
    assert main(["simulate", "examples/thm2_1_one_dimensional.json", "--t-final", "1",
                 "--digits", "20"]) == 2
    assert "X0: 5 tokens" in capsys.readouterr().err
