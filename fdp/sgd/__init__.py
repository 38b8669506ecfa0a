"""DP-SGD accounting in one place: certified, CLT and Rényi side by side.

- ``certified``: ``dpsgd(...)``, the certified trade-off of noisy SGD under each batch
  sampler (Poisson, without replacement, truncated Poisson, with replacement, random
  allocation, user-level), composed by the engine.
- ``allocation``: random allocation (each record in k of t steps).
- ``shuffle``: the shuffling *lower* curve (no upper bound is known; never a guarantee).
- ``clt``: the CLT μ of noisy SGD (Bu et al. 2020; Dong, Roth & Su 2022), an approximation.
- ``report``: ``compare_samplers(...)``, one training configuration under every sampler.

The Rényi (moments accountant) numbers are in ``fdp.classical.rdp``.
"""
