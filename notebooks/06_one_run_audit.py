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
# # 06 · Auditing a real training run in one shot
#
# An accountant *certifies* a trade-off curve f for a training run; an **audit** looks
# for evidence that the run leaks more than f allows. The one-run audit (Steinke, Nasr &
# Jagielski 2023, arXiv 2305.08846; Mahloujifar, Melis & Chaudhuri 2024, arXiv
# 2410.22235) needs a single training run: plant m *canaries*, include each one
# independently with probability ½, train once, then guess from the trained model which
# canaries were in. If the guesses are right more often than any f-DP mechanism allows,
# the claim f is **refuted** at the stated significance.
#
# Here: logistic regression on scikit-learn's bundled `load_digits`, trained with Opacus
# and fdp's accountant (`PrivacyEngine(accountant="fdp")`), audited against the certified
# curve of that very run with `fdp.audit.one_run` — once for an honest run, once for a
# deliberately broken one that adds 10× less noise than it tells the accountant.
# Needs the optional packages torch, opacus and scikit-learn (`pip install 'fdp[interop]'`).

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import time
t_start = time.time()
import warnings
import numpy as np
import matplotlib.pyplot as plt
import torch
from opacus import PrivacyEngine
from sklearn.datasets import load_digits
import fdp
from fdp.audit import clopper_pearson, max_refutable_epsilon, max_refutable_mu, min_canaries, one_run
from fdp.interop.opacus import register
plt.rcParams.update({"figure.dpi": 90, "savefig.dpi": 90})
np.set_printoptions(precision=4, suppress=True)
warnings.filterwarnings("ignore", module="opacus")   # secure-RNG notice
warnings.filterwarnings("ignore", message="Full backward hook")   # torch, on Opacus' hooks
torch.set_num_threads(1)
register()                                          # PrivacyEngine(accountant="fdp")

# %% [markdown]
# ## The run and its claim
#
# DP-SGD with Poisson sampling at rate q = 0.1, noise multiplier σ = 1.5, clipping norm
# C = 1, T = 100 steps (about 10 epochs). Before training we already know roughly what
# the accountant will certify; the GDP central limit theorem gives a quick stand-in,
# μ ≈ q√T·√(e^{1/σ²} − 1) (Bu et al. 2020 — an approximation, used here only to size
# the audit).
#
# **How many canaries?** The planner `min_canaries(claim, truth)` returns the smallest
# m with which a one-run audit is *expected* to refute the claim if the run really leaked
# like `truth`. We ask it for a leak twice the claim (G_{2μ}), and round its answer up
# (its expected counts put a refutation at roughly even odds). `max_refutable_epsilon` /
# `max_refutable_mu` give the ceiling: the strongest claim an audit of that size could
# ever refute, with all guesses correct.

# %%
SIGMA, Q, STEPS, CLIP, LR, DELTA = 1.5, 0.1, 100, 1.0, 2.0, 1e-5
mu_clt = fdp.dpsgd_clt_mu(SIGMA, Q, STEPS)
plan = min_canaries(fdp.Gaussian(mu_clt), fdp.Gaussian(2 * mu_clt))
M = int(np.ceil(plan.m / 500) * 500)     # canaries planted
R = M // 10                               # guesses, fixed before training: the top 10 %
print(f"CLT stand-in μ = {mu_clt:.4f}; planner: m = {plan.m} canaries for a G_{2 * mu_clt:.2f} leak")
print(f"we plant M = {M} canaries and guess 'in' for the R = {R} highest scores")
print(f"ceiling with M = {M}, R = {R}: μ ≤ {max_refutable_mu(M, R):.3f}, "
      f"ε ≤ {max_refutable_epsilon(M, R, delta=DELTA):.3f} at δ = {DELTA:g}")

# %% [markdown]
# ## Canaries
#
# The 1797 digit images (8×8 pixels, scaled to [0, 1]) are the training data. Canary i
# is an *out-of-distribution* input: a blank image with one extra pixel of its own (an
# input coordinate no digit uses) set to 4, with a random label. The model is a linear
# classifier on the 64 + M inputs. A coin flip per canary, fixed before training,
# decides whether it joins the training set.
#
# The score of a canary is a black-box query: the model's log-probability of the
# canary's label on the canary, minus its log-probability of that label on a blank image
# (so the shared bias and the class frequencies cancel). An included canary pulls its
# own pixel's weights towards its label; an excluded one leaves them at their initial
# values plus nothing but noise.

