"""Random ops and TensorFlow's global/op seed rules.

Seeds follow ``tf.random.set_seed``: with neither a global nor an op seed, results are
nondeterministic; with a global seed and no op seed, each op takes the next op seed from a
counter (eagerly from the context, in a graph from the graph), so a program re-run after
``set_seed(s)`` repeats its sequence; with an op seed and no global seed, the global seed is a
fixed default. Each (op type, dtype, global seed, op seed) has one PCG64 stream that advances on
every call, as TensorFlow's cached kernels do; ``set_seed`` resets the counter and the streams.

Stateless variants take a ``[2]`` seed tensor and are pure functions of it.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..graph.tensor import DTypeLike, ShapeLike, TensorLike
from .core import (
    InvalidArgumentError,
    Tensor,
    TensorShape,
    bind,
    constant_value,
    convert,
    convert_to_tensor,
    ctx,
    dtypes,
    register_op,
    shape_from_tensor,
)
from .math_ops import add, divide, multiply, subtract

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_STREAMS: dict = {}
# tw.random.Generator states, by generator id; set_seed leaves them alone, as TensorFlow does.
_GENERATORS: dict = {}
# Nondeterministic ops (no seed at all) share one generator seeded from OS entropy.
_UNSEEDED = np.random.default_rng()


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
                ctx.op_seed_counter += 1
                op_seed = ctx.op_seed_counter
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
        return _UNSEEDED
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
    if np_dtype in (np.float32, np.float64):
        return getattr(gen, method)(shape, dtype=np_dtype)
    return getattr(gen, method)(shape, dtype=np.float32).astype(np_dtype)


def truncated_normal_sample(gen: np.random.Generator, shape, np_dtype) -> np.ndarray:
    """N(0, 1) samples from ``gen``, redrawing those more than 2 standard deviations out."""
    out = gen.standard_normal(shape)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = gen.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2
    return out.astype(np_dtype)


@register_op("RandomStandardNormal", stateful=True)
class RandomStandardNormal:
    """Samples from N(0, 1)."""

    infer = _shape_infer

    def kernel(shape, *, dtype, seed=0, seed2=0, generator=None):
        gen = _stream("normal", dtype.np, seed, seed2, generator)
        return _float_sample(gen, "standard_normal", _shape_tuple(shape), dtype.np)

    def grad(op, dy):
        return None


@register_op("RandomUniform", stateful=True)
class RandomUniform:
    """Samples uniformly from [0, 1)."""

    infer = _shape_infer

    def kernel(shape, *, dtype, seed=0, seed2=0, generator=None):
        gen = _stream("uniform", dtype.np, seed, seed2, generator)
        out = _float_sample(gen, "random", _shape_tuple(shape), dtype.np)
        if dtype.np not in (np.float32, np.float64):
            # rounding to a narrower float may reach 1.0; keep the interval half-open
            out = np.minimum(out, np.nextafter(dtype.np.type(1), dtype.np.type(0)))
        return out

    def grad(op, dy):
        return None


@register_op("TruncatedNormal", stateful=True)
class TruncatedNormal:
    """Samples from N(0, 1), redrawing values more than 2 standard deviations out."""

    infer = _shape_infer

    def kernel(shape, *, dtype, seed=0, seed2=0, generator=None):
        gen = _stream("truncated_normal", dtype.np, seed, seed2, generator)
        return truncated_normal_sample(gen, _shape_tuple(shape), dtype.np)

    def grad(op, dy):
        return None


def _uniform_int_infer(shape, minval, maxval, *, seed=0, seed2=0, generator=None):
    for name, t in (("minval", minval), ("maxval", maxval)):
        if t.shape.rank not in (None, 0):
            raise InvalidArgumentError(None, None, f"{name} must be a scalar, got shape "
                                                   f"{t.shape}")
    return _shape_infer(shape, dtype=minval.dtype)


@register_op("RandomUniformInt", stateful=True)
class RandomUniformInt:
    """Samples integers uniformly from [minval, maxval)."""

    infer = _uniform_int_infer

    def kernel(shape, minval, maxval, *, seed=0, seed2=0, generator=None):
        if not minval < maxval:
            raise InvalidArgumentError(None, None, f"Need minval < maxval, got {minval} >= "
                                                   f"{maxval}")
        gen = _stream("uniform_int", minval.dtype, seed, seed2, generator)
        return gen.integers(minval, maxval, size=_shape_tuple(shape), dtype=minval.dtype)

    def grad(op, dy):
        return None, None, None


def _multinomial_infer(logits, num_samples, *, output_dtype, seed=0, seed2=0, generator=None):
    if logits.shape.rank is not None and logits.shape.rank != 2:
        raise InvalidArgumentError(None, None, f"logits should be a matrix [batch_size, "
                                               f"num_classes], got shape {logits.shape}")
    n = constant_value(num_samples)
    batch = logits.shape[0] if logits.shape.rank == 2 else None
    return output_dtype, TensorShape([batch, None if n is None else int(n)])


@register_op("Multinomial", stateful=True)
class Multinomial:
    """Draws ``num_samples`` class indices per row of unnormalized log-probabilities."""

    infer = _multinomial_infer

    def kernel(logits, num_samples, *, output_dtype, seed=0, seed2=0, generator=None):
        n = int(num_samples)
        if n < 0:
            raise InvalidArgumentError(None, None, f"num_samples should be nonnegative, got "
                                                   f"{n}")
        gen = _stream("multinomial", logits.dtype, seed, seed2, generator)
        lg = logits.astype(np.float64)
        p = np.exp(lg - np.max(lg, axis=1, keepdims=True))
        cdf = np.cumsum(p, axis=1)
        cdf /= cdf[:, -1:]
        u = gen.random((logits.shape[0], n))
        out = np.empty((logits.shape[0], n), dtype=output_dtype.np)
        for i in range(logits.shape[0]):
            out[i] = np.minimum(np.searchsorted(cdf[i], u[i], side="right"),
                                logits.shape[1] - 1)
        return out

    def grad(op, dy):
        return None, None


@register_op("RandomShuffle", stateful=True)
class RandomShuffle:
    """Shuffles a tensor along its first dimension."""

    def infer(value, *, seed=0, seed2=0, generator=None):
        return value.dtype, value.shape

    def kernel(value, *, seed=0, seed2=0, generator=None):
        if value.ndim == 0 or value.shape[0] <= 1:
            return value
        gen = _stream("shuffle", value.dtype, seed, seed2, generator)
        return value[gen.permutation(value.shape[0])]

    def grad(op, dy):
        return None


def _concat_infer(shape, param, dtype):
    head = _shape_infer(shape, dtype=dtype)[1]
    if head.rank is None or param.shape.rank is None:
        return dtype, TensorShape(None)
    return dtype, TensorShape(head.as_list() + param.shape.as_list())


@register_op("RandomGamma", stateful=True)
class RandomGamma:
    """Samples Gamma(alpha, 1): ``shape`` samples for each entry of ``alpha``."""

    def infer(shape, alpha, *, seed=0, seed2=0, generator=None):
        check_float_dtype("RandomGamma", alpha.dtype)
        return _concat_infer(shape, alpha, alpha.dtype)

    def kernel(shape, alpha, *, seed=0, seed2=0, generator=None):
        gen = _stream("gamma", alpha.dtype, seed, seed2, generator)
        size = _shape_tuple(shape) + alpha.shape
        return gen.standard_gamma(np.broadcast_to(alpha, size).astype(np.float64)).astype(
            alpha.dtype)

    def grad(op, dy):
        return None, None


@register_op("RandomPoissonV2", stateful=True)
class RandomPoissonV2:
    """Samples Poisson(rate): ``shape`` samples for each entry of ``rate``."""

    def infer(shape, rate, *, dtype, seed=0, seed2=0, generator=None):
        return _concat_infer(shape, rate, dtype)

    def kernel(shape, rate, *, dtype, seed=0, seed2=0, generator=None):
        gen = _stream("poisson", rate.dtype, seed, seed2, generator)
        size = _shape_tuple(shape) + rate.shape
        return gen.poisson(np.broadcast_to(rate, size).astype(np.float64)).astype(dtype.np)

    def grad(op, dy):
        return None, None


def check_float_dtype(op_name: str, dtype) -> None:
    """Raises InvalidArgumentError unless ``dtype`` is a floating-point dtype."""
    if not dtype.is_floating:
        raise InvalidArgumentError(None, None, f"{op_name} needs a floating-point tensor, got "
                                               f"{dtype.name}")


def _stateless_infer(shape, seed, *, dtype):
    if seed.shape.rank is not None and seed.shape.as_list() not in ([2], [None]):
        raise InvalidArgumentError(None, None, f"seed must have shape [2], got {seed.shape}")
    return _shape_infer(shape, dtype=dtype)


def stateless_generator(seed) -> np.random.Generator:
    """A fresh NumPy generator that is a pure function of ``seed`` (a stateless op's ``[2]``
    seed, or a pair from ``get_seed`` that is not ``(0, 0)``)."""
    s = np.asarray(seed).reshape(-1)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        [int(v) % 2**64 for v in s])))


@register_op("StatelessRandomNormal")
class StatelessRandomNormal:
    """Samples from N(0, 1), determined by ``seed`` alone."""

    infer = _stateless_infer

    def kernel(shape, seed, *, dtype):
        return _float_sample(stateless_generator(seed), "standard_normal", _shape_tuple(shape),
                             dtype.np)

    def grad(op, dy):
        return None, None


@register_op("StatelessRandomUniform")
class StatelessRandomUniform:
    """Samples uniformly from [0, 1), determined by ``seed`` alone."""

    infer = _stateless_infer

    def kernel(shape, seed, *, dtype):
        out = _float_sample(stateless_generator(seed), "random", _shape_tuple(shape), dtype.np)
        return np.minimum(out, np.nextafter(dtype.np.type(1), dtype.np.type(0)))

    def grad(op, dy):
        return None, None


@register_op("StatelessTruncatedNormal")
class StatelessTruncatedNormal:
    """Samples from N(0, 1) truncated at two standard deviations, determined by ``seed``."""

    infer = _stateless_infer

    def kernel(shape, seed, *, dtype):
        return truncated_normal_sample(stateless_generator(seed), _shape_tuple(shape), dtype.np)

    def grad(op, dy):
        return None, None


# ----- public functions -------------------------------------------------------------------------

def _shape_arg(shape):
    return convert(shape, dtype_hint=dtypes.int32)


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


def _uniform(shape, minval, maxval, dtype, seeds: dict, name):
    dtype = dtypes.as_dtype(dtype)
    shape_t = _shape_arg(shape)
    if dtype.is_integer:
        if dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"tw.random.uniform supports int32 and int64, got {dtype.name}")
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name}")
        return bind(RandomUniformInt, [shape_t, _arg(minval, dtype), _arg(maxval, dtype)],
                    seeds, name=name)
    dtype = _float_dtype(dtype, "tw.random.uniform")
    if maxval is None:
        maxval = 1
    rnd = bind(RandomUniform, [shape_t], {"dtype": dtype, **seeds}, name=name)
    if _is_py(minval, 0) and _is_py(maxval, 1):
        return rnd
    lo, hi = _arg(minval, dtype), _arg(maxval, dtype)
    return add(multiply(rnd, subtract(hi, lo)), lo)


def random_normal(shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                  dtype: DTypeLike = dtypes.float32, seed: int | None = None,
                  name: str | None = None) -> Tensor:
    """Samples from a normal distribution (``tw.random.normal``).

    Args:
        shape: a 1-D int tensor or list (entries may be tensors).
        mean: the mean, a scalar or tensor broadcastable to ``shape``.
        stddev: the standard deviation, likewise.
        dtype: a floating-point dtype.
        seed: the op seed (see ``set_seed``).
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    return _normal(RandomStandardNormal, shape, mean, stddev, dtype, _seed_attrs(seed), name,
                   "tw.random.normal")


