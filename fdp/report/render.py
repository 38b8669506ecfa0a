"""A privacy report in words: a model-card section (Markdown) and one plain paragraph.

The plain sentence states the TPR bracket's safe end as a frequency. By the
hypothesis-testing reading of f-DP (Dong, Roth & Su 2022, §2.1), a membership test
that wrongly accuses a fraction α of non-members (its FPR) catches at most
1 − f(α) of members (its TPR), whatever the attacker knows. With α = k/N the
sentence says "an attacker who wrongly accuses at most k in N non-members catches
at most x in N members", x = N·TPR_upper rounded UP to two significant digits (so
the sentence never states less risk than the bracket). The Bayes-risk sentence
states the bracket's lower end rounded DOWN to a tenth of a percent.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from fdp.report.readout import BULK_FPR, Mechanism

if TYPE_CHECKING:
    from fdp.report.claim import PrivacyReport

RELATION_WORDS = {"add_remove": "adding or removing", "replace_one": "replacing"}
STATUS_WORDS = {"exact": "exact (a closed form)",
                "certified": "certified (a proven bracket: the true value lies inside)"}


def ceil_sig(x: float, digits: int = 2) -> float:
    """x rounded UP to ``digits`` significant digits (x ≥ 0; 0 and inf unchanged)."""
    if x <= 0.0 or not math.isfinite(x):
        return x
    step = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return math.ceil(x / step) * step


def frequency(fpr: float) -> tuple[float, int]:
    """(k, N) with fpr = k/N and N a power of ten with k ∈ [1, 10) (N = 1000 for fpr = 0)."""
    if fpr <= 0.0:
        return 0.0, 1000
    n = 10 ** max(0, math.ceil(-math.log10(fpr) - 1e-12))
    return fpr * n, n


def caught(fpr: float, tpr_upper: float) -> tuple[float, float, int]:
    """(k, x, N) of the sentence "wrongly accuses at most k in N, catches at most x in N":
    x = N·tpr_upper rounded up to two significant digits, at most N."""
    k, n = frequency(fpr)
    return k, min(float(n), ceil_sig(n * tpr_upper)), n


def number(x: float | None) -> str:
    """``x`` to six significant digits, "undefined" for None."""
    return "undefined" if x is None else f"{x:.6g}"


def _mechanism_words(m: Mechanism) -> str:
    if m.kind != "dpsgd":
        return f"`{m.description}`"
    a = m.arguments()
    sigma = a["noise_multiplier"]
    per_step = "per step"
    parts = [f"DP-SGD, noise multiplier "
             f"{number(sigma) if isinstance(sigma, float) else per_step}"]
    if a.get("epochs") is not None:
        parts.append(f"{number(a['epochs'])} epochs of batches of {a['batch_size']} from "
                     f"{a['dataset_size']} records")
    else:
        q = a["sample_rate"]
        parts.append(f"sample rate {number(q) if isinstance(q, float) else per_step}, "
                     f"{a['steps']} steps")
    parts.append(f"{a['sampling'].replace('_', ' ')} sampling")
    return ", ".join(parts)


def _unit_noun(r: PrivacyReport) -> str:
    return r.privacy_unit.removeprefix("one ").split(" (")[0]


def text(r: PrivacyReport) -> str:
    """One paragraph for a non-expert (see the module docstring for what it states)."""
    unit = _unit_noun(r)
    eps = [f"ε ≤ {number(ceil_sig(e.upper, 3))} at δ = {e.at:g}"
           if e.upper is not None and math.isfinite(e.upper)
           else f"no finite ε is certified at δ = {e.at:g}" for e in r.epsilon]
    run = r.accounted
    how = (f" with neighbouring datasets differing by {RELATION_WORDS[run.neighbouring]} "
           f"one {unit}" if run else "")
    out = [f"This release is (ε, δ)-differentially private for {r.privacy_unit}{how} "
           f"(status: {r.status}): " + "; ".join(eps) + "."]
    tests = []
    for i, t in enumerate(r.tpr):
        k, x, n = caught(t.at, 1.0 if t.upper is None else t.upper)   # undefined: 1, safe
        who = f" {unit}s that were not in the data" if i == 0 else ""
        tests.append(f"wrongly accuses at most {k:g} in {n}{who} catches at most {x:g} in "
                     f"{n}" + (" that were" if i == 0 else ""))
    if tests:
        out.append("Whatever it knows, an attacker who " + "; one who ".join(tests) + ".")
    b = r.bayes_risk
    wrong = 0.0 if b.lower is None else math.floor(1000.0 * b.lower) / 10.0
    out.append(f"An attacker who believes beforehand, with probability {100 * b.at:g} %, that "
               f"a given {unit} was in the data still guesses wrong at least {wrong:g} % "
               f"of the time (computed by fdp {r.fdp_version}).")
    return " ".join(out)


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def _bracket(lo: float | None, hi: float | None) -> str:
    return f"{number(hi)}" if lo == hi else f"[{number(lo)}, {number(hi)}]"


def markdown(r: PrivacyReport, title: str = "Privacy") -> str:
    """A model-card section: the claim, the table of inputs and read-outs, how to check."""
    m, mu = r.mechanism, r.mu
    lines = [f"## {title}", "", r.to_text(), "", _row("", ""), _row("---", "---"),
             _row("Mechanism", _mechanism_words(m)),
             _row("Privacy unit", r.privacy_unit)]
    if r.accounted is not None:
        lines += [_row("Neighbouring datasets",
                       f"{RELATION_WORDS[r.accounted.neighbouring]} one {_unit_noun(r)}"),
                  _row("Sensitivity", f"{number(r.accounted.sensitivity)} × clipping norm")]
    lines += [_row("Status", STATUS_WORDS.get(r.status, r.status)),
              _row("Accountant", f"fdp {r.fdp_version} (f-DP, certified brackets)"), "",
              "### (ε, δ)", "", _row("δ", "ε"), _row("---", "---")]
    lines += [_row(f"{e.at:g}", _bracket(e.lower, e.upper)) for e in r.epsilon]
    if r.delta:
        lines += ["", _row("ε", "δ"), _row("---", "---")]
        lines += [_row(f"{d.at:g}", _bracket(d.lower, d.upper)) for d in r.delta]
    lines += ["", "### Membership inference", "",
              _row("false-positive rate", "true-positive rate of the best attack"),
              _row("---", "---")]
    lines += [_row(f"{t.at:g}", _bracket(t.lower, t.upper)) for t in r.tpr]
    b = r.bayes_risk
    lines += ["", f"Least Bayes risk at prior {b.at:g}: {_bracket(b.lower, b.upper)}.", "",
              "### μ-GDP summary", "", _row("", ""), _row("---", "---"),
              _row("μ* (smallest μ with f ≥ G_μ, certified)", _bracket(mu.lower, mu.upper)),
              _row(f"μ fitted on FPR ∈ [{BULK_FPR[0]:g}, {BULK_FPR[1]:g}] (approximation)",
                   number(mu.bulk)),
              _row("gap sup(f − G_μ*)", _bracket(mu.gap_lower, mu.gap_upper)),
              "", mu.meaning, "", "### Reproduce and verify", ""]
    if r.command:
        lines += ["```bash", r.command, "fdp verify report.json", "```"]
    else:
        lines.append(f"Not re-computable from the report: {m.description}.")
    return "\n".join(lines) + "\n"
