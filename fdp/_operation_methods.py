"""The operations every trade-off function offers as methods.

``TradeOff`` inherits them from ``OperationMethods``, kept in a module of their own
so that ``fdp.tradeoff`` stays one job. Each reaches its implementation in
``fdp.operations`` through the registry of ``fdp._dispatch`` (the base class sits
below the operations and never imports them); families with a closed form
override the private hooks ``_inverse`` and ``_group``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fdp import _validate
from fdp._dispatch import implementation


class OperationMethods:
    """Mixin of ``TradeOff``: inverse, symmetrize, group, subsample, ``@`` and ``**``."""

    __slots__ = ()

    if TYPE_CHECKING:  # provided by TradeOff
        @property
        def symmetric(self) -> bool: ...

    def inverse(self) -> Any:
        """f⁻¹(α) = inf{t ∈ [0,1] : f(t) ≤ α}; T(Q, P) = T(P, Q)⁻¹ (DRS Lemma A.2).

        Returns
        -------
        TradeOff
            ``self`` for symmetric f, a closed form where one is known, otherwise the
            generic inverse (``fdp.operations.inverse.Inverse``).

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).inverse()
        Gaussian(mu=1.0)
        >>> f = fdp.Gaussian(1.0).subsample(0.5, direction="add")
        >>> print(f"{f.inverse()(f(0.2)):.4f}")
        0.2000
        """
        if self.symmetric:
            return self
        return self._inverse()

    def _inverse(self) -> Any:
        return implementation("inverse")(self)

    def symmetrize(self, one_sided: bool = False) -> Any:
        """Symmetrise f.

        ``one_sided=False``: max{f, f⁻¹}, valid when f-DP holds for *both* orders of
        every neighbouring pair (DRS Prop 2.4).
        ``one_sided=True``: min{f, f⁻¹}** (lower convex envelope), valid when the
        bound is known for one order only, as for add/remove neighbours and
        Poisson subsampling (DRS Thm 4.2; Bu et al. 2020).

        Parameters
        ----------
        one_sided : bool, optional
            Which construction (default False).

        Returns
        -------
        TradeOff
            A symmetric trade-off function (``self`` when f is already symmetric).

        Raises
        ------
        TypeError
            When ``one_sided`` is not a bool.
        ValueError
            For ``one_sided=False`` on a one-directional object (``directions ==
            "one"``, e.g. ``subsample(p, direction="add")``): max{f, f⁻¹} would not be
            a guarantee there.

        Examples
        --------
        >>> import fdp
        >>> f = fdp.Gaussian(1.0).subsample(0.5, direction="add")
        >>> s = f.symmetrize(one_sided=True)
        >>> print(f"{s(0.2):.4f} {s.inverse()(0.2):.4f}")
        0.6185 0.6185
        """
        one_sided = _validate.flag("one_sided", one_sided)
        if self.symmetric:
            return self
        if not one_sided and getattr(self, "directions", "both") == "one":
            raise ValueError(
                f"{self!r} holds for one order of the neighbouring pair only, so "
                "max{f, f^-1} (symmetrize()) is not a guarantee; use "
                "symmetrize(one_sided=True), min{f, f^-1}** (DRS Thm 4.2; Bu et al. 2020)")
        inv = self.inverse()
        return implementation("envelope" if one_sided else "strongest")(self, inv)

    def group(self, k: int) -> Any:
        """Group privacy for groups of size k: 1 − (1 − f)^{∘k} (DRS Thm 2.14).

        Parameters
        ----------
        k : int
            Group size, at least 1.

        Returns
        -------
        TradeOff
            A closed form where the family has one (G_μ → G_{kμ}), a certified bracket
            otherwise.

        Raises
        ------
        ValueError
            For k < 1 or not an integer.

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0).group(3)
        Gaussian(mu=3.0)
        """
        k = _validate.positive_int("k", k)
        if k == 1:
            return self
        return self._group(k)

    def _group(self, k: int) -> Any:
        return implementation("group")(self, k)

    def subsample(self, p: float, sampling: str | None = None, direction: str = "both", *,
                  scheme: str | None = None) -> Any:
        """Privacy amplification by subsampling (DRS §4.2; Bu et al. 2020; ZDW Thm 11).

        - ``sampling="poisson", direction="both"``: min{f_p, f_p⁻¹}**, f_p = p f +
          (1 − p) Id, the one-step guarantee under add/remove neighbours.
        - ``sampling="poisson", direction="add"``: f_p alone, T(M(S), M(S ∪ {x})).
          This is ONE direction only, not a guarantee: compose the add directions
          and symmetrise once with ``symmetrize(one_sided=True)``.
        - ``direction="remove"``: f_p⁻¹, the other direction.
        - ``sampling="without_replacement"``: C_p(f) = min{f_p, f_p⁻¹}** (DRS Thm
          4.2), replace-one neighbours, p = m/n.

        Parameters
        ----------
        p : float
            Sampling rate in [0, 1].
        sampling : {"poisson", "without_replacement"}, optional
            The sampler (default "poisson"); the same name as in ``fdp.dpsgd``.
        direction : {"both", "add", "remove"}, optional
            Which order of the neighbouring pair (Poisson only; default "both").
        scheme : str, optional
            Alias of ``sampling`` (the earlier name), kept working.

        Returns
        -------
        TradeOff
            The subsampled trade-off function.

        Raises
        ------
        ValueError
            For p outside [0, 1], an unknown sampler or direction, or ``sampling``
            and ``scheme`` naming different samplers.

        Examples
        --------
        >>> import fdp
        >>> f = fdp.Gaussian(1.0).subsample(0.1, sampling="poisson")
        >>> g = fdp.Gaussian(1.0).subsample(0.1, scheme="poisson")
        >>> print(f"{float(f(0.1)):.4f}", f == g)
        0.8711 True
        """
        return implementation("subsample")(self, p, sampling, direction, scheme=scheme)

    def __matmul__(self, other: Any) -> Any:
        """f ⊗ g (DRS Def 3.1): ``fdp.compose(f, g)``.

        Parameters
        ----------
        other : TradeOff
            g.

        Returns
        -------
        TradeOff
            The composition (closed form where a rule exists, else a certified bracket).

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(3.0) @ fdp.Gaussian(4.0)
        Gaussian(mu=5.0)
        """
        if not isinstance(other, OperationMethods):
            return NotImplemented
        return implementation("compose")(self, other)

    def __pow__(self, n: int) -> Any:
        """n-fold composition f ⊗ … ⊗ f (n = 0 gives Id).

        Parameters
        ----------
        n : int
            A non-negative integer.

        Returns
        -------
        TradeOff
            f^{⊗n}.

        Raises
        ------
        ValueError
            For a negative or non-integral n.

        Examples
        --------
        >>> import fdp
        >>> fdp.Gaussian(1.0) ** 4
        Gaussian(mu=2.0)
        """
        return implementation("power")(self, n)
