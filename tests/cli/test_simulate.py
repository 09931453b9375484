"""`certified simulate`: the spec's JSON, --out/--plot files, and exit-2 errors."""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from certified.cli import main
from certified.exact.rationals import to_fraction

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(capsys, *args):
    """The command with the whole JSON document on stdout (--format json)."""
    args = list(args)
    code = main(args + ["--format", "json"] if args[0] == "simulate" and "--help" not in args
                else args)
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json_matches_spec(capsys, tmp_path):
    out_file, png = tmp_path / "sim.json", tmp_path / "sim.png"
    code, out, err = run(capsys, "simulate", str(EXAMPLES / "remark_7_9.json"),
                         "--t-final", "1/2", "--digits", "20", "--times", "0,1/4,1/2",
                         "--out", str(out_file), "--plot", str(png))
    assert code == 0, err
    res = json.loads(out)
    assert json.loads(out_file.read_text()) == res
    assert png.stat().st_size > 10_000
    assert res["variable"] == "z" and res["digits"] == 20 and res["certified_until"] == "1/2"
    assert res["times"] == ["0", "1/4", "1/2"]
    assert len(res["tokens"]) == 3 and len(res["tokens"][0]) == 2 and len(res["tokens"][0][0]) == 2
    assert len(res["attention"][2]) == 2 and len(res["attention"][2][1]) == 2
    # z_{i,0} = 1 for all t (by symmetry u = e^t in x); P rows sum to 1
    for k in range(3):
        for i in range(2):
            lo, hi = (to_fraction(x) for x in res["tokens"][k][i][0])
            assert lo <= 1 <= hi and hi - lo < F(1, 10 ** 18)
        lo = sum(to_fraction(res["attention"][k][0][j][0]) for j in range(2))
        hi = sum(to_fraction(res["attention"][k][0][j][1]) for j in range(2))
        assert lo <= 1 <= hi


def test_simulate_x_variable(capsys):
    code, out, _ = run(capsys, "simulate", str(EXAMPLES / "thm8_5_contracting.json"),
                       "--t-final", "1/4", "--digits", "15", "--variable", "x")
    assert code == 0
    res = json.loads(out)
    assert res["variable"] == "x" and res["times"] == ["0", "1/4"]


def test_simulate_discrete(capsys):
    code, out, _ = run(capsys, "simulate", str(EXAMPLES / "discrete_layers.json"),
                       "--t-final", "1", "--times", "0,1/2,1", "--digits", "20")
    assert code == 0
    res = json.loads(out)
    assert res["certified_until"] == "1" and res["method"]["time_mode"] == "discrete"


@pytest.mark.parametrize("args, expected", [
    (["--t-final", "-1"], "must be > 0"),
    (["--t-final", "abc"], "'abc' is not a number"),
    (["--t-final", "1", "--digits", "20", "--bits", "70"], "--digits and --bits are alternatives"),
    (["--t-final", "1", "--times", "2"], "times: 2 is outside"),
    (["--t-final", "1", "--variable", "y"], "'y' is not one of"),
    (["--t-final", "1", "--digits", "2"], "too small"),
    ([], "Missing option '--t-final'"),
])
def test_simulate_bad_usage_exit_2_nothing_written(capsys, tmp_path, args, expected):
    out_file = tmp_path / "never.json"
    code, out, err = run(capsys, "simulate", str(EXAMPLES / "remark_7_9.json"), *args,
                         "--out", str(out_file))
    assert code == 2 and out == "" and err.count("\n") == 1 and expected in err
    assert not out_file.exists() and list(tmp_path.iterdir()) == []


def test_simulate_discrete_time_not_on_grid(capsys):
    code, _, err = run(capsys, "simulate", str(EXAMPLES / "discrete_layers.json"),
                       "--t-final", "1", "--times", "1/3")
    assert code == 2 and "not a multiple of Δt" in err


