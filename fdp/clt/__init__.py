"""Central limit theorems for trade-off functions (DRS §3.2; MATH.md §6, §7).

- ``functionals(f)``: kl, κ2, κ3, κ̄3 of f (closed forms, exact sums or quadrature),
  with a δ part split off as f_{0,δ}.
- ``clt(fs)``: the CLT approximation G_μ (⊗ f_{0,δ}) of f_1 ⊗ … ⊗ f_n with its
  Berry–Esseen band (DRS Thm 3.4) as two trade-off functions.
- ``edgeworth(fs)``: the degree-2 Edgeworth approximation (Zheng, Dong, Long, Su 2020).
- ``dpsgd_clt_mu(...)``: the CLT μ of noisy SGD, Poisson (Bu et al.) or without
  replacement (DRS); ``compare_dpsgd_clt(...)`` sets it beside the certified bracket.

Every CLT or Edgeworth number is an approximation, not a privacy bound; each result
says so, and the certified alternatives are the Berry–Esseen band and ``fdp.dpsgd``.

``fdp.clt`` is both this subpackage and the function ``clt``: once the subpackage
is imported, ``fdp.clt`` is the module object, so the module is made callable and
``fdp.clt([f, g])`` calls ``clt``.
"""

import sys
import types

from fdp.clt.berry_esseen import (BERRY_ESSEEN_CONSTANT, BerryEsseenLower, CLTResult,
                                  berry_esseen_upper, clt, is_symmetric)
from fdp.clt.dpsgd import DPSGDComparison, compare_dpsgd_clt, dpsgd_clt_mu
from fdp.clt.edgeworth import EdgeworthApprox, edgeworth, edgeworth_cdf, edgeworth_sf
from fdp.clt.functionals import Functionals, functionals
from fdp.operations.with_delta import WithDelta, with_delta

__all__ = ["BERRY_ESSEEN_CONSTANT", "BerryEsseenLower", "CLTResult", "DPSGDComparison",
           "EdgeworthApprox", "Functionals", "WithDelta", "berry_esseen_upper", "clt",
           "compare_dpsgd_clt", "dpsgd_clt_mu", "edgeworth", "edgeworth_cdf", "edgeworth_sf",
           "functionals", "is_symmetric", "with_delta"]


class _CallableModule(types.ModuleType):
    """The ``fdp.clt`` module; calling it calls ``clt`` (see the module docstring)."""

    def __call__(self, fs, **kwargs):
        return clt(fs, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
