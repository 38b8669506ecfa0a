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
# # 07 · Stating a privacy claim: train, report, verify, publish
#
# What a DP training run must produce is a *claim*: "this model is (ε, δ)-DP for one
# example, with this sampler and these neighbours; an attacker at FPR 1 % has TPR at
# most …; here is how to recompute it". In fdp the claim is a value, `fdp.PrivacyReport`
# (see the page *Stating a privacy claim*). This notebook trains a small model with
# Opacus and fdp's accountant, writes the run's report as JSON, verifies it (and shows a
# tampered copy failing), plots ε over the course of training, and renders the
# model-card section.
#
# Logistic regression on scikit-learn's bundled breast-cancer data. Needs the optional
# packages torch, opacus and scikit-learn (`pip install 'fdp[interop]'`).

# %%
# %matplotlib inline
# %config InlineBackend.figure_formats = ['png']
import json
import tempfile
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import Markdown, display
from opacus import PrivacyEngine
from sklearn.datasets import load_breast_cancer

import fdp
from fdp.cli import main as fdp_command
from fdp.interop.opacus import register

plt.rcParams.update({"figure.dpi": 90, "savefig.dpi": 90})
warnings.filterwarnings("ignore", module="opacus")   # secure-RNG notice
warnings.filterwarnings("ignore", message="Full backward hook")   # torch, on Opacus' hooks
torch.set_num_threads(1)
register()                                          # PrivacyEngine(accountant="fdp")

# %% [markdown]
# ## Train with Opacus and the fdp accountant
#
# DP-SGD with Poisson sampling at rate q = 0.1 (batches of 57 expected out of 569
# records), noise multiplier σ = 1, clipping norm 1, 5 epochs: T = 50 steps. Opacus'
# optimizer hook records the history (σ, q, steps) in fdp's accountant.

# %%
SIGMA, CLIP, EPOCHS, LR, DELTA = 1.0, 1.0, 5, 0.5, 1e-5
X, y = load_breast_cancer(return_X_y=True)
X = ((X - X.mean(0)) / X.std(0)).astype(np.float32)
torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
loader = torch.utils.data.DataLoader(data, batch_size=57)
model = torch.nn.Linear(X.shape[1], 2)
engine = PrivacyEngine(accountant="fdp")
model, optimizer, loader = engine.make_private(
    module=model, optimizer=torch.optim.SGD(model.parameters(), lr=LR), data_loader=loader,
    noise_multiplier=SIGMA, max_grad_norm=CLIP, poisson_sampling=True)
loss = torch.nn.CrossEntropyLoss()
for _ in range(EPOCHS):
    for xb, yb in loader:
        optimizer.zero_grad()
        if len(xb):                                  # Poisson sampling may draw an empty batch
            loss(model(xb), yb).backward()
        optimizer.step()
with torch.no_grad():
    accuracy = float((model(torch.from_numpy(X)).argmax(1).numpy() == y).mean())
accountant = engine.accountant
print(f"history {accountant.history}, training accuracy {accuracy:.3f}")

# %% [markdown]
# ## The run's report
#
# `accountant.report(δ)` accounts the history as `fdp.dpsgd(σ, q, T)` and returns the
# claim: what was accounted (resolved from the inputs), the unit of privacy, the
# certified ε bracket, δ at ε = 1 and 8, the TPR bracket of the best membership attack at
# each false-positive rate, the Bayes risk at prior ½, the μ summary with what it means,
# the fdp version and a command that recomputes it. `to_text()` is the paragraph for a
# non-expert: each "catches at most x in N" is the upper end of the certified TPR
# bracket, rounded up.

# %%
report = accountant.report(DELTA, fpr=(0.001, 0.01, 0.1), prior=0.5)
print(report.accounted)
lo, hi = report.epsilon[0].lower, report.epsilon[0].upper
print(f"certified ε({DELTA:g}) ∈ [{lo:.4f}, {hi:.4f}]")
print()
print(report.to_text())

# %% [markdown]
# ## Publish it as JSON, and verify it
#
# `to_json()` writes the versioned schema shipped with fdp
# (`fdp.report.SCHEMA_FILE`). Anyone holding the file can recompute every number from
# the recorded inputs: `PrivacyReport.verify()`, or `fdp verify report.json` on the
# command line (exit status 0 when the file is what its inputs give).

# %%
path = Path(tempfile.mkdtemp()) / "report.json"   # where you would publish it
path.write_text(report.to_json(), encoding="utf-8")
print(f"schema {json.loads(path.read_text())['schema']} v{report.schema_version}, "
      f"{path.stat().st_size} bytes")
fdp.PrivacyReport.from_json(path).verify()
status = fdp_command(["verify", str(path)])
print(f"fdp verify exit status: {status}")

# %% [markdown]
# A file whose numbers are not implied by its inputs fails, with one line naming the
# field: here someone "corrects" the number of steps to 40 after the fact.

# %%
tampered = json.loads(path.read_text())
tampered["mechanism"]["inputs"]["steps"] = 40
try:
    fdp.PrivacyReport.from_dict(tampered).verify()
except fdp.report.ReportMismatch as err:
    print(f"tampered: {err}")

# %% [markdown]
# ## ε over the course of training
#
# `fdp.sgd.trajectory(σ, q, T, δ, points=...)` gives the certified ε(δ) bracket after
# each of many step counts of the same run, from one discretisation. Its last point is
# the report's ε.

# %%
traj = fdp.sgd.trajectory(SIGMA, 0.1, len(accountant), DELTA, points=25)
fig, ax = plt.subplots(figsize=(5.5, 3.5))
traj.plot(ax=ax)
ax.errorbar([len(accountant)], [hi], yerr=[[hi - lo], [0.0]], fmt="o", color="k",
            label="the report's ε bracket")
ax.set_xlabel("steps")
ax.set_ylabel(rf"certified $\varepsilon$ at $\delta = {DELTA:g}$")
ax.legend()
plt.show()
print(f"trajectory ends at ε ≤ {traj.upper[-1]:.4f} after {traj.steps[-1]} steps")

# %% [markdown]
# ## The model-card section
#
# `to_markdown()` renders the same claim for a model card: the paragraph, the inputs,
# the brackets, the μ summary (for subsampled DP-SGD μ* is set in the far tail, far
# above the μ the bulk of the curve needs: quote ε or the TPR, not μ*) and the commands
# that recompute and verify it.

# %%
display(Markdown(report.to_markdown()))
