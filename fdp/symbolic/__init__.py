"""Symbolic trade-off functions with sympy (Dong, Roth & Su 2022, §2–§3 in closed form).

    from fdp import symbolic as S
    f = S.gaussian()              # G_μ(α) = erfc(μ/√2 − erfinv(1 − 2α))/2 in α = S.alpha, μ
    S.check(f)                    # the axioms, each proved / refuted / undecided, with reasons
    S.functionals(f)              # kl = μ²/2, κ2 = μ² + μ⁴/4
    S.delta(f)                    # δ(ε) in closed form, ε = S.varepsilon
    S.inverse(f)                  # f⁻¹ (here G_μ itself)
    S.to_tradeoff(f, mu=1.0)      # a numeric fdp.TradeOff
    S.latex(f)

Families: ``gaussian(mu)``, ``eps_delta(eps, delta)``, ``laplace(mu)``, ``identity()``;
parameters are numbers or sympy expressions (default: the symbols μ > 0, ε > 0,
δ ∈ [0, 1)). Any expression in ``S.alpha`` is accepted by every function here.
"""

from fdp.symbolic._expr import (
                                Phi,
                                Phi_inv,
                                alpha,
                                delta_,
                                eps_delta,
                                epsilon,
                                gaussian,
                                identity,
                                laplace,
                                mu,
                                pieces,
)
from fdp.symbolic.calculus import Functionals, delta, functionals, inverse, varepsilon
from fdp.symbolic.check import AXIOMS, CheckReport, Verdict, check
from fdp.symbolic.convert import SymbolicTradeOff, latex, to_tradeoff

__all__ = [
                                "AXIOMS",
                                "CheckReport",
                                "Functionals",
                                "Phi",
                                "Phi_inv",
                                "SymbolicTradeOff",
                                "Verdict",
                                "alpha",
                                "check",
                                "delta",
                                "delta_",
                                "eps_delta",
                                "epsilon",
                                "functionals",
                                "gaussian",
                                "identity",
                                "inverse",
                                "laplace",
                                "latex",
                                "mu",
                                "pieces",
                                "to_tradeoff",
                                "varepsilon",
]
