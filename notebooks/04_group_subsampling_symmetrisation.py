# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 · Neighbouring relations, symmetrisation, subsampling and group privacy
#
# A privacy guarantee is a statement about **pairs of datasets**. Change which pairs
# count, and the same mechanism gets a different guarantee. This notebook covers:
#
# 1. add/remove vs replace-one neighbours;
# 2. the two symmetrisations $\max\{f,f^{-1}\}$ and $\min\{f,f^{-1}\}^{**}$;
# 3. privacy amplification by subsampling, $C_p(f)$ (DRS Thm 4.2);
# 4. group privacy $1-(1-f)^{\circ k}$ (DRS Thm 2.14);
#
# and what each means for a person whose data is used.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import numpy as np
import matplotlib.pyplot as plt
import fdp
plt.rcParams.update({"figure.dpi": 90, "savefig.dpi": 90})
np.set_printoptions(precision=4, suppress=True)
import time
t_start = time.time()

# %% [markdown]
# ## 1. Add/remove vs replace-one
#
# * **add/remove**: $S' = S\cup\{x\}$ (or $S = S'\cup\{x\}$). Protects the *presence* of a
#   person: an attacker cannot tell whether Alice is in the data. The dataset size is
#   itself private.
# * **replace-one**: $S'$ replaces one record of $S$ by another, same size $n$. Protects the
#   *value* of a record, while $n$ is public.
#
# Replacing is removing then adding: a replace-one pair is linked by a chain of two
# add/remove steps, so f-DP for add/remove implies $[1-(1-f)^{\circ 2}]$-DP for
# replace-one (group privacy with $k=2$, below). For a sum of clipped vectors
# (norm ≤ C) the sensitivities are $C$ (add/remove) and $2C$ (replace-one), so the
# Gaussian mechanism is $G_\mu$ vs $G_{2\mu}$ — exactly the group-of-2 bound.
#
# In DP-SGD the sampling scheme follows the relation: Poisson sampling with add/remove,
# sampling a fixed-size batch without replacement with replace-one (mixing them is a
# silent error). With noise σC on the clipped sum (clipping norm C) and sensitivity sC,
# `fdp.dpsgd` uses $C_p(G_{s/\sigma})$ per step with replace-one (DRS §5). Replacing a
# record can move the sum by 2C, so the default is `sensitivity=2`; `sensitivity=1` is
# the reading of Bu et al., valid only if the sum moves by at most C. The same MNIST run
# (σ = 1.3, 15 epochs, batch 256 of 60000) under the three readings:

# %%
p, T, DELTA = 256 / 60000, int(np.ceil(15 * 60000 / 256)), 1e-5
t0 = time.time()
ar = fdp.dpsgd(1.3, p, T, sampling="poisson", neighbouring="add_remove", tol=1e-4)
ro = fdp.dpsgd(1.3, p, T, sampling="without_replacement", neighbouring="replace_one", tol=1e-4,
               sensitivity=1)
ro2 = fdp.dpsgd(1.3, p, T, sampling="without_replacement", neighbouring="replace_one", tol=1e-4,
                sensitivity=2)
print(f"(three accountants in {time.time() - t0:.1f} s)")
runs = (("Poisson, add/remove (sens. C)", ar), ("w/o repl., replace-one, sens. C", ro),
        ("w/o repl., replace-one, sens. 2C", ro2))
for name, f in runs:
    lo, hi = f.epsilon_bounds(DELTA)
    print(f"{name:33s} eps(1e-5) in [{lo:.4f}, {hi:.4f}]   TPR at FPR=1% <= {1 - f.bounds(0.01)[0]:.4f}")
print("DRS uniform-sampling CLT for comparison: eps =",
      round(fdp.gdp_epsilon(fdp.dpsgd_clt_mu(1.3, p, T, sampling="without_replacement",
                                            sensitivity=1), DELTA), 4))
fig, ax = plt.subplots(figsize=(4.6, 4.6))
fdp.plot(ar, ro, ro2, labels=[n for n, _ in runs], ax=ax)
plt.show()

# %% [markdown]
# **For a user:** "ε = 0.86", "ε = 1.07" and "ε = 5.09" here describe the *same
# training run*. Always ask which neighbouring relation a number refers to, and which
# sensitivity the noise multiplier is measured against; replace-one hides less (it
# assumes the attacker knows everyone else *and* the dataset size), and with the honest
# 2C sensitivity it costs a lot.

