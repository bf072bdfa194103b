"""The NumPy image transforms of Keras' legacy ``preprocessing.image``: affine transforms
through SciPy's ``ndimage.affine_transform`` (as Keras does; SciPy is the optional
``[special]`` extra), channel and brightness shifts, and their random versions drawn from
NumPy's global generator (as Keras)."""
from __future__ import annotations

import numpy as np

from ..utils.image_utils import array_to_img, img_to_array, pil_image

__all__ = ["apply_affine_transform", "apply_brightness_shift", "apply_channel_shift",
           "flip_axis", "random_brightness", "random_channel_shift", "random_rotation",
           "random_shear", "random_shift", "random_zoom", "transform_matrix_offset_center"]


def _ndimage():
    try:
        from scipy import ndimage  # noqa: PLC0415  (optional dependency, imported on use)
    except ImportError:
        raise ImportError("Image transformations require SciPy: pip install "
                          "'twinflow[special]' (or pip install scipy)") from None
    return ndimage


def transform_matrix_offset_center(matrix: np.ndarray, x: float, y: float) -> np.ndarray:
    """``matrix`` applied about the centre of an ``x`` by ``y`` image.

    Args:
        matrix: a 3x3 homogeneous transform.
        x: the size along the first axis.
        y: the size along the second axis.

    Returns:
        The 3x3 transform.
    """
    ox, oy = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset = np.array([[1, 0, ox], [0, 1, oy], [0, 0, 1]])
    reset = np.array([[1, 0, -ox], [0, 1, -oy], [0, 0, 1]])
    return offset @ matrix @ reset


