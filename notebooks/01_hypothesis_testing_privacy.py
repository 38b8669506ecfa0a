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
# # 01 · Privacy as hypothesis testing, from scratch
#
# This notebook walks the path of the lecture notes this project started from: from the
# usual definition of differential privacy to the **hypothesis-testing** view, the
# **trade-off function**, **f-DP**, (ε, δ)-DP as a special trade-off function
# $f_{\varepsilon,\delta}$, and **Gaussian DP** (Dong, Roth & Su, *Gaussian Differential
# Privacy*, JRSS-B 2022 — "DRS" below). It ends with a simulated attacker whose empirical
# errors land above the curve the theory promises.
#
# Only the public API of `fdp` is used.

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import numpy as np
import matplotlib.pyplot as plt
import fdp
plt.rcParams.update({"figure.dpi": 90, "savefig.dpi": 90})
np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## 1. Two neighbouring datasets
#
# A mechanism $M$ is (ε, δ)-differentially private if for all *neighbouring* datasets
# $S, S'$ (they differ in one person's record) and every set of outputs $E$
#
# $$\Pr[M(S)\in E] \le e^{\varepsilon}\Pr[M(S')\in E] + \delta .$$
#
# Take a concrete case: $S$ is a hospital's records, $S'$ is the same records plus Alice,
# and $M$ releases the number of patients with a condition plus Gaussian noise,
# $M(S) = \text{count}(S) + N(0,\sigma^2)$. Adding Alice changes the count by at most
# $\Delta = 1$ (the *sensitivity*). The two output laws are $P = N(c, \sigma^2)$ and
# $Q = N(c+1, \sigma^2)$: after shifting and scaling, $N(0,1)$ against $N(\mu, 1)$ with
# $\mu = \Delta/\sigma$.

# %%
sigma = 1.0
mech = fdp.mechanisms.GaussianMechanism(sensitivity=1.0, sigma=sigma)
c = 120                                   # the true count without Alice
rng = np.random.default_rng(2024)
print("five releases on S :", np.round(mech.sample(c, 5, rng=rng), 2))
print("five releases on S':", np.round(mech.sample(c + 1, 5, rng=rng), 2))
print("exact guarantee of this mechanism:", mech.tradeoff)

# %% [markdown]
# ## 2. The attacker runs a hypothesis test
#
# An attacker who sees the output $o$ wants to know whether Alice is in the data:
#
# $$H_0:\ \text{the data is } S \quad\text{vs}\quad H_1:\ \text{the data is } S'.$$
#
# A test is a rejection rule $\phi(o)\in[0,1]$ (the probability of saying "Alice is in").
# It makes two kinds of error:
#
# * **type I** (false alarm): $\alpha_\phi = \mathbb E_P[\phi]$,
# * **type II** (miss): $\beta_\phi = 1 - \mathbb E_Q[\phi]$.
#
# For the Gaussian pair the natural test rejects when $o > t$; moving $t$ to the right
# lowers α and raises β. The shaded areas below are the two errors.

# %%
fig, ax = plt.subplots(figsize=(6.5, 3.4))
fdp.plotting.hypothesis_test(mu=1.0 / sigma, threshold=0.8, ax=ax)
plt.show()

# %% [markdown]
# ## 3. The trade-off function
#
# No test can make both errors small at once; the best achievable type II error at
# level α is the **trade-off function** (DRS Def 2.1)
#
# $$T(P,Q)(\alpha) = \inf\{\beta_\phi : \alpha_\phi \le \alpha\}.$$
#
# By the Neyman–Pearson lemma the infimum is reached by thresholding the likelihood ratio
# $q/p$; for $N(0,1)$ vs $N(\mu,1)$ that is the threshold test above, with
# $\alpha = 1-\Phi(t)$ and $\beta = \Phi(t-\mu)$. Eliminating $t$ gives
#
# $$G_\mu(\alpha) = T\big(N(0,1), N(\mu,1)\big)(\alpha) = \Phi\big(\Phi^{-1}(1-\alpha)-\mu\big).$$
#
# Let us sweep the threshold by hand and compare with `fdp.Gaussian`.

# %%
from scipy.stats import norm
mu = 1.0 / sigma
t = np.linspace(-4, 5, 200)
alpha_t = norm.sf(t)               # P(o > t) under N(0,1)
beta_t = norm.cdf(t - mu)          # Q(o <= t) under N(mu,1)
G = fdp.Gaussian(mu)
print("max |threshold sweep - G_mu| =", np.max(np.abs(beta_t - G(alpha_t))))

fig, ax = plt.subplots(figsize=(4.2, 4.2))
fdp.plot(G, labels=[r"$G_1$ (fdp.Gaussian)"], ax=ax)
ax.plot(alpha_t[::8], beta_t[::8], "o", ms=3, color="k", label="threshold tests")
ax.legend(loc="upper right")
plt.show()

