"""Flips, rotations, transposes and the random (stateful and stateless) augmentations of
tf.image, written with twinflow ops."""
from __future__ import annotations

from collections.abc import Callable

from ...core import dtypes
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor, TensorLike
from ..array.layout import reverse
from ..array.layout import transpose as _transpose
from ..array.shape import reshape, shape
from ..array.slicing import slice as _slice
from ..core import convert, static_ints
from ..math.cast import cast
from ..math.comparison import less, where
from ..math.unary import floor
from ..random.stateful import random_uniform
from ..random.stateless import stateless_random_uniform
from . import color


def _image(image, what: str) -> Tensor:
    x = convert(image, name="image")
    if x.shape.rank not in (3, 4):
        raise ValueError(f"{what}: image must have rank 3 or 4 (got shape {x.shape})")
    return x


def flip_left_right(image: TensorLike) -> Tensor:
    """Mirrors images horizontally (``tw.image.flip_left_right``).

    Args:
        image: ``[batch, height, width, channels]`` or ``[height, width, channels]``.

    Returns:
        The flipped images.
    """
    return reverse(_image(image, "flip_left_right"), [-2])


def flip_up_down(image: TensorLike) -> Tensor:
    """Mirrors images vertically (``tw.image.flip_up_down``).

    Args:
        image: as for ``flip_left_right``.

    Returns:
        The flipped images.
    """
    return reverse(_image(image, "flip_up_down"), [-3])


@name_scoped
def transpose(image: TensorLike, name: str | None = None) -> Tensor:
    """Swaps height and width (``tw.image.transpose``).

    Args:
        image: ``[batch, height, width, channels]`` or ``[height, width, channels]``.

    Returns:
        The transposed images.
    """
    x = _image(image, "transpose")
    return _transpose(x, [1, 0, 2] if x.shape.rank == 3 else [0, 2, 1, 3])


@name_scoped
def rot90(image: TensorLike, k=1, name: str | None = None) -> Tensor:
    """Rotates images counter-clockwise by ``k`` quarter turns (``tw.image.rot90``).

    Args:
        image: ``[batch, height, width, channels]`` or ``[height, width, channels]``.
        k: the number of quarter turns (known when the op is built).

    Returns:
        The rotated images.
    """
    x = _image(image, "rot90")
    k = static_ints(k, "rot90: k")[0] % 4
    if k == 0:
        return x
    if k == 2:
        return reverse(x, [-3, -2])
    if k == 1:
        return transpose(reverse(x, [-2]))
    return reverse(transpose(x), [-2])


# ----- random augmentations -----------------------------------------------------------------------

def _coin(x, uniform: Callable):
    """Per-image booleans (shape broadcasting against x) that are True with probability 1/2."""
    if x.shape.rank == 3:
        return less(uniform([]), 0.5)
    return reshape(less(uniform(shape(x)[:1]), 0.5), [-1, 1, 1, 1])


def _stateful(seed):
    return lambda s, lo=0.0, hi=1.0: random_uniform(s, lo, hi, seed=seed)


def _stateless(seed):
    return lambda s, lo=0.0, hi=1.0: stateless_random_uniform(s, seed, lo, hi)


def _stateless_doc(base: str, args: str, returns: str):
    """Gives ``stateless_<base>`` its docstring: ``base`` with a stateless seed."""
    def set_doc(fn):
        fn.__doc__ = f"""``{base}`` decided by ``seed`` (a shape-[2] int tensor).

    Args:
        {args}: as for ``{base}``.
        seed: the stateless seed.

    Returns:
        {returns}
    """
        return fn
    return set_doc


def _flip(image, uniform, axis: int, what: str):
    x = _image(image, what)
    return where(_coin(x, uniform), reverse(x, [axis]), x)


def _flip_fn(fn_name: str, axis: int, stateless: bool) -> Callable[..., Tensor]:
    """``tw.image.(stateless_)random_flip_left_right/up_down``: flips along ``axis``."""
    if stateless:
        def fn(image: TensorLike, seed) -> Tensor:
            return _flip(image, _stateless(seed), axis, fn_name)
        _stateless_doc(fn_name[len("stateless_"):], "image",
                       "The images, each flipped or not (the same for the same seed).")(fn)
    else:
        def fn(image: TensorLike, seed=None) -> Tensor:
            return _flip(image, _stateful(seed), axis, fn_name)
        how = "horizontally" if axis == -2 else "vertically"
        fn.__doc__ = f"""Mirrors each image {how} with probability 1/2 (``tw.image.{fn_name}``).

    Args:
        image: ``[batch, height, width, channels]`` or ``[height, width, channels]``.
        seed: the op seed.

    Returns:
        The images, each flipped or not.
    """
    fn.__name__ = fn.__qualname__ = fn_name
    return fn


random_flip_left_right = _flip_fn("random_flip_left_right", -2, False)
random_flip_up_down = _flip_fn("random_flip_up_down", -3, False)
stateless_random_flip_left_right = _flip_fn("stateless_random_flip_left_right", -2, True)
stateless_random_flip_up_down = _flip_fn("stateless_random_flip_up_down", -3, True)


def _crop(value, size, uniform, what: str):
    x = convert(value, name="value")
    dims = static_ints(size, f"{what}: size")
    full = x.shape.as_list() if x.shape.rank is not None else None
    if full is None or len(dims) != len(full):
        raise ValueError(f"{what}: size {list(dims)} must have one entry per dimension of "
                         f"value {x.shape}")
    for d, f in zip(dims, full):
        if f is not None and not 0 < d <= f:
            raise ValueError(f"{what}: size {list(dims)} does not fit in value {x.shape}")
    limit = cast(shape(x) - convert(list(dims), dtype=dtypes.int32) + 1, dtypes.float32)
    # uniform in [0, 1) times the number of positions, floored: an offset per dimension.
    offsets = cast(floor(uniform([len(dims)], 0.0, 1.0) * limit), dtypes.int32)
    return _slice(x, offsets, list(dims))


