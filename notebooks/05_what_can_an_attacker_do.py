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
# # 05 · What can an attacker do?
#
# A trade-off function $f = T(P, Q)$ is a statement about **attacks**: $P$ is the output
# law when a person's record is out, $Q$ when it is in, and no test between them has
# type II error below $f(\alpha)$ at type I error $\alpha$ (Dong, Roth & Su, *Gaussian
# Differential Privacy*, JRSS-B 2022, Def 2.1 — "DRS"). This notebook reads that bound
# four ways, each as a **certified bracket** (`lo ≤ truth ≤ hi`; the attacker's
# *upper* success is the side a privacy claim may quote):
#
# | read-out | formula | `fdp.conversions` |
# |---|---|---|
# | true-positive rate of membership inference at false-positive rate α | $1-\min\{f(\alpha), f^{-1}(\alpha)\}$ | `tpr_at_fpr(f, fpr)` |
# | success of a Bayesian membership attacker with prior π | $1-\min_\alpha[(1-\pi)\alpha+\pi f(\alpha)]$ | `attack_success(f, prior)`, `bayes_risk` |
# | reconstruction success for baseline success κ | $\le 1-f(\kappa)$ | `reconstruction_bound(f, kappa)` |
# | the GDP summary: smallest μ with $f\ge G_\mu$, and how far the curve is from $G_\mu$ | $\mu^*$, $\sup_\alpha (f-G_{\mu^*})$ | `gdp_fit(f)` |
#
# The min over $f$ and $f^{-1}$ takes the worse of the two orders of the pair
# ($T(Q,P) = f^{-1}$, DRS Lemma A.2); for the symmetric curves below it changes nothing.
# The Bayesian and reconstruction readings follow Kaissis, Hayes, Ziller & Rueckert,
# *Bounding data reconstruction attacks with the hypothesis testing interpretation of
# differential privacy* (2023), and Hayes, Mahloujifar & Balle, *Bounding training data
# reconstruction in DP-SGD* (NeurIPS 2023).
#
# Three guarantees, all "about the same" by a one-number summary:
#
# * **Gaussian**: the Gaussian mechanism with noise σ = √3 run three times, $G_1$;
# * **(ε, δ)**: $f_{\varepsilon,\delta}$ with ε = 1, δ = 10⁻⁵;
# * **DP-SGD**: noise multiplier σ = 9.4, Poisson rate q = 0.328, T = 2000 steps, certified by
#   `fdp.dpsgd`.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import numpy as np
import matplotlib.pyplot as plt
import fdp
plt.rcParams.update({"figure.dpi": 90, "savefig.dpi": 90})
np.set_printoptions(precision=4, suppress=True)
import time
from fdp.conversions import (tpr_at_fpr, attack_success, reconstruction_bound,
                             gdp_fit, gdp_shortfall)
t_start = time.time()
curves = {
    "Gaussian σ=√3, 3 runs": fdp.Gaussian(1 / np.sqrt(3)) ** 3,
    "(ε=1, δ=1e-5)": fdp.EpsDelta(1.0, 1e-5),
    "DP-SGD σ=9.4, q=0.328, T=2000": fdp.dpsgd(9.4, 0.328, 2000),
}
for name, f in curves.items():
    print(f"{name:32s} {f!r}")

# %% [markdown]
# ## 1. True-positive rate at a low false-positive rate
#
# Membership inference is judged at a **low** false-positive rate: an attacker who
# flags 1 in 1000 non-members wrongly should not catch many members either (Carlini et
# al., *Membership inference attacks from first principles*, 2022). The best test at
# FPR α has TPR $1 - f(\alpha)$ (Neyman–Pearson). Where $f(\alpha)$ is close to 1 the
# subtraction cancels; `fdp` bounds the TPR from above through the privacy profile,
# $1 - f(\alpha) = \inf_\varepsilon (\delta(\varepsilon) + e^\varepsilon\alpha)$
# (DRS Prop 2.12), which keeps full relative precision down to α = 10⁻³⁰⁰.

