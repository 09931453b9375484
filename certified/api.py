"""The Python API: :func:`verify` and :func:`simulate`, shaped like ``scipy.integrate``.

Both take an :class:`~certified.exact.instance.Instance`, a path to an instance file,
or its JSON as a dict, and
return result objects with a short summary (``str()``, and ``_repr_markdown_`` /
``_repr_html_`` in notebooks).

Enclosures come back as numpy float64 arrays rounded **outward**: every ``lower`` is ≤
and every ``upper`` ≥ the exact bound (the float next to a decimal bound is taken in
the safe direction), so ``lower ≤ true value ≤ upper`` holds entrywise.
"""

from __future__ import annotations

import html
import json
import math
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import numpy as np

from certified.enclose.defect_step import DefectStepper, DefectStepResult, defect_step
from certified.enclose.driver import Trajectory, _linear_change, enclose_trajectory
from certified.enclose.field import AttentionField
from certified.enclose.lohner_set import LohnerSet
from certified.enclose.stepper import taylor_step
from certified.errors import InputError, ValidationError
from certified.exact.instance import Continuous, Instance
from certified.exact.rationals import exponent10, to_fraction
from certified.logic import Verdict
from certified.precision import Precision
from certified.verdict.certificate import to_certificate
from certified.verdict.certify import Verification, certify

__all__ = ["SimulateResult", "VerifyResult", "simulate", "verify"]


def _instance(instance: Instance | str | Path | Mapping[str, Any]) -> Instance:
    if isinstance(instance, Instance):
        return instance
    if isinstance(instance, (str, Path)):
        return Instance.load(instance)
    if isinstance(instance, Mapping):
        return Instance.from_json(dict(instance))
    raise InputError("instance", f"a {type(instance).__name__} is not an instance",
                     "an Instance, a path to an instance file, or its JSON as a dict")


def float_down(q: Fraction) -> float:
    """The largest float ≤ q (−inf below the float range)."""
    try:
        f = float(q)
    except OverflowError:
        return -math.inf if q < 0 else math.nextafter(math.inf, 0)
    return f if Fraction(f) <= q else math.nextafter(f, -math.inf)


def float_up(q: Fraction) -> float:
    """The smallest float ≥ q (+inf above the float range)."""
    return -float_down(-q)


