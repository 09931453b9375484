"""What people read: the summary's numbers come from the exact enclosures (a radius of
1e-30 next to 2 is not shown as 0), the midpoints are cut honestly, the variable and the
leaders are named."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest

from certified.api import _enclosure_text, _mid_text, _radius_text
from certified.cli import main


@pytest.mark.parametrize("r, text", [
    (F(0), "0"), (F(1, 10 ** 30), "1.0e-30"), (F(32, 10 ** 31), "3.2e-30"),
    (F(321, 10 ** 32), "3.3e-30"), (F(99, 100), "9.9e-01"), (F(995, 1000), "1.0e+00"),
    (F(1, 3), "3.4e-01"), (F(12345), "1.3e+04"), (F(10), "1.0e+01")])
def test_radius_is_printed_rounded_up_to_two_digits(r, text):
    assert _radius_text(r) == text


def test_radius_text_is_an_upper_bound_within_ten_percent():
    rng = random.Random(7)
    for _ in range(2000):
        r = F(rng.randrange(1, 10 ** 6), 10 ** rng.randrange(0, 60))
        shown = F(_radius_text(r).replace("e", "E").split("E")[0]) * \
            F(10) ** int(_radius_text(r).split("e")[1])
        assert r <= shown <= r * F(11, 10), (r, shown)


@pytest.mark.parametrize("m, r, text", [
    (F(2), F(0), "2"), (F(1, 2), F(1, 10 ** 30), "0.5"), (F(1, 3), F(1, 10 ** 30), "0.333333…"),
    (F(-198041, 100000) - F(1, 10 ** 9), F(1, 10 ** 30), "-1.98041…"),
    (F(1, 3), F(1, 100), "0.33…"), (F(0), F(1), "0")])
def test_midpoints_are_cut_honestly(m, r, text):
    assert _mid_text(m, r) == text


def test_an_enclosure_of_radius_1e_30_is_not_printed_as_exact():
    lo, hi = "1.98040552543114421704738903682", "1.98040552543114421704738903683"
    assert _enclosure_text([[lo, hi]]) == "(1.98041…), radius ≤ 5.0e-30"
    assert _enclosure_text([["3", "3"], ["-1/2", "-1/2"]]) == "(3, -0.5) exactly"


def test_verify_summary_names_the_variable_and_shows_radii_of_order_1e_30(capsys, tmp_path):
    # the must-demonstrate of the summary: verify thm3_1_identity --digits 30
    code = main(["verify", "examples/thm3_1_identity.json", "--digits", "30",
                 "--out", str(tmp_path / "c.json")])
    out = capsys.readouterr().out
    assert code == 0 and "Theorem 3.1: certified" in out
    assert "limits of z(t) = e^{-tV} x(t) as t → ∞ (the rescaled tokens)" in out
    clusters = [ln for ln in out.splitlines() if ln.startswith("  tokens {")]
    assert [ln.split(" →")[0] for ln in clusters] == [
        "  tokens {0, 3, 5}", "  tokens {1}", "  tokens {2, 4}"], out
    radii = [float(ln.rsplit("≤ ", 1)[1]) for ln in clusters]
    assert all(1e-31 <= r <= 1e-29 for r in radii), radii
    assert "± 0.0e+00" not in out


def test_theorem_2_1_names_its_leaders_as_a_set_of_tokens(capsys, tmp_path):
    code = main(["verify", "examples/thm2_1_one_dimensional.json", "--digits", "15",
                 "--out", str(tmp_path / "c.json")])
    out = capsys.readouterr().out
    assert code == 0
    assert "the unit vector e_l of a token l in {0, 4}" in out
    assert "leaders: tokens {0, 4}" in out.splitlines()
