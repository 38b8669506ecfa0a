"""``fdp plot``: draw trade-off functions given as specs.

    fdp plot SPEC [SPEC ...] --out FILE [--labels LABEL ...] [--title TITLE]

A spec is ``family:a[,b][^n]``, e.g. ``gaussian:1``, ``epsdelta:1,1e-5``,
``laplace:1^4`` (``^n`` composes n times).
"""

from __future__ import annotations

import argparse

from fdp import families
from fdp.cli._checks import image_file
from fdp.commandline import Parser, UsageError
from fdp.plotting import latex_label, new_figure, plot, save
from fdp.plotting.style import MAX_INSIDE_ENTRIES
from fdp.tradeoff import TradeOff

_FAMILIES = {
    "gaussian": ("Gaussian", 1), "gdp": ("Gaussian", 1),
    "epsdelta": ("EpsDelta", 2), "dp": ("EpsDelta", 2),
    "laplace": ("Laplace", 1),
    "rr": ("RandomizedResponse", 2), "randomized_response": ("RandomizedResponse", 2),
    "identity": ("Identity", 0),
}


def _parse_spec(spec: str) -> tuple[TradeOff, int]:
    """``family:a[,b][^n]`` → (the factor, n)."""
    text, power = spec, 1
    for sep in ("^", "**"):
        if sep in text:
            text, _, p = text.partition(sep)
            try:
                power = int(p)
            except ValueError:
                raise UsageError(f"bad composition power in {spec!r}: {p!r}") from None
            if power < 1:
                raise UsageError(f"composition power in {spec!r} must be >= 1")
            break
    name, _, rest = text.partition(":")
    key = name.strip().lower()
    if key not in _FAMILIES:
        raise UsageError(f"unknown family {name!r} in {spec!r}; known: "
                         f"{', '.join(sorted(_FAMILIES))}")
    cls_name, max_args = _FAMILIES[key]
    raw = [r for r in rest.split(",") if r.strip()] if rest else []
    if len(raw) > max_args or (max_args and not raw):
        raise UsageError(f"{spec!r}: {key} takes {'1' if max_args == 1 else '1 or 2'} "
                         f"argument(s)" if max_args else f"{spec!r}: identity takes none")
    try:
        vals = [float(r) for r in raw]
    except ValueError:
        raise UsageError(f"{spec!r}: parameters must be numbers") from None
    if cls_name == "RandomizedResponse" and len(vals) == 2:
        if not vals[1].is_integer():
            raise UsageError(f"{spec!r}: k must be an integer")
        vals[1] = int(vals[1])
    return getattr(families, cls_name)(*vals), power


def parse_spec(spec: str) -> TradeOff:
    """``family:a[,b][^n]`` → a TradeOff, e.g. ``gaussian:1``, ``epsdelta:1,1e-5^10``;
    a UsageError for an unknown family or malformed parameters.

    Examples
    --------
    >>> from fdp.cli import parse_spec
    >>> parse_spec("gaussian:1^4")
    Gaussian(mu=2.0)
    """
    f, power = _parse_spec(spec)
    return f ** power if power > 1 else f


def spec_label(spec: str) -> str:
    """The legend label of a spec: the factor's formula with its composition power,
    e.g. ``$L_{1}^{\\otimes 10}$`` for ``laplace:1^10`` (the composed object's own name
    describes its representation, not the spec).

    Examples
    --------
    >>> from fdp.cli import spec_label
    >>> print(spec_label("laplace:1^10"))
    ${L_{1}}^{\\otimes 10}$
    """
    f, power = _parse_spec(spec)
    label = latex_label(f)
    if power == 1:
        return label
    if label.startswith("$") and label.endswith("$"):
        return f"${{{label[1:-1]}}}^{{\\otimes {power}}}$"
    return f"{label}^{power}"


def _cmd_plot(args: argparse.Namespace) -> int:
    out = image_file("--out", args.out)
    for spec in args.specs:          # check every spec before composing any
        _parse_spec(spec)
    if args.labels is not None and len(args.labels) != len(args.specs):
        raise UsageError(f"--labels needs one label per curve ({len(args.specs)}), "
                         f"got {len(args.labels)}")
    labels = args.labels if args.labels is not None else [spec_label(s) for s in args.specs]
    fs = [parse_spec(s) for s in args.specs]
    # A crowded legend goes beside the axes: make the figure wider for it.
    wide = len(fs) + 1 > MAX_INSIDE_ENTRIES or any(len(lb) > 32 for lb in labels)
    fig, axes = new_figure(1, 1, figsize=(6.9, 5.0) if wide else (5.0, 5.0))
    plot(*fs, labels=labels, ax=axes[0, 0], title=args.title)
    save(fig, out)
    print(f"plot written to {out}")
    return 0


def add_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    """Declare ``fdp plot`` and its arguments on the sub-parsers ``sub``."""
    p = sub.add_parser("plot", help="plot trade-off functions given as specs")
    p.add_argument("specs", nargs="+", metavar="SPEC", help="family:params[^n], families: "
                   "gaussian:MU, epsdelta:EPS[,DELTA], laplace:MU, rr:EPS[,K], identity; "
                   "^n composes n times")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="image file to write (PNG, PDF, SVG, or another format matplotlib "
                   "writes, by the file suffix)")
    p.add_argument("--labels", nargs="+", metavar="LABEL",
                   help="one legend label per SPEC (default: the formulas)")
    p.add_argument("--title", help="title of the plot")
    p.set_defaults(func=_cmd_plot)
