"""Central limit theorems for trade-off functions (DRS §3.2).

- ``functionals(f)``: kl, κ2, κ3, κ̄3 of f (closed forms, exact sums or quadrature),
  with a δ part split off as f_{0,δ}.
- ``clt(fs, one_sided=None)``: the CLT approximation G_μ (⊗ f_{0,δ}) of
  f_1 ⊗ … ⊗ f_n with its Berry–Esseen band (DRS Thm 3.4) as two trade-off functions;
  ``one_sided`` symmetrises asymmetric factors as ``f.symmetrize(one_sided=...)``.
- ``edgeworth(fs)``: the degree-2 Edgeworth approximation (Zheng, Dong, Long, Su 2020).

Every CLT or Edgeworth number is an approximation, not a privacy bound; each result
says so, and the certified alternatives are the Berry–Esseen band and ``fdp.dpsgd``.

The CLT for noisy SGD (``dpsgd_clt_mu``) lives with the rest of the DP-SGD
accounting in ``fdp.sgd``.
"""

from fdp.limits.berry_esseen import (
                                  BERRY_ESSEEN_CONSTANT,
                                  BerryEsseenLower,
                                  CLTResult,
                                  berry_esseen_upper,
                                  clt,
                                  is_symmetric,
)
from fdp.limits.edgeworth import EdgeworthApprox, edgeworth, edgeworth_cdf, edgeworth_sf
from fdp.limits.functionals import Functionals, functionals
from fdp.operations.with_delta import WithDelta, with_delta

__all__ = ["BERRY_ESSEEN_CONSTANT", "BerryEsseenLower", "CLTResult",
           "EdgeworthApprox", "Functionals", "WithDelta", "berry_esseen_upper", "clt",
           "edgeworth", "edgeworth_cdf", "edgeworth_sf",
           "functionals", "is_symmetric", "with_delta"]