# %% [markdown]
# A function $f:[0,1]\to[0,1]$ is a trade-off function of *some* pair of distributions
# iff it is **convex, continuous, non-increasing and $f(\alpha)\le 1-\alpha$** (DRS
# Prop 2.2). The line $1-\alpha$ is random guessing: $\mathrm{Id}(\alpha)=1-\alpha$ is
# perfect privacy. The largest gap $\max_\alpha (1-\alpha-f(\alpha))$ is the total
# variation distance of the pair — the attacker's best *advantage*; for $G_\mu$ it is
# $\Phi(\mu/2)-\Phi(-\mu/2)$.

# %%
a = np.linspace(0, 1, 2001)
b = G(a)
print("f <= 1 - alpha       :", bool(np.all(b <= 1 - a + 1e-15)))
print("non-increasing       :", bool(np.all(np.diff(b) <= 1e-15)))
print("convex (2nd diff >= 0):", bool(np.all(np.diff(b, 2) >= -1e-12)))
print("advantage  G.advantage() =", G.advantage(), "  closed form =", norm.cdf(mu / 2) - norm.cdf(-mu / 2))

# %% [markdown]
# ## 4. f-DP
#
# A mechanism is **f-DP** if for every pair of neighbouring datasets
# $T(M(S), M(S')) \ge f$ (DRS Def 2.3): whatever test the attacker uses, its errors
# $(\alpha,\beta)$ lie on or above $f$. A larger $f$ means more privacy. A candidate
# curve certifies f-DP only if it lies above $f$ everywhere — one dip below is enough to
# fail (below, `dominates` decides, and the helper marks each curve).

# %%
f = fdp.Gaussian(1.0)
cands = [fdp.Gaussian(0.6), fdp.Laplace(0.6), fdp.EpsDelta(1.0)]
for g in cands:
    print(f"{g!r:40s} >= G_1 everywhere: {g.dominates(f)}")
fig, ax = plt.subplots(figsize=(4.6, 4.6))
fdp.plotting.fdp_region(f, cands, ax=ax)
plt.show()

# %% [markdown]
# Testing $S$ against $S'$ and $S'$ against $S$ are different problems:
# $T(Q,P) = T(P,Q)^{-1}$ with $f^{-1}(\alpha)=\inf\{t: f(t)\le\alpha\}$. If the neighbour
# relation is symmetric, an f-DP mechanism is also $\max\{f, f^{-1}\}$-DP (DRS Prop 2.4);
# notebook 04 explains when this free improvement is — and is not — available.
# $G_\mu$ is symmetric: $G_\mu^{-1}=G_\mu$.

# %%
print("G_1 symmetric:", f.symmetric, "  max|G - G^-1| =", np.max(np.abs(f(a) - f.inverse()(a))))

# %% [markdown]
# ## 5. (ε, δ)-DP is f-DP for one particular f
#
# Apply the (ε, δ) inequality to the rejection event of a test and to its complement, in
# both orders of the pair: $1-\beta \le e^\varepsilon\alpha+\delta$ and
# $1-\alpha\le e^\varepsilon\beta+\delta$. Hence (ε, δ)-DP says exactly that every test
# satisfies $\beta \ge f_{\varepsilon,\delta}(\alpha)$ with
#
# $$f_{\varepsilon,\delta}(\alpha)=\max\{0,\ 1-\delta-e^{\varepsilon}\alpha,\ e^{-\varepsilon}(1-\delta-\alpha)\}$$
#
# (DRS Prop 2.5; Wasserman & Zhou 2010; Kairouz, Oh & Viswanath 2017). It is
# piecewise linear, with a kink on the diagonal at $\alpha^*=(1-\delta)/(1+e^\varepsilon)$.

# %%
fig, axs = plt.subplots(1, 2, figsize=(9, 4.4))
fdp.plotting.eps_delta(eps=1.0, delta=0.1, ax=axs[0])
fdp.plot(fdp.EpsDelta(0.5), fdp.EpsDelta(1.0), fdp.EpsDelta(1.0, 0.1), fdp.EpsDelta(2.0, 0.05), ax=axs[1])
plt.tight_layout(); plt.show()

# %% [markdown]
# Conversely, any $f$ implies a whole *family* of (ε, δ) guarantees, one for each ε
# (DRS Prop 2.12): $\delta(\varepsilon) = 1+f^*(-e^\varepsilon)
# =\sup_\alpha\big(1-f(\alpha)-e^\varepsilon\alpha\big)$, and $f$ is the upper envelope of
# the $f_{\varepsilon,\delta(\varepsilon)}$ — nothing is lost in f, while any single
# (ε, δ) pair is a cruder summary.

