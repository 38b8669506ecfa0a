"""The live low-frequency band of an n-fold power, transformed directly.
Derivation: docs/derivations/engine.md."""

from __future__ import annotations

import math

import numpy as np

from fdp.engine.lattice import _U, _dot

# Elements (frequencies × points) per chunk; no bit depends on it: derivations/engine.md.
_CHUNK = 2 ** 16
_TABLE_MAX = 2 ** 23   # residue tables for _direct_band up to this m (2 × 64 MB)


def direct_band(q: np.ndarray, F: float, freqs: np.ndarray, m: int,
                n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Xⁿ at the given frequencies, centred at an integer k̄, with a relative error bound.
    Derivation: docs/derivations/engine.md."""
    size = q.size
    idx = np.arange(size, dtype=np.int64)
    kbar = int(round(_dot(idx.astype(float), q) / max(float(q.sum()), 1e-300)))
    rel = idx - kbar
    re = np.zeros(freqs.size)
    im = np.zeros(freqs.size)
    mag = np.zeros(freqs.size)
    rows = max(1, _CHUNK // max(size, 1))
    # residue tables of sin(π t/m), sin(2π t/m), exactly reduced (docs/derivations/engine.md)
    use_table = m <= _TABLE_MAX and freqs.size * size > 2 * m
    if use_table:
        t = np.arange(m + 1, dtype=np.int64)
        half_tab = np.sin((math.pi / m) * np.minimum(t, m - t))    # sin(π t/m) ≥ 0
        t = t[:m]
        full_tab = np.where(2 * t <= m, half_tab[np.minimum(2 * t, m)],
                            -half_tab[np.minimum(2 * (m - t), m)])  # sin(2π t/m)
        del t
    for s0 in range(0, freqs.size, rows):
        j = freqs[s0:s0 + rows].astype(np.int64)
        r = (j[:, None] * rel[None, :]) % m           # exact residues in [0, m)
        if use_table:
            # θ ≡ 2πr/m: 1 − cos θ = 2 sin²(πr/m) and sin θ = sin(2πr/m) for any
            # representative, so the residue indexes both tables directly
            half = half_tab[r]
            sn = full_tab[r]
        else:
            r = np.where(r > m // 2, r - m, r)
            theta = (2.0 * math.pi / m) * r
            half = np.sin(0.5 * theta)
            sn = np.sin(theta)
        del r
        c = 2.0 * half * half                       # 1 − cos θ, no cancellation
        re[s0:s0 + rows] = np.einsum("ij,j->i", c, q)
        im[s0:s0 + rows] = np.einsum("ij,j->i", sn, q)
        np.abs(sn, out=sn)
        c += sn
        mag[s0:s0 + rows] = np.einsum("ij,j->i", c, q)
    # |computed D − D| ≤ (size + 10) u Σ q_k |term_k| (summation and the terms' own ulps)
    err_d = (size + 10) * _U * mag
    zr, zi = -re / F, -im / F
    w = 2.0 * zr + zr * zr + zi * zi               # |1 + z|² − 1
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        mod2 = np.maximum(1.0 + w, 0.0)
        log_abs = 0.5 * np.log1p(w)
        arg = np.arctan2(zi, 1.0 + zr)
        nl_re = n * (math.log(F) + log_abs)
        Xn = np.exp(nl_re + 1j * (n * arg))
        # error of log(1 + z): from D (through 1/|1 + z|) and from forming w, log1p, atan2
        err_l = (err_d / F) / np.sqrt(mod2) \
            + 4.0 * _U * (2.0 * np.abs(zr) + zr * zr + zi * zi) / mod2 \
            + 2.0 * _U * (np.abs(log_abs) + np.abs(arg))
        # n·error, plus rounding of n·log and of exp (relative 2u|n log X| + 2u)
        e = n * err_l + 2.0 * _U * (np.abs(nl_re) + n * np.abs(arg) + 1.0)
        err = np.abs(Xn) * np.expm1(e)
    bad = ~np.isfinite(Xn) | ~np.isfinite(err)
    Xn[bad] = 0.0
    err[bad] = np.inf
    return Xn, err, kbar