# %%
X, y = load_digits(return_X_y=True)
X = (X / 16.0).astype(np.float32)
n_feat = 64 + M
rng = np.random.default_rng(2026)
included = rng.random(M) < 0.5                 # each canary in with probability 1/2
canary_label = rng.integers(0, 10, M)
X_canary = np.zeros((M, n_feat), np.float32)
X_canary[np.arange(M), 64 + np.arange(M)] = 4.0
X_digits = np.zeros((len(X), n_feat), np.float32)
X_digits[:, :64] = X
X_train = np.concatenate([X_digits, X_canary[included]])
y_train = np.concatenate([y, canary_label[included]])
print(f"{len(X)} digits + {included.sum()} canaries in (of {M}); {n_feat} inputs")


def train(seed, noise_bug=False):
    """One DP-SGD run with the fdp accountant; returns (canary scores, accountant, accuracy).

    noise_bug=True: the optimizer adds noise σ/10 but reports σ to the accountant."""
    torch.manual_seed(seed)
    data = torch.utils.data.TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train))
    loader = torch.utils.data.DataLoader(data, batch_size=-(-len(data) // round(1 / Q)))
    model = torch.nn.Linear(n_feat, 10)
    engine = PrivacyEngine(accountant="fdp")
    model, opt, loader = engine.make_private(
        module=model, optimizer=torch.optim.SGD(model.parameters(), lr=LR),
        data_loader=loader, noise_multiplier=SIGMA, max_grad_norm=CLIP, poisson_sampling=True)
    if noise_bug:
        add_noise = opt.add_noise

        def buggy_add_noise():
            told = opt.noise_multiplier
            opt.noise_multiplier = told / 10
            try:
                add_noise()
            finally:
                opt.noise_multiplier = told         # what the accountant's hook reads
        opt.add_noise = buggy_add_noise
    loss, steps = torch.nn.CrossEntropyLoss(), 0
    while steps < STEPS:
        for xb, yb in loader:
            opt.zero_grad()
            if len(xb):                              # Poisson sampling may draw an empty batch
                loss(model(xb), yb).backward()
            opt.step()
            steps += 1
            if steps == STEPS:
                break
    net = model._module
    with torch.no_grad():
        logp = torch.log_softmax(net(torch.from_numpy(X_canary)), 1).numpy()
        blank = torch.log_softmax(net(torch.zeros(1, n_feat)), 1).numpy()[0]
        acc = float((net(torch.from_numpy(X_digits)).argmax(1).numpy() == y).mean())
    scores = logp[np.arange(M), canary_label] - blank[canary_label]
    return scores, engine.accountant, acc


# %% [markdown]
# ## Train twice: honestly, and with a noise bug
#
# Both runs tell the accountant the same history (σ = 1.5, q = 0.1, 100 steps), so both
# carry the same certified claim. The broken one really adds noise σ/10.

# %%
t0 = time.time()
runs = {"honest run": train(1), "broken run (noise σ/10)": train(2, noise_bug=True)}
for name, (s, acct, acc) in runs.items():
    lo, hi = acct.get_epsilon_bounds(DELTA)
    print(f"{name}: history {[(sg, round(q, 6), n) for sg, q, n in acct.history]}, digits accuracy {acc:.3f}, "
          f"certified ε({DELTA:g}) ∈ [{lo:.4f}, {hi:.4f}]")
print(f"two training runs in {time.time() - t0:.1f} s")

# %% [markdown]
# ## The claim the audit tests
#
# `accountant.get_tradeoff()` is the certified curve f of the run (`fdp.dpsgd`, a
# numeric bracket). The audit's f-DP test reads the claim through its blow-up inverse
# B⁻¹(y) = f⁻¹(1 − y), taken from the certified *lower* side of the bracket (read once on
# a fine grid, and never above the exact value): a refutation is then a refutation of
# the certificate itself, not of an approximation of it.

# %%
claim = runs["honest run"][1].get_tradeoff()
alpha = np.linspace(0.0, 1.0, 2001)
print(f"claim: {claim!r}, status {claim.status}")

# %% [markdown]
# ## The audit
#
# The guess set was fixed before training: "in" for the R highest scores, no guess for
# the rest — one test, so no multiple-testing correction. `one_run(..., counts=(M, R, v))`
# returns the verdict on the claim (f-DP recursion), the p-value, and two lower bounds
# the same evidence implies whatever the claim: on ε at δ (Steinke et al.) and on μ
# (the largest G_μ refuted).

# %%
audits = {}
for name, (s, acct, acc) in runs.items():
    top = np.argsort(-s, kind="stable")[:R]
    v = int(included[top].sum())
    audits[name] = one_run(claim, counts=(M, R, v), delta=DELTA)
    a = audits[name]
    print(f"{name}: {v}/{R} guesses correct -> refuted: {a.refuted} (p = {a.p_value:.2g}); "
          f"ε ≥ {a.epsilon_lower_bound:.3f} at δ = {DELTA:g}, μ ≥ {a.mu_lower_bound:.3f}")
honest, broken = audits["honest run"], audits["broken run (noise σ/10)"]
assert not honest.refuted, "the honest run's certified claim was refuted"
assert broken.refuted, "the audit no longer catches the noise bug"
print("verdicts: honest run not refuted, broken run refuted")

# %% [markdown]
# ## Claim and evidence on one plot
#
# Each threshold t on the scores is a membership test: α = the fraction of excluded
# canaries scoring ≥ t (false positives), β = the fraction of included canaries scoring
# below it (misses). The dots are these empirical (α, β) for every threshold; the box is
# the 95 % Clopper–Pearson region of the pre-registered test (top R), and the dashed
# curve is G_μ at the audit's lower bound μ: the run is *not* G_μ-DP for any smaller μ.
# A claim is in trouble when the evidence sits clearly below it, confidence included;
# only the broken run's does.

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
n_in, n_out = int(included.sum()), int((~included).sum())
lo_c, hi_c = claim.bounds(alpha)
for ax, (name, (s, acct, acc)) in zip(axes, runs.items()):
    a = audits[name]
    s_in, s_out = np.sort(s[included]), np.sort(s[~included])
    t = np.concatenate([np.unique(s), [np.inf]])
    fpr = 1 - np.searchsorted(s_out, t, side="left") / n_out
    fnr = np.searchsorted(s_in, t, side="left") / n_in
    ax.fill_between(alpha, lo_c, hi_c, color="k")
    ax.plot(alpha, hi_c, "k", lw=2, label="claimed f (certified, this run)")
    ax.plot(fpr, fnr, ".", ms=2, color="C0", label="empirical (α, β), all thresholds")
    thr = np.sort(s)[-R]
    k_out, k_in = int((s_out >= thr).sum()), int((s_in < thr).sum())
    ca_lo, ca_hi = clopper_pearson(k_out, n_out, 0.05)
    cb_lo, cb_hi = clopper_pearson(k_in, n_in, 0.05)
    ax.add_patch(plt.Rectangle((float(ca_lo), float(cb_lo)), float(ca_hi - ca_lo),
                               float(cb_hi - cb_lo), color="C3", alpha=0.35,
                               label=f"pre-registered test (top {R}), 95 % CP box"))
    ax.plot(k_out / n_out, k_in / n_in, "o", color="C3")
    if a.mu_lower_bound > 0:
        ax.plot(alpha, fdp.Gaussian(a.mu_lower_bound)(alpha), "--", color="C2",
                label=f"G_μ, μ = {a.mu_lower_bound:.2f} (audit lower bound)")
    verdict = "REFUTED" if a.refuted else "not refuted"
    ax.set_title(f"{name}\nclaim {verdict} (p = {a.p_value:.2g}); ε ≥ {a.epsilon_lower_bound:.2f}",
                 fontsize=10)
    ax.set_xlabel("α (type I error)")
    ax.set_xlim(0, 1); ax.set_ylim(0, 1); ax.legend(fontsize=7, loc="upper right")
axes[0].set_ylabel("β (type II error)")
plt.tight_layout()
try:                          # the documentation build shows this figure in its gallery
    from myst_nb import glue
except ImportError:           # the notebook on its own (Jupyter, the test suite)
    glue = None
if glue is not None:
    glue("one_run_audit_figure", fig, display=False)
plt.show()

# %% [markdown]
# ## Reading the verdicts
#
# * The honest run's empirical (α, β) scatter close to its certified curve — these canaries
#   (a pixel of their own each) make a strong attack — but they are point estimates; the
#   pre-registered test's confidence box straddles the curve and the claim is not refuted,
#   as it must not be (with probability ≥ 95 % over the coin flips and the noise).
# * The broken run tells the accountant σ = 1.5 but adds σ/10; its included canaries are
#   found almost without error, and the certified claim is refuted at 5 %: an audit of
#   one run catches a pipeline that does not do what its accountant was told.
# * A one-run audit gives lower bounds: "not refuted" is no proof of privacy, and an
#   audit of M canaries with R guesses can never refute claims weaker than its ceiling
#   (printed above). Its guarantee rests on the canaries being included independently
#   with probability ½.

# %%
print(f"notebook compute time: {time.time() - t_start:.1f} s")