# %%
fig, ax = plt.subplots(figsize=(4.6, 4.6))
fdp.plotting.gdp_conversion(mu=1.0, deltas=(0.1, 0.01, 1e-3, 1e-5), ax=ax)
plt.show()
for d in (1e-2, 1e-3, 1e-5):
    e = G.epsilon(d)
    print(f"G_1 is ({e:.4f}, {d:g})-DP; check delta(eps) = {G.delta(e):.3g}; "
          f"closed form gdp_epsilon = {fdp.gdp_epsilon(1.0, d):.4f}")

# %% [markdown]
# ## 6. Gaussian differential privacy
#
# $\mu$-GDP means $G_\mu$-DP (DRS Def 2.6): telling $S$ from $S'$ is at least as hard as
# telling $N(0,1)$ from $N(\mu,1)$ from **one** draw. The Gaussian mechanism
# $\theta(S) + N(0,\Delta^2/\mu^2)$ is μ-GDP (DRS Thm 2.7), and GDP is closed under the
# natural operations: post-processing keeps μ, $n$-fold composition gives
# $\sqrt{\mu_1^2+\dots+\mu_n^2}$ (notebook 02), a group of $k$ people gets $k\mu$
# (notebook 04). The table reads each μ as attack risk: the best true-positive rate at a
# 1 % false-positive rate is $1-G_\mu(0.01)$.

# %%
fig, ax = plt.subplots(figsize=(4.4, 4.4))
fdp.plotting.gdp_family(mus=(0.5, 1.0, 2.0, 3.0), ax=ax)
plt.show()
print(f"{'mu':>5} {'advantage':>10} {'TPR@FPR=1%':>11} {'eps(delta=1e-5)':>16}")
for m in (0.25, 0.5, 1.0, 2.0, 3.0):
    g = fdp.Gaussian(m)
    print(f"{m:5.2f} {g.advantage():10.4f} {1 - g(0.01):11.4f} {g.epsilon(1e-5):16.3f}")
print("composition: Gaussian(1) ** 4 =", fdp.Gaussian(1.0) ** 4)

# %% [markdown]
# ## 7. A simulated attacker
#
# Theory says no test can beat $G_1$ for our counting query with σ = 1. Let us play the
# attacker: run the mechanism many times on $S$ and on $S'$ (seeded), and for many
# thresholds $t$ count how often the test "reject $H_0$ when $o > t$" errs.
# `fdp.audit.estimate` does the bookkeeping and attaches simultaneous Clopper–Pearson
# intervals (thresholds are chosen on a held-out pilot split, so they do not peek at the
# counted samples).
#
# Each empirical point estimates a true point $(\alpha_\phi, \beta_\phi)$, which lies on or
# above $G_1$. The *point estimates* scatter around it, so some land slightly below by
# chance; the *conservative* points (upper confidence limits of both errors) lie above the
# curve with 95 % probability for all tests at once. The audit also tries the mirrored
# tests "reject when $o < t$"; they are poor tests for this pair and land above the
# diagonal.

# %%
rng = np.random.default_rng(7)
n = 20_000
out_S = mech.sample(c, n, rng=rng)
out_S1 = mech.sample(c + 1, n, rng=rng)
est = fdp.audit.estimate(out_S, out_S1, confidence=0.95, n_thresholds=40)
above_pt = est.beta >= G(est.alpha)
above_cons = est.beta_upper >= G(est.alpha_upper)
print(f"{est.n_tests} tests; point estimates on/above G_1: {above_pt.mean():.0%}; "
      f"conservative points on/above G_1: {above_cons.mean():.0%}")
print(f"largest dip of a point estimate below G_1: {np.max(G(est.alpha) - est.beta):.4f}")

fig, axs = plt.subplots(1, 2, figsize=(9.4, 4.5))
for ax in axs:
    fdp.plot(G, labels=[r"$G_1$ (the guarantee)"], ax=ax)
    ax.plot(est.alpha, est.beta, ".", ms=5, color="tab:orange", label="empirical (α, β)")
    ax.plot(est.alpha_upper, est.beta_upper, "x", ms=4, color="tab:green", label="conservative (α_U, β_U)")
    ax.legend(loc="upper right", fontsize=8)
axs[1].set_xlim(0, 0.2); axs[1].set_ylim(0.3, 1.0); axs[1].set_aspect("auto"); axs[1].set_title("zoom")
plt.tight_layout(); plt.show()


# %% [markdown]
# Not every attacker is optimal. Below, three attackers on the same samples: the
# likelihood-ratio threshold test (optimal for this pair), a test that only looks at
# whether the output is *even* (it ignores the signal), and a coin flip with bias $u$
# (points on the diagonal $1-\alpha$). All land above $G_1$; only the optimal one
# touches it.