def apply_affine_transform(x, theta: float = 0, tx: float = 0, ty: float = 0,
                           shear: float = 0, zx: float = 1, zy: float = 1, row_axis: int = 1,
                           col_axis: int = 2, channel_axis: int = 0,
                           fill_mode: str = "nearest", cval: float = 0.0,
                           order: int = 1) -> np.ndarray:
    """Rotates, shifts, shears and zooms one 3D image (Keras' matrices, SciPy's sampling).

    Args:
        x: a 3D array.
        theta: rotation, in degrees.
        tx: shift along the row axis, in pixels.
        ty: shift along the column axis, in pixels.
        shear: shear angle, in degrees.
        zx: zoom along the row axis.
        zy: zoom along the column axis.
        row_axis: the row axis of ``x``.
        col_axis: the column axis.
        channel_axis: the channel axis (0 or 2).
        fill_mode: SciPy's "constant", "nearest", "reflect" or "wrap".
        cval: the value outside the image in "constant" mode.
        order: the spline order of the interpolation.

    Returns:
        The transformed array.
    """
    if len({row_axis, col_axis, channel_axis}) != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    if {row_axis, col_axis, channel_axis} != {0, 1, 2}:
        raise ValueError(f"Invalid axis' indices: {({row_axis, col_axis, channel_axis})}")
    x = np.asarray(x)
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in (0, 2):
        raise ValueError("Channels are allowed and the first and last dimensions.")
    parts = []
    if theta != 0:
        t = np.deg2rad(theta)
        parts.append(np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0],
                               [0, 0, 1]]))
    if tx != 0 or ty != 0:
        parts.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        parts.append(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        parts.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if not parts:
        return x
    matrix = parts[0]
    for p in parts[1:]:
        matrix = matrix @ p
    h, w = x.shape[row_axis], x.shape[col_axis]
    matrix = transform_matrix_offset_center(matrix, h, w)
    x = np.rollaxis(x, channel_axis, 0)
    if col_axis > row_axis:  # Keras swaps the two spatial axes here (kept for equal output)
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    nd = _ndimage()
    out = np.stack([nd.affine_transform(c, matrix[:2, :2], matrix[:2, 2], order=order,
                                        mode=fill_mode, cval=cval) for c in x], axis=0)
    return np.rollaxis(out, 0, channel_axis + 1)


def _with(x, kw: dict, **params) -> np.ndarray:
    return apply_affine_transform(x, **params, row_axis=kw["row_axis"],
                                  col_axis=kw["col_axis"], channel_axis=kw["channel_axis"],
                                  fill_mode=kw["fill_mode"], cval=kw["cval"],
                                  order=kw["interpolation_order"])


def random_rotation(x, rg: float, row_axis: int = 1, col_axis: int = 2, channel_axis: int = 0,
                    fill_mode: str = "nearest", cval: float = 0.0,
                    interpolation_order: int = 1) -> np.ndarray:
    """Rotates by an angle drawn in ``[-rg, rg]`` degrees.

    Args:
        x: a 3D array.
        rg: the rotation range, in degrees.
        row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order: as in
            ``apply_affine_transform`` (``interpolation_order`` is its ``order``).

    Returns:
        The rotated array.
    """
    return _with(x, locals(), theta=np.random.uniform(-rg, rg))


def random_shift(x, wrg: float, hrg: float, row_axis: int = 1, col_axis: int = 2,
                 channel_axis: int = 0, fill_mode: str = "nearest", cval: float = 0.0,
                 interpolation_order: int = 1) -> np.ndarray:
    """Shifts by fractions drawn in ``[-hrg, hrg]`` of the height, ``[-wrg, wrg]`` of the
    width.

    Args:
        x: a 3D array.
        wrg: the width shift range (a fraction).
        hrg: the height shift range.
        row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order: as in
            ``apply_affine_transform`` (``interpolation_order`` is its ``order``).

    Returns:
        The shifted array.
    """
    h, w = np.shape(x)[row_axis], np.shape(x)[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return _with(x, locals(), tx=tx, ty=ty)


def random_shear(x, intensity: float, row_axis: int = 1, col_axis: int = 2,
                 channel_axis: int = 0, fill_mode: str = "nearest", cval: float = 0.0,
                 interpolation_order: int = 1) -> np.ndarray:
    """Shears by an angle drawn in ``[-intensity, intensity]`` degrees.

    Args:
        intensity: the shear range, in degrees.
        x, row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order: as in
            ``random_rotation``.

    Returns:
        The sheared array.
    """
    return _with(x, locals(), shear=np.random.uniform(-intensity, intensity))


def random_zoom(x, zoom_range, row_axis: int = 1, col_axis: int = 2, channel_axis: int = 0,
                fill_mode: str = "nearest", cval: float = 0.0,
                interpolation_order: int = 1) -> np.ndarray:
    """Zooms by factors drawn in ``zoom_range`` (one per axis).

    Args:
        x: a 3D array.
        zoom_range: ``(low, high)``.
        row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order: as in
            ``apply_affine_transform`` (``interpolation_order`` is its ``order``).

    Returns:
        The zoomed array.
    """
    if len(zoom_range) != 2:
        raise ValueError(f"`zoom_range` should be a tuple or list of two floats. Received: "
                         f"{zoom_range}")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return _with(x, locals(), zx=zx, zy=zy)


def apply_channel_shift(x, intensity: float, channel_axis: int = 0) -> np.ndarray:
    """Adds ``intensity`` to every channel, clipped to the image's original range.

    Args:
        x: a 3D array.
        intensity: the shift.
        channel_axis: the channel axis.

    Returns:
        The shifted array.
    """
    x = np.rollaxis(np.asarray(x), channel_axis, 0)
    lo, hi = np.min(x), np.max(x)
    x = np.stack([np.clip(c + intensity, lo, hi) for c in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def random_channel_shift(x, intensity_range: float, channel_axis: int = 0) -> np.ndarray:
    """``apply_channel_shift`` by an intensity drawn in ``[-intensity_range,
    intensity_range]``.

    Args:
        x: a 3D array.
        intensity_range: the range.
        channel_axis: the channel axis.

    Returns:
        The shifted array.
    """
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def apply_brightness_shift(x, brightness: float, scale: bool = True) -> np.ndarray:
    """Changes the brightness with Pillow's ``ImageEnhance.Brightness`` (channels last).

    Args:
        x: a 3D array.
        brightness: the enhancement factor (1: unchanged).
        scale: whether the image is rescaled to [0, 255] for Pillow (values outside [0, 255]
            always are, and are then mapped back when ``scale`` is False).

    Returns:
        The array.
    """
    pil_image()
    from PIL import ImageEnhance  # noqa: PLC0415  (optional dependency, imported on use)
    x = np.asarray(x)
    lo, hi = np.min(x), np.max(x)
    local_scale = lo < 0 or hi > 255
    img = ImageEnhance.Brightness(array_to_img(x, scale=local_scale or scale))
    out = img_to_array(img.enhance(brightness))
    if not scale and local_scale:
        out = out / 255 * (hi - lo) + lo
    return out


def random_brightness(x, brightness_range, scale: bool = True) -> np.ndarray:
    """``apply_brightness_shift`` by a factor drawn in ``brightness_range``.

    Args:
        x: a 3D array.
        brightness_range: ``(low, high)``.
        scale: as in ``apply_brightness_shift``.

    Returns:
        The array.
    """
    if len(brightness_range) != 2:
        raise ValueError(f"`brightness_range should be tuple or list of two floats. "
                         f"Received: {brightness_range}")
    u = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, u, scale)


def flip_axis(x, axis: int) -> np.ndarray:
    """``x`` reversed along ``axis``.

    Args:
        x: an array.
        axis: the axis.

    Returns:
        The flipped array.
    """
    return np.flip(np.asarray(x), axis)
