"""What a run needs in memory, checked against the machine before any work.

A validated step holds, for every pair of tokens (i, j), the attention weight and the
differences z_j − z_i as Taylor jets of the step's order, each coefficient an interval
(an Arb ball of the working precision: a 48-byte struct and the mantissa's limbs). So
a run of n tokens in dimension d needs at least

    n² · (d + 1) · (order + 1) · (48 + 8·⌈bits/64⌉)  bytes,

and every other array is smaller (discrete time iterates the layer map, no jets: order
0). An instance whose need exceeds half the machine's physical memory is refused (:class:`~certified.errors.InputError`, exit 2), naming the
field and the largest n that fits, instead of failing later in an allocation.
"""

from __future__ import annotations

import os

from certified.errors import InputError
from certified.exact.instance import Discrete, Instance

__all__ = ["check_fits", "check_instance_fits", "physical_memory", "run_bytes"]


def physical_memory() -> int:
    """This machine's physical memory in bytes (POSIX ``sysconf``; 16 GiB if unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 16 * 2 ** 30


def run_bytes(n: int, d: int, order: int, bits: int) -> int:
    """The lower bound above of the memory a validated run of n tokens in R^d needs."""
    return n * n * (d + 1) * (order + 1) * (48 + 8 * -(-bits // 64))


def _gib(b: float) -> str:
    return f"{b / 2 ** 30:.3g} GiB"


def check_fits(n: int, d: int, order: int, bits: int) -> None:
    """Raise :class:`InputError` (field ``X0``) if the run cannot fit in half of memory."""
    have = physical_memory() // 2
    need = run_bytes(n, d, order, bits)
    if need <= have:
        return
    per = run_bytes(1, d, order, bits)
    n_max = int((have // per) ** 0.5)
    while run_bytes(n_max + 1, d, order, bits) <= have:
        n_max += 1
    while n_max > 0 and run_bytes(n_max, d, order, bits) > have:
        n_max -= 1
    raise InputError("X0", f"{n} tokens in dimension {d} need at least {_gib(need)} for "
                     f"the attention jets (order {order}, {bits} bits), over half of this "
                     f"machine's {_gib(physical_memory())}",
                     f"at most {n_max} tokens at this precision and dimension")


def check_instance_fits(instance: Instance, order: int, bits: int) -> None:
    """:func:`check_fits` for a run of ``instance`` at this Taylor order and precision;
    the layer map of discrete time has no Taylor jets (order 0)."""
    check_fits(instance.n, instance.d, 0 if isinstance(instance.time, Discrete) else order,
               bits)