def truncated_normal(shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                     dtype: DTypeLike = dtypes.float32, seed: int | None = None,
                     name: str | None = None) -> Tensor:
    """Samples from a normal distribution truncated at two standard deviations.

    Args:
        shape: a 1-D int tensor or list.
        mean: the mean.
        stddev: the standard deviation before truncation.
        dtype: a floating-point dtype.
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    return _normal(TruncatedNormal, shape, mean, stddev, dtype, _seed_attrs(seed), name,
                   "tw.random.truncated_normal")


def random_uniform(shape: ShapeLike, minval: TensorLike = 0, maxval: TensorLike | None = None,
                   dtype: DTypeLike = dtypes.float32, seed: int | None = None,
                   name: str | None = None) -> Tensor:
    """Samples uniformly from [minval, maxval) (``tw.random.uniform``).

    Args:
        shape: a 1-D int tensor or list.
        minval: lower bound (inclusive).
        maxval: upper bound (exclusive); default 1 for floats, required for integers.
        dtype: float16/32/64 or int32/int64.
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.

    Raises:
        ValueError: an integer dtype without ``maxval``.
    """
    return _uniform(shape, minval, maxval, dtype, _seed_attrs(seed), name)


def categorical(logits: TensorLike, num_samples, dtype: DTypeLike | None = None,
                seed: int | None = None, name: str | None = None) -> Tensor:
    """Draws class indices from categorical distributions (``tw.random.categorical``).

    Args:
        logits: a float tensor [batch_size, num_classes] of unnormalized log-probabilities.
        num_samples: how many samples per row.
        dtype: int32 or int64 (default int64).
        seed: the op seed.
        name: op name.

    Returns:
        An integer tensor [batch_size, num_samples].
    """
    logits = convert(logits)
    out = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    n = convert(num_samples, dtype=dtypes.int32) if not hasattr(num_samples, "dtype") \
        else convert(num_samples)
    return bind(Multinomial, [logits, n], {"output_dtype": out, **_seed_attrs(seed)},
                name=name)


def random_shuffle(value: TensorLike, seed: int | None = None, name: str | None = None) -> Tensor:
    """Shuffles ``value`` along its first dimension (``tw.random.shuffle``).

    Args:
        value: a tensor.
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(RandomShuffle, [convert(value)], _seed_attrs(seed), name=name)


