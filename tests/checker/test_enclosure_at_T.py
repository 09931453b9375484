"""The comparisons at T of Lemmas T4 and T8 (``lemmas.check_enclosure_at_T``,
``paranormal.check_paranormal_enclosure``): every stored family (F boxes, follower
differences, G boxes, G differences) against the checker's own replayed set, at both ends.

Written from the survivors of a mutation run: these comparisons were reached only by the
replays of ``test_tamper.py``, so an end compared with ``<`` for ``<=``, a family compared
at one end, or never compared at all (the G differences), survived the fast selection.
Each fixture is replayed once here (``replay_steps``); the checks are then called on
edited copies of the parsed lemma.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import pytest

from certified.checker import CheckFailure, lemmas, paranormal
from certified.checker.balls import scale, scaled
from certified.checker.dynamics import Field
from certified.checker.paranormal import check_paranormal, check_paranormal_enclosure
from certified.checker.replay import replay_steps

#: the stored family behind each field name, in the parsed lemma
FIELDS = {"boxes_at_T": "boxes", "differences_at_T": "diffs", "G_boxes_at_T": "g_boxes",
          "G_differences_at_T": "W"}


@pytest.fixture(scope="module", params=["t8_52", "t8_52_line"])
def replayed(request, certs):
    """(bits, parsed lemma, replayed set at T, n, d, {field: ball}, stored fields) for one
    fixture; the balls are the ones each comparison received, recorded on the unedited
    lemma; the stored fields are the certificate's own (not the parsed lemma's: a parse
    that dropped a family would drop it from both sides of a comparison)."""
    c = certs[request.param]
    inst, integ = c["instance"], c["integration"]
    V, Q, K, X0 = ([[F(x) for x in r] for r in inst[k]] for k in ("V", "Q", "K", "X0"))
    n, d = len(X0), len(V)
    B = [[sum((Q[r][a] * K[r][b] for r in range(len(Q))), F(0)) for b in range(d)]
         for a in range(d)]
    bits = int(integ["bits"]) + 64  # the checker's own scale for this certificate
    with scaled(bits):
        pn = check_paranormal(copy.deepcopy(c["tail_lemma"]), V, B, n)
        S = replay_steps(Field(None, B, n, "x", V=V), X0, integ["steps"],
                         integ["replay"]["records"], F(integ["replay"]["t_end"]))
        seen: dict[str, object] = {}
        original = lemmas.stored_contains

        def record(where, lo, hi, ball, how, got):
            seen[where] = ball
            return original(where, lo, hi, ball, how, got)

        mp = pytest.MonkeyPatch()
        mp.setattr(lemmas, "stored_contains", record)
        mp.setattr(paranormal, "stored_contains", record)
        try:
            check_paranormal_enclosure(pn, S, n, d)
        finally:
            mp.undo()
    return bits, pn, S, n, d, seen, frozenset(c["tail_lemma"])


def _slot(pn: dict, where: str) -> tuple[list, int]:
    """The list holding the stored interval named ``where`` and its index there."""
    name, i, c = where.removeprefix("tail_lemma.").replace("]", "").split("[")
    return pn[FIELDS[name]][int(i)], int(c)


def test_every_stored_family_is_compared(replayed):
    """F boxes for every token and coordinate of F, a difference per follower, and for a
    G-part the G boxes and, with a cross term, the G differences: one comparison for each
    interval the certificate stores."""
    _, pn, _, n, d, seen, stored = replayed
    k = pn["k"]
    names = {w.removeprefix("tail_lemma.").split("[")[0] for w in seen}
    assert names == {"boxes_at_T", "G_boxes_at_T"} | (
        {"differences_at_T"} if pn["diffs"] else set()) | (
        {"G_differences_at_T"} if "G_differences_at_T" in stored and pn["diffs"] else set())
    assert sum(w.startswith("tail_lemma.boxes_at_T") for w in seen) == n * k
    assert sum(w.startswith("tail_lemma.G_boxes_at_T") for w in seen) == n * (d - k)
    assert sum(w.startswith("tail_lemma.differences_at_T") for w in seen) == \
        k * len(pn["diffs"])
    assert sum(w.startswith("tail_lemma.G_differences_at_T") for w in seen) == (
        (d - k) * len(pn["diffs"]) if "G_differences_at_T" in stored else 0)


def test_each_end_may_touch_the_replayed_ball_and_not_cross_it(replayed):
    """For the first and last interval of each family: an end equal to the replayed ball's
    is accepted; one moved 2^-(P+8) inside it is refused, word for word, at that field."""
    bits, pn, S, n, d, seen, _ = replayed
    families: dict[str, list[str]] = {}
    for where in seen:
        families.setdefault(where.split("[")[0], []).append(where)
    with scaled(bits):
        eps = F(1, 2 ** (scale() + 8))
        for wheres in families.values():
            for where in {wheres[0], wheres[-1]}:
                ball = seen[where]
                lo, hi = ball.lo_q(), ball.hi_q()
                for edited, ok in (((lo, hi), True), ((lo + eps, hi), False),
                                   ((lo, hi - eps), False)):
                    p = copy.deepcopy(pn)
                    row, c = _slot(p, where)
                    row[c] = edited
                    if ok:
                        check_paranormal_enclosure(p, S, n, d)
                        continue
                    with pytest.raises(CheckFailure) as exc:
                        check_paranormal_enclosure(p, S, n, d)
                    assert str(exc.value) == (
                        f"{where}: Expected an interval containing the replayed {ball!r}. "
                        f"Got [{float(edited[0])!r}, {float(edited[1])!r}].")
                    assert not exc.value.final  # they overlap: a finer replay may pass


def test_a_stored_interval_disjoint_from_the_replayed_one_is_final(replayed):
    """Every family, G boxes and G differences included: a stored interval that misses the
    replayed ball entirely is a final failure (the ball holds the true value, so no retry
    at more bits can pass)."""
    bits, pn, S, n, d, seen, _ = replayed
    firsts: dict[str, str] = {}
    for where in seen:
        firsts.setdefault(where.split("[")[0], where)
    with scaled(bits):
        for where in firsts.values():
            hi = seen[where].hi_q()
            p = copy.deepcopy(pn)
            row, c = _slot(p, where)
            row[c] = (hi + 1, hi + 2)
            with pytest.raises(CheckFailure) as exc:
                check_paranormal_enclosure(p, S, n, d)
            assert exc.value.where == where and exc.value.final
