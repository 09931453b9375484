"""certified: machine-checked clustering theorems for self-attention dynamics.

The pipeline, one subpackage per stage (imports go downward only):

* :mod:`certified.exact` — exact instances, numbers, linear algebra, spectrum and the
  hypothesis classifier (:func:`classify`);
* :mod:`certified.enclose` — ball arithmetic, vector fields and Taylor jets, the
  validated step and the driver (:func:`~certified.enclose.driver.enclose_trajectory`);
* :mod:`certified.tail` — one tail lemma per module, from an enclosure at T to t = ∞;
* :mod:`certified.verdict` — :func:`~certified.verdict.certify.certify` and certificates;
* :mod:`certified.checker` — the independent checker (imports nothing above);
* beside them: :mod:`certified.studies` (strategies, sweeps, audits),
  :mod:`certified.practice` (real weights) and :mod:`certified.approx` (approximate
  paths, typed as such).

Public names here: :func:`verify` and :func:`simulate` (:mod:`certified.api`),
:class:`Instance`, :func:`classify`, :class:`Truth`, :class:`Verdict`,
:class:`Precision` and the exception hierarchy.
"""

from certified.errors import CertifiedError, InputError, UndecidedError, ValidationError
from certified.logic import Truth, Verdict

__version__ = "0.1.0"

__all__ = [
    "CertifiedError",
    "Continuous",
    "Discrete",
    "InputError",
    "Instance",
    "Precision",
    "Truth",
    "UndecidedError",
    "ValidationError",
    "Verdict",
    "__version__",
    "classify",
    "simulate",
    "verify",
]


def __getattr__(name: str):
    # Lazy (startup time): `import certified` stays cheap, and the independent checker
    # (certified.checker) loads without python-flint.
    if name == "classify":
        # lazy: startup time (import certified stays cheap)
        from certified.exact.hypotheses import classify
        return classify
    if name == "Precision":
        from certified.precision import Precision  # lazy: the checker imports this package
        return Precision
    if name in ("simulate", "verify"):
        from certified import api  # lazy: startup time (import certified stays cheap)
        return getattr(api, name)
    if name in ("Continuous", "Discrete", "Instance"):
        from certified.exact import instance  # lazy: startup time (import certified stays cheap)
        return getattr(instance, name)
    raise AttributeError(name)