# %%
fprs = np.array([1e-9, 1e-6, 1e-3, 1e-2, 1e-1])
print("FPR        " + "".join(f"{x:>12.0e}" for x in fprs))
for name, f in curves.items():
    t = tpr_at_fpr(f, fprs)
    print(f"{name[:10]:10s} " + "".join(f"{x:12.3e}" for x in t.hi))

grid = np.logspace(-12, 0, 300)
fig, ax = plt.subplots(figsize=(6, 4.2))
for name, f in curves.items():
    ax.loglog(grid, tpr_at_fpr(f, grid).hi, label=name)
ax.loglog(grid, grid, "k:", label="random guessing")
ax.set_xlabel("false-positive rate α"); ax.set_ylabel("largest true-positive rate")
ax.set_ylim(1e-12, 1.5); ax.legend(fontsize=8); ax.set_title("ROC bound, log-log")
plt.show()

# %% [markdown]
# The (ε, δ) guarantee allows a TPR of δ = 10⁻⁵ at *any* FPR: at FPR 10⁻⁹ it permits
# an attacker 10⁴ times better than guessing, while the Gaussian curve caps the TPR at
# about 3·10⁻⁷ there. At moderate FPR the order flips: ε = 1 is the strongest of the
# three at FPR 10⁻², and the DP-SGD run (whose bulk behaves like GDP with μ ≈ 1.57) the
# weakest everywhere in this table. One number (ε, or μ) cannot rank guarantees; the
# curve can.

# %% [markdown]
# ## 2. Bayes risk against the prior
#
# An attacker who believes the record is in with probability π guesses "in" or "out"
# after seeing the output. Its smallest error is
# $R(\pi) = \min_\alpha [(1-\pi)\alpha + \pi f(\alpha)] = \pi\,(1-\delta_f(\log\tfrac{1-\pi}{\pi}))$,
# so its success is $1-R(\pi)$; without the output it would be $\max\{\pi, 1-\pi\}$.
# The gain over that baseline is what the mechanism leaks.

# %%
priors = np.logspace(-6, np.log10(0.5), 60)
fig, ax = plt.subplots(figsize=(6, 4))
for name, f in curves.items():
    gain = [attack_success(f, p).hi - max(p, 1 - p) for p in priors]
    ax.loglog(priors, np.maximum(gain, 1e-16), label=name)
ax.set_xlabel("prior π that the record is in"); ax.set_ylabel("success − baseline (upper bound)")
ax.legend(fontsize=8); plt.show()
for name, f in curves.items():
    s = attack_success(f, 0.5)
    print(f"{name[:10]:10s} prior 1/2: success ≤ {s.hi:.4f}   (bracket [{s.lo:.6f}, {s.hi:.6f}])")

# %% [markdown]
# For a rare-membership attacker (small π) the (ε, δ) curve again has a floor: its gain
# never drops below about δ, whatever the prior. At π = 1/2 the success is
# $(1 + \text{advantage})/2$, advantage $= \max_\alpha(1-\alpha-f(\alpha))$.

# %% [markdown]
# ## 3. Reconstruction
#
# An attacker who would reconstruct a record with probability κ from the prior alone
# (say, guessing one of $1/\kappa$ equally likely values) succeeds with probability at
# most $1 - f(\kappa)$ after seeing the output (Kaissis et al. 2023; Hayes et al. 2023).

# %%
kappas = np.logspace(-9, -1, 50)
fig, ax = plt.subplots(figsize=(6, 4))
for name, f in curves.items():
    ax.loglog(kappas, [reconstruction_bound(f, k).hi for k in kappas], label=name)
ax.loglog(kappas, kappas, "k:", label="baseline κ")
ax.set_xlabel("baseline success κ"); ax.set_ylabel("reconstruction success ≤")
ax.legend(fontsize=8); plt.show()
for name, f in curves.items():
    print(f"{name[:10]:10s} κ = 1e-6: success ≤ {reconstruction_bound(f, 1e-6).hi:.3e}")

