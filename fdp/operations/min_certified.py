"""The smaller of two certified upper bounds on DP-SGD's privacy profile.

If δ(ε) ≤ a(ε) and δ(ε) ≤ b(ε) are both proven, so is δ(ε) ≤ min{a(ε), b(ε)}; the same
holds for ε(δ). ``dpsgd`` with Poisson sampling and add/remove neighbours has two
such bounds for the same mechanism:

* the f-DP engine (``fdp.engine``): the pessimistic lattices of the composed add and
  remove directions (Doroshenko et al. 2022; Zhu, Dong & Wang 2021, Thm 11), tight
  at moderate T but, at huge T, limited by the grid the memory budget allows;
* the Rényi bound: the RDP of the Poisson-subsampled Gaussian, ρ(λ) = log A_λ/(λ − 1)
  (Mironov, Talwar & Zhang 2019, §3.3, who show A_λ ≥ B_λ: the remove direction is
  no larger than the add direction), summed over the steps (RDP composes additively,
  Mironov 2017, Prop 1) and converted by Canonne, Kamath & Steinke 2020, Prop 12:
  δ(ε) ≤ min_λ exp((λ − 1)(ρ(λ) − ε)) (1 − 1/λ)^{λ−1}/λ, and
  ε(δ) ≤ min_λ ρ(λ) + log(1 − 1/λ) − (log δ + log λ)/(λ − 1).
  Every ρ(λ) is a proven upper bound (``fdp.classical.rdp``: exact integer-order
  sums and fractional-order series with their remainders, rounding included).

``MinCertified`` is the engine's ``Numeric`` with the Rényi curve attached: its upper
δ and upper ε are the minimum of the two; its lower sides are the engine's (the Rényi
bound has no lower side); its trade-off curve, summaries and compositions are the
engine's. Each ε or δ bracket says in its ``note`` which bound set the upper end,
and why a lower end is 0 when it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fdp.bracket import Bracket
from fdp.classical.rdp import rdp_subsampled_gaussian, rdp_to_epsilon, rdp_to_log_delta
from fdp.engine import Numeric

#: Rényi orders used for DP-SGD: close to 1 (huge T), then every integer to 64, then
#: geometric integers to 4096 (tiny δ).
DPSGD_ORDERS = np.unique(np.concatenate([
    1.0 + np.geomspace(1e-4, 0.75, 24),
    np.arange(2.0, 65.0),
    np.round(np.geomspace(72.0, 4096.0, 24)),
]))
DPSGD_ORDERS.setflags(write=False)

#: The Rényi bound is attached when the run has at most this many distinct (σ, q).
MAX_RDP_GROUPS = 16

RDP_SOURCE = ("RDP of the Poisson-subsampled Gaussian (Mironov, Talwar & Zhang 2019), "
              "converted by Canonne, Kamath & Steinke 2020, Prop 12")
_TINY = float(np.nextafter(0.0, 1.0))
_U = 2.0 ** -53


@dataclass(frozen=True)
class RDPBound:
    """A certified Rényi curve of a whole run: ρ(λ) ≥ D_λ at each order, both directions.

    Parameters
    ----------
    orders : tuple of float
        Orders λ > 1.
    rdp : tuple of float
        The composed ρ(λ) at each order (an upper bound).

    Examples
    --------
    >>> from fdp.sgd.min_certified import RDPBound
    >>> b = RDPBound.poisson_gaussian({(1.0, 0.01): 1000})
    >>> eps, order = b.epsilon(1e-5)
    >>> print(f"{eps[0]:.3f} at order {order[0]:g}")
    2.108 at order 8
    """

    orders: tuple
    rdp: tuple

    @classmethod
    def poisson_gaussian(cls, counts: dict, sensitivity: float = 1.0,
                         orders=DPSGD_ORDERS) -> RDPBound:
        """Σ over the groups of n · ρ_{σ/s, q}(λ) for ``counts`` {(σ, q): n}."""
        o = np.asarray(orders, dtype=float)
        total = np.zeros(o.shape)
        for (sigma, q), n in counts.items():
            total = total + rdp_subsampled_gaussian(o, q, sigma / sensitivity, n)
        total = total * (1.0 + 4.0 * _U * len(counts))      # the sum rounded up
        return cls(tuple(float(x) for x in o), tuple(float(x) for x in total))

    def log_delta(self, eps):
        """(upper log δ(ε), order attaining it), ``rdp_to_log_delta``."""
        return rdp_to_log_delta(np.array(self.orders), np.array(self.rdp), eps)

    def epsilon(self, delta):
        """(upper ε(δ), order attaining it) for δ in (0, 1), elementwise."""
        d = np.atleast_1d(np.asarray(delta, dtype=float))
        res = [rdp_to_epsilon(np.array(self.orders), np.array(self.rdp), float(x))
               for x in d.ravel()]
        eps = np.array([r.epsilon for r in res]).reshape(d.shape)
        order = np.array([r.order for r in res]).reshape(d.shape)
        return eps, order


def _scalar(x):
    return np.ndim(x) == 0


@dataclass(frozen=True, eq=False, repr=False)
class MinCertified(Numeric):
    """DP-SGD's certified result whose upper δ and ε are min(engine, Rényi).

    A ``Numeric`` (see there for the fields) with ``rdp``, the certified Rényi curve
    of the same run (``RDPBound``). Two results of the same configuration compare
    equal (the same recipes, grid and Rényi curve give the same answers); they pickle
    like any ``Numeric``.

    Examples
    --------
    >>> import fdp
    >>> f = fdp.dpsgd(4.0, 0.01, 1000)
    >>> b = f.delta_bounds(1.0)
    >>> bool(b.hi < 1e-25), b.note.startswith("upper end from the RDP bound")
    (True, True)
    """

    rdp: RDPBound | None = field(default=None, repr=False)

    # -- identity: equal configurations are equal objects --------------------
    def _key(self):
        return (self.label, self.tol, self.directions, self.status, self.eps_width,
                self.source, self.rdp)

    def __eq__(self, other):
        if self is other:
            return True
        if type(other) is not type(self) or not self.source:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash((self.label, self.tol, self.rdp)) if self.source else id(self)

    # -- upper δ: the smaller of the two certified bounds ---------------------
    def _engine_delta(self, e):
        return Numeric._delta(self, e)

    def _delta(self, eps):
        e = np.asarray(eps, dtype=float)
        base = self._engine_delta(e)
        if self.rdp is None:
            return base
        ld = np.asarray(self.rdp.log_delta(e)[0], dtype=float)
        with np.errstate(under="ignore"):
            r = np.where(np.isneginf(ld), 0.0,
                         np.maximum(np.exp(ld) * (1.0 + 4.0 * _U), _TINY))
        return np.minimum(base, r)

    def _log_delta(self, eps):
        e = np.asarray(eps, dtype=float)
        base = Numeric._log_delta(self, e)
        if self.rdp is None:
            return base
        return np.minimum(base, np.asarray(self.rdp.log_delta(e)[0], dtype=float))

    def delta_bounds(self, eps, width=None):
        """(lower, upper) δ(ε): the engine's lower side; the upper side min(engine,
        Rényi), with a ``note`` saying which set it (see the module docstring).

        Parameters
        ----------
        eps : float or array_like
            Real ε.
        width : float, optional
            As in ``Numeric.delta_bounds``.

        Returns
        -------
        Bracket

        Raises
        ------
        ValueError
            As ``Numeric.delta_bounds``.

        Examples
        --------
        >>> import fdp
        >>> lo, hi = fdp.dpsgd(1.0, 0.01, 100).delta_bounds(1.0)
        >>> bool(lo <= hi < 1e-3)
        True
        """
        b = super().delta_bounds(eps, width)
        if self.rdp is None or not _scalar(eps):
            return b
        e = np.array([float(eps)])
        engine = float(self._engine_delta(e)[0])
        ld, order = self.rdp.log_delta(float(eps))
        if ld < np.log(engine) if engine > 0 else False:
            note = (f"upper end from the RDP bound (order λ = {order:.6g}; {RDP_SOURCE}); "
                    f"the f-DP engine's upper end is {engine:.4g}")
        else:
            note = (f"upper end from the f-DP engine; the RDP bound gives "
                    f"{np.exp(ld):.4g} (order λ = {order:.6g})")
        if b.lo == 0.0 and b.hi > 0.0:
            note += "; " + self._why_lower_zero("δ")
        return Bracket(b.lo, b.hi, b.status, b.safe_side, note)

    def epsilon_bounds(self, delta, width=None):
        """(lower, upper) ε(δ): the engine's lower side; the upper side min(engine,
        Rényi), with a ``note`` saying which set it and why a lower end is 0.

        Parameters
        ----------
        delta : float or array_like
            δ in (0, 1).
        width : float, optional
            As in ``Numeric.epsilon_bounds`` (met by the engine's bracket).

        Returns
        -------
        Bracket

        Raises
        ------
        ValueError
            As ``Numeric.epsilon_bounds``.

        Examples
        --------
        >>> import fdp
        >>> b = fdp.dpsgd(1.1, 256 / 60000, 10**10).epsilon_bounds(1e-5)
        >>> b.note.startswith("upper end from the RDP bound")
        True
        """
        if self.rdp is None:
            return super().epsilon_bounds(delta, width)
        d = np.asarray(delta, dtype=float)
        unresolved = ""
        try:
            b = super().epsilon_bounds(delta, width)
        except ValueError as err:
            # δ below what the engine resolves (its cut-off tails): the Rényi bound
            # still answers; anything else (a bad δ, an unreachable width) is raised
            if width is not None or d.size == 0 or not np.all((d > 0) & (d < 1)):
                raise
            unresolved = str(err)
            los, his = [], []
            for x in d.ravel():
                try:
                    lo1, hi1 = super().epsilon_bounds(float(x))
                except ValueError:
                    lo1, hi1 = 0.0, np.inf
                los.append(lo1)
                his.append(hi1)
            shape = d.shape
            b = Bracket(np.array(los).reshape(shape) if shape else los[0],
                        np.array(his).reshape(shape) if shape else his[0], self.status)
        r_eps, order = self.rdp.epsilon(delta)
        hi = np.minimum(np.asarray(b.hi, dtype=float), r_eps.reshape(np.shape(b.hi)))
        if _scalar(delta):
            engine, r, lam = float(b.hi), float(r_eps[0]), float(order[0])
            if unresolved:
                note = (f"upper end from the RDP bound (order λ = {lam:.6g}; {RDP_SOURCE}); "
                        f"lower end 0: the f-DP engine cannot resolve this δ ({unresolved})")
                return Bracket(0.0, float(hi), b.status, b.safe_side, note)
            if r < engine:
                note = (f"upper end from the RDP bound (order λ = {lam:.6g}; {RDP_SOURCE}); "
                        f"the f-DP engine's upper end is {engine:.6g}")
            else:
                note = (f"upper end from the f-DP engine; the RDP bound gives {r:.6g} "
                        f"(order λ = {lam:.6g})")
            if b.lo == 0.0 and float(hi) > 0.0:
                note += "; " + self._why_lower_zero("ε")
            return Bracket(b.lo, float(hi), b.status, b.safe_side, note)
        note = "upper end: the smaller of the f-DP engine's and the RDP bound, per point"
        return Bracket(b.lo, hi, b.status, b.safe_side, note)

    def _why_lower_zero(self, what: str) -> str:
        hi_opt = max(float(lat.losses.max()) for lat in self.opt if lat.losses.size)
        lo_pess = min(float(lat.losses.min()) for lat in self.pess if lat.losses.size)
        if hi_opt < lo_pess:
            return (f"lower end 0: at this many steps the engine's two sides no longer "
                    f"overlap -- each step's privacy loss is rounded to the grid step "
                    f"Δ = {self.step:.3g} (down on the optimistic side, up on the "
                    f"pessimistic one), and over {self._steps()} steps that rounding "
                    f"outgrows the loss itself (optimistic losses end at {hi_opt:.4g}, "
                    f"pessimistic ones start at {lo_pess:.4g}), so the optimistic side "
                    f"proves no {what} above 0; the upper end stands")
        slack = max(lat.slack + lat.readback for lat in self.opt)
        return (f"lower end 0: the engine's optimistic side does not separate {what} from "
                f"0 here (its certified error: slack {slack:.3g}, grid step "
                f"{self.step:.3g}); a smaller tol (f.refined(tol)) may, memory allowing")

    def _steps(self) -> str:
        n = sum(n for _, n in self.source[0].groups) if self.source else 0
        return f"{n:.3g}" if n else "the"


__all__ = ["DPSGD_ORDERS", "MAX_RDP_GROUPS", "MinCertified", "RDPBound"]
