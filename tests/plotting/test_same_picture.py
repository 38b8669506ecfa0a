"""``fdp.plotting.save`` leaves a file alone when the redrawn picture is the same: a PNG
whose pixels differ in at most ``SAME_PICTURE_PIXELS`` of them (what another machine's
last bits change), while a change a reader could see is written.

Independent truth: the pixels themselves, decoded with PIL and edited by hand.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from fdp.plotting import new_figure, save
from fdp.plotting.style import SAME_PICTURE_PIXELS


def _draw(path, shift=0.0):
    fig, axes = new_figure()
    x = np.linspace(0.0, 1.0, 401)
    axes[0, 0].plot(x, (1.0 - x) ** 2 + shift)
    return save(fig, path)


def _edit_pixels(path, count):
    """Change ``count`` pixels of the PNG at ``path`` (re-encoded, so bytes differ)."""
    with Image.open(path) as im:
        px = np.array(im)
    flat = px.reshape(-1, px.shape[-1])
    flat[:count, :3] = 255 - flat[:count, :3]
    buf = io.BytesIO()
    Image.fromarray(px).save(buf, format="png")
    path.write_bytes(buf.getvalue())
    return px.shape[0] * px.shape[1]


def test_a_few_different_pixels_are_the_same_picture(tmp_path):
    path = tmp_path / "f.png"
    assert _draw(path)
    size = _edit_pixels(path, 3)
    assert 3 <= SAME_PICTURE_PIXELS * size
    edited = path.read_bytes()
    assert not _draw(path)                      # not rewritten
    assert path.read_bytes() == edited
    assert not _draw(path, shift=1e-13)         # last-bit changes of the data: not either


def test_a_visible_change_is_written(tmp_path):
    path = tmp_path / "f.png"
    assert _draw(path)
    assert _draw(path, shift=0.05)              # the curve moved
    size = _edit_pixels(path, 0)
    _edit_pixels(path, int(SAME_PICTURE_PIXELS * size) + 1)
    assert _draw(path, shift=0.05)              # one pixel over the share: rewritten