# %% [markdown]
# ## 2. Two symmetrisations
#
# $T(M(S), M(S'))$ and $T(M(S'), M(S))$ are inverses of each other. Two situations:
#
# * **Two-sided**: we know $T(M(S),M(S'))\ge f$ for *both* orders of every neighbouring
#   pair (e.g. replace-one, where $(S,S')$ and $(S',S)$ are both neighbours). Then
#   $T(M(S'),M(S)) \ge f$ too, and inverting, $T(M(S),M(S')) \ge f^{-1}$; so the mechanism
#   is $\max\{f,f^{-1}\}$-DP (DRS Prop 2.4). A free improvement: `f.symmetrize()`.
# * **One-sided**: we only know the *add* direction $T(M(S),M(S\cup\{x\}))\ge f$; the
#   remove direction is then only $\ge f^{-1}$. Every pair is covered by $\min\{f,f^{-1}\}$,
#   which is not convex; the strongest trade-off function below it is its lower convex
#   envelope $\min\{f,f^{-1}\}^{**}$: `f.symmetrize(one_sided=True)`.
#
# Example: one Poisson-subsampled Gaussian step ($p = 0.3$, $G_2$), whose add direction is
# $f_p = pG_2 + (1-p)\mathrm{Id}$.

# %%
G2 = fdp.Gaussian(2.0)
fa = G2.subsample(0.3, sampling="poisson", direction="add")     # f_p (one direction only)
fr = fa.inverse()                                              # f_p^{-1}: the remove direction
two = fdp.strongest(fa, fr)     # max{f, f^-1}: NOT a guarantee here (fa.symmetrize() refuses it)
one = fa.symmetrize(one_sided=True)                            # min{f, f^-1}**
fig, ax = plt.subplots(figsize=(5, 5))
fdp.plot(fa, fr, two, one, labels=[r"$f_p$ (add)", r"$f_p^{-1}$ (remove)",
         r"$\max\{f_p,f_p^{-1}\}$", r"$\min\{f_p,f_p^{-1}\}^{**}$"], ax=ax)
plt.show()
a = np.linspace(0, 1, 2001)
print("max{f,f^-1} >= f_p >= min** everywhere:",
      bool(np.all(two(a) >= fa(a) - 1e-12) and np.all(fa(a) >= one(a) - 1e-12)))
print("min** is convex:", bool(np.all(np.diff(one(a), 2) >= -1e-12)),
      "  and below min{f, f^-1}:", bool(np.all(one(a) <= np.minimum(fa(a), fr(a)) + 1e-12)))
for name, g in (("add direction f_p", fa), ("remove direction f_p^-1", fr),
                ("max{f,f^-1} (two-sided)", two), ("min{f,f^-1}** (one-sided)", one)):
    print(f"{name:28s} TPR at FPR=1%: {1 - g(0.01):.4f}   advantage {g.advantage():.4f}")

# %% [markdown]
# **For a user:** using $\max\{f,f^{-1}\}$ when only one direction is known
# *over-claims* privacy — above, the attacker of the add direction reaches a TPR at 1 % FPR
# about eight times what the max-symmetrised curve allows. The one-sided envelope is the honest claim. For
# DP-SGD, symmetrise **once, after composing** each direction (Bu; `fdp.dpsgd` does this):
# symmetrising every step and then composing is valid but loose.

# %% [markdown]
# ## 3. Privacy amplification by subsampling
#
# If a mechanism is f-DP and is run on a random subsample of $m$ out of $n$ records
# (without replacement, replace-one neighbours), it is $C_p(f)$-DP with $p=m/n$ and
#
# $$C_p(f) = \min\{f_p, f_p^{-1}\}^{**},\qquad f_p = pf + (1-p)\mathrm{Id}$$
#
# (DRS Thm 4.2). A person outside the subsample is perfectly protected, and that happens
# with probability $1-p$. For symmetric $f$ with fixed point $x^*=f(x^*)$ the envelope
# has a closed form: $f_p$ on $[0,x^*]$, the line $x^*+f_p(x^*)-\alpha$ on
# $[x^*, f_p(x^*)]$, and $f_p^{-1}$ after. We check the library against it for $G_1$
# ($x^* = \Phi(-1/2)$).

# %%
from scipy.stats import norm
G1 = fdp.Gaussian(1.0)
pp = 0.3
Cp = G1.subsample(pp, sampling="without_replacement")
fp = G1.subsample(pp, sampling="poisson", direction="add")
xs = norm.cdf(-0.5)                       # fixed point of G_1
y = fp(xs)
def cp_closed(al):
    al = np.asarray(al)
    return np.where(al <= xs, fp(al), np.where(al <= y, xs + y - al, fp.inverse()(al)))
print("max |C_p(f) - closed form| =", np.max(np.abs(Cp(a) - cp_closed(a))))
fig, axs = plt.subplots(1, 2, figsize=(10, 4.8))
fdp.plotting.subsampling(G1, ps=(0.05, 0.2, 0.5, 1.0), ax=axs[0], show_parts=0.5,
                         sampling="without_replacement")
