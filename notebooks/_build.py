"""Generate (and execute) the teaching notebooks of ``notebooks/``.

Usage (from the repository root)::

    python notebooks/_build.py                # build and execute all notebooks
    python notebooks/_build.py 02 03          # only those whose name starts with 02, 03
    python notebooks/_build.py --no-execute   # write the sources only (no outputs)

Each notebook is a list of ("md", text) / ("code", source) cells below. Executing
stores the outputs (figures as PNG) so that the notebooks render on GitHub; the
execution time of each is printed. ``tests/test_notebooks.py`` re-executes them and
checks that the committed sources equal what this script generates.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
TIMEOUT = 120   # seconds per notebook (the test suite uses the same limit)

SETUP = """\
%matplotlib inline
%config InlineBackend.figure_formats = ['png']
import numpy as np
import matplotlib.pyplot as plt
import fdp
plt.rcParams.update({"figure.dpi": 90, "savefig.dpi": 90})
np.set_printoptions(precision=4, suppress=True)"""


def md(text):
    return ("md", text)


def code(text):
    return ("code", text)


# ---------------------------------------------------------------------------------
# 01 Hypothesis-testing privacy from scratch
# ---------------------------------------------------------------------------------
NB01 = [
md(r"""# 01 · Privacy as hypothesis testing, from scratch

This notebook walks the path of the lecture notes this project started from: from the
usual definition of differential privacy to the **hypothesis-testing** view, the
**trade-off function**, **f-DP**, (ε, δ)-DP as a special trade-off function
$f_{\varepsilon,\delta}$, and **Gaussian DP** (Dong, Roth & Su, *Gaussian Differential
Privacy*, JRSS-B 2022 — "DRS" below). It ends with a simulated attacker whose empirical
errors land above the curve the theory promises.

Only the public API of `fdp` is used."""),
code(SETUP),
md(r"""## 1. Two neighbouring datasets

A mechanism $M$ is (ε, δ)-differentially private if for all *neighbouring* datasets
$S, S'$ (they differ in one person's record) and every set of outputs $E$

