"""certified: machine-checked clustering theorems for self-attention dynamics.

The public entry points so far:

* :class:`~certified.instance.Instance` — exact instances and their JSON format;
* :func:`~certified.regimes.classify` — exact verdicts on the hypotheses of Theorems
  2.1, 3.1, 4.2, 5.2 and 8.5 of Geshkovski–Letrouit–Polyanskiy–Rigollet (2023);
* :mod:`~certified.spectrum` — rigorous/exact spectral facts about V;
* :class:`~certified.logic.Truth` — three-valued outcomes (undecided is never falsy).
"""

from .errors import CertifiedError, InputError, UndecidedError, ValidationError
from .logic import Truth

__version__ = "0.1.0"

__all__ = [
    "CertifiedError",
    "Continuous",
    "Discrete",
    "InputError",
    "Instance",
    "Truth",
    "UndecidedError",
    "ValidationError",
    "__version__",
    "classify",
]


def __getattr__(name: str):  # lazy: keep `import certified` cheap, and let the
    # independent checker (certified.checker) load without python-flint
    if name == "classify":
        from .regimes import classify
        return classify
    if name in ("Continuous", "Discrete", "Instance"):
        from . import instance
        return getattr(instance, name)
    raise AttributeError(name)