@pytest.mark.parametrize("backend", ["flint", "mpmath"])
def test_simulate_astronomical_token_reports_time_zero_honestly(capsys, tmp_path, backend):
    """A token of size 10^400 (accepted: exact rationals have no range) makes scores of
    10^800. No step can be validated, so the run is certified until 0 only — exit 0, one
    consistent report at t = 0, P enclosed in [0, 1] (Arb's softmax overflowed to NaN
    there; mpmath's to endpoints beyond any exact conversion). Before: exit 1 with
    "ball nan is not finite" (flint) or an UnboundLocalError (mpmath)."""
    inst = tmp_path / "big.json"
    inst.write_text(json.dumps({"V": [["1"]], "Q": [["1"]], "K": [["1"]],
                                "X0": [["1e400"], ["1"]], "time": "continuous"}))
    code, out, err = run(capsys, "simulate", str(inst), "--t-final", "1/10",
                         "--digits", "20", "--backend", backend)
    assert code == 0, err
    res = json.loads(out)
    assert res["certified_until"] == "0" and res["not_certified_times"] == ["1/10"]
    assert res["times"] == ["0"] and len(res["tokens"]) == len(res["attention"]) == 1
    lo, hi = (F(x) for x in res["tokens"][0][0][0])
    assert lo <= F(10) ** 400 <= hi and hi - lo < F(10) ** 382
    for row in res["attention"][0]:
        for cell in row:
            lo, hi = (F(x) for x in cell)  # may be 5e-19729: beyond to_fraction's input cap
            assert -F(1, 10 ** 8) <= lo <= hi <= 1 + F(1, 10 ** 8)


def test_reported_attention_is_clipped_to_the_unit_interval_never_widened():
    """`attention(..., clip=True)` (what simulate and verify report) intersects with
    [0, 1] (softmax weights): on a wide box whose enclosure reaches far above 1 it comes
    back inside [0, 1] and inside the plain enclosure; on points it is the plain one."""
    import numpy as np

    from certified import Instance
    from certified.enclose.arith import get_backend
    from certified.enclose.field import AttentionField

    inst = Instance.create(V=[[1]], Q=[[1]], K=[[1]], X0=[[0], [1]])
    for name in ("flint", "mpmath"):
        bk = get_backend(name)
        with bk.workprec(80):
            field = AttentionField(inst, bk, "x")
            half = F(1, 2)
            wide = np.array([[bk.interval(-half, half)], [bk.interval(half, 3 * half)]],
                            dtype=object)
            raw = field.attention(wide, F(0))
            P = field.attention(wide, F(0), clip=True)
            # the plain enclosure reaches 16.4 on this box (measured), the weights are ≤ 1
            assert max(bk.bounds(v)[1] for v in raw.flat) > 10
            for v, r in zip(P.flat, raw.flat):
                lo, hi = bk.bounds(v)
                rlo, rhi = bk.bounds(r)
                # Arb rounds a re-made interval's radius to 30 bits: 1e-8 of slack
                eps = F(1, 10 ** 8)
                assert max(rlo, 0) - eps <= lo <= hi <= min(rhi, 1) + eps
            point = bk.array(inst.X0)
            plain = field.attention(point, F(0))
            clipped = field.attention(point, F(0), clip=True)
            assert all(bk.bounds(a) == bk.bounds(b) for a, b in zip(plain.flat, clipped.flat))
    from certified.exact.arb_convert import power_of_two
    assert power_of_two(70000) == "2^70000"
    assert power_of_two(-10 ** 30) == "2^(-31-digit exponent)"


def test_simulate_summary_is_short_and_names_the_stop(capsys):
    code = main(["simulate", str(EXAMPLES / "discrete_layers.json"), "--t-final", "1",
                 "--digits", "20"])
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("certified until t = 1 (reached t_final at t = 1)")
    # the enclosures at the reported times 0 and 1, every token (3 of them), named
    assert lines[1] == "enclosures of z(t) = e^{-tV} x(t) at 2 reported time(s):", out
    assert [ln for ln in lines if ln.startswith("  t = ")] == ["  t = 0:", "  t = 1:"]
    assert sum(ln.startswith("    token ") for ln in lines) == 6, out


def test_simulate_summary_shortens_honestly_and_reads_exact_radii(capsys):
    code = main(["simulate", str(EXAMPLES / "thm3_1_identity.json"), "--t-final", "1",
                 "--times", "0,1/4,1/2,3/4,1", "--digits", "30"])
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert code == 0 and lines[1] == "enclosures of z(t) = e^{-tV} x(t) at 5 reported time(s):"
    assert [ln for ln in lines if ln.startswith("  t = ")] == [
        "  t = 0:", "  t = 1/4:", "  t = 3/4:", "  t = 1:"], out
    assert "  … 1 more time(s) (in the JSON output, or .lower and .upper)" in lines
    assert lines.count("    … 2 more token(s)") == 4  # 6 tokens, 4 shown at each time
    assert "    token 0: (2, 0) exactly" in lines  # t = 0: the exact initial tokens
    radii = [float(ln.rsplit("≤ ", 1)[1]) for ln in lines if "radius ≤" in ln]
    assert len(radii) == 12 and all(1e-40 < r < 1e-25 for r in radii), radii