def random_gamma(shape: ShapeLike, alpha, beta: TensorLike | None = None,
                 dtype: DTypeLike = dtypes.float32, seed: int | None = None,
                 name: str | None = None) -> Tensor:
    """Samples from Gamma(alpha, beta) distributions (``tw.random.gamma``).

    Args:
        shape: a 1-D int tensor or list: the number of samples per distribution.
        alpha: the shape parameter(s), a scalar or tensor.
        beta: the inverse scale parameter(s), broadcastable with ``alpha`` (default 1).
        dtype: a floating-point dtype.
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of shape ``shape + broadcast(alpha, beta).shape``.
    """
    dtype = _float_dtype(dtype, "tw.random.gamma")
    a = _arg(alpha, dtype)
    if beta is not None:
        a = add(a, multiply(_arg(beta, dtype), 0.0))  # broadcast alpha against beta
    out = bind(RandomGamma, [_shape_arg(shape), a], _seed_attrs(seed), name=name)
    if beta is None:
        return out
    return divide(out, _arg(beta, dtype))


def random_poisson(shape: ShapeLike, lam: TensorLike, dtype: DTypeLike = dtypes.float32,
                   seed: int | None = None, name: str | None = None) -> Tensor:
    """Samples from Poisson(lam) distributions (``tw.random.poisson``).

    Args:
        shape: a 1-D int tensor or list: the number of samples per distribution.
        lam: the rate(s), a scalar or float tensor.
        dtype: the output dtype (float or int32/int64).
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of shape ``shape + lam.shape``.
    """
    rate = convert(lam) if isinstance(lam, Tensor) else convert_to_tensor(
        np.asarray(lam, dtype=np.float32))
    return bind(RandomPoissonV2, [_shape_arg(shape), rate],
                {"dtype": dtypes.as_dtype(dtype), **_seed_attrs(seed)}, name=name)


