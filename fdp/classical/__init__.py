"""Classical composition and Rényi-DP accounting, for comparison with f-DP.

Nothing in ``fdp`` depends on these bounds; they are here so that every classical
answer can be shown beside the exact f-DP one, as Dong, Roth & Su (2022, §3.3) do
for composition and Bu, Dong, Long & Su (2020) for the moments accountant.

- ``composition``: basic, parallel, advanced (Dwork–Rothblum–Vadhan) and the optimal
  homogeneous composition (Kairouz–Oh–Viswanath).
- ``rdp``: the RDP curve of any mechanism with a privacy-loss law (``rdp_of``; closed
  forms of Mironov 2017 for the Gaussian, Laplace and randomized response), of the
  Poisson-subsampled Gaussian sampler (Mironov–Talwar–Zhang), the improved and the
  Mironov RDP → (ε, δ) conversions, Bu et al.'s order grid. The ε of DP-SGD by the
  Rényi accountant is ``fdp.sgd.dpsgd_rdp_epsilon``.
- ``gaussian``: classical and analytic Gaussian noise calibration.
"""

from fdp.classical.composition import (
                                       advanced_composition,
                                       basic_composition,
                                       kov_lattice_epsilon,
                                       optimal_homogeneous_delta,
                                       optimal_homogeneous_epsilon,
                                       parallel_composition,
)
from fdp.classical.gaussian import analytic_gaussian_sigma, classic_gaussian_sigma
from fdp.classical.rdp import (
                                       BU_ORDERS,
                                       DEFAULT_ORDERS,
                                       RDPEpsilon,
                                       gaussian_rdp_epsilon,
                                       rdp_bounded_range,
                                       rdp_of,
                                       rdp_subsampled_gaussian,
                                       rdp_to_epsilon,
                                       rdp_to_log_delta,
)

__all__ = ["BU_ORDERS", "DEFAULT_ORDERS", "RDPEpsilon", "advanced_composition",
           "analytic_gaussian_sigma", "basic_composition", "classic_gaussian_sigma",
           "gaussian_rdp_epsilon", "kov_lattice_epsilon", "optimal_homogeneous_delta",
           "optimal_homogeneous_epsilon", "parallel_composition", "rdp_bounded_range", "rdp_of",
           "rdp_subsampled_gaussian", "rdp_to_epsilon", "rdp_to_log_delta"]
