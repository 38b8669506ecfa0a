"""An Opacus accountant with fdp's certified, two-sided answers.

``register()`` once, then ``PrivacyEngine(accountant="fdp")``: training, the privacy
engine's ``get_epsilon``, ``make_private_with_epsilon`` and
``opacus.accountants.utils.get_noise_multiplier(..., accountant="fdp")`` work
unchanged, and every ε they see is fdp's certified UPPER bound. Opacus' ``history`` of
``(noise_multiplier, sample_rate, num_steps)`` is accounted, as by every Opacus
accountant, as Poisson-subsampled Gaussian steps under add/remove neighbours:
``fdp.dpsgd(σ_t, q_t, T)`` (``fdp.sgd.certified``), formed lazily and cached until
``history`` changes. Batches of a fixed size drawn by shuffling are a different
mechanism that this history does not describe (``fdp.interop.opacus_check``). Beyond
Opacus' accountants: ``get_epsilon_bounds``, ``get_tradeoff``, ``get_mu``, ``get_tpr``,
``get_advantage`` and ``report``. Neither Opacus nor torch is imported by this module;
``register()`` imports Opacus.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from copy import deepcopy
from fractions import Fraction
from typing import Any

import numpy as np

from fdp import _validate
from fdp._lazy import LazyModule
from fdp._types import ArrayLike, FloatOrArray
from fdp.families import Gaussian, Identity
from fdp.interop.event_leaves import no_privacy
from fdp.report import PrivacyReport
from fdp.sgd.certified import dpsgd
from fdp.status import require_guarantee
from fdp.tradeoff import TradeOff

#: Opacus' accountant registry, imported by ``register()`` only (this module needs no Opacus).
_opacus_accountants = LazyModule("opacus.accountants")

MECHANISM = "fdp"

#: One history entry (noise multiplier σ, sample rate q, number of steps n).
Entry = tuple[float, float, int]


class FdpAccountant:
    """Opacus ``IAccountant`` protocol, answered by ``fdp.dpsgd`` (see the module docstring).

    Attributes
    ----------
    history : list of (noise_multiplier, sample_rate, num_steps)
        Opacus' own format; may be assigned directly.

    Examples
    --------
    >>> from fdp.interop.opacus import FdpAccountant
    >>> acct = FdpAccountant()
    >>> acct.history = [(1.5, 0.04, 2249)]
    >>> lo, hi = acct.get_epsilon_bounds(1e-5)
    >>> print(f"{lo:.3f} <= eps <= {hi:.3f}")
    6.765 <= eps <= 6.768
    >>> acct.get_epsilon(1e-5) == hi
    True
    """

    def __init__(self) -> None:
        self.history: list[Entry] = []
        self._cached: tuple[tuple[Entry, ...], TradeOff] | None = None  # (key of history, f)

    # -- the IAccountant protocol ------------------------------------------
    def step(self, *, noise_multiplier: float | None = None,
             sample_rate: float | None = None) -> None:
        """Record one optimisation step (Opacus' optimizer hook calls this)."""
        if noise_multiplier is None or sample_rate is None:
            raise TypeError("step() needs both keyword arguments noise_multiplier= and "
                            "sample_rate= (Opacus' optimizer hook passes both)")
        sigma = _validate.real("noise_multiplier", noise_multiplier, low=0.0, allow_inf=True)
        q = _validate.probability("sample_rate", sample_rate)
        if self.history:
            last_sigma, last_q, n = self.history[-1]
            if last_sigma == sigma and last_q == q:
                self.history[-1] = (last_sigma, last_q, n + 1)
                return
        self.history.append((sigma, q, 1))

    def get_epsilon(self, delta: float | None = None, *args: object, **kwargs: object) -> float:
        """Certified UPPER ε at ``delta`` for the whole history (the arguments Opacus
        forwards to its own accountants, ``eps_error``, ``alphas``, ..., are ignored)."""
        if delta is None:
            raise TypeError("get_epsilon() needs delta, the target δ in [0, 1]; "
                            "use get_epsilon(delta=1e-5)")
        return float(self.get_tradeoff().epsilon(_validate.probability("delta", delta)))

    def __len__(self) -> int:
        """Number of optimisation steps taken so far."""
        return int(sum(int(n) for _, _, n in self.history))

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def get_optimizer_hook_fn(self, sample_rate: float) -> Callable[[Any], None]:
        """The callback Opacus attaches to its ``DPOptimizer`` (one ``step`` per step)."""

        def hook_fn(optim: Any) -> None:     # Opacus' DPOptimizer
            # as Opacus' IAccountant: the rate of one step of gradient accumulation
            self.step(noise_multiplier=optim.noise_multiplier,
                      sample_rate=sample_rate * optim.accumulated_iterations)

        return hook_fn

    def state_dict(self, destination: dict[str, Any] | None = None) -> dict[str, Any]:
        """``{"history": ..., "mechanism": "fdp"}`` (Opacus' checkpoint format)."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore ``history`` from ``state_dict()`` output; the mechanism must be "fdp"."""
        if not state_dict:
            raise ValueError("state_dict is None or empty; pass the output of state_dict()")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError(f"state_dict has no key {key!r}; pass the output of "
                                 "state_dict()")
        if state_dict["mechanism"] != self.mechanism():
            raise ValueError(f"state_dict of mechanism {state_dict['mechanism']!r} cannot be "
                             f"loaded into an accountant of mechanism {self.mechanism()!r}")
        self.history = deepcopy(list(state_dict["history"]))

    # -- extras --------------------------------------------------------------
    def get_epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """(lower, upper) ε at ``delta``: the exact ε of the history lies inside."""
        lo, hi = self.get_tradeoff().epsilon_bounds(_validate.probability("delta", delta))
        return float(lo), float(hi)

    def get_tradeoff(self) -> TradeOff:
        """The certified trade-off function of the whole history (``fdp.dpsgd``)."""
        key = _history_key(self.history)
        if self._cached is None or self._cached[0] != key:
            t = _tradeoff(key)
            require_guarantee(t, "the Opacus accountant")
            self._cached = (key, t)
        return self._cached[1]

    def get_mu(self) -> float:
        """Smallest μ with f ≥ G_μ (rounded up): the tightest μ-GDP statement, and
        usually NOT the number to report for DP-SGD.

        f ≥ G_μ must hold at every α, and the Poisson-subsampled curve has a heavy
        tail near α = 0 (a rare batch holding the record: Zhu, Dong & Wang 2021,
        Thm 11), so μ is set by that tail and can be orders of magnitude above the
        CLT μ = q√T √(e^{1/σ²} − 1) (Bu et al. 2020), which describes the bulk of
        the curve but is an approximation, not a bound. Read ``get_epsilon(delta)``
        (certified) or ``get_tpr(fpr)`` instead. The float's ``note`` says so.
        """
        return _MuSummary(float(self.get_tradeoff().gdp_mu()))


    def get_tpr(self, fpr: ArrayLike) -> FloatOrArray:
        """Largest true-positive rate 1 − f(fpr) of a membership test at false-positive
        rate ``fpr`` (certified upper: computed from the lower side of f)."""
        lower, _ = self.get_tradeoff().bounds(fpr)
        return _validate.like_input(fpr, 1.0 - np.asarray(lower, dtype=float))

    def report(self, delta: float | Sequence[float] = 1e-5, **kwargs: Any) -> PrivacyReport:
        """The run's privacy claim, ``fdp.PrivacyReport``, from the whole history.

        The history is accounted as ``fdp.dpsgd(σ_t, q_t, T)`` (Poisson sampling,
        add/remove one example), so the report records σ, q and T and ``verify()`` (or
        ``fdp verify FILE`` on its ``to_json()``) recomputes it from them.

        ``delta`` and ``**kwargs`` (``fpr``, ``prior``, ``epsilon``) as ``TradeOff.report``.
        """
        return self.get_tradeoff().report(delta=delta, **kwargs)

    def get_advantage(self) -> float:
        """max_α (1 − α − f(α)) = δ(0): the largest TPR − FPR of any membership test
        (certified upper)."""
        return float(self.get_tradeoff().advantage())


class _MuSummary(float):
    """μ of ``FdpAccountant.get_mu``: a float with a ``note`` on how to read it."""

    note = ("smallest mu with f >= G_mu over ALL alpha: for subsampled DP-SGD it is set "
            "by the curve's heavy tail near alpha = 0 and can be far above the CLT mu "
            "(an approximation); read get_epsilon(delta) or get_tpr(fpr) instead")

    def __repr__(self) -> str:
        return f"{float(self)!r}  # {self.note}"


def register() -> type:
    """Register ``FdpAccountant`` with Opacus under the name "fdp".

    Afterwards ``PrivacyEngine(accountant="fdp")`` and ``get_noise_multiplier(...,
    accountant="fdp")`` use it; calling it again is harmless. Returns ``FdpAccountant``;
    raises ImportError without Opacus (≥ 1.6), ValueError if another accountant is
    registered as "fdp".

    Examples
    --------
    Skipped as a doctest (Opacus loads torch; the tests run them):

    >>> from fdp.interop.opacus import FdpAccountant, register
    >>> register() is FdpAccountant                          # doctest: +SKIP
    True
    >>> from opacus import PrivacyEngine                     # doctest: +SKIP
    >>> engine = PrivacyEngine(accountant="fdp")             # doctest: +SKIP
    """
    try:
        IAccountant = _opacus_accountants.IAccountant
        create_accountant = _opacus_accountants.create_accountant
        register_accountant = _opacus_accountants.register_accountant
    except (ImportError, AttributeError) as exc:
        raise ImportError("register() needs Opacus >= 1.6 (register_accountant): "
                          "pip install 'fdp[interop]'") from exc
    IAccountant.register(FdpAccountant)
    try:
        register_accountant(MECHANISM, FdpAccountant)
    except ValueError:
        if not isinstance(create_accountant(MECHANISM), FdpAccountant):
            raise ValueError(f"Opacus already has a different accountant registered as "
                             f"{MECHANISM!r}") from None
    return FdpAccountant


# ----------------------------------------------------------------------
def _history_key(history: Iterable[Any]) -> tuple[Entry, ...]:
    """The history as a validated, hashable tuple of (σ, q, n)."""
    out: list[Entry] = []
    for i, entry in enumerate(history):
        try:
            sigma, q, n = entry
        except (TypeError, ValueError):
            raise ValueError(f"history[{i}] must be (noise_multiplier, sample_rate, "
                             f"num_steps), got {entry!r}") from None
        out.append((_validate.real(f"history[{i}] noise_multiplier", sigma, low=0.0,
                                   allow_inf=True),
                    _validate.probability(f"history[{i}] sample_rate", q),
                    _validate.positive_int(f"history[{i}] num_steps", n, low=0)))
    return tuple(out)


def _tradeoff(key: tuple[Entry, ...]) -> TradeOff:
    # steps that cannot leak: no sampled record, infinite noise, or none taken
    live = [(s, q, n) for s, q, n in key if n > 0 and q > 0.0 and s < math.inf]
    if not live:
        return Identity()
    if any(s == 0.0 for s, _, _ in live):
        return no_privacy()  # a noiseless step on a sampled record: no guarantee
    if all(q == 1.0 for _, q, _ in live):
        # full batches: T Gaussian mechanisms compose to G_μ, μ² = Σ n/σ² (DRS Cor 3.3)
        mu2 = sum((Fraction(n) / Fraction(s) ** 2 for s, _, n in live), Fraction(0))
        return Gaussian(_sqrt_up(mu2))
    if len({(s, q) for s, q, _ in live}) == 1:
        s, q, _ = live[0]
        return dpsgd(s, q, sum(n for _, _, n in live))
    counts = [n for _, _, n in live]
    sigma = np.repeat([s for s, _, _ in live], counts)
    rate = np.repeat([q for _, q, _ in live], counts)
    return dpsgd(sigma, rate, int(sum(counts)))


def _sqrt_up(x: Fraction) -> float:
    """√x rounded up to a float (x an exact rational)."""
    r = math.sqrt(float(x))
    while Fraction(r) ** 2 < x:
        r = math.nextafter(r, math.inf)
    return r


__all__ = ["FdpAccountant", "register"]