class Generator:
    """A random generator with its own state (``tw.random.Generator``).

    Its draws do not depend on ``tw.random.set_seed``; ops built from it (eagerly or in a graph)
    share and advance the one state.
    """

    _ids = itertools.count(1)

    def __init__(self, copy_from: Generator | None = None, state=None, alg=None) -> None:
        """Creates a generator.

        Args:
            copy_from: a Generator whose current state is copied.
            state: an integer seed (the state itself is not exposed by twinflow).
            alg: ignored (twinflow always uses PCG64).
        """
        self._id = next(Generator._ids)
        if copy_from is not None:
            bitgen = np.random.PCG64()
            bitgen.state = _GENERATORS[copy_from._id].bit_generator.state
            _GENERATORS[self._id] = np.random.Generator(bitgen)
        elif state is not None:
            entropy = [int(v) % 2**64 for v in np.asarray(state).reshape(-1)]
            _GENERATORS[self._id] = np.random.Generator(np.random.PCG64(
                np.random.SeedSequence(entropy)))
        else:
            _GENERATORS[self._id] = np.random.default_rng()

    @classmethod
    def from_seed(cls, seed, alg=None) -> Generator:
        """A generator whose state is determined by ``seed``.

        Args:
            seed: an int.
            alg: ignored.

        Returns:
            The generator.
        """
        return cls(state=[int(seed), 0x7477])

    @classmethod
    def from_non_deterministic_state(cls, alg=None) -> Generator:
        """A generator seeded from OS entropy.

        Args:
            alg: ignored.

        Returns:
            The generator.
        """
        return cls()

    @property
    def _attrs(self) -> dict:
        return {"seed": 0, "seed2": 0, "generator": self._id}

    def normal(self, shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
               dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
        """Normal samples (see ``tw.random.normal``).

        Args:
            shape: a 1-D int tensor or list.
            mean: the mean.
            stddev: the standard deviation.
            dtype: a floating-point dtype.
            name: op name.

        Returns:
            A tensor of ``shape`` and ``dtype``.
        """
        return _normal(RandomStandardNormal, shape, mean, stddev, dtype, self._attrs, name,
                       "Generator.normal")

    def truncated_normal(self, shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                         dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
        """Normal samples truncated at two standard deviations.

        Args:
            shape: a 1-D int tensor or list.
            mean: the mean.
            stddev: the standard deviation before truncation.
            dtype: a floating-point dtype.
            name: op name.

        Returns:
            A tensor of ``shape`` and ``dtype``.
        """
        return _normal(TruncatedNormal, shape, mean, stddev, dtype, self._attrs, name,
                       "Generator.truncated_normal")

    def uniform(self, shape: ShapeLike, minval: TensorLike = 0, maxval: TensorLike | None = None,
                dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
        """Uniform samples from [minval, maxval) (see ``tw.random.uniform``).

        Args:
            shape: a 1-D int tensor or list.
            minval: lower bound.
            maxval: upper bound; required for integer dtypes.
            dtype: float16/32/64 or int32/int64.
            name: op name.

        Returns:
            A tensor of ``shape`` and ``dtype``.
        """
        return _uniform(shape, minval, maxval, dtype, self._attrs, name)

    def make_seeds(self, count: int = 1) -> Tensor:
        """Seeds for stateless ops, drawn from this generator.

        Args:
            count: how many seeds.

        Returns:
            An int64 tensor [2, count].
        """
        return _uniform([2, count], -2**63, 2**63 - 1, dtypes.int64, self._attrs, None)

    def split(self, count: int = 1) -> list:
        """New independent generators, derived from (and advancing) this one.

        Args:
            count: how many generators.

        Returns:
            A list of Generators.
        """
        seeds = _GENERATORS[self._id].integers(0, 2**63, size=(count, 2))
        return [Generator(state=s) for s in seeds]


_global_generator: Generator | None = None


def get_global_generator() -> Generator:
    """The global ``tw.random.Generator``, created on first use.

    Returns:
        The generator.
    """
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator: Generator) -> None:
    """Replaces the global ``tw.random.Generator``.

    Args:
        generator: the new global generator.
    """
    global _global_generator
    _global_generator = generator


def _stateless_seed(seed) -> Tensor:
    return convert(seed, dtype_hint=dtypes.int64) if not hasattr(seed, "dtype") \
        else convert(seed)


def stateless_random_normal(shape: ShapeLike, seed, mean: TensorLike = 0.0,
                            stddev: TensorLike = 1.0, dtype: DTypeLike = dtypes.float32,
                            name: str | None = None) -> Tensor:
    """Deterministic normal samples, a pure function of ``seed`` (``tw.random.stateless_normal``).

    Args:
        shape: a 1-D int tensor or list.
        seed: a shape-[2] integer tensor.
        mean: the mean.
        stddev: the standard deviation.
        dtype: a floating-point dtype.
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    dtype = _float_dtype(dtype, "tw.random.stateless_normal")
    rnd = bind(StatelessRandomNormal, [_shape_arg(shape), _stateless_seed(seed)],
               {"dtype": dtype}, name=name)
    return _scale_shift(rnd, stddev, mean, dtype)


def stateless_random_uniform(shape: ShapeLike, seed, minval: TensorLike = 0,
                             maxval: TensorLike | None = None, dtype: DTypeLike = dtypes.float32,
                             name: str | None = None) -> Tensor:
    """Deterministic uniform samples in [minval, maxval) (``tw.random.stateless_uniform``).

    Args:
        shape: a 1-D int tensor or list.
        seed: a shape-[2] integer tensor.
        minval: lower bound.
        maxval: upper bound (default 1).
        dtype: a floating-point dtype.
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    dtype = _float_dtype(dtype, "tw.random.stateless_uniform")
    rnd = bind(StatelessRandomUniform, [_shape_arg(shape), _stateless_seed(seed)],
               {"dtype": dtype}, name=name)
    maxval = 1 if maxval is None else maxval
    if _is_py(minval, 0) and _is_py(maxval, 1):
        return rnd
    lo, hi = _arg(minval, dtype), _arg(maxval, dtype)
    return add(multiply(rnd, subtract(hi, lo)), lo)


def stateless_truncated_normal(shape: ShapeLike, seed, mean: TensorLike = 0.0,
                               stddev: TensorLike = 1.0, dtype: DTypeLike = dtypes.float32,
                               name: str | None = None) -> Tensor:
    """Deterministic truncated-normal samples, a pure function of ``seed``.

    Args:
        shape: a 1-D int tensor or list.
        seed: a shape-[2] integer tensor.
        mean: the mean.
        stddev: the standard deviation before truncation.
        dtype: a floating-point dtype.
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    dtype = _float_dtype(dtype, "tw.random.stateless_truncated_normal")
    rnd = bind(StatelessTruncatedNormal, [_shape_arg(shape), _stateless_seed(seed)],
               {"dtype": dtype}, name=name)
    return _scale_shift(rnd, stddev, mean, dtype)


__all__ = ["set_seed", "get_seed", "random_normal", "random_uniform", "truncated_normal",
           "categorical", "random_shuffle", "stateless_random_normal",
           "stateless_random_uniform", "Generator", "get_global_generator",
           "set_global_generator", "random_gamma", "random_poisson",
           "stateless_truncated_normal"]
