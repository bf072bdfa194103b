"""Datasets that start a pipeline or join several: slices, lists, ranges, zips, concatenations,
generators, sampling."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..ops.random_ops import get_seed, stateless_generator
from .dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .registry import register_node
from .structure import (
    conform,
    has_dict,
    is_composite_spec,
    is_struct,
    leaf_spec,
    leaves,
    map_struct,
    map_struct2,
    most_specific_compatible,
    normalize,
    pack,
    same_structure,
    spec_of,
    unbatch_spec,
    unstack_leaf,
)


def seeded_rng(seeds: tuple, epoch: int = 0) -> np.random.Generator:
    """The generator of an epoch of a dataset op whose seeds ``random_ops.get_seed`` gave."""
    if seeds == (0, 0):
        return np.random.default_rng()
    return stateless_generator([*seeds, epoch])


@register_node
class Slices(Dataset):
    def __init__(self, arrays) -> None:
        self._arrays = self._source = arrays
        flat = leaves(arrays)
        if not flat:
            raise ValueError("from_tensor_slices needs at least one tensor")
        # Composite leaves (RaggedTensor, SparseTensor) are cut into rows through their spec.
        self._composite = any(is_composite_spec(leaf_spec(a)) for a in flat)
        if self._composite:
            arrays = pack(arrays, [unstack_leaf(leaf_spec(a), a)
                                   if is_composite_spec(leaf_spec(a)) else a for a in flat])
            self._arrays = arrays
            flat = leaves(arrays)
        ns = {len(a) if not hasattr(a, "ndim") else (a.shape[0] if a.ndim else None)
              for a in flat}
        if None in ns:
            raise ValueError("from_tensor_slices needs tensors of rank >= 1")
        if len(ns) != 1:
            raise ValueError(f"Dimensions of the components do not match: first dimensions "
                             f"{sorted(ns)}")
        self._n = ns.pop()
        self._specs = map_struct(lambda a: unbatch_spec(leaf_spec(a)), self._source)

    def _gen(self):
        arrays = self._arrays
        if not is_struct(arrays):
            yield from arrays
            return
        flat = leaves(arrays)
        for i in range(self._n):
            yield pack(arrays, [a[i] for a in flat])

    def _cardinality(self) -> int:
        return self._n

    def _spec(self):
        return self._specs


@register_node
class FromList(Dataset):
    def __init__(self, elements: list, spec=None) -> None:
        self._elements = elements
        self._spec_value = spec

    def _gen(self):
        yield from self._elements

    def _cardinality(self) -> int:
        return len(self._elements)

    def _spec(self):
        if self._spec_value is None:
            self._spec_value = spec_of(self._elements[0])
        return self._spec_value


@register_node
class Range(Dataset):
    def __init__(self, r: range, np_dtype) -> None:
        self._r = r
        self._dtype = np_dtype

    def _gen(self):
        t = self._dtype
        for i in self._r:
            yield np.asarray(i, dtype=t)

    def _cardinality(self) -> int:
        return len(self._r)

    def _spec(self):
        return TensorSpec(TensorShape([]), dtypes.from_numpy(np.dtype(self._dtype)))


@register_node
class Counter(Dataset):
    def __init__(self, start: int, step: int, np_dtype) -> None:
        self._start, self._step, self._dtype = start, step, np_dtype

    def _gen(self):
        i, t = self._start, self._dtype
        while True:
            yield np.asarray(i, dtype=t)
            i += self._step

    def _cardinality(self) -> int:
        return INFINITE_CARDINALITY

    def _spec(self):
        return TensorSpec(TensorShape([]), dtypes.from_numpy(np.dtype(self._dtype)))


@register_node
class Zip(Dataset):
    def __init__(self, datasets) -> None:
        for d in leaves(datasets):
            if not isinstance(d, Dataset):
                raise TypeError(f"Dataset.zip needs datasets, got {d!r}")
        self._datasets = datasets

    def _gen(self):
        its = [d._gen() for d in leaves(self._datasets)]
        for items in zip(*its):
            yield pack(self._datasets, list(items))

    def _cardinality(self) -> int:
        cards = [d._cardinality() for d in leaves(self._datasets)]
        finite = [c for c in cards if c >= 0]
        if finite:
            return min(finite)
        return UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in cards else INFINITE_CARDINALITY

    def _spec(self):
        return pack(self._datasets, [d._spec() for d in leaves(self._datasets)])


@register_node
class Concat(Dataset):
    def __init__(self, a: Dataset, b: Dataset) -> None:
        if not isinstance(b, Dataset):
            raise TypeError(f"concatenate needs a Dataset, got {b!r}")
        self._a, self._b = a, b
        self._spec_value = most_specific_compatible(a._spec(), b._spec(), "concatenate")

    def _gen(self):
        yield from self._a._gen()
        if has_dict(self._spec_value):
            for e in self._b._gen():
                yield conform(e, self._spec_value)
        else:
            yield from self._b._gen()

    def _cardinality(self) -> int:
        x, y = self._a._cardinality(), self._b._cardinality()
        if INFINITE_CARDINALITY in (x, y):
            return INFINITE_CARDINALITY
        return x + y if x >= 0 and y >= 0 else UNKNOWN_CARDINALITY

    def _spec(self):
        return self._spec_value


def _generator_spec(output_types, output_shapes, output_signature):
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError("from_generator: give output_signature or output_types/"
                            "output_shapes, not both")
        for s in leaves(output_signature):
            if not isinstance(s, TensorSpec):
                raise TypeError(f"from_generator: output_signature must hold TensorSpecs, "
                                f"got {s!r}")
        return output_signature
    if output_types is None:
        raise TypeError("from_generator needs output_signature (or output_types)")
    if output_shapes is None:
        return map_struct(lambda t: TensorSpec(None, t), output_types)
    return map_struct2(lambda t, s: TensorSpec(s, t), output_types, output_shapes)


@register_node
class Generator(Dataset):
    def __init__(self, generator: Callable, args: tuple, output_types, output_shapes,
                 output_signature) -> None:
        if not callable(generator):
            raise TypeError(f"from_generator: generator must be callable, got {generator!r}")
        self._generator = generator
        self._args = tuple(normalize(a) for a in args)
        self._spec_value = _generator_spec(output_types, output_shapes, output_signature)

    def _gen(self):
        spec = self._spec_value
        args = map_struct(lambda a: a, self._args)
        for value in self._generator(*args):
            if not same_structure(spec, value) and not (
                    not is_struct(spec) and isinstance(value, list)):
                raise errors.InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element of structure "
                    f"{_describe(value)} where an element of structure {spec} was expected.")
            # (keys in the signature's order, whatever order the generator used)
            yield map_struct2(lambda s, v: _check_leaf(v, s), spec, value) \
                if is_struct(spec) else _check_leaf(value, spec)

    def _spec(self):
        return self._spec_value


def _describe(value) -> str:
    return repr(map_struct(lambda a: type(a).__name__, value))


def _check_leaf(value, spec: TensorSpec):
    """One generated value converted to its spec's dtype and checked against its shape."""
    try:
        a = np.asarray(normalize(value), dtype=spec.dtype.np) if spec.dtype is not \
            dtypes.string else np.asarray(normalize(value), dtype=object)
    except (TypeError, ValueError):
        raise errors.InvalidArgumentError(
            None, None, "TypeError: `generator` yielded an element that could not be "
            f"converted to the expected type. The expected type was {spec.dtype.name}, but "
            f"the yielded element was {value!r}.") from None
    if spec.dtype is not dtypes.string and np.asarray(value).dtype.kind in "USO":
        raise errors.InvalidArgumentError(
            None, None, "TypeError: `generator` yielded an element that could not be "
            f"converted to the expected type. The expected type was {spec.dtype.name}, but "
            f"the yielded element was {value!r}.")
    if not spec.shape.is_compatible_with(TensorShape._from_tuple(a.shape)):
        raise errors.InvalidArgumentError(
            None, None, f"TypeError: `generator` yielded an element of shape {a.shape} "
            f"where an element of shape {tuple(spec.shape.as_list())} was expected.")
    return a