def _bounds_arrays(bk: Any, arrays: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    lo = np.empty((len(arrays),) + (arrays[0].shape if arrays else (0,)))
    hi = np.empty_like(lo)
    for k, a in enumerate(arrays):
        for idx, v in np.ndenumerate(a):
            a_lo, a_hi = bk.bounds(v)
            lo[(k,) + idx], hi[(k,) + idx] = float_down(a_lo), float_up(a_hi)
    return lo, hi


class _Summarized:
    """Results print as their summary, in a terminal and in a notebook."""

    def summary(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.summary().splitlines()[0]}>"

    def _repr_markdown_(self) -> str:
        return "```\n" + self.summary() + "\n```"

    def _repr_html_(self) -> str:
        return "<pre>" + html.escape(self.summary()) + "</pre>"


# -- verify -----------------------------------------------------------------------------

@dataclass(repr=False)
class VerifyResult(_Summarized):
    """The outcome of :func:`verify`.

    Attributes
    ----------
    verdict : Verdict
        ``CERTIFIED``, ``REFUTED`` or ``UNDECIDED`` for the theorem's limit statement.
    theorem : str
    reason : str
        Why, in words (what was proved, or what could not be).
    limit : dict or None
        The theorem-specific limit data (clusters, P*, hyperplane values, …) as in the
        certificate: enclosures are ``["lo", "hi"]`` decimal pairs.
    verification : Verification
        Everything the run produced (trajectory, tail lemma).
    """

    verdict: Verdict
    theorem: str
    reason: str
    limit: dict | None
    verification: Verification
    _certificate: dict | None = field(default=None, repr=False)

    @property
    def certificate(self) -> dict:
        """The certificate (JSON-ready dict with its SHA-256 digest)."""
        if self._certificate is None:
            self._certificate = to_certificate(self.verification)
        return self._certificate

    def check(self, workers: int = 1) -> Any:
        """Re-check the certificate with the independent checker (after a JSON round
        trip, as a third party would read it); returns the checker's report, whose
        ``valid`` says whether it holds."""
        from certified.checker import check_certificate  # lazy: startup time

        return check_certificate(json.loads(json.dumps(self.certificate)), workers=workers)

    def save(self, path: str | Path) -> Path:
        """Write the certificate to ``path`` (JSON)."""
        p = Path(path)
        p.write_text(json.dumps(self.certificate, indent=1, ensure_ascii=False) + "\n",
                     encoding="utf-8")
        return p

    def summary(self) -> str:
        """A few lines for people: verdict, lemma and time, limits to a few digits."""
        text = summary_lines(self.certificate)
        if self.verification.refinement:
            text += f"\nrefinement: {self.verification.refinement}"
        return text



def _pow10(e: int) -> Fraction:
    return Fraction(10) ** e


def _radius_text(r: Fraction) -> str:
    """An upper bound of r ≥ 0 with two significant digits ("0" only when r is 0): the
    mantissa is rounded up, so the printed radius is never below the true one."""
    if r == 0:
        return "0"
    e = exponent10(r)  # 10^e ≤ r < 10^(e+1)
    m = -((-r * _pow10(1 - e)) // 1)  # ceil of r/10^(e-1): 10..100
    if m == 100:
        m, e = 10, e + 1
    return f"{m // 10}.{m % 10}e{e:+03d}"


def _mid_text(m: Fraction, r: Fraction, digits: int = 6) -> str:
    """m to at most ``digits`` significant digits, no more than r leaves certain; "…"
    marks a midpoint that was cut (the enclosure is m ± r, not the printed digits ± r).
    Integer arithmetic only: right for any exponent."""
    if m == 0:
        return "0"
    e = exponent10(m)
    sig = digits
    if r > 0:  # digits below the radius are noise: keep at most one of them
        while sig > 1 and _pow10(e - sig + 1) < r:
            sig -= 1
    scale = e - sig + 1
    q = round(abs(m) / _pow10(scale))
    if q >= 10 ** sig:  # rounding carried into a new digit (9.999… → 10.00)
        q //= 10
        scale += 1
        e += 1
    cut = q * _pow10(scale) != abs(m)
    ds = str(q)
    if -5 < e < 6:  # positional, trailing zeros of the fraction dropped
        if scale >= 0:
            text = ds + "0" * scale
        else:
            k = -scale
            whole, frac = (ds[:-k], ds[-k:]) if len(ds) > k else ("0", ds.rjust(k, "0"))
            frac = frac.rstrip("0")
            text = whole + ("." + frac if frac else "")
    else:
        frac = ds[1:].rstrip("0")
        text = ds[0] + ("." + frac if frac else "") + f"e{e:+03d}"
    return ("-" if m < 0 else "") + text + ("…" if cut else "")


def _enclosure_text(pairs: list[list[Any]]) -> str:
    """Intervals ``[lo, hi]`` (Fractions, or decimal strings, exact) as
    "(m₁…, m₂…), radius ≤ r": midpoints shortened honestly and r an upper bound of every
    radius, read from the exact ends (never through a float, which would round a radius of
    1e-30 next to 2.0 to 0, or a midpoint of 1e-400 to 0)."""
    with _long_ints():
        ivs = [(Fraction(lo), Fraction(hi)) for lo, hi in pairs]
    r = max((hi - lo) / 2 for lo, hi in ivs)
    mids = [_mid_text((lo + hi) / 2, r) for lo, hi in ivs]
    if r == 0:
        return f"({', '.join(mids)}) exactly"
    return f"({', '.join(mids)}), radius ≤ {_radius_text(r)}"


@contextmanager
def _long_ints() -> Iterator[None]:
    """Decimal strings of any length read as integers (Python caps int(str) at 4,300
    digits by default; a 10,000-digit enclosure end has more)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def _tokens(members: list[int]) -> str:
    return "{" + ", ".join(str(i) for i in members) + "}"


def enclosures_summary(traj: Trajectory, variable: str, times: int = 4,
                       tokens: int = 4) -> list[str]:
    """Lines for people: the tokens' enclosures at the first and last reported times (at
    most ``times`` of them, ``tokens`` tokens each; what is left out is counted), read
    from the exact enclosures: midpoints, "…" where cut, and a bound of the radii."""
    name = "z(t) = e^{-tV} x(t)" if variable == "z" else "x(t)"
    lines = [f"enclosures of {name} at {len(traj.tokens)} reported time(s):"]
    m = len(traj.tokens)
    shown = list(range(m)) if m <= times else \
        list(range(times // 2)) + list(range(m - (times - times // 2), m))
    bk = traj.backend
    with bk.workprec(traj.bits):
        for pos, k in enumerate(shown):
            if pos and k != shown[pos - 1] + 1:
                lines.append(f"  … {k - shown[pos - 1] - 1} more time(s) (in the JSON "
                             "output, or .lower and .upper)")
            X = traj.tokens[k]
            lines.append(f"  t = {traj.times[k]}:")
            for i in range(min(X.shape[0], tokens)):
                pairs = [list(bk.bounds(X[i, c])) for c in range(X.shape[1])]
                lines.append(f"    token {i}: {_enclosure_text(pairs)}")
            if X.shape[0] > tokens:
                lines.append(f"    … {X.shape[0] - tokens} more token(s)")
    return lines


def summary_lines(cert: Mapping[str, Any]) -> str:
    """The human summary of a certificate (also what ``certified verify`` prints)."""
    lines = [f"Theorem {cert['theorem']}: {cert['verdict']} "
             f"(hypotheses {'hold' if cert['hypotheses_hold'] else 'do not hold'})",
             f"reason: {cert.get('reason', '')}"]
    lemma = (cert.get("tail_lemma") or {}).get("lemma")
    ts = cert.get("timescale") or {}
    if lemma:
        T = ts.get("T_used", ts.get("T", (cert.get("tail_lemma") or {}).get("T")))
        lines.append(f"lemma: {lemma}" + (f" at T = {T}" if T is not None else
                                          " (exact: no integration)"))
    limit = cert.get("limit") or {}
    clusters = limit.get("clusters", [])
    if clusters:
        what = ("limits of z(t) = e^{-tV} x(t) as t → ∞ (the rescaled tokens)"
                if "F" not in limit else "limits of the F-components of z(t) = e^{-tV} x(t) "
                f"as t → ∞ (F = {str(limit['F']).split(';')[0].split(' (')[0]})")
        lines.append(f"{what}: the enclosures' midpoints (… where cut) and a bound of "
                     "their radii:")
    for c in clusters:
        lines.append(f"  tokens {_tokens(c['members'])} → {_enclosure_text(c['center'])}")
    if "leaders" in limit:
        lines.append(f"leaders: tokens {_tokens(limit['leaders'])}")
    if "attention_rank" in limit:
        lines.append(f"P* = lim P(t): rank {limit['attention_rank']}")
    if "hyperplane_values" in limit:
        lines.append("hyperplanes {z : ψ(z) = c}, ψ a multiple of φ₁* (limit.functional), "
                     "c in " + _enclosure_text(limit["hyperplane_values"]))
    integ = cert.get("integration") or {}
    if integ:
        lines.append(f"integration: {len(integ.get('steps') or [])} validated steps, "
                     f"certified until t = {integ.get('certified_until')}")
    return "\n".join(lines)


def _selftest() -> None:
    """The arithmetic self-test the checker runs (Lemma C13), before producing: the
    producer's binary64 kernels (Lemma I12) assume the same."""
    from certified.checker.selftest import ArithmeticUnfit, failures  # lazy: startup

    bad = failures()
    if bad:
        raise ArithmeticUnfit("arithmetic self-test failed: " + ", ".join(bad))


def verify(instance: Instance | str | Path | Mapping[str, Any], theorem: str = "auto", *,
           digits: int = 30, t_max: Fraction | int | str = 8,
           refine_t: Fraction | int | str = 3, max_seconds: float | None = None,
           max_steps: int | None = None, backend: str = "flint",
           progress: bool = False) -> VerifyResult:
    """Certify or refute a theorem's limit statement on ``instance``.

    Parameters
    ----------
    instance : Instance, path or dict
    theorem : {"2.1", "3.1", "4.2", "5.2", "8.5", "auto"}
    digits : int
        Working precision (decimal digits; see :class:`~certified.precision.Precision`).
    t_max : number
        Latest time at which a tail lemma is tried (a deterministic budget).
    refine_t : number
        After the first verdict at T₁, integrate at most to T₁ + refine_t to tighten the
        limits, with at most as many steps as T₁ took and only while they keep
        tightening (0: stop at the first verdict).
    max_seconds : float, optional
        Outer wall-clock safety cap. Reached before the first verdict: ``UNDECIDED`` with
        reason "wall-clock cap"; during the refinement: the first verdict, whose
        certificate is the one ``refine_t=0`` gives.
    max_steps : int, optional
        At most this many validated steps per integration (a deterministic budget, like
        ``t_max``).
    backend : {"flint", "mpmath"}
    progress : bool
        Progress bar on stderr.

    Returns
    -------
    VerifyResult

    Examples
    --------
    >>> import certified
    >>> r = certified.verify("examples/thm2_1_one_dimensional.json", digits=15, t_max=2)
    >>> r.verdict
    <Verdict.CERTIFIED: 'certified'>
    >>> r.check().valid
    True
    """
    _selftest()
    inst = _instance(instance)
    v = certify(inst, theorem, precision=Precision.build(digits), t_max=t_max,
                refine_t=refine_t, max_seconds=max_seconds, max_steps=max_steps,
                backend=backend, progress=progress)
    return VerifyResult(Verdict(v.verdict), v.theorem, v.reason, v.limit, v)


# -- simulate ---------------------------------------------------------------------------

@dataclass(repr=False)
class SimulateResult(_Summarized):
    """Certified enclosures of a trajectory, in the shape of ``solve_ivp``'s result.

    Attributes
    ----------
    status : int
        0: the whole span was certified; −1: the run stopped earlier (see ``message``).
    message : str
        Where and why the run ended.
    success : bool
        ``status == 0``.
    t : ndarray, shape (m,)
        The reported times (floats; ``t_exact`` has them as Fractions).
    lower, upper : ndarray, shape (m, n, d)
        Outward-rounded bounds of token i's coordinate c at time t[k]:
        ``lower[k, i, c] ≤ y ≤ upper[k, i, c]``.
    mid, rad : ndarray, shape (m, n, d)
        (lower + upper)/2 and (upper − lower)/2 (floats: for plots, not for bounds).
    attention_lower, attention_upper : ndarray, shape (m, n, n)
        Outward-rounded bounds of P_ij at each time.
    certified_until : Fraction
        Every step up to this time was validated.
    variable : str
        ``"z"`` (rescaled) or ``"x"``.
    trajectory : Trajectory
        The validated run itself (steps, sets, precision).
    """

    status: int
    message: str
    t: np.ndarray
    t_exact: list[Fraction]
    lower: np.ndarray
    upper: np.ndarray
    attention_lower: np.ndarray
    attention_upper: np.ndarray
    certified_until: Fraction
    variable: str
    trajectory: Trajectory

    @property
    def success(self) -> bool:
        return self.status == 0

    @property
    def mid(self) -> np.ndarray:
        return (self.lower + self.upper) / 2

    @property
    def rad(self) -> np.ndarray:
        return (self.upper - self.lower) / 2

    def sol(self, t: Fraction | int | str | float) -> tuple[np.ndarray, np.ndarray]:
        """Dense output: a certified enclosure of the tokens at any t in
        [0, certified_until], as (lower, upper) arrays of shape (n, d).

        The validated step that covers t is repeated from its start set with the step
        size t − t₀ (a step of at most the validated size, validated again); if that
        validation fails, the step's a-priori box (Lemma I6; for a defect step, Lemma
        I10, the hull of its tubes), which contains the solution over the whole step, is
        returned instead. A float t is read as its exact binary
        value.
        """
        tq = to_fraction(t, "t")
        traj = self.trajectory
        if traj.instance.variant is not None or not isinstance(traj.instance.time,
                                                                Continuous):
            raise InputError("t", "dense output is for the paper's continuous dynamics",
                             "the reported times (t_eval) of a discrete or variant run")
        if not 0 <= tq <= traj.certified_until:
            raise InputError("t", f"{t} is outside the certified span "
                             f"[0, {traj.certified_until}]", "0 <= t <= certified_until")
        return _dense(traj, tq, self.variable)

    def summary(self) -> str:
        """The message, then the enclosures at the first and last reported times
        (:func:`enclosures_summary`)."""
        return "\n".join([self.message] + enclosures_summary(self.trajectory, self.variable))



def _dense(traj: Trajectory, t: Fraction, variable: str) -> tuple[np.ndarray, np.ndarray]:
    inst, bk = traj.instance, traj.backend
    n, d = inst.n, inst.d
    coords = traj.coordinates
    with bk.workprec(traj.bits):
        field = AttentionField(inst, bk, coords)
        step = next((s for s in traj.steps if s.t0 <= t <= s.t0 + s.h), None)
        if step is None:  # t = 0 with no step, or an exact step end
            S = LohnerSet.from_exact([x for row in inst.X0 for x in row], bk)
        elif t == step.t0 + step.h:
            S = step.output_set
        elif t == step.t0:
            S = step.input_set
        else:
            tol = Fraction(1, 2 ** (traj.bits - traj.order // 2))
            try:
                if isinstance(step, DefectStepResult):
                    # Lemma I10 again from the step's start with h_max = t − t0; where it
                    # chooses a shorter h, more such steps (at most 8) up to t. The step's
                    # own guard bits, and twice its error bound as tolerance.
                    S, cur, stepper = step.input_set, step.t0, \
                        DefectStepper(jet_guard_bits=step.guard_bits)
                    for _ in range(8):
                        if cur == t:
                            break
                        sub = defect_step(field, S, cur, t - cur, step.order,
                                          2 * (step.error or Fraction(0)) + tol, stepper)
                        S, cur = sub.output_set, cur + sub.h
                    if cur != t:
                        raise ValidationError("dense output needed more than 8 steps", t=cur)
                else:
                    res = taylor_step(field, step.input_set, step.t0, t - step.t0,
                                      step.order,
                                      step.rho if step.rho is not None else Fraction(1, 64),
                                      tol)
                    if res.h != t - step.t0:
                        raise ValidationError("the repeated step was shortened", t=step.t0)
                    S = res.output_set
            except ValidationError:
                box = np.asarray(step.apriori).reshape(n, d)
                lo, hi = _bounds_arrays(bk, [box])
                if variable != coords:
                    raise ValidationError("dense output fell back to the a-priori box, "
                                          "which is in the integration variable only",
                                          t=t) from None
                return lo[0], hi[0]
        if variable == coords:
            Y = S.box(bk).reshape(n, d)
        else:
            Y = _linear_change(bk, field, S, t if variable == "x" else -t)
        lo, hi = _bounds_arrays(bk, [Y])
    return lo[0], hi[0]


def simulate(instance: Instance | str | Path | Mapping[str, Any],
             t_span: tuple[Any, Any] | Any, t_eval: Iterable[Any] | None = None, *,
             digits: int = 30, variable: str = "z", backend: str = "flint",
             max_seconds: float | None = None, progress: bool = False) -> SimulateResult:
    """Certified enclosures of the trajectory of ``instance``, like ``solve_ivp``.

    Parameters
    ----------
    instance : Instance, path or dict
    t_span : (0, T) or T
        The span; it starts at 0 (the instance's tokens are the state at t = 0).
    t_eval : iterable of numbers, optional
        Times to report (default 0 and T). Exact numbers; floats are read as their
        exact binary values.
    digits : int
    variable : {"z", "x"}
    backend : {"flint", "mpmath"}
    max_seconds : float, optional
        Outer wall-clock cap (the run is then certified up to where it stopped).

    Returns
    -------
    SimulateResult

    Examples
    --------
    >>> import certified
    >>> r = certified.simulate("examples/thm3_1_identity.json", (0, 1), digits=20)
    >>> r.success, r.lower.shape
    (True, (2, 6, 2))
    >>> bool((r.lower <= r.upper).all())
    True
    """
    inst = _instance(instance)
    if isinstance(t_span, (tuple, list)):
        if len(t_span) != 2 or to_fraction(t_span[0], "t_span[0]") != 0:
            raise InputError("t_span", f"{t_span!r} does not start at 0", "(0, T) or T")
        T = to_fraction(t_span[1], "t_span[1]")
    else:
        T = to_fraction(t_span, "t_span")
    times = None if t_eval is None else [to_fraction(s, "t_eval") for s in t_eval]
    traj = enclose_trajectory(inst, T, times=times, precision=Precision.build(digits),
                              variable=variable, backend=backend, max_seconds=max_seconds,
                              progress=progress)
    bk = traj.backend
    with bk.workprec(traj.bits):
        lo, hi = _bounds_arrays(bk, traj.tokens)
        alo, ahi = _bounds_arrays(bk, traj.attention)
    status = 0 if traj.certified_until >= T else -1
    return SimulateResult(status, traj.stop_message(),
                          np.array([float(s) for s in traj.times]), list(traj.times),
                          lo, hi, alo, ahi, traj.certified_until, variable, traj)
