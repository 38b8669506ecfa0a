"""fdp.plotting.save writes the same bytes for the same figure and leaves an unchanged
file alone (README's first command must leave a checkout clean)."""

import io

import numpy as np
import pytest
from PIL import Image

import fdp
from fdp.plotting import gdp_family, new_figure, plot, save


def _figure():
    fig, axes = new_figure()
    gdp_family(ax=axes[0, 0])
    return fig


@pytest.mark.parametrize("fmt", ["png", "pdf", "svg"])
def test_two_drawings_give_the_same_bytes_without_version_or_date(fmt, tmp_path):
    a, b = tmp_path / f"a.{fmt}", tmp_path / f"b.{fmt}"
    assert save(_figure(), a) and save(_figure(), b)
    data = a.read_bytes()
    assert data == b.read_bytes()
    assert b"Matplotlib" not in data and b"matplotlib.org" not in data
    for stamp in (b"Software", b"CreationDate", b"<dc:date>", b"Producer"):
        assert stamp not in data, stamp


def test_unchanged_file_is_not_rewritten(tmp_path):
    path = tmp_path / "f.png"
    assert save(_figure(), path) is True
    before = path.stat().st_mtime_ns
    assert save(_figure(), path) is False
    assert path.stat().st_mtime_ns == before


def test_png_with_the_same_pixels_but_other_bytes_is_kept(tmp_path):
    """Another matplotlib / zlib encodes the same picture differently: keep the file."""
    path = tmp_path / "f.png"
    save(_figure(), path)
    pixels = np.asarray(Image.open(path))
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="png", compress_level=1)
    other = buf.getvalue()
    assert other != path.read_bytes()
    path.write_bytes(other)
    assert save(_figure(), path) is False
    assert path.read_bytes() == other


def test_a_different_picture_or_a_broken_file_is_rewritten(tmp_path):
    path = tmp_path / "f.png"
    save(_figure(), path)
    fig, axes = new_figure()
    plot(fdp.Gaussian(2.0), ax=axes[0, 0])
    assert save(fig, path) is True
    path.write_bytes(b"not a png")
    assert save(fig, path) is True
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
