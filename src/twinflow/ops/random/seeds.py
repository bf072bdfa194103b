"""Seeds and random streams: global/op seeds (TensorFlow's rules), per-seed NumPy generators,
argument helpers."""
from __future__ import annotations

import enum

import numpy as np

from ...core import dtypes
from ...core.context import ctx, process
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value, convert_to_tensor
from ...graph.tensor import Tensor
from ..core import checked_shape, convert, shape_from_tensor, shape_tensor
from ..math.binary import add, multiply

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_STREAMS: dict = {}
# tw.random.Generator states, by generator id; set_seed leaves them alone, as TensorFlow does.
_GENERATORS: dict = {}
# Nondeterministic ops (no seed at all) share one generator seeded from OS entropy, made on
# first use (``numpy.random`` costs ``import twinflow`` ~9 ms).
_UNSEEDED: list = []


def set_seed(seed) -> None:
    """Sets the global random seed (``tw.random.set_seed``).

    Resets the op-seed counter and every seeded stream, so the ops that follow produce the same
    values as after any earlier ``set_seed(seed)``. Inside a graph being built, sets that
    graph's seed instead.

    Args:
        seed: an int, or None to return to nondeterministic behaviour.
    """
    seed = None if seed is None else int(seed)
    if ctx.graph is not None:
        ctx.graph.seed = seed
        return
    ctx.global_seed = seed
    ctx.op_seed_counter = 0
    _STREAMS.clear()


def get_seed(op_seed) -> tuple:
    """The (seed, seed2) attribute pair an op gets, by TensorFlow's rules.

    Args:
        op_seed: the op-level seed, or None.

    Returns:
        A pair of ints; (0, 0) means nondeterministic.
    """
    g = ctx.graph
    global_seed = ctx.global_seed
    if g is not None and g.seed is not None:
        global_seed = g.seed
    if global_seed is not None:
        if op_seed is None:
            if g is not None:
                op_seed = g.next_op_seed()
            else:
                op_seed = process.next_op_seed()
        seeds = (int(global_seed), int(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed))
    else:
        return 0, 0
    if seeds == (0, 0):
        # (0, 0) would mean "nondeterministic" to the kernels.
        seeds = (0, _MAXINT32)
    return seeds


def _stream(kind: str, dtype, seed: int, seed2: int, generator=None) -> np.random.Generator:
    if generator is not None:
        return _GENERATORS[generator]
    if seed == 0 and seed2 == 0:
        if not _UNSEEDED:
            _UNSEEDED.append(np.random.default_rng())  # (a race makes two; one is kept)
        return _UNSEEDED[0]
    key = (kind, np.dtype(dtype).str, seed, seed2)
    gen = _STREAMS.get(key)
    if gen is None:
        entropy = [seed % 2**64, seed2 % 2**64]
        gen = _STREAMS[key] = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
            entropy)))
    return gen


def _shape_tuple(shape) -> tuple:
    return tuple(int(d) for d in np.asarray(shape).reshape(-1))


def _shape_infer(shape, *, dtype, seed=0, seed2=0, generator=None):
    if shape.dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(None, None, f"shape must be an int32 or int64 tensor, got "
                                               f"{shape.dtype.name}")
    if shape.shape.rank is not None and shape.shape.rank > 1:
        raise InvalidArgumentError(None, None, f"shape must be a vector, got a tensor of shape "
                                               f"{shape.shape}")
    if shape.shape.rank == 0:
        return dtype, TensorShape([])
    return dtype, shape_from_tensor(shape)


def _float_sample(gen, method: str, shape, np_dtype):
    checked_shape(shape, np_dtype)
    if np_dtype in (np.float32, np.float64):
        return getattr(gen, method)(shape, dtype=np_dtype)
    return getattr(gen, method)(shape, dtype=np.float32).astype(np_dtype)


def _multinomial_shape(logits, num_samples, output_dtype) -> tuple:
    """The dtype and ``[batch, num_samples]`` shape of a multinomial op's samples."""
    if logits.shape.rank not in (None, 2):
        raise InvalidArgumentError(None, None, f"logits should be a matrix [batch_size, "
                                               f"num_classes], got shape {logits.shape}")
    n = constant_value(num_samples)
    batch = logits.shape[0] if logits.shape.rank == 2 else None
    return output_dtype, TensorShape([batch, None if n is None else int(n)])


def _categorical_sample(logits: np.ndarray, u: np.ndarray, np_dtype) -> np.ndarray:
    """Class indices for the uniforms ``u`` ``[batch, n]`` from each row of ``logits``."""
    lg = logits.astype(np.float64)
    p = np.exp(lg - np.max(lg, axis=1, keepdims=True))
    cdf = np.cumsum(p, axis=1)
    cdf /= cdf[:, -1:]
    out = np.empty(u.shape, dtype=np_dtype)
    for i in range(logits.shape[0]):
        out[i] = np.minimum(np.searchsorted(cdf[i], u[i], side="right"), logits.shape[1] - 1)
    return out


def truncated_normal_sample(gen: np.random.Generator, shape, np_dtype) -> np.ndarray:
    """N(0, 1) samples from ``gen``, redrawing those more than 2 standard deviations out."""
    checked_shape(shape, np_dtype)
    out = gen.standard_normal(shape)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = gen.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2
    return out.astype(np_dtype)


def check_float_dtype(op_name: str, dtype) -> None:
    """Raises InvalidArgumentError unless ``dtype`` is a floating-point dtype."""
    if not dtype.is_floating:
        raise InvalidArgumentError(None, None, f"{op_name} needs a floating-point tensor, got "
                                               f"{dtype.name}")


def _shape_arg(shape):
    return shape_tensor(shape)


def _is_py(v, value) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == value


def _float_dtype(dtype, fn: str):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{fn} needs a floating-point dtype, got {dtype.name}")
    return dtype


def _arg(v, dtype):
    """A bound/moment argument as a tensor of ``dtype`` (tensors must already have it)."""
    if hasattr(v, "_as_tensor") or isinstance(v, Tensor):
        return convert(v, dtype=dtype)
    return convert_to_tensor(np.asarray(v, dtype=dtype.np))


def _scale_shift(rnd, scale, shift, dtype):
    if not _is_py(scale, 1):
        rnd = multiply(rnd, _arg(scale, dtype))
    if not _is_py(shift, 0):
        rnd = add(rnd, _arg(shift, dtype))
    return rnd


def _seed_attrs(seed) -> dict:
    s1, s2 = get_seed(seed)
    return {"seed": s1, "seed2": s2}


def _normal(op, shape, mean, stddev, dtype, seeds: dict, name, fn: str):
    dtype = _float_dtype(dtype, fn)
    rnd = bind(op, [_shape_arg(shape)], {"dtype": dtype, **seeds}, name=name)
    return _scale_shift(rnd, stddev, mean, dtype)


# ----- RNG algorithm names ------------------------------------------------------------------

class Algorithm(enum.Enum):
    """TensorFlow's RNG algorithm names (``tw.random.Algorithm``). twinflow accepts them for
    compatibility; its generators are NumPy's PCG64 whichever is named."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _algorithm(alg) -> Algorithm:
    if isinstance(alg, Algorithm):
        return alg
    if isinstance(alg, int):
        return Algorithm(alg)
    if isinstance(alg, str) and alg.upper() in Algorithm.__members__:
        return Algorithm[alg.upper()]
    raise ValueError(f"unknown RNG algorithm {alg!r}; expected one of philox, threefry, "
                     "auto_select")