# %% [markdown]
# ## 4. The μ summary against the curve
#
# "μ-GDP" summarises a curve by one number, the smallest μ with $f \ge G_\mu$,
# $G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha)-\mu)$ (DRS Def 2.7). `gdp_fit` certifies
# that μ* and reports the **fit gap** $\sup_\alpha (f(\alpha) - G_{\mu^*}(\alpha))$: how much
# more private the curve is than the summary says. For the Gaussian curve the gap is zero.
# For the (ε, δ) curve no finite μ exists ($f(0) = 1-\delta < 1$, while $G_\mu(0) = 1$).

# %%
fits = {}
for name, f in curves.items():
    fits[name] = fit = gdp_fit(f)
    print(f"{name}:\n  {fit.summary()}\n")

# %% [markdown]
# DP-SGD is the case where the summary misleads. Its μ* is exactly $\sqrt T/\sigma$: with
# probability $q^T$ every step samples the record, and that component is $G_{\sqrt T/\sigma}$,
# which decides the curve at α ≈ $q^T$ ≈ 10⁻⁹⁶⁸ — far below anything a double holds. Where
# the curve can be read (α ≥ 10⁻³⁰⁰) it needs only μ ≈ 1.57, and in the bulk it is up to
# 0.89 above $G_{\mu^*}$ in β.
#
# A fitted μ is not a bound either. The `gdpnum` tool reports μ = 1.5686 ("regret" 0.00102) for
# this setting; `gdp_shortfall` shows that the certified curve dips **below** $G_{1.5686}$:

# %%
D = curves["DP-SGD σ=9.4, q=0.328, T=2000"]
fit = fits["DP-SGD σ=9.4, q=0.328, T=2000"]
short, at = gdp_shortfall(D, 1.5686)
print(f"certified μ* ∈ [{fit.mu_lo:.6f}, {fit.mu_hi:.6f}]   (√T/σ = {np.sqrt(2000) / 9.4:.6f})")
print(f"bulk μ (α ≥ 1e-300) ≥ {fit.bulk_mu:.4f};  G_1.5686 exceeds the curve by {short:.2e} at α = {at:.2e}")

a = np.logspace(-14, 0, 400)
from scipy.stats import norm
fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
ax.loglog(a, tpr_at_fpr(D, a).hi, "k", lw=2, label="DP-SGD, certified 1 − f")
for mu, st, what in [(fit.mu_hi, "--", "μ*"), (fit.bulk_mu, ":", "bulk"), (1.5686, "-.", "gdpnum fit")]:
    ax.loglog(a, norm.sf(norm.isf(a) - mu), st, label=f"1 − G_μ, μ = {mu:.5g} ({what})")
ax.set_xlabel("α (false-positive rate)"); ax.set_ylabel("1 − β (true-positive rate)")
ax.set_ylim(1e-14, 1.5); ax.legend(fontsize=8)
lo, hi = D.bounds(a)
bx.semilogx(a, lo - norm.cdf(norm.isf(a) - fit.mu_hi), "k", label="f − G_μ*  (fit gap)")
bx.semilogx(a, lo - norm.cdf(norm.isf(a) - 1.5686), "-.", label="f − G_1.5686")
bx.axhline(0, color="grey", lw=0.5); bx.set_xlabel("α"); bx.set_ylabel("β difference")
bx.legend(fontsize=8); plt.show()

# %% [markdown]
# ## Take-aways
#
# * Quote attack read-outs from the **curve**, at the FPR, prior or baseline that matters
#   for your threat model; `fdp` gives them with certified brackets.
# * δ is a floor on every attack's gain: (ε, δ) guarantees say nothing below it.
# * A μ-GDP summary is exact for Gaussian noise but can be far too pessimistic (DP-SGD's
#   μ* lives at α ≈ q^T), and a *fitted* μ can be too optimistic (below the curve).
#   `gdp_fit(f).summary()` says which case you are in.

# %%
print(f"notebook compute time: {time.time() - t_start:.1f} s")