@register_node
class Sample(Dataset):
    def __init__(self, datasets: list, weights, seed, stop: bool) -> None:
        if not datasets:
            raise ValueError("sample_from_datasets needs at least one dataset")
        self._datasets = datasets
        if weights is None:
            w = np.ones(len(datasets))
        else:
            w = np.asarray(normalize(weights), np.float64)
            if w.shape != (len(datasets),):
                raise ValueError(
                    "Invalid `weights`. `weights` should have the same length as `datasets` "
                    f"but got `len(weights)={w.size}` vs. `len(datasets)={len(datasets)}`.")
            if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
                raise errors.InvalidArgumentError(
                    None, None, f"sample_from_datasets: weights must be finite, non-negative "
                    f"and not all zero, got {w.tolist()}")
        self._p = w / w.sum()
        self._seeds = get_seed(seed)
        self._stop = stop
        self._epoch = 0
        self._spec_value = _common_spec(datasets, "sample_from_datasets")
        self._dicts = has_dict(self._spec_value)

    def _gen(self):
        rng = seeded_rng(self._seeds, self._epoch)
        self._epoch += 1
        its = [d._gen() for d in self._datasets]
        live = [k for k in range(len(its)) if self._p[k] > 0]
        while live:
            p = self._p[live] / self._p[live].sum()
            k = live[int(rng.choice(len(live), p=p))]
            try:
                e = next(its[k])
            except StopIteration:
                if self._stop:
                    return
                live.remove(k)
                continue
            yield conform(e, self._spec_value) if self._dicts else e

    def _spec(self):
        return self._spec_value

    def _cardinality(self) -> int:
        cards = [d._cardinality() for d in self._datasets]
        if all(c == INFINITE_CARDINALITY for c in cards):
            return INFINITE_CARDINALITY
        return UNKNOWN_CARDINALITY


def _common_spec(datasets: list, what: str):
    for d in datasets:
        if not isinstance(d, Dataset):
            raise TypeError(f"{what} needs datasets, got {d!r}")
    spec = datasets[0]._spec()
    for d in datasets[1:]:
        spec = most_specific_compatible(spec, d._spec(), what)
    return spec


@register_node
class Choose(Dataset):
    def __init__(self, datasets: list, choice: Dataset, stop: bool) -> None:
        if not datasets:
            raise ValueError("choose_from_datasets needs at least one dataset")
        cs = choice._spec()
        if not isinstance(cs, TensorSpec) or cs.dtype is not dtypes.int64 or cs.shape.rank != 0:
            raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                            f"scalar of `tf.int64` dtype, but got {cs}.")
        self._datasets, self._choice, self._stop = datasets, choice, stop
        self._spec_value = _common_spec(datasets, "choose_from_datasets")
        self._dicts = has_dict(self._spec_value)

    def _gen(self):
        its = [d._gen() for d in self._datasets]
        done = [False] * len(its)
        for c in self._choice._gen():
            k = int(c)
            if not 0 <= k < len(its):
                raise errors.InvalidArgumentError(
                    None, None, f"choose_from_datasets: choice {k} is out of range "
                    f"[0, {len(its)})")
            if done[k]:
                continue
            try:
                e = next(its[k])
            except StopIteration:
                if self._stop:
                    return
                done[k] = True
                continue
            yield conform(e, self._spec_value) if self._dicts else e

    def _spec(self):
        return self._spec_value