$$\Pr[M(S)\in E] \le e^{\varepsilon}\Pr[M(S')\in E] + \delta .$$

Take a concrete case: $S$ is a hospital's records, $S'$ is the same records plus Alice,
and $M$ releases the number of patients with a condition plus Gaussian noise,
$M(S) = \text{count}(S) + N(0,\sigma^2)$. Adding Alice changes the count by at most
$\Delta = 1$ (the *sensitivity*). The two output laws are $P = N(c, \sigma^2)$ and
$Q = N(c+1, \sigma^2)$: after shifting and scaling, $N(0,1)$ against $N(\mu, 1)$ with
$\mu = \Delta/\sigma$."""),
code(r"""sigma = 1.0
mech = fdp.mechanisms.GaussianMechanism(sensitivity=1.0, sigma=sigma)
c = 120                                   # the true count without Alice
rng = np.random.default_rng(2024)
print("five releases on S :", np.round(mech.sample(c, 5, rng=rng), 2))
print("five releases on S':", np.round(mech.sample(c + 1, 5, rng=rng), 2))
print("exact guarantee of this mechanism:", mech.tradeoff)"""),
md(r"""## 2. The attacker runs a hypothesis test

An attacker who sees the output $o$ wants to know whether Alice is in the data:

$$H_0:\ \text{the data is } S \quad\text{vs}\quad H_1:\ \text{the data is } S'.$$

A test is a rejection rule $\phi(o)\in[0,1]$ (the probability of saying "Alice is in").
It makes two kinds of error:

* **type I** (false alarm): $\alpha_\phi = \mathbb E_P[\phi]$,
* **type II** (miss): $\beta_\phi = 1 - \mathbb E_Q[\phi]$.

For the Gaussian pair the natural test rejects when $o > t$; moving $t$ to the right
lowers α and raises β. The shaded areas below are the two errors."""),
code(r"""fig, ax = plt.subplots(figsize=(6.5, 3.4))
fdp.plotting.hypothesis_test(mu=1.0 / sigma, threshold=0.8, ax=ax)
plt.show()"""),
md(r"""## 3. The trade-off function

No test can make both errors small at once; the best achievable type II error at
level α is the **trade-off function** (DRS Def 2.1)

$$T(P,Q)(\alpha) = \inf\{\beta_\phi : \alpha_\phi \le \alpha\}.$$

By the Neyman–Pearson lemma the infimum is reached by thresholding the likelihood ratio
$q/p$; for $N(0,1)$ vs $N(\mu,1)$ that is the threshold test above, with
$\alpha = 1-\Phi(t)$ and $\beta = \Phi(t-\mu)$. Eliminating $t$ gives

$$G_\mu(\alpha) = T\big(N(0,1), N(\mu,1)\big)(\alpha) = \Phi\big(\Phi^{-1}(1-\alpha)-\mu\big).$$

Let us sweep the threshold by hand and compare with `fdp.Gaussian`."""),
code(r"""from scipy.stats import norm
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
plt.show()"""),
md(r"""A function $f:[0,1]\to[0,1]$ is a trade-off function of *some* pair of distributions
iff it is **convex, continuous, non-increasing and $f(\alpha)\le 1-\alpha$** (DRS
Prop 2.2). The line $1-\alpha$ is random guessing: $\mathrm{Id}(\alpha)=1-\alpha$ is
perfect privacy. The largest gap $\max_\alpha (1-\alpha-f(\alpha))$ is the total
variation distance of the pair — the attacker's best *advantage*; for $G_\mu$ it is
$\Phi(\mu/2)-\Phi(-\mu/2)$."""),
code(r"""a = np.linspace(0, 1, 2001)
b = G(a)
print("f <= 1 - alpha       :", bool(np.all(b <= 1 - a + 1e-15)))
print("non-increasing       :", bool(np.all(np.diff(b) <= 1e-15)))
print("convex (2nd diff >= 0):", bool(np.all(np.diff(b, 2) >= -1e-12)))
print("advantage  G.advantage() =", G.advantage(), "  closed form =", norm.cdf(mu / 2) - norm.cdf(-mu / 2))"""),
md(r"""## 4. f-DP

A mechanism is **f-DP** if for every pair of neighbouring datasets
$T(M(S), M(S')) \ge f$ (DRS Def 2.3): whatever test the attacker uses, its errors
$(\alpha,\beta)$ lie on or above $f$. A larger $f$ means more privacy. A candidate
curve certifies f-DP only if it lies above $f$ everywhere — one dip below is enough to
fail (below, `dominates` decides, and the helper marks each curve)."""),
code(r"""f = fdp.Gaussian(1.0)
cands = [fdp.Gaussian(0.6), fdp.Laplace(0.6), fdp.EpsDelta(1.0)]
for g in cands:
    print(f"{g!r:40s} >= G_1 everywhere: {g.dominates(f)}")
fig, ax = plt.subplots(figsize=(4.6, 4.6))
fdp.plotting.fdp_region(f, cands, ax=ax)
plt.show()"""),
md(r"""Testing $S$ against $S'$ and $S'$ against $S$ are different problems:
$T(Q,P) = T(P,Q)^{-1}$ with $f^{-1}(\alpha)=\inf\{t: f(t)\le\alpha\}$. If the neighbour
relation is symmetric, an f-DP mechanism is also $\max\{f, f^{-1}\}$-DP (DRS Prop 2.4);
notebook 04 explains when this free improvement is — and is not — available.
$G_\mu$ is symmetric: $G_\mu^{-1}=G_\mu$."""),
code(r"""print("G_1 symmetric:", f.symmetric, "  max|G - G^-1| =", np.max(np.abs(f(a) - f.inverse()(a))))"""),
md(r"""## 5. (ε, δ)-DP is f-DP for one particular f

Apply the (ε, δ) inequality to the rejection event of a test and to its complement, in
both orders of the pair: $1-\beta \le e^\varepsilon\alpha+\delta$ and
$1-\alpha\le e^\varepsilon\beta+\delta$. Hence (ε, δ)-DP says exactly that every test
satisfies $\beta \ge f_{\varepsilon,\delta}(\alpha)$ with

$$f_{\varepsilon,\delta}(\alpha)=\max\{0,\ 1-\delta-e^{\varepsilon}\alpha,\ e^{-\varepsilon}(1-\delta-\alpha)\}$$

(DRS Prop 2.5; Wasserman & Zhou 2010; Kairouz, Oh & Viswanath 2017). It is
piecewise linear, with a kink on the diagonal at $\alpha^*=(1-\delta)/(1+e^\varepsilon)$."""),
code(r"""fig, axs = plt.subplots(1, 2, figsize=(9, 4.4))
fdp.plotting.eps_delta(eps=1.0, delta=0.1, ax=axs[0])
fdp.plot(fdp.EpsDelta(0.5), fdp.EpsDelta(1.0), fdp.EpsDelta(1.0, 0.1), fdp.EpsDelta(2.0, 0.05), ax=axs[1])
plt.tight_layout(); plt.show()"""),
md(r"""Conversely, any $f$ implies a whole *family* of (ε, δ) guarantees, one for each ε
(DRS Prop 2.12): $\delta(\varepsilon) = 1+f^*(-e^\varepsilon)
=\sup_\alpha\big(1-f(\alpha)-e^\varepsilon\alpha\big)$, and $f$ is the upper envelope of
the $f_{\varepsilon,\delta(\varepsilon)}$ — nothing is lost in f, while any single
(ε, δ) pair is a cruder summary."""),
code(r"""fig, ax = plt.subplots(figsize=(4.6, 4.6))
fdp.plotting.gdp_conversion(mu=1.0, deltas=(0.1, 0.01, 1e-3, 1e-5), ax=ax)
plt.show()
for d in (1e-2, 1e-3, 1e-5):
    e = G.epsilon(d)
    print(f"G_1 is ({e:.4f}, {d:g})-DP; check delta(eps) = {G.delta(e):.3g}; "
          f"closed form gdp_epsilon = {fdp.gdp_epsilon(1.0, d):.4f}")"""),
md(r"""## 6. Gaussian differential privacy

$\mu$-GDP means $G_\mu$-DP (DRS Def 2.6): telling $S$ from $S'$ is at least as hard as
telling $N(0,1)$ from $N(\mu,1)$ from **one** draw. The Gaussian mechanism
$\theta(S) + N(0,\Delta^2/\mu^2)$ is μ-GDP (DRS Thm 2.7), and GDP is closed under the
natural operations: post-processing keeps μ, $n$-fold composition gives
$\sqrt{\mu_1^2+\dots+\mu_n^2}$ (notebook 02), a group of $k$ people gets $k\mu$
(notebook 04). The table reads each μ as attack risk: the best true-positive rate at a
1 % false-positive rate is $1-G_\mu(0.01)$."""),
code(r"""fig, ax = plt.subplots(figsize=(4.4, 4.4))
fdp.plotting.gdp_family(mus=(0.5, 1.0, 2.0, 3.0), ax=ax)
plt.show()
print(f"{'mu':>5} {'advantage':>10} {'TPR@FPR=1%':>11} {'eps(delta=1e-5)':>16}")
for m in (0.25, 0.5, 1.0, 2.0, 3.0):
    g = fdp.Gaussian(m)
    print(f"{m:5.2f} {g.advantage():10.4f} {1 - g(0.01):11.4f} {g.epsilon(1e-5):16.3f}")
print("composition: Gaussian(1) ** 4 =", fdp.Gaussian(1.0) ** 4)"""),
md(r"""## 7. A simulated attacker

Theory says no test can beat $G_1$ for our counting query with σ = 1. Let us play the
attacker: run the mechanism many times on $S$ and on $S'$ (seeded), and for many
thresholds $t$ count how often the test "reject $H_0$ when $o > t$" errs.
`fdp.audit.estimate` does the bookkeeping and attaches simultaneous Clopper–Pearson
intervals (thresholds are chosen on a held-out pilot split, so they do not peek at the
counted samples).

Each empirical point estimates a true point $(\alpha_\phi, \beta_\phi)$, which lies on or
above $G_1$. The *point estimates* scatter around it, so some land slightly below by
chance; the *conservative* points (upper confidence limits of both errors) lie above the
curve with 95 % probability for all tests at once. The audit also tries the mirrored
tests "reject when $o < t$"; they are poor tests for this pair and land above the
diagonal."""),
code(r"""rng = np.random.default_rng(7)
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
plt.tight_layout(); plt.show()"""),
md(r"""Not every attacker is optimal. Below, three attackers on the same samples: the
likelihood-ratio threshold test (optimal for this pair), a test that only looks at
whether the output is *even* (it ignores the signal), and a coin flip with bias $u$
(points on the diagonal $1-\alpha$). All land above $G_1$; only the optimal one
touches it."""),
code(r"""def errors(reject_S, reject_S1):
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
ax.legend(loc="upper right", fontsize=8); plt.show()"""),
md(r"""### From samples to claims: `fdp.audit.check`

An audit can **refute** a claimed guarantee (a conservative point falls below it) but
never prove one: it gives a *lower* bound on the leakage, the theory an *upper* bound.
The correct claim $G_1$ passes; the false claim $G_{0.7}$ (more privacy than the
mechanism has) is caught. The audit's lower bound on μ sits a little below the true
μ = 1."""),
code(r"""ok = fdp.audit.check(mech, fdp.Gaussian(1.0), n=20_000, rng=np.random.default_rng(11))
bad = fdp.audit.check(mech, fdp.Gaussian(0.7), n=20_000, rng=np.random.default_rng(11))
print("claim G_1  :", ok.summary())
print("claim G_0.7:", bad.summary())
print(f"empirical lower bounds: mu >= {est.mu_lower_bound():.3f} (true 1), "
      f"eps(1e-5) >= {est.epsilon_lower_bound(1e-5):.3f} (true {G.epsilon(1e-5):.3f})")"""),
md(r"""### Two more mechanisms

The same experiment for the Laplace mechanism (scale $b$: exact trade-off
$L_{\Delta/b}$ of DRS App. A, stronger than the classical $f_{\Delta/b,0}$) and for
binary randomized response (exactly $f_{\varepsilon,0}$; it has only two outputs, so
only one non-trivial test and its mirror exist)."""),
code(r"""lap = fdp.mechanisms.LaplaceMechanism(sensitivity=1.0, scale=1.0)
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
plt.tight_layout(); plt.show()"""),
md(r"""## Summary

* Privacy = hardness of a hypothesis test between $M(S)$ and $M(S')$.
* The trade-off function $T(P,Q)$ records the best type II error at each type I error;
  f-DP asks it to stay above $f$ for every neighbouring pair.
* (ε, δ)-DP is $f_{\varepsilon,\delta}$-DP; an f gives all (ε, δ(ε)) at once.
* μ-GDP uses $G_\mu$: one number with a direct reading as attack risk.
* Empirical attacks land above the curve; audits refute false claims but only lower-bound
  the leakage.

Next: composition (02), DP-SGD (03), group privacy, subsampling and symmetrisation (04)."""),
]

# ---------------------------------------------------------------------------------
# 02 Composition bounds
# ---------------------------------------------------------------------------------
NB02 = [
md(r"""# 02 · Comparing composition bounds

Running $k$ private mechanisms on the same data leaks more than running one. How much
more? This notebook compares every accountant `fdp` knows, for three basic mechanisms:

| method | what it assumes | bound or approximation |
|---|---|---|
| naive (basic) | each step is (ε₀, δ₀)-DP | bound: $(k\varepsilon_0, k\delta_0)$ |
| advanced (Dwork–Rothblum–Vadhan) | (ε₀, δ₀)-DP | bound |
| KOV optimal | (ε₀, δ₀)-DP | the best bound from (ε₀, δ₀) alone (Kairouz, Oh, Viswanath 2015) |
| RDP / moments accountant | the Rényi divergences of a step | bound (Mironov 2017; Abadi et al. 2016) |
| CLT | the functionals kl, κ₂ of a step | approximation $G_\mu$ (DRS Thm 3.5) |
| Edgeworth | also third/fourth cumulants | approximation (Zheng, Dong, Long, Su 2020 — "ZDLS") |
| certified f-DP | the exact trade-off function | bound, tight: $f^{\otimes k}$ (DRS Thm 3.2) |

The f-DP composition $f\otimes g = T(P\times P', Q\times Q')$ is exact for the pair and
tight for adaptive composition; `fdp` keeps closed forms closed ($G_{\mu_1}\otimes
G_{\mu_2}=G_{\sqrt{\mu_1^2+\mu_2^2}}$, $f_{\varepsilon,0}^{\otimes k}$ by KOV's binomial
form) and composes everything else numerically with a **certified bracket**."""),
code(SETUP + "\nimport time\nt_start = time.time()"),
md(r"""## The three mechanisms

Each step has the same per-step privacy parameter 0.1:

* **Laplace** mechanism with $\Delta/b = 0.1$: exact $L_{0.1}$, classically $(0.1, 0)$-DP;
* **randomized response** with ε = 0.1: exactly $f_{0.1,0}$;
* **Gaussian** mechanism with $\Delta/\sigma=0.1$: exactly $G_{0.1}$. Classical
  accountants need an (ε₀, δ₀) per step; we give each step $\delta_0$ from a share of the
  total δ and $\varepsilon_0=\varepsilon_{G_{0.1}}(\delta_0)$ (exact, DRS Cor 2.13).

The target is a total δ = 10⁻⁵."""),
code(r"""from scipy.special import logsumexp
C = fdp.classical
DELTA = 1e-5
e0 = 0.1
mechs = {"Laplace": fdp.Laplace(e0), "randomized response": fdp.RandomizedResponse(e0),
         "Gaussian": fdp.Gaussian(e0)}
KS = np.array([1, 3, 10, 30, 100, 300, 1000])
ORDERS = np.asarray(C.DEFAULT_ORDERS, dtype=float)
ORDERS = ORDERS[ORDERS > 1]

# Renyi divergences of one step (Mironov 2017, Table II). fdp.classical has the Gaussian;
# Laplace and randomized response are written out here.
def rdp_laplace(lam, eps):          # Lap(0, b) vs Lap(1, b), 1/b = eps
    lam = np.asarray(lam, float)
    t = logsumexp([np.log(lam / (2 * lam - 1)) + (lam - 1) * eps,
                   np.log((lam - 1) / (2 * lam - 1)) - lam * eps], axis=0)
    return t / (lam - 1)

def rdp_rr(lam, eps):               # Bern(p) vs Bern(1-p), p = e^eps / (1 + e^eps)
    lam = np.asarray(lam, float)
    lp, lq = -np.logaddexp(0, -eps), -np.logaddexp(0, eps)
    return np.logaddexp(lam * lp + (1 - lam) * lq, lam * lq + (1 - lam) * lp) / (lam - 1)

rdp_one = {"Laplace": rdp_laplace(ORDERS, e0), "randomized response": rdp_rr(ORDERS, e0),
           "Gaussian": C.rdp_gaussian(ORDERS, 1 / e0)}"""),
md(r"""The Edgeworth result is an approximate trade-off curve; we read its ε(δ) from
$\delta(\varepsilon)=\sup_\alpha(1-f(\alpha)-e^\varepsilon\alpha)$ over a fine
logarithmic α grid (vectorised: fast, and accurate enough for an approximation)."""),
code(r"""A_GRID = np.concatenate([np.logspace(-16, -1, 3000), np.linspace(0.1, 1, 500)])
E_GRID = np.linspace(0, 25, 5001)

def approx_epsilon(f, delta):
    beta = f(A_GRID)
    prof = np.max(1 - beta[None, :] - np.exp(E_GRID)[:, None] * A_GRID[None, :], axis=1)
    ok = np.nonzero(prof <= delta)[0]
    return E_GRID[ok[0]] if ok.size else np.inf

def all_bounds(name, k):
    f = mechs[name]
    out = {}
    if name == "Gaussian":
        d0_naive = DELTA / k
        out["naive"] = k * fdp.gdp_epsilon(e0, d0_naive)
        d0 = DELTA / (2 * k)                    # half of delta to the steps, half to the slack
        eps0 = fdp.gdp_epsilon(e0, d0)
        out["advanced"] = C.advanced_composition(eps0, d0, k, DELTA / 2)[0]
        out["KOV optimal"] = C.optimal_homogeneous_epsilon(eps0, d0, k, DELTA)
    else:
        out["naive"] = k * e0
        out["advanced"] = C.advanced_composition(e0, 0.0, k, DELTA)[0]
        out["KOV optimal"] = C.optimal_homogeneous_epsilon(e0, 0.0, k, DELTA)
    rdp = k * rdp_one[name]
    out["RDP (moments accountant)"] = C.rdp_to_epsilon(ORDERS, rdp, DELTA, conversion="mironov").epsilon
    out["RDP (improved conversion)"] = C.rdp_to_epsilon(ORDERS, rdp, DELTA, conversion="improved").epsilon
    out["CLT"] = fdp.gdp_epsilon(fdp.clt([f] * k).mu, DELTA)
    out["Edgeworth"] = approx_epsilon(fdp.edgeworth([f] * k), DELTA)
    lo, hi = (f ** k).epsilon_bounds(DELTA)
    out["certified f-DP"] = hi
    out["certified lower"] = lo
    return out

t0 = time.time()
res = {name: [all_bounds(name, int(k)) for k in KS] for name in mechs}
print(f"all bounds computed in {time.time() - t0:.1f} s")"""),
md(r"""## ε(δ = 10⁻⁵) against the number of compositions"""),
code(r"""methods = ["naive", "advanced", "KOV optimal", "RDP (moments accountant)",
           "RDP (improved conversion)", "CLT", "Edgeworth", "certified f-DP"]
styles = {"naive": ":", "advanced": "-.", "KOV optimal": "--", "RDP (moments accountant)": (0, (3, 1, 1, 1)),
          "RDP (improved conversion)": (0, (5, 2)), "CLT": (0, (1, 1)), "Edgeworth": (0, (2, 2)),
          "certified f-DP": "-"}
fig, axs = plt.subplots(1, 3, figsize=(14, 4.4), sharey=True)
for ax, name in zip(axs, mechs):
    for mth in methods:
        vals = np.array([r[mth] for r in res[name]])
        ax.plot(KS, vals, linestyle=styles[mth], marker=".", lw=2.2 if mth.startswith("cert") else 1.4,
                color="k" if mth.startswith("cert") else None, label=mth)
    ax.set_xscale("log"); ax.set_yscale("log"); ax.set_title(f"{name} (parameter 0.1 per step)")
    ax.set_xlabel("number of compositions k"); ax.grid(alpha=0.3)
axs[0].set_ylabel("ε at total δ = 1e-5"); axs[2].legend(fontsize=8, loc="upper left")
plt.tight_layout(); plt.show()"""),
code(r"""for name in mechs:
    print(f"--- {name}: epsilon at delta = 1e-5")
    print(f"{'k':>6}" + "".join(f"{m[:12]:>13}" for m in methods))
    for k, r in zip(KS, res[name]):
        print(f"{k:6d}" + "".join(f"{r[m]:13.4g}" for m in methods))
    r = res[name][-1]
    print(f"certified bracket at k = {KS[-1]}: [{r['certified lower']:.5f}, {r['certified f-DP']:.5f}]")"""),
md(r"""**Reading the plot.**

* *Naive* grows like $k$, *advanced* like $\sqrt{k\log(1/\delta)}$ plus a $k\varepsilon_0^2$
  term; for small $k$ advanced is worse than naive.
* *KOV* is the best possible bound **if all you know is that each step is
  (ε₀, δ₀)-DP**. For randomized response that is all there is to know
  ($f_{\varepsilon,0}$ is its exact trade-off function), so KOV coincides with the
  certified f-DP curve. For Laplace, $L_{0.1}$ is strictly stronger than $f_{0.1,0}$ and
  f-DP beats KOV; for the Gaussian, squeezing $G_{0.1}$ into one (ε₀, δ₀) per step loses
  most of the information and all classical bounds are far off.
* *RDP* is a valid bound, much better than the (ε₀, δ₀)-based ones for the Gaussian,
  but not tight; the improved conversion (Balle et al. 2020) narrows the gap.
* *CLT* and *Edgeworth* are approximations: accurate for many compositions of small
  steps, but not on any fixed side. For few compositions the CLT over-reports here,
  while Edgeworth reports slightly *less* ε than the certified truth (Laplace,
  k = 10–1000): read off as a guarantee, it would over-claim privacy. For the
  Gaussian, CLT, Edgeworth and f-DP coincide (up to the 0.005 grid of our Edgeworth
  read-out): $G_{0.1}^{\otimes k}=G_{0.1\sqrt k}$.
* The certified result is exact for randomized response and the Gaussian (closed
  forms), and a numeric bracket for Laplace (its width is printed above; the engine's
  `tol` is a target, not a guarantee). We plot the upper end, which is a guarantee."""),
md(r"""## Trade-off curves against the number of compositions

For each mechanism: the certified $f^{\otimes k}$ (solid; a thin band for numeric results)
and its CLT approximation $G_\mu$ (dashed) for $k = 10, 100, 1000$. The curves sink
towards the axes as $k$ grows, and by $k=100$ they are visually Gaussian — the CLT of
DRS §3 at work."""),
code(r"""fig, axs = plt.subplots(1, 3, figsize=(14, 4.7))
for ax, (name, f) in zip(axs, mechs.items()):
    fdp.plotting.tradeoff_axes(ax, title=name)
    for i, k in enumerate((10, 100, 1000)):
        col = fdp.plotting.PALETTE[i]
        fdp.plotting.draw_tradeoff(ax, f ** k, label=f"$f^{{\\otimes {k}}}$", color=col)
        fdp.plotting.draw_tradeoff(ax, fdp.Gaussian(fdp.clt([f] * k).mu), label=f"CLT, k={k}",
                                   color=col, linestyle="--", linewidth=1.2)
    ax.legend(fontsize=8, loc="upper right")
plt.tight_layout(); plt.show()"""),
md(r"""## Where the approximations err: few compositions

At $k = 10$ Laplace steps with a larger parameter (1.0), the CLT has not kicked in. The
Berry–Esseen theorem (DRS Thm 3.4) turns the CLT into a *bound*: the truth lies in
$[G_\mu(\alpha+\gamma)-\gamma,\ G_\mu(\alpha-\gamma)+\gamma]$ — valid, but wide. The
Edgeworth expansion (ZDLS) corrects the CLT's $O(1/\sqrt n)$ error in the bulk of the
curve, but it is still an approximation. The privacy profile (right, log scale) shows
the tails, where (ε, δ) for small δ is read: the Laplace loss is bounded by $k\mu = 10$,
so the true δ(ε) vanishes at ε = 10, while the CLT's Gaussian tail goes on (the CLT
**over**-reports ε here) and the Edgeworth tail falls too early (it **under**-reports).
Approximations can err on either side."""),
code(r"""f10 = fdp.Laplace(1.0)
k = 10
cert = f10 ** k
r = fdp.clt([f10] * k)
ew = fdp.edgeworth([f10] * k)
print(f"CLT mu = {r.mu:.4f}, Berry-Esseen gamma = {r.gamma:.4f}; Edgeworth mu_f = {ew.mu_f:.4f}")
fig, axs = plt.subplots(1, 2, figsize=(10, 4.6))
fdp.plotting.clt_band(cert, r.mu, r.gamma, ax=axs[0], label=r"certified $L_1^{\otimes 10}$")
fdp.plotting.draw_tradeoff(axs[0], ew, label="Edgeworth", color="tab:purple", linestyle=":")
axs[0].legend(fontsize=8, loc="upper right")
eps = np.linspace(0, 12, 241)
axs[1].semilogy(eps, np.maximum(cert.delta(eps), 1e-14), "k-", lw=2, label="certified (upper)")
axs[1].semilogy(eps, np.maximum(fdp.gdp_delta(r.mu, eps), 1e-14), "--", label="CLT")
ew_prof = np.max(1 - ew(A_GRID)[None, :] - np.exp(eps)[:, None] * A_GRID[None, :], axis=1)
axs[1].semilogy(eps, np.maximum(ew_prof, 1e-14), ":", label="Edgeworth")
kov = C.optimal_homogeneous_delta(1.0, 0.0, k, eps)
axs[1].semilogy(eps, np.maximum(kov, 1e-14), "-.", label="KOV from (1, 0)-DP per step")
axs[1].set_ylim(1e-12, 1); axs[1].set_xlabel("ε"); axs[1].set_ylabel("δ(ε)")
axs[1].legend(fontsize=8); axs[1].grid(alpha=0.3); axs[1].set_title("privacy profile, k = 10")
plt.tight_layout(); plt.show()
for d in (1e-2, 1e-5):
    print(f"delta={d:g}: certified eps in {cert.epsilon_bounds(d)}, CLT {fdp.gdp_epsilon(r.mu, d):.4f}, "
          f"Edgeworth {approx_epsilon(ew, d):.4f}, KOV {C.optimal_homogeneous_epsilon(1.0, 0.0, k, d):.4f}")"""),
md(r"""## Take-aways

* Composition in f-DP is exact; what remains is computing it. `fdp` does so in closed
  form when possible and otherwise returns a certified bracket (`f.bounds`,
  `f.epsilon_bounds`).
* Converting each step to one (ε₀, δ₀) pair before composing throws information away
  (naive, advanced, KOV): sometimes a little (Laplace), often a lot (Gaussian).
* RDP is valid but loose; CLT and Edgeworth are sharp approximations that must not be
  reported as guarantees.

References: DRS §3; Kairouz, Oh & Viswanath (ICML 2015); Dwork, Rothblum & Vadhan (FOCS
2010); Mironov (CSF 2017); Balle et al. (AISTATS 2020); ZDLS (arXiv 2003.04493)."""),
code(r"""print(f"notebook compute time: {time.time() - t_start:.1f} s")"""),
]

# ---------------------------------------------------------------------------------
# 03 DP-SGD accounting
# ---------------------------------------------------------------------------------
NB03 = [
md(r"""# 03 · DP-SGD accounting: certified f-DP vs the GDP CLT vs RDP

Bu, Dong, Long & Su (*Deep Learning with Gaussian Differential Privacy*, HDSR 2020 —
"Bu") trained MNIST classifiers with noisy SGD and accounted for privacy with the
**central limit theorem** of f-DP. This notebook sets three of their settings
($n = 60000$, batch 256, δ = 10⁻⁵) against

* the **certified** f-DP accountant `fdp.dpsgd` (numeric composition with a rigorous
  bracket),
* the **GDP CLT** $\mu = p\sqrt{T}\sqrt{e^{1/\sigma^2}-1}$ (Bu Thm 5; an approximation),
* the **moments accountant** / RDP (Abadi et al. 2016; Mironov, Talwar & Zhang 2019),

and reads each result as the risk of a membership-inference attack."""),
code(SETUP + "\nimport time\nt_start = time.time()"),
md(r"""## One step, many steps

A DP-SGD step samples each example independently with probability $p = B/n$ (Poisson
sampling), clips per-example gradients to norm $C$ and adds $N(0,\sigma^2C^2)$. With
add/remove neighbours, adding an example $x$ turns the output law $P$ into the mixture
$(1-p)P + pQ$, so one step in the *add* direction has trade-off function

$$f_p = p\,G_{1/\sigma} + (1-p)\,\mathrm{Id},$$

and the *remove* direction has $f_p^{-1}$ (DRS §4; ZDW Thm 11). The tight accountant
composes each direction over the $T$ steps and only then takes the one-sided
symmetrisation $\min\{f_p^{\otimes T}, (f_p^{-1})^{\otimes T}\}^{**}$ (Bu; notebook 04
explains the symmetrisation). That is what `fdp.dpsgd` computes, with a certified
bracket. As $T\to\infty$ with $p\sqrt T\to\nu$, the composition tends to $G_\mu$ with
$\mu=\nu\sqrt{e^{1/\sigma^2}-1}$ (Bu Thm 5) — an approximation at finite $T$."""),
code(r"""N, B, DELTA = 60_000, 256, 1e-5
p = B / N
settings = [(1.3, 15), (1.1, 60), (0.7, 45)]
rows = []
t0 = time.time()
for sigma, epochs in settings:
    T = int(np.ceil(epochs * N / B))             # integer steps, rounded up (safe side)
    cert = fdp.dpsgd(noise_multiplier=sigma, sample_rate=p, steps=T,
                     sampling="poisson", neighbouring="add_remove", tol=1e-4)
    mu = fdp.dpsgd_clt_mu(sigma, p, T, sampling="poisson")
    ma = fdp.classical.moments_accountant_epsilon(sigma, p, T, DELTA)     # Bu's orders, Mironov conversion
    rdp = fdp.classical.moments_accountant_epsilon(sigma, p, T, DELTA, conversion="improved")
    rows.append(dict(sigma=sigma, epochs=epochs, T=T, cert=cert, mu=mu,
                     eps_cert=cert.epsilon_bounds(DELTA), eps_clt=fdp.gdp_epsilon(mu, DELTA),
                     eps_ma=ma.epsilon, eps_rdp=rdp.epsilon))
print(f"three certified accountants in {time.time() - t0:.1f} s")
print(f"{'sigma':>5} {'epochs':>6} {'T':>6} {'mu_CLT':>7} {'eps CLT':>8} {'certified eps':>20} "
      f"{'MA eps':>7} {'RDP impr.':>9} {'CLT under-reports by':>21}")
for r in rows:
    lo, hi = r["eps_cert"]
    under = (lo - r["eps_clt"]) / lo
    print(f"{r['sigma']:5.1f} {r['epochs']:6d} {r['T']:6d} {r['mu']:7.3f} {r['eps_clt']:8.3f} "
          f"  [{lo:.4f}, {hi:.4f}] {r['eps_ma']:7.3f} {r['eps_rdp']:9.3f} {under:20.1%}")"""),
md(r"""Bu et al. print, for these settings, μ = 0.23, 0.57, 1.13 and moments-accountant
ε = 1.19, 3.01, 7.10 (they use fractional $T$ = epochs·n/B; we round $T$ up, which
changes nothing at this precision). The certified ε sits **between** the two: the
moments accountant over-reports (it is a loose bound), and the CLT **under-reports** — in
all three settings the CLT ε is below even the certified *lower* end, i.e. the CLT claims
privacy the mechanism does not have (Gopi, Lee & Wutschitz 2021 made the same
observation). `fdp.sgd.clt.compare_dpsgd_clt` packages this comparison:"""),
code(r"""from fdp.sgd.clt import compare_dpsgd_clt
cmp = compare_dpsgd_clt(1.3, p, rows[0]["T"], DELTA, tol=1e-4)
print(cmp)"""),
md(r"""## Trade-off curves

Each panel: the certified bracket (a guarantee), the CLT $G_\mu$ (an approximation)
and the moments accountant's $(\varepsilon, \delta)$ drawn as $f_{\varepsilon,\delta}$
(valid, loose). On this linear scale the CLT looks excellent: the difference lives in
the corner of small α, which is where attacks on individuals live."""),
code(r"""fig, axs = plt.subplots(1, 3, figsize=(14, 4.7))
for ax, r in zip(axs, rows):
    fdp.plotting.dpsgd_comparison(r["cert"], clt_mu=r["mu"], rdp_eps=r["eps_ma"], delta=DELTA, ax=ax,
                                  title=f"σ = {r['sigma']}, {r['epochs']} epochs")
plt.tight_layout(); plt.show()"""),
md(r"""## Where the CLT under-reports: the privacy profile

On a log scale for δ, the certified δ(ε) lies **above** the CLT's $\delta_{G_\mu}(\varepsilon)$
in the tail: the subsampled-Gaussian privacy loss has a heavier right tail than the
Gaussian limit. At δ = 10⁻⁵ that shows as a larger ε."""),
code(r"""fig, axs = plt.subplots(1, 3, figsize=(14, 4.3))
for ax, r in zip(axs, rows):
    fdp.plotting.dpsgd_profile(r["cert"], clt_mu=r["mu"], ax=ax, delta=DELTA,
                               eps=np.linspace(0, 2.2 * r["eps_cert"][1], 120),
                               title=f"σ = {r['sigma']}, {r['epochs']} epochs")
plt.tight_layout(); plt.show()
for r in rows:
    e = r["eps_cert"][1]
    print(f"sigma={r['sigma']}: at eps={e:.3f} certified delta <= {r['cert'].delta(e):.3g}, "
          f"CLT delta = {fdp.gdp_delta(r['mu'], e):.3g}")"""),
md(r"""## Attack-risk read-outs

A trade-off curve is directly an attack bound. A membership-inference attacker that
accepts a false-positive rate FPR = α can reach at most a true-positive rate
TPR = 1 − f(α); its best advantage TPR − FPR is $\max_\alpha(1-\alpha-f(\alpha))$.
For the certified result we use the **lower** end of the bracket for f (so the TPR is an
upper bound). For the moments accountant, $1-f_{\varepsilon,\delta}(\alpha)
=\min\{1, \delta + e^\varepsilon\alpha\}$ at small α — the (ε, δ) summary says almost
nothing at FPR = 1 % once ε is large."""),
code(r"""from scipy.stats import norm
print(f"{'setting':>16} | {'TPR@FPR=1%: cert':>17} {'CLT':>7} {'MA':>7} | {'TPR@0.1%: cert':>15} {'CLT':>7} | "
      f"{'advantage: cert':>15} {'CLT':>7} {'MA':>7}")
for r in rows:
    c, mu = r["cert"], r["mu"]
    ma = fdp.EpsDelta(r["eps_ma"], DELTA)
    tpr = lambda a: 1 - c.bounds(a)[0]
    adv_ma = (np.exp(r["eps_ma"]) - 1 + 2 * DELTA) / (np.exp(r["eps_ma"]) + 1)
    print(f"σ={r['sigma']}, {r['epochs']:2d} ep. | {tpr(0.01):17.4f} {1 - fdp.Gaussian(mu)(0.01):7.4f} "
          f"{1 - ma(0.01):7.4f} | {tpr(0.001):15.5f} {1 - fdp.Gaussian(mu)(0.001):7.5f} | "
          f"{c.advantage():15.4f} {norm.cdf(mu / 2) - norm.cdf(-mu / 2):7.4f} {adv_ma:7.4f}")"""),
md(r"""The ROC view (TPR against FPR on log axes) is the standard way to report
membership-inference risk (Carlini et al. 2022). At small FPR the CLT curve lies below
the certified one: it under-states what an attacker can achieve at low false-positive
rates, exactly the regime that matters for singling out individuals (for σ = 0.7 by up
to about 60 % in relative terms). In the middle of the curve the CLT is instead
slightly pessimistic — an approximation has no side."""),
code(r"""fpr = np.logspace(-7, 0, 300)
fig, axs = plt.subplots(1, 3, figsize=(14, 4.4), sharey=True)
for ax, r in zip(axs, rows):
    lo, hi = r["cert"].bounds(fpr)
    ax.loglog(fpr, 1 - lo, "k-", lw=2, label="certified (max TPR)")
    ax.loglog(fpr, 1 - fdp.Gaussian(r["mu"])(fpr), "--", label=f"CLT, μ = {r['mu']:.3f}")
    ax.loglog(fpr, 1 - fdp.EpsDelta(r["eps_ma"], DELTA)(fpr), ":", label="moments accountant")
    ax.loglog(fpr, fpr, color="0.6", lw=0.8, label="random guess")
    ax.set_ylim(1e-7, 1.05); ax.set_xlabel("false-positive rate α"); ax.grid(alpha=0.3)
    ax.set_title(f"σ = {r['sigma']}, {r['epochs']} epochs")
axs[0].set_ylabel("true-positive rate 1 − f(α)"); axs[0].legend(fontsize=8)
plt.tight_layout(); plt.show()
for r in rows:
    a = np.logspace(-7, -1, 200)
    gap = (1 - r["cert"].bounds(a)[1]) - (1 - fdp.Gaussian(r["mu"])(a))
    print(f"σ={r['sigma']}: largest certified-minimum excess of TPR over the CLT for FPR in [1e-7, 0.1]: "
          f"{gap.max():.2e} (relative {np.max(gap / (1 - fdp.Gaussian(r['mu'])(a))):.1%})")"""),
md(r"""## The same accountant inside Opacus and dp_accounting

Nothing above needs a rewrite of existing training code. In **Opacus** one line
registers fdp as an accountant; from then on `PrivacyEngine(accountant="fdp")`,
`make_private_with_epsilon` and `get_noise_multiplier(..., accountant="fdp")` see fdp's
certified upper ε:

```python
from fdp.interop import opacus; opacus.register()
engine = PrivacyEngine(accountant="fdp")   # engine.accountant.get_epsilon_bounds(δ), .get_tradeoff(), .get_tpr(fpr)
```

A **dp_accounting** `DpEvent` (what jax_privacy, TensorFlow Privacy and Flower produce)
maps to a trade-off function with `fdp.from_dp_event(event)`, and
`fdp.interop.dp_accounting.FdpAccountant` is a `PrivacyAccountant` that
`dp_accounting.calibrate_dp_mechanism` accepts unchanged. The cell below uses the
Opacus-protocol accountant directly (no torch needed) and, if dp_accounting is
installed, jax_privacy's documented DP-SGD event (σ = 3, q = 0.1, 512 steps, δ = 10⁻⁶:
ε ≈ 3.77)."""),
code(r"""from fdp.interop.opacus import FdpAccountant
acct = FdpAccountant()
acct.history = [(1.5, 0.04, 2249)]          # what Opacus records: (σ, q, steps)
lo, hi = acct.get_epsilon_bounds(1e-5)
print(f"Opacus history σ=1.5, q=0.04, 2249 steps: ε ∈ [{lo:.4f}, {hi:.4f}] at δ=1e-5 "
      f"(Opacus' PRV accountant: 6.7774 ± 0.01); TPR at FPR=1%: {acct.get_tpr(0.01):.3f}")
try:
    import dp_accounting as dpa
except ImportError:
    print("dp_accounting is not installed (pip install 'fdp[interop]')")
else:
    from fdp.interop.dp_accounting import FdpAccountant as DpaAccountant
    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.1, dpa.GaussianDpEvent(3.0)), 512)
    lo, hi = DpaAccountant().compose(event).epsilon_bounds(1e-6)
    print(f"DpEvent σ=3, q=0.1, 512 steps: ε ∈ [{lo:.4f}, {hi:.4f}] at δ=1e-6; "
          f"dp_accounting's PLD: {dpa.pld.PLDAccountant().compose(event).get_epsilon(1e-6):.4f}")"""),
md(r"""## Which batch sampler did you train with?

Everything above assumes **Poisson** sampling: each example joins each batch
independently with probability q. Training code rarely does that. It usually
**shuffles** the data once per epoch and cuts it into fixed-size batches, and for
shuffling **no privacy guarantee beyond "each example is used once per epoch"** (the
full-batch Gaussian $G_{\sqrt{E}/\sigma}$ over E epochs) is known. Only *lower* bounds
exist (Chua et al., ICML 2024 and NeurIPS 2024): specific datasets on which shuffled
DP-SGD provably leaks at least a given amount.
**Random allocation** (each example in exactly one uniformly chosen step per epoch;
Chua et al. AISTATS 2025, Feldman & Shenfeld 2025) has a certified accountant,
`fdp.random_allocation`, with both sides bracketed. `fdp.compare_samplers` (and
`fdp dpsgd ... --compare-samplers`) accounts one training run under every sampler. The
shuffle row is labelled as a LOWER bound: its lower end is how leaky shuffled training
is *at least*, its upper end the no-amplification guarantee. The `ShuffleLower` object
behind it cannot be composed or spent by `fdp.Accountant`.

The configuration below is TensorFlow Privacy's example: 10⁴ examples, batch 64,
5 epochs, σ = 1, δ = 10⁻⁶ (TF Privacy prints ε = 1.199 for Poisson and 12.595 for
once per epoch)."""),
code(r"""from fdp.sgd.report import format_table
from fdp.sgd.shuffle import shuffle_lower
rows_s = fdp.compare_samplers(10_000, 64, 5, 1.0, 1e-6)
print(format_table(rows_s, 1e-6))
t_epoch = 10_000 // 64
curves = {"Poisson (certified)": fdp.dpsgd(1.0, 64 / 10_000, 782),
          "random allocation (certified)": fdp.random_allocation(1.0, t_epoch, epochs=5),
          "once per epoch: the only shuffle guarantee": fdp.Gaussian(5 ** 0.5),
          "shuffle LOWER curve (not a guarantee)": shuffle_lower(1.0, t_epoch, 5)}
fpr = np.logspace(-7, 0, 300)
fig, ax = plt.subplots(figsize=(6, 4.4))
for name, f in curves.items():
    ax.loglog(fpr, np.maximum(1 - f(fpr), 1e-12), "--" if "LOWER" in name else "-", label=name)
ax.loglog(fpr, fpr, color="0.6", lw=0.8, label="random guess")
ax.set_ylim(1e-7, 1.05); ax.set_xlabel("false-positive rate α"); ax.set_ylabel("TPR 1 − f(α)")
ax.legend(fontsize=8); ax.grid(alpha=0.3); plt.tight_layout(); plt.show()"""),
md(r"""Random allocation is at least as private as Poisson here (ε 1.10 against 1.20);
the shuffle lower bound coincides with the allocation curve (its attack instance *is*
an allocation), so shuffled training is **at least** that leaky, and nothing better
than the once-per-epoch ε ≈ 12.6 is guaranteed for it. If you shuffle, either account
with that guarantee or switch the sampler to Poisson or random allocation."""),
md(r"""## Take-aways

* For DP-SGD, report the **certified** accountant. Its bracket here is narrower than
  10⁻³ in ε and took one to two seconds per setting.
* The GDP CLT is an elegant summary, and close on the linear scale, but at δ = 10⁻⁵ it
  **under-reports** ε (by 2–10 % in these settings) and under-states the TPR of low-FPR
  attacks. It is not even on one side: near the middle of the curve (advantage, and
  FPR = 1 % for σ = 0.7) it is slightly pessimistic. Use it for intuition, not for
  guarantees.
* The moments accountant is a valid bound but over-reports ε by 20–40 % here, and an
  (ε, δ) pair is a poor description of attack risk at moderate FPR.
* All of this is for add/remove neighbours; the sampler matters as much as the
  accountant (random allocation is certified, shuffling only has a lower curve), and
  notebook 04 shows how much the neighbouring relation matters.

References: Bu et al. (HDSR 2020), DRS §4–5, Abadi et al. (CCS 2016), Mironov, Talwar &
Zhang (arXiv 1908.10530), Gopi, Lee & Wutschitz (NeurIPS 2021), Zhu, Dong & Wang (AISTATS
2022)."""),
code(r"""print(f"notebook compute time: {time.time() - t_start:.1f} s")"""),
]

# ---------------------------------------------------------------------------------
# 04 Group privacy, subsampling, symmetrisation
# ---------------------------------------------------------------------------------
NB04 = [
md(r"""# 04 · Neighbouring relations, symmetrisation, subsampling and group privacy

A privacy guarantee is a statement about **pairs of datasets**. Change which pairs
count, and the same mechanism gets a different guarantee. This notebook covers:

1. add/remove vs replace-one neighbours;
2. the two symmetrisations $\max\{f,f^{-1}\}$ and $\min\{f,f^{-1}\}^{**}$;
3. privacy amplification by subsampling, $C_p(f)$ (DRS Thm 4.2);
4. group privacy $1-(1-f)^{\circ k}$ (DRS Thm 2.14);

and what each means for a person whose data is used."""),
code(SETUP + "\nimport time\nt_start = time.time()"),
md(r"""## 1. Add/remove vs replace-one

* **add/remove**: $S' = S\cup\{x\}$ (or $S = S'\cup\{x\}$). Protects the *presence* of a
  person: an attacker cannot tell whether Alice is in the data. The dataset size is
  itself private.
* **replace-one**: $S'$ replaces one record of $S$ by another, same size $n$. Protects the
  *value* of a record, while $n$ is public.

Replacing is removing then adding: a replace-one pair is linked by a chain of two
add/remove steps, so f-DP for add/remove implies $[1-(1-f)^{\circ 2}]$-DP for
replace-one (group privacy with $k=2$, below). For a sum of clipped vectors
(norm ≤ C) the sensitivities are $C$ (add/remove) and $2C$ (replace-one), so the
Gaussian mechanism is $G_\mu$ vs $G_{2\mu}$ — exactly the group-of-2 bound.

In DP-SGD the sampling scheme follows the relation: Poisson sampling with add/remove,
sampling a fixed-size batch without replacement with replace-one (mixing them is a
silent error). With noise σC on the clipped sum (clipping norm C) and sensitivity sC,
`fdp.dpsgd` uses $C_p(G_{s/\sigma})$ per step with replace-one (DRS §5). Replacing a
record can move the sum by 2C, so the default is `sensitivity=2`; `sensitivity=1` is
the reading of Bu et al., valid only if the sum moves by at most C. The same MNIST run
(σ = 1.3, 15 epochs, batch 256 of 60000) under the three readings:"""),
code(r"""p, T, DELTA = 256 / 60000, int(np.ceil(15 * 60000 / 256)), 1e-5
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
plt.show()"""),
md(r"""**For a user:** "ε = 0.86", "ε = 1.07" and "ε = 5.09" here describe the *same
training run*. Always ask which neighbouring relation a number refers to, and which
sensitivity the noise multiplier is measured against; replace-one hides less (it
assumes the attacker knows everyone else *and* the dataset size), and with the honest
2C sensitivity it costs a lot."""),
md(r"""## 2. Two symmetrisations

$T(M(S), M(S'))$ and $T(M(S'), M(S))$ are inverses of each other. Two situations:

* **Two-sided**: we know $T(M(S),M(S'))\ge f$ for *both* orders of every neighbouring
  pair (e.g. replace-one, where $(S,S')$ and $(S',S)$ are both neighbours). Then
  $T(M(S'),M(S)) \ge f$ too, and inverting, $T(M(S),M(S')) \ge f^{-1}$; so the mechanism
  is $\max\{f,f^{-1}\}$-DP (DRS Prop 2.4). A free improvement: `f.symmetrize()`.
* **One-sided**: we only know the *add* direction $T(M(S),M(S\cup\{x\}))\ge f$; the
  remove direction is then only $\ge f^{-1}$. Every pair is covered by $\min\{f,f^{-1}\}$,
  which is not convex; the strongest trade-off function below it is its lower convex
  envelope $\min\{f,f^{-1}\}^{**}$: `f.symmetrize(one_sided=True)`.

Example: one Poisson-subsampled Gaussian step ($p = 0.3$, $G_2$), whose add direction is
$f_p = pG_2 + (1-p)\mathrm{Id}$."""),
code(r"""G2 = fdp.Gaussian(2.0)
fa = G2.subsample(0.3, scheme="poisson", direction="add")     # f_p (one direction only)
fr = fa.inverse()                                              # f_p^{-1}: the remove direction
two = fa.symmetrize()                                          # max{f, f^-1}
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
    print(f"{name:28s} TPR at FPR=1%: {1 - g(0.01):.4f}   advantage {g.advantage():.4f}")"""),
md(r"""**For a user:** using $\max\{f,f^{-1}\}$ when only one direction is known
*over-claims* privacy — above, the attacker of the add direction reaches a TPR at 1 % FPR
about eight times what the max-symmetrised curve allows. The one-sided envelope is the honest claim. For
DP-SGD, symmetrise **once, after composing** each direction (Bu; `fdp.dpsgd` does this):
symmetrising every step and then composing is valid but loose."""),
md(r"""## 3. Privacy amplification by subsampling

If a mechanism is f-DP and is run on a random subsample of $m$ out of $n$ records
(without replacement, replace-one neighbours), it is $C_p(f)$-DP with $p=m/n$ and

$$C_p(f) = \min\{f_p, f_p^{-1}\}^{**},\qquad f_p = pf + (1-p)\mathrm{Id}$$

(DRS Thm 4.2). A person outside the subsample is perfectly protected, and that happens
with probability $1-p$. For symmetric $f$ with fixed point $x^*=f(x^*)$ the envelope
has a closed form: $f_p$ on $[0,x^*]$, the line $x^*+f_p(x^*)-\alpha$ on
$[x^*, f_p(x^*)]$, and $f_p^{-1}$ after. We check the library against it for $G_1$
($x^* = \Phi(-1/2)$)."""),
code(r"""from scipy.stats import norm
G1 = fdp.Gaussian(1.0)
pp = 0.3
Cp = G1.subsample(pp, scheme="without_replacement")
fp = G1.subsample(pp, scheme="poisson", direction="add")
xs = norm.cdf(-0.5)                       # fixed point of G_1
y = fp(xs)
def cp_closed(al):
    al = np.asarray(al)
    return np.where(al <= xs, fp(al), np.where(al <= y, xs + y - al, fp.inverse()(al)))
print("max |C_p(f) - closed form| =", np.max(np.abs(Cp(a) - cp_closed(a))))
fig, axs = plt.subplots(1, 2, figsize=(10, 4.8))
fdp.plotting.subsampling(G1, ps=(0.05, 0.2, 0.5, 1.0), ax=axs[0], show_parts=0.5)
fdp.plotting.subsampling(fdp.EpsDelta(2.0), ps=(0.05, 0.2, 0.5, 1.0), ax=axs[1])
plt.tight_layout(); plt.show()"""),
code(r"""print(f"{'p':>6} {'eps(1e-5) of C_p(G_1)':>22} {'TPR@FPR=1%':>11} {'advantage':>10}")
for q in (1.0, 0.5, 0.2, 0.05, 0.01):
    c = G1.subsample(q, scheme="without_replacement")
    print(f"{q:6.2f} {c.epsilon(1e-5):22.4f} {1 - c(0.01):11.4f} {c.advantage():10.4f}")"""),
md(r"""**For a user:** subsampling helps because the attacker does not know *whether* the
person's record was used — but the secrecy of the sample is essential. If the batch
composition leaks (e.g. logged, or deterministic shuffles), the amplification is gone."""),
md(r"""## 4. Group privacy

Guarantees are about one person. A household of $k$ people (or one person with $k$
records) is protected by (DRS Thm 2.14)

$$f\text{-DP} \Rightarrow \big[1-(1-f)^{\circ k}\big]\text{-DP for groups of size } k,$$

where $\circ k$ is $k$-fold function composition. For GDP this is exact and simple:
$G_\mu \to G_{k\mu}$. For (ε, δ)-DP the f form is at least as tight as the classical rule
$(k\varepsilon, \delta\sum_{i<k}e^{i\varepsilon})$. And a group of $k$ under
$f_{\mu/k,0}$ converges to the Laplace curve $L_\mu$ as $k\to\infty$ (DRS Prop 2.15):
pure ε-DP with ε ≈ μ/k per person behaves, for large groups, like a Laplace mechanism."""),
code(r"""print("Gaussian(0.5).group(4) =", fdp.Gaussian(0.5).group(4))
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
    print(f"k={k:4d}: max |group of f_(1/k,0) - L_1| = {np.max(np.abs(gk(a) - L(a))):.2e}")"""),
md(r"""**For a user:** the guarantee for your family is weaker than for you alone, and it
degrades fast: 4 people under 0.5-GDP are protected like one person under 2-GDP, where
an attacker at 1 % FPR already detects membership with probability
$1-G_2(0.01)\approx 0.37$.

## Summary

| concept | `fdp` | what it means for a person |
|---|---|---|
| add/remove | `dpsgd(..., "poisson", "add_remove")` | hides whether you are in the data |
| replace-one | `dpsgd(..., "without_replacement", "replace_one")` | hides your record's value; dataset size public |
| two-sided $\max\{f,f^{-1}\}$ | `f.symmetrize()` | free improvement when both orders are known |
| one-sided $\min\{f,f^{-1}\}^{**}$ | `f.symmetrize(one_sided=True)` | the honest claim when only one direction is known |
| subsampling $C_p(f)$ | `f.subsample(p, ...)` | protection from the chance of not being sampled — if the sample stays secret |
| group privacy | `f.group(k)` | protection of k linked records, much weaker |

References: DRS §2.5, §4 (Prop 2.4, Thm 2.14, Prop 2.15, Thm 4.2); Bu et al. (HDSR 2020);
Zhu, Dong & Wang (AISTATS 2022)."""),
code(r"""print(f"notebook compute time: {time.time() - t_start:.1f} s")"""),
]

# ---------------------------------------------------------------------------------
# 05 What can an attacker do?
# ---------------------------------------------------------------------------------
NB05 = [
md(r"""# 05 · What can an attacker do?

A trade-off function $f = T(P, Q)$ is a statement about **attacks**: $P$ is the output
law when a person's record is out, $Q$ when it is in, and no test between them has
type II error below $f(\alpha)$ at type I error $\alpha$ (Dong, Roth & Su, *Gaussian
Differential Privacy*, JRSS-B 2022, Def 2.1 — "DRS"). This notebook reads that bound
four ways, each as a **certified bracket** (`lo ≤ truth ≤ hi`; the attacker's
*upper* success is the side a privacy claim may quote):

| read-out | formula | `fdp.conversions` |
|---|---|---|
| true-positive rate of membership inference at false-positive rate α | $1-\min\{f(\alpha), f^{-1}(\alpha)\}$ | `tpr_at_fpr(f, fpr)` |
| success of a Bayesian membership attacker with prior π | $1-\min_\alpha[(1-\pi)\alpha+\pi f(\alpha)]$ | `attack_success(f, prior)`, `bayes_risk` |
| reconstruction success for baseline success κ | $\le 1-f(\kappa)$ | `reconstruction_bound(f, kappa)` |
| the GDP summary: smallest μ with $f\ge G_\mu$, and how far the curve is from $G_\mu$ | $\mu^*$, $\sup_\alpha (f-G_{\mu^*})$ | `gdp_mu_bracket(f)` |

The min over $f$ and $f^{-1}$ takes the worse of the two orders of the pair
($T(Q,P) = f^{-1}$, DRS Lemma A.2); for the symmetric curves below it changes nothing.
The Bayesian and reconstruction readings follow Kaissis, Hayes, Ziller & Rueckert,
*Bounding data reconstruction attacks with the hypothesis testing interpretation of
differential privacy* (2023), and Hayes, Mahloujifar & Balle, *Bounding training data
reconstruction in DP-SGD* (NeurIPS 2023).

Three guarantees, all "about the same" by a one-number summary:

* **Gaussian**: the Gaussian mechanism with noise σ = √3 run three times, $G_1$;
* **(ε, δ)**: $f_{\varepsilon,\delta}$ with ε = 1, δ = 10⁻⁵;
* **DP-SGD**: noise multiplier σ = 9.4, Poisson rate q = 0.328, T = 2000 steps, certified by
  `fdp.dpsgd`."""),
code(SETUP + r"""
import time
from fdp.conversions import (tpr_at_fpr, attack_success, reconstruction_bound,
                             gdp_mu_bracket, gdp_shortfall)
t_start = time.time()
curves = {
    "Gaussian σ=√3, 3 runs": fdp.Gaussian(1 / np.sqrt(3)) ** 3,
    "(ε=1, δ=1e-5)": fdp.EpsDelta(1.0, 1e-5),
    "DP-SGD σ=9.4, q=0.328, T=2000": fdp.dpsgd(9.4, 0.328, 2000),
}
for name, f in curves.items():
    print(f"{name:32s} {f!r}")"""),
md(r"""## 1. True-positive rate at a low false-positive rate

Membership inference is judged at a **low** false-positive rate: an attacker who
flags 1 in 1000 non-members wrongly should not catch many members either (Carlini et
al., *Membership inference attacks from first principles*, 2022). The best test at
FPR α has TPR $1 - f(\alpha)$ (Neyman–Pearson). Where $f(\alpha)$ is close to 1 the
subtraction cancels; `fdp` bounds the TPR from above through the privacy profile,
$1 - f(\alpha) = \inf_\varepsilon (\delta(\varepsilon) + e^\varepsilon\alpha)$
(DRS Prop 2.12), which keeps full relative precision down to α = 10⁻³⁰⁰."""),
code(r"""fprs = np.array([1e-9, 1e-6, 1e-3, 1e-2, 1e-1])
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
plt.show()"""),
md(r"""The (ε, δ) guarantee allows a TPR of δ = 10⁻⁵ at *any* FPR: at FPR 10⁻⁹ it permits
an attacker 10⁴ times better than guessing, while the Gaussian curve caps the TPR at
about 3·10⁻⁷ there. At moderate FPR the order flips: ε = 1 is the strongest of the
three at FPR 10⁻², and the DP-SGD run (whose bulk behaves like GDP with μ ≈ 1.57) the
weakest everywhere in this table. One number (ε, or μ) cannot rank guarantees; the
curve can."""),
md(r"""## 2. Bayes risk against the prior

An attacker who believes the record is in with probability π guesses "in" or "out"
after seeing the output. Its smallest error is
$R(\pi) = \min_\alpha [(1-\pi)\alpha + \pi f(\alpha)] = \pi\,(1-\delta_f(\log\tfrac{1-\pi}{\pi}))$,
so its success is $1-R(\pi)$; without the output it would be $\max\{\pi, 1-\pi\}$.
The gain over that baseline is what the mechanism leaks."""),
code(r"""priors = np.logspace(-6, np.log10(0.5), 60)
fig, ax = plt.subplots(figsize=(6, 4))
for name, f in curves.items():
    gain = [attack_success(f, p).hi - max(p, 1 - p) for p in priors]
    ax.loglog(priors, np.maximum(gain, 1e-16), label=name)
ax.set_xlabel("prior π that the record is in"); ax.set_ylabel("success − baseline (upper bound)")
ax.legend(fontsize=8); plt.show()
for name, f in curves.items():
    s = attack_success(f, 0.5)
    print(f"{name[:10]:10s} prior 1/2: success ≤ {s.hi:.4f}   (bracket [{s.lo:.6f}, {s.hi:.6f}])")"""),
md(r"""For a rare-membership attacker (small π) the (ε, δ) curve again has a floor: its gain
never drops below about δ, whatever the prior. At π = 1/2 the success is
$(1 + \text{advantage})/2$, advantage $= \max_\alpha(1-\alpha-f(\alpha))$."""),
md(r"""## 3. Reconstruction

An attacker who would reconstruct a record with probability κ from the prior alone
(say, guessing one of $1/\kappa$ equally likely values) succeeds with probability at
most $1 - f(\kappa)$ after seeing the output (Kaissis et al. 2023; Hayes et al. 2023)."""),
code(r"""kappas = np.logspace(-9, -1, 50)
fig, ax = plt.subplots(figsize=(6, 4))
for name, f in curves.items():
    ax.loglog(kappas, [reconstruction_bound(f, k).hi for k in kappas], label=name)
ax.loglog(kappas, kappas, "k:", label="baseline κ")
ax.set_xlabel("baseline success κ"); ax.set_ylabel("reconstruction success ≤")
ax.legend(fontsize=8); plt.show()
for name, f in curves.items():
    print(f"{name[:10]:10s} κ = 1e-6: success ≤ {reconstruction_bound(f, 1e-6).hi:.3e}")"""),
md(r"""## 4. The μ summary against the curve

"μ-GDP" summarises a curve by one number, the smallest μ with $f \ge G_\mu$,
$G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha)-\mu)$ (DRS Def 2.7). `gdp_mu_bracket` certifies
that μ* and reports the **fit gap** $\sup_\alpha (f(\alpha) - G_{\mu^*}(\alpha))$: how much
more private the curve is than the summary says. For the Gaussian curve the gap is zero.
For the (ε, δ) curve no finite μ exists ($f(0) = 1-\delta < 1$, while $G_\mu(0) = 1$)."""),
code(r"""fits = {}
for name, f in curves.items():
    fits[name] = fit = gdp_mu_bracket(f)
    print(f"{name}:\n  {fit.summary()}\n")"""),
md(r"""DP-SGD is the case where the summary misleads. Its μ* is exactly $\sqrt T/\sigma$: with
probability $q^T$ every step samples the record, and that component is $G_{\sqrt T/\sigma}$,
which decides the curve at α ≈ $q^T$ ≈ 10⁻⁹⁶⁸ — far below anything a double holds. Where
the curve can be read (α ≥ 10⁻³⁰⁰) it needs only μ ≈ 1.57, and in the bulk it is up to
0.89 above $G_{\mu^*}$ in β.

A fitted μ is not a bound either. The `gdpnum` tool reports μ = 1.5686 ("regret" 0.00102) for
this setting; `gdp_shortfall` shows that the certified curve dips **below** $G_{1.5686}$:"""),
code(r"""D = curves["DP-SGD σ=9.4, q=0.328, T=2000"]
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
bx.legend(fontsize=8); plt.show()"""),
md(r"""## Take-aways

* Quote attack read-outs from the **curve**, at the FPR, prior or baseline that matters
  for your threat model; `fdp` gives them with certified brackets.
* δ is a floor on every attack's gain: (ε, δ) guarantees say nothing below it.
* A μ-GDP summary is exact for Gaussian noise but can be far too pessimistic (DP-SGD's
  μ* lives at α ≈ q^T), and a *fitted* μ can be too optimistic (below the curve).
  `gdp_mu_bracket(f).summary()` says which case you are in."""),
code(r"""print(f"notebook compute time: {time.time() - t_start:.1f} s")"""),
]

NOTEBOOKS = {
    "01_hypothesis_testing_privacy": NB01,
    "02_composition_bounds": NB02,
    "03_dpsgd_accounting": NB03,
    "04_group_subsampling_symmetrisation": NB04,
    "05_what_can_an_attacker_do": NB05,
}


def build(cells) -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [new_markdown_cell(src) if kind == "md" else new_code_cell(src)
                for kind, src in cells]
    for i, c in enumerate(nb.cells):     # stable ids: regenerating gives no id churn
        c["id"] = f"cell-{i:02d}"
    return nb


def execute(nb: nbformat.NotebookNode, timeout: int = TIMEOUT) -> float:
    """Execute ``nb`` in place from a clean python3 kernel; return the wall time."""
    from nbclient import NotebookClient
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(HERE)}}, record_timing=False)
    t0 = time.time()
    client.execute()
    return time.time() - t0


def main(argv):
    run = "--no-execute" not in argv
    wanted = [a for a in argv if not a.startswith("--")]
    for name, cells in NOTEBOOKS.items():
        if wanted and not any(name.startswith(w) for w in wanted):
            continue
        nb = build(cells)
        msg = "source only"
        if run:
            msg = f"executed in {execute(nb):.1f} s"
        nbformat.write(nb, HERE / f"{name}.ipynb")
        print(f"{name}.ipynb: {msg}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
