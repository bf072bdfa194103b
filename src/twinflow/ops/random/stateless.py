"""Stateless random ops (the same seed gives the same numbers) and ``tw.random.Generator``."""
from __future__ import annotations

import itertools

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, ShapeLike, Tensor, TensorLike
from ..core import convert
from ..math.binary import add, multiply, subtract
from .seeds import (
    _GENERATORS,
    _algorithm,
    _arg,
    _float_dtype,
    _float_sample,
    _is_py,
    _normal,
    _scale_shift,
    _shape_arg,
    _shape_infer,
    _shape_tuple,
    truncated_normal_sample,
)
from .stateful import RandomStandardNormal, TruncatedNormal, _uniform


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


def _stateless_op(name: str, doc: str, sample):
    """Declares a stateless random op: its kernel is ``sample(generator, shape, np_dtype)`` with
    the generator ``seed`` alone determines."""
    def kernel(shape, seed, *, dtype):
        return sample(stateless_generator(seed), _shape_tuple(shape), dtype.np)

    def grad(op, dy):
        return None, None
    ns = {"__doc__": doc, "infer": _stateless_infer, "kernel": kernel, "grad": grad}
    return register_op(name)(type(name, (), ns))


def _uniform_sample(gen, shape, np_dtype):
    out = _float_sample(gen, "random", shape, np_dtype)
    return np.minimum(out, np.nextafter(np_dtype.type(1), np_dtype.type(0)))


StatelessRandomNormal = _stateless_op(
    "StatelessRandomNormal", "Samples from N(0, 1), determined by ``seed`` alone.",
    lambda gen, shape, np_dtype: _float_sample(gen, "standard_normal", shape, np_dtype))
StatelessRandomUniform = _stateless_op(
    "StatelessRandomUniform", "Samples uniformly from [0, 1), determined by ``seed`` alone.",
    _uniform_sample)
StatelessTruncatedNormal = _stateless_op(
    "StatelessTruncatedNormal",
    "Samples from N(0, 1) truncated at two standard deviations, determined by ``seed``.",
    truncated_normal_sample)


# ----- public functions -------------------------------------------------------------------------

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
            alg: a ``tw.random.Algorithm``, its name or number (checked); the draws do not
                depend on it (twinflow's generators are PCG64).
        """
        if alg is not None:
            _algorithm(alg)
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
            alg: as the constructor's.

        Returns:
            The generator.
        """
        return cls(state=[int(seed), 0x7477], alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None) -> Generator:
        """A generator seeded from OS entropy.

        Args:
            alg: as the constructor's.

        Returns:
            The generator.
        """
        return cls(alg=alg)

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
            shape, mean, stddev, dtype, name: as for ``normal`` (``stddev`` before
                truncation).

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


def _stateless_sample(opdef, shape, seed, dtype, fn: str, name, alg) -> tuple:
    """(the op's samples of ``shape``, their float dtype) for the stateless function ``fn``.
    ``alg`` must name one of TensorFlow's algorithms; twinflow draws from PCG64 whichever."""
    _algorithm(alg)
    dtype = _float_dtype(dtype, fn)
    shape = _shape_arg(shape)
    seed = convert(seed, dtype_hint=dtypes.int64) if not hasattr(seed, "dtype") else convert(seed)
    return bind(opdef, [shape, seed], {"dtype": dtype}, name=name), dtype


def stateless_random_uniform(shape: ShapeLike, seed, minval: TensorLike = 0,
                             maxval: TensorLike | None = None, dtype: DTypeLike = dtypes.float32,
                             name: str | None = None, alg="auto_select") -> Tensor:
    """Deterministic uniform samples in [minval, maxval) (``tw.random.stateless_uniform``).

    Args:
        shape: a 1-D int tensor or list.
        seed: a shape-[2] integer tensor.
        minval: lower bound.
        maxval: upper bound (default 1).
        dtype: a floating-point dtype.
        name: op name.
        alg: TensorFlow's RNG algorithm name (``"philox"``, ``"threefry"``,
            ``"auto_select"``), checked; twinflow's stateless ops always draw from PCG64.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    rnd, dtype = _stateless_sample(StatelessRandomUniform, shape, seed, dtype,
                                   "tw.random.stateless_uniform", name, alg)
    maxval = 1 if maxval is None else maxval
    if _is_py(minval, 0) and _is_py(maxval, 1):
        return rnd
    lo, hi = _arg(minval, dtype), _arg(maxval, dtype)
    return add(multiply(rnd, subtract(hi, lo)), lo)


def _stateless_normal_function(fn_name: str, opdef, tw_name: str, summary: str, stddev: str):
    """``tw.random.stateless_normal`` / ``stateless_truncated_normal``: samples of ``opdef``,
    scaled by ``stddev`` and shifted by ``mean``."""
    def fn(shape: ShapeLike, seed, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
           dtype: DTypeLike = dtypes.float32, name: str | None = None,
           alg="auto_select") -> Tensor:
        rnd, dtype = _stateless_sample(opdef, shape, seed, dtype, tw_name, name, alg)
        return _scale_shift(rnd, stddev, mean, dtype)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"""{summary}

    Args:
        shape: a 1-D int tensor or list.
        seed: a shape-[2] integer tensor.
        mean: the mean.
        stddev: {stddev}
        dtype: a floating-point dtype.
        name: op name.
        alg: TensorFlow's RNG algorithm name, checked; twinflow draws from PCG64.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    return fn


stateless_random_normal = _stateless_normal_function(
    "stateless_random_normal", StatelessRandomNormal, "tw.random.stateless_normal",
    "Deterministic normal samples, a pure function of ``seed`` (``tw.random.stateless_normal``).",
    "the standard deviation.")
stateless_truncated_normal = _stateless_normal_function(
    "stateless_truncated_normal", StatelessTruncatedNormal, "tw.random.stateless_truncated_normal",
    "Deterministic truncated-normal samples, a pure function of ``seed``.",
    "the standard deviation before truncation.")