@name_scoped
def random_crop(value: TensorLike, size, seed=None, name: str | None = None) -> Tensor:
    """A random ``size`` window of ``value`` (``tw.image.random_crop``).

    Args:
        value: a tensor of any rank.
        size: the window size, one entry per dimension (known when the op is built).
        seed: the op seed.

    Returns:
        The window.
    """
    return _crop(value, size, _stateful(seed), "random_crop")


@_stateless_doc("random_crop", "value, size", "The window (the same for the same seed).")
@name_scoped
def stateless_random_crop(value: TensorLike, size, seed, name: str | None = None) -> Tensor:
    return _crop(value, size, _stateless(seed), "stateless_random_crop")


def _check_range(lower, upper, what: str) -> None:
    if upper <= lower:
        raise ValueError(f"{what}: upper must be > lower, got [{lower}, {upper}]")
    if lower < 0:
        raise ValueError(f"{what}: lower must be non-negative, got {lower}")


def _random_delta(adjust, image, max_delta, limit, uniform, what: str) -> Tensor:
    """``adjust`` by a delta uniform in [-max_delta, max_delta); ``max_delta`` must lie in
    [0, ``limit``] (``limit`` None: no upper bound)."""
    if limit is None and max_delta < 0:
        raise ValueError(f"{what}: max_delta must be non-negative, got {max_delta}")
    if limit is not None and not 0 <= max_delta <= limit:
        raise ValueError(f"{what}: max_delta must be in [0, {limit}], got {max_delta}")
    return adjust(image, uniform([], -max_delta, max_delta))


def random_brightness(image: TensorLike, max_delta, seed=None) -> Tensor:
    """``adjust_brightness`` by a delta uniform in [-max_delta, max_delta).

    Args:
        image: an image tensor.
        max_delta: a non-negative float.
        seed: the op seed.

    Returns:
        The adjusted image.
    """
    return _random_delta(color.adjust_brightness, image, max_delta, None, _stateful(seed),
                         "random_brightness")


@_stateless_doc("random_brightness", "image, max_delta", "The adjusted image.")
def stateless_random_brightness(image: TensorLike, max_delta, seed) -> Tensor:
    return _random_delta(color.adjust_brightness, image, max_delta, None, _stateless(seed),
                         "stateless_random_brightness")


def random_contrast(image: TensorLike, lower, upper, seed=None) -> Tensor:
    """``adjust_contrast`` by a factor uniform in [lower, upper).

    Args:
        image: images ``[..., height, width, channels]``.
        lower: the smallest factor (>= 0).
        upper: the largest factor.
        seed: the op seed.

    Returns:
        The adjusted images.
    """
    _check_range(lower, upper, "random_contrast")
    return color.adjust_contrast(image, _stateful(seed)([], lower, upper))


@_stateless_doc("random_contrast", "image, lower, upper", "The adjusted images.")
def stateless_random_contrast(image: TensorLike, lower, upper, seed) -> Tensor:
    _check_range(lower, upper, "stateless_random_contrast")
    return color.adjust_contrast(image, _stateless(seed)([], lower, upper))


def random_saturation(image: TensorLike, lower, upper, seed=None) -> Tensor:
    """``adjust_saturation`` by a factor uniform in [lower, upper).

    Args:
        image: RGB images.
        lower, upper, seed: as for ``random_contrast``.

    Returns:
        The adjusted images.
    """
    _check_range(lower, upper, "random_saturation")
    return color.adjust_saturation(image, _stateful(seed)([], lower, upper))


def stateless_random_saturation(image: TensorLike, lower, upper, seed=None) -> Tensor:
    """``random_saturation`` decided by ``seed`` (a shape-[2] int tensor).

    Args:
        image, lower, upper: as for ``random_saturation``.
        seed: the stateless seed (required, as TensorFlow's op needs one).

    Returns:
        The adjusted images.
    """
    if seed is None:
        raise ValueError("stateless_random_saturation: seed is required")
    _check_range(lower, upper, "stateless_random_saturation")
    return color.adjust_saturation(image, _stateless(seed)([], lower, upper))


def random_hue(image: TensorLike, max_delta, seed=None) -> Tensor:
    """``adjust_hue`` by a delta uniform in [-max_delta, max_delta) (max_delta <= 0.5).

    Args:
        image: RGB images.
        max_delta: in [0, 0.5].
        seed: the op seed.

    Returns:
        The adjusted images.
    """
    return _random_delta(color.adjust_hue, image, max_delta, 0.5, _stateful(seed), "random_hue")


@_stateless_doc("random_hue", "image, max_delta", "The adjusted images.")
def stateless_random_hue(image: TensorLike, max_delta, seed) -> Tensor:
    return _random_delta(color.adjust_hue, image, max_delta, 0.5, _stateless(seed),
                         "stateless_random_hue")


__all__ = ["flip_left_right", "flip_up_down", "transpose", "rot90", "random_flip_left_right",
           "random_flip_up_down", "stateless_random_flip_left_right",
           "stateless_random_flip_up_down", "random_crop", "stateless_random_crop",
           "random_brightness", "stateless_random_brightness", "random_contrast",
           "stateless_random_contrast", "random_saturation", "stateless_random_saturation",
           "random_hue", "stateless_random_hue"]