fdp.plotting.subsampling(fdp.EpsDelta(2.0), ps=(0.05, 0.2, 0.5, 1.0), ax=axs[1],
                         sampling="without_replacement")
plt.tight_layout(); plt.show()

# %%
print(f"{'p':>6} {'eps(1e-5) of C_p(G_1)':>22} {'TPR@FPR=1%':>11} {'advantage':>10}")
for q in (1.0, 0.5, 0.2, 0.05, 0.01):
    c = G1.subsample(q, sampling="without_replacement")
    print(f"{q:6.2f} {c.epsilon(1e-5):22.4f} {1 - c(0.01):11.4f} {c.advantage():10.4f}")

# %% [markdown]
# **For a user:** subsampling helps because the attacker does not know *whether* the
# person's record was used — but the secrecy of the sample is essential. If the batch
# composition leaks (e.g. logged, or deterministic shuffles), the amplification is gone.

# %% [markdown]
# ## 4. Group privacy
#
# Guarantees are about one person. A household of $k$ people (or one person with $k$
# records) is protected by (DRS Thm 2.14)
#
# $$f\text{-DP} \Rightarrow \big[1-(1-f)^{\circ k}\big]\text{-DP for groups of size } k,$$
#
# where $\circ k$ is $k$-fold function composition. For GDP this is exact and simple:
# $G_\mu \to G_{k\mu}$. For (ε, δ)-DP the f form is at least as tight as the classical rule
# $(k\varepsilon, \delta\sum_{i<k}e^{i\varepsilon})$. And a group of $k$ under
# $f_{\mu/k,0}$ converges to the Laplace curve $L_\mu$ as $k\to\infty$ (DRS Prop 2.15):
# pure ε-DP with ε ≈ μ/k per person behaves, for large groups, like a Laplace mechanism.

# %%
print("Gaussian(0.5).group(4) =", fdp.Gaussian(0.5).group(4))
fig, axs = plt.subplots(1, 3, figsize=(14, 4.6))
fdp.plotting.group_privacy(fdp.Gaussian(0.5), ks=(1, 2, 4, 8), ax=axs[0])
fdp.plotting.group_privacy(fdp.EpsDelta(0.5, 0.01), ks=(1, 2, 4, 8), ax=axs[1])
fdp.plotting.laplace_limit(mu=1.0, ks=(1, 2, 5, 10), ax=axs[2])
plt.tight_layout(); plt.show()

e, d = 0.5, 1e-3
print(f"\ngroups under ({e}, {d})-DP: f-form vs classical (k e, d sum e^(i e))")
print(f"{'k':>3} {'f-form TPR@1%':>14} {'classical TPR@1%':>17} {'f-form dominates classical':>27}")
for k in (1, 2, 4, 8):
    gk = fdp.EpsDelta(e, d).group(k)
    cl = fdp.EpsDelta(k * e, min(1.0, d * sum(np.exp(i * e) for i in range(k))))
    print(f"{k:3d} {1 - gk(0.01):14.4f} {1 - cl(0.01):17.4f} {str(gk.dominates(cl)):>27}")
L = fdp.Laplace(1.0)
for k in (10, 100):
    gk = fdp.EpsDelta(1.0 / k).group(k)
    print(f"k={k:4d}: max |group of f_(1/k,0) - L_1| = {np.max(np.abs(gk(a) - L(a))):.2e}")

# %% [markdown]
# **For a user:** the guarantee for your family is weaker than for you alone, and it
# degrades fast: 4 people under 0.5-GDP are protected like one person under 2-GDP, where
# an attacker at 1 % FPR already detects membership with probability
# $1-G_2(0.01)\approx 0.37$.
#
# ## Summary
#
# | concept | `fdp` | what it means for a person |
# |---|---|---|
# | add/remove | `dpsgd(..., "poisson", "add_remove")` | hides whether you are in the data |
# | replace-one | `dpsgd(..., "without_replacement", "replace_one")` | hides your record's value; dataset size public |
# | two-sided $\max\{f,f^{-1}\}$ | `f.symmetrize()` | free improvement when both orders are known |
# | one-sided $\min\{f,f^{-1}\}^{**}$ | `f.symmetrize(one_sided=True)` | the honest claim when only one direction is known |
# | subsampling $C_p(f)$ | `f.subsample(p, ...)` | protection from the chance of not being sampled — if the sample stays secret |
# | group privacy | `f.group(k)` | protection of k linked records, much weaker |
#
# References: DRS §2.5, §4 (Prop 2.4, Thm 2.14, Prop 2.15, Thm 4.2); Bu et al. (HDSR 2020);
# Zhu, Dong & Wang (AISTATS 2022).

# %%
print(f"notebook compute time: {time.time() - t_start:.1f} s")