# %%
def errors(reject_S, reject_S1):
    # type I = reject on S; type II = accept on S'
    return reject_S.mean(), 1 - reject_S1.mean()

pts = {"threshold (optimal)": [], "parity of round(o)": [], "coin flip": []}
for tq in np.quantile(out_S, np.linspace(0.02, 0.98, 25)):
    pts["threshold (optimal)"].append(errors(out_S > tq, out_S1 > tq))
pts["parity of round(o)"].append(errors(np.round(out_S) % 2 == 1, np.round(out_S1) % 2 == 1))
for u in np.linspace(0.1, 0.9, 5):
    pts["coin flip"].append(errors(rng.random(n) < u, rng.random(n) < u))

fig, ax = plt.subplots(figsize=(4.6, 4.6))
fdp.plot(G, labels=[r"$G_1$"], ax=ax)
for (name, p), mk in zip(pts.items(), "o^s"):
    p = np.array(p)
    ax.plot(p[:, 0], p[:, 1], mk, ms=5, label=name)
ax.legend(loc="upper right", fontsize=8); plt.show()

# %% [markdown]
# ### From samples to claims: `fdp.audit.check`
#
# An audit can **refute** a claimed guarantee (a conservative point falls below it) but
# never prove one: it gives a *lower* bound on the leakage, the theory an *upper* bound.
# The correct claim $G_1$ passes; the false claim $G_{0.7}$ (more privacy than the
# mechanism has) is caught. The audit's lower bound on μ sits a little below the true
# μ = 1.

# %%
ok = fdp.audit.check(mech, fdp.Gaussian(1.0), n=20_000, rng=np.random.default_rng(11))
bad = fdp.audit.check(mech, fdp.Gaussian(0.7), n=20_000, rng=np.random.default_rng(11))
print("claim G_1  :", ok.summary())
print("claim G_0.7:", bad.summary())
print(f"empirical lower bounds: mu >= {est.mu_lower_bound():.3f} (true 1), "
      f"eps(1e-5) >= {est.epsilon_lower_bound(1e-5):.3f} (true {G.epsilon(1e-5):.3f})")

# %% [markdown]
# ### Two more mechanisms
#
# The same experiment for the Laplace mechanism (scale $b$: exact trade-off
# $L_{\Delta/b}$ of DRS App. A, stronger than the classical $f_{\Delta/b,0}$) and for
# binary randomized response (exactly $f_{\varepsilon,0}$; it has only two outputs, so
# only one non-trivial test and its mirror exist).

# %%
lap = fdp.mechanisms.LaplaceMechanism(sensitivity=1.0, scale=1.0)
rr = fdp.mechanisms.RandomizedResponseMechanism(eps=1.0)
rng = np.random.default_rng(3)
fig, axs = plt.subplots(1, 2, figsize=(9.4, 4.5))
for ax, m, extra in ((axs[0], lap, fdp.EpsDelta(1.0)), (axs[1], rr, None)):
    d, d1 = m.audit_inputs()
    x, y = m.sample(d, 20_000, rng=rng), m.sample(d1, 20_000, rng=rng)
    e = fdp.audit.estimate(x, y, confidence=0.95, n_thresholds=40)
    curves = [m.tradeoff] + ([extra] if extra is not None else [])
    fdp.plot(*curves, ax=ax)
    ax.plot(e.alpha, e.beta, ".", color="tab:orange", label="empirical (α, β)")
    ax.plot(e.alpha_upper, e.beta_upper, "x", ms=4, color="tab:green", label="conservative")
    ax.legend(loc="upper right", fontsize=8)
    print(f"{type(m).__name__}: conservative points above its guarantee: "
          f"{np.mean(e.beta_upper >= m.tradeoff(e.alpha_upper) - 1e-12):.0%}")
axs[0].set_title("Laplace, b = 1"); axs[1].set_title("randomized response, ε = 1")
plt.tight_layout(); plt.show()

# %% [markdown]
# ## Summary
#
# * Privacy = hardness of a hypothesis test between $M(S)$ and $M(S')$.
# * The trade-off function $T(P,Q)$ records the best type II error at each type I error;
#   f-DP asks it to stay above $f$ for every neighbouring pair.
# * (ε, δ)-DP is $f_{\varepsilon,\delta}$-DP; an f gives all (ε, δ(ε)) at once.
# * μ-GDP uses $G_\mu$: one number with a direct reading as attack risk.
# * Empirical attacks land above the curve; audits refute false claims but only lower-bound
#   the leakage.
#
# Next: composition (02), DP-SGD (03), group privacy, subsampling and symmetrisation (04).
