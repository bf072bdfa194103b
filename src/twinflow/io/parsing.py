"""Parsing ``tf.train.Example`` / ``SequenceExample`` protos into tensors.

``parse_single_example``, ``parse_example``, ``parse_single_sequence_example`` and
``parse_sequence_example`` are ops (``ParseExample``/``ParseSequenceExample``), so they work in
``Dataset.map`` and inside ``tw.function``. Dense features (``FixedLenFeature``,
``FixedLenSequenceFeature``) are one output each; ``VarLenFeature`` and ``SparseFeature`` are
the three components of a SparseTensor and ``RaggedFeature`` the values and row splits of a
RaggedTensor, which the Python functions build from the op's outputs (eagerly and in graphs).
"""
from __future__ import annotations

import collections

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.registry import register_op
from ..ops.ragged.tensor import RaggedTensor, stack_components
from ..ops.sparse.tensor import SparseTensor
from .codecs import string_tensor
from .protos import message_class

_KINDS = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A feature of fixed shape: ``shape``, ``dtype`` (float32, int64, string) and an
    optional ``default_value`` used when an example lacks it."""

    def __new__(cls, shape, dtype, default_value=None) -> FixedLenFeature:
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A sequence of values each of ``shape``: one per step of a FeatureList, or, in
    ``parse_example`` with ``allow_missing=True``, all the values of a feature."""

    def __new__(cls, shape, dtype, allow_missing=False,
                default_value=None) -> FixedLenSequenceFeature:
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any length, parsed to a SparseTensor (``[batch, max_len]``)."""


class SparseFeature(collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype",
                                                             "size", "already_sorted"])):
    """A SparseTensor of dense shape ``size`` from an index feature (or a list of them, one per
    dimension) and a value feature."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False) -> SparseFeature:
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class RaggedFeature(collections.namedtuple("RaggedFeature", ["dtype", "value_key",
                                                             "partitions", "row_splits_dtype",
                                                             "validate"])):
    """A feature parsed to a RaggedTensor: the values of ``value_key`` (default: the feature's
    key) cut by ``partitions`` (outermost first) read from other features, or of uniform
    length; ``parse_example`` adds the batch dimension."""

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32,
                validate=False) -> RaggedFeature:
        return super().__new__(cls, dtype, value_key, partitions, row_splits_dtype, validate)


def _composite_extra(key: str, f) -> tuple:
    """The hashable config of a VarLen/Sparse/RaggedFeature, after checking it."""
    if isinstance(f, VarLenFeature):
        return ()
    if isinstance(f, SparseFeature):
        index = (f.index_key,) if isinstance(f.index_key, str) else tuple(f.index_key)
        size = (f.size,) if isinstance(f.size, (int, np.integer)) else tuple(f.size)
        if len(index) != len(size) or not index:
            raise ValueError(f"SparseFeature {key!r}: {len(index)} index keys but size "
                             f"{list(size)}")
        return (index, f.value_key, tuple(int(n) for n in size), bool(f.already_sorted))
    parts = []
    for p in f.partitions:
        kind = type(p).__name__
        if kind not in ("RowSplits", "RowLengths", "RowStarts", "RowLimits", "ValueRowIds",
                        "UniformRowLength"):
            raise TypeError(f"RaggedFeature {key!r}: unknown partition {p!r}")
        parts.append((kind, int(p[0]) if kind == "UniformRowLength" else str(p[0])))
    sd = dtypes.as_dtype(f.row_splits_dtype)
    if sd not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"RaggedFeature {key!r}: row_splits_dtype must be int32 or int64")
    return (f.value_key or key, tuple(parts), sd)


def _config(features: dict, allow_sequence: bool) -> tuple:
    """(keys, kinds, dtypes, shapes, defaults) as hashable attrs."""
    if not isinstance(features, dict) or not features:
        raise ValueError("features must be a non-empty dict of feature configs")
    keys, kinds, types, shapes, defaults = [], [], [], [], []
    for key in sorted(features):
        f = features[key]
        if not isinstance(f, (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature,
                              SparseFeature, RaggedFeature)):
            raise TypeError(f"Unsupported feature config for {key!r}: {f!r}")
        dt = dtypes.as_dtype(f.dtype)
        if dt not in _KINDS:
            raise ValueError(f"Feature {key!r}: dtype must be float32, int64 or string, got "
                             f"{dt.name}")
        if isinstance(f, (VarLenFeature, SparseFeature, RaggedFeature)):
            keys.append(key)
            kinds.append(type(f).__name__[:-7].lower())  # "varlen", "sparse", "ragged"
            types.append(dt)
            shapes.append(_composite_extra(key, f))
            defaults.append(None)
            continue
        shape = tuple(int(d) for d in (f.shape.as_list() if isinstance(f.shape, TensorShape)
                                       else (f.shape if isinstance(f.shape, (list, tuple))
                                             else [f.shape])))
        seq = isinstance(f, FixedLenSequenceFeature)
        if seq and not (allow_sequence or f.allow_missing):
            raise ValueError(f"FixedLenSequenceFeature {key!r} needs allow_missing=True in "
                             "parse_example")
        default = None
        if f.default_value is not None:
            size = int(np.prod(shape)) if not seq else None
            d = np.asarray(f.default_value, dtype=object if dt is dtypes.string else dt.np)
            if size is not None:
                d = np.broadcast_to(d, shape) if d.size == 1 else d
                if d.size != size:
                    raise ValueError(f"Feature {key!r}: default_value has {d.size} values, "
                                     f"shape {list(shape)} needs {size}")
            default = tuple(d.reshape(-1).tolist())
        keys.append(key)
        kinds.append("seq" if seq else "fixed")
        types.append(dt)
        shapes.append(shape)
        defaults.append(default)
    return tuple(keys), tuple(kinds), tuple(types), tuple(shapes), tuple(defaults)


def _values(feature, key: str, dt) -> np.ndarray:
    kind = feature.WhichOneof("kind")
    if kind is None:
        return np.zeros(0, dtype=object if dt is dtypes.string else dt.np)
    if kind != _KINDS[dt]:
        raise errors.InvalidArgumentError(
            None, None, f"Key: {key}. Data types don't match. Data type: {dt.name} but "
            f"expected type: {kind.replace('_list', '')}")
    vals = getattr(feature, kind).value
    if dt is dtypes.string:
        return np.asarray(list(vals) + [None], dtype=object)[:-1]
    return np.asarray(vals, dtype=dt.np)


def _fixed(features, key: str, dt, shape: tuple, default, where: str) -> np.ndarray:
    if key in features:
        v = _values(features[key], key, dt)
    elif default is not None:
        v = np.asarray(default, dtype=object if dt is dtypes.string else dt.np)
    else:
        raise errors.InvalidArgumentError(
            None, None, f"{where}Feature: {key} (data type: {dt.name}) is required but could "
            "not be found.")
    size = int(np.prod(shape))
    if v.size != size:
        raise errors.InvalidArgumentError(
            None, None, f"{where}Key: {key}. Can't parse serialized Example: expected "
            f"{size} values for shape {list(shape)}, got {v.size}")
    return v.reshape(shape)


def _parse_message(data, what: str):
    cls = message_class(what)
    raw = data if isinstance(data, bytes) else bytes(data)
    try:
        return cls.FromString(raw)
    except Exception as e:  # noqa: BLE001  (protobuf's DecodeError; re-raised as TF's)
        raise errors.InvalidArgumentError(None, None, f"Could not parse {what}: {e}") from None


def _stack_padded(items: list, dt, shape: tuple, default) -> tuple:
    """``[n, max_len] + shape`` padded with the default (or 0/b'') and the lengths."""
    lens = [len(x) for x in items]
    t = max(lens, default=0)
    fill = default[0] if default else (b"" if dt is dtypes.string else 0)
    out = np.full((len(items), t) + shape, fill, dtype=object if dt is dtypes.string
                  else dt.np)
    for i, x in enumerate(items):
        out[i, :len(x)] = x
    return out, np.asarray(lens, dtype=np.int64)


def _present(features, key: str, dt) -> np.ndarray:
    """A feature's values, or none when the example lacks it."""
    if key in features:
        return _values(features[key], key, dt)
    return np.zeros(0, dtype=object if dt is dtypes.string else dt.np)


def _sparse_outputs(rows: list, batched: bool, dense_shape: list, dt) -> tuple:
    """(indices, values, dense_shape) of per-example ``(index matrix, values)`` rows."""
    width = len(dense_shape) + batched
    ind = [np.concatenate([np.full((len(i), 1), b, np.int64), i], 1) if batched else i
           for b, (i, _) in enumerate(rows)]
    ind = np.concatenate(ind).astype(np.int64) if ind else np.zeros((0, width), np.int64)
    vals = np.concatenate([v for _, v in rows] + [np.zeros(0, _values_np(dt))])
    return ind.reshape(-1, width), vals, np.asarray(
        ([len(rows)] if batched else []) + dense_shape, np.int64)


def _sparse_row(f, key: str, dt, extra: tuple) -> tuple:
    index_keys, value_key, size, already_sorted = extra
    vals = _present(f, value_key, dt)
    idx = np.stack([_present(f, k, dtypes.int64) for k in index_keys], 1) if vals.size else \
        np.zeros((0, len(index_keys)), np.int64)
    if idx.shape[0] != vals.size:
        raise errors.InvalidArgumentError(
            None, None, f"SparseFeature {key!r}: the index features {list(index_keys)} and the "
            f"value feature {value_key!r} have different lengths")
    bad = (idx < 0) | (idx >= np.asarray(size))
    if bad.any():
        raise errors.InvalidArgumentError(
            None, None, f"SparseFeature {key!r}: index {idx[bad.any(1)][0].tolist()} is out of "
            f"bounds for size {list(size)}")
    if not already_sorted and len(idx):
        order = np.lexsort(idx.T[::-1])
        idx, vals = idx[order], vals[order]
    return idx, vals


def _partition_splits(kind: str, p: np.ndarray, n: int) -> np.ndarray:
    """Row splits from a partition feature's values ``p`` over ``n`` values."""
    if kind == "RowSplits":
        return p
    if kind == "RowLengths":
        return np.concatenate([[0], np.cumsum(p)])
    if kind == "RowStarts":
        return np.concatenate([p, [n]])
    if kind == "RowLimits":
        return np.concatenate([[0], p])
    if p.size and p.min() < 0:  # ValueRowIds
        return np.zeros(0, np.int64)
    counts = np.bincount(p, minlength=int(p.max()) + 1 if p.size else 0)
    return np.concatenate([[0], np.cumsum(counts)])


def _ragged_row(f, key: str, dt, extra: tuple) -> tuple:
    """(values, [splits, outermost first]) of one example's RaggedFeature."""
    value_key, parts, sd = extra
    vals = _present(f, value_key, dt)
    splits: list = []
    n = len(vals)
    for kind, arg in reversed(parts):
        if kind == "UniformRowLength":
            if arg <= 0 or n % arg:
                raise errors.InvalidArgumentError(
                    None, None, f"RaggedFeature {key!r}: {n} values cannot be cut into rows of "
                    f"length {arg}")
            s = np.arange(0, n + 1, arg)
        else:
            s = _partition_splits(kind, _present(f, arg, dtypes.int64), n)
            if len(s) == 0 or s[0] != 0 or s[-1] != n or np.any(np.diff(s) < 0):
                raise errors.InvalidArgumentError(
                    None, None, f"RaggedFeature {key!r}: partition {kind}({arg!r}) does not "
                    f"cut {n} values into rows")
        splits.insert(0, np.asarray(s, sd.np))
        n = len(s) - 1
    return vals, splits


def _stack_ragged(rows: list, ragged_rank: int, splits_np, dt) -> tuple:
    """``stack_components`` of a batch, which may be empty."""
    if not rows:
        return np.zeros(0, _values_np(dt)), [np.zeros(1, splits_np)] * (ragged_rank + 1)
    return stack_components(rows, ragged_rank, splits_np)


def _dense_ragged(extra: tuple) -> bool:
    """True for a RaggedFeature whose partitions are all uniform and not empty."""
    return bool(extra[1]) and all(kind == "UniformRowLength" for kind, _ in extra[1])


def _example_outputs(serialized: np.ndarray, keys, kinds, types, shapes, defaults) -> tuple:
    flat = np.asarray(serialized, dtype=object).reshape(-1)
    parsed = [_parse_message(s, "Example").features.feature for s in flat]
    return _features_outputs(parsed, serialized.shape, keys, kinds, types, shapes, defaults, "")


def _features_outputs(parsed: list, batch: tuple, keys, kinds, types, shapes, defaults,
                      where: str) -> tuple:
    """The op outputs of Features maps (Examples, or SequenceExample contexts) of ``batch``."""
    batched = len(batch) == 1
    outs: list = []
    for key, kind, dt, shape, default in zip(keys, kinds, types, shapes, defaults):
        if kind == "varlen":
            rows = [(np.arange(len(v), dtype=np.int64)[:, None], v)
                    for v in (_present(f, key, dt) for f in parsed)]
            width = max((len(v) for _, v in rows), default=0)
            outs += _sparse_outputs(rows if batched else rows[:1], batched, [width], dt)
        elif kind == "sparse":
            rows = [_sparse_row(f, key, dt, shape) for f in parsed]
            outs += _sparse_outputs(rows if batched else rows[:1], batched, list(shape[2]), dt)
        elif kind == "ragged":
            rows = [_ragged_row(f, key, dt, shape) for f in parsed]
            if batched:
                vals, splits = _stack_ragged(rows, len(shape[1]), shape[2].np, dt)
            elif _dense_ragged(shape):
                # one example, only uniform partitions: a dense tensor, as TensorFlow gives
                vals, splits = rows[0][0].reshape([-1] + [n for _, n in shape[1]]), []
            else:
                vals, splits = rows[0]
            outs += [vals] + splits
        elif kind == "fixed":
            vals = [_fixed(f, key, dt, shape, default, where) for f in parsed]
            a = np.stack(vals) if vals else np.zeros((0,) + shape, dt.np)
            outs.append(a.reshape(batch + shape))
        else:
            size = int(np.prod(shape))
            items = []
            for f in parsed:
                v = _values(f[key], key, dt) if key in f else np.zeros(0, dt.np)
                if v.size % max(size, 1):
                    raise errors.InvalidArgumentError(
                        None, None, f"Key: {key}. Number of values {v.size} is not a multiple "
                        f"of the shape {list(shape)}")
                items.append(v.reshape((-1,) + shape))
            padded, _ = _stack_padded(items, dt, shape, default)
            outs.append(padded.reshape(batch + padded.shape[1:]))
    return tuple(outs)


def _out_specs(batch: TensorShape, kinds, types, shapes) -> list:
    dims = batch.as_list() if batch.rank is not None else None
    out = []
    for kind, dt, shape in zip(kinds, types, shapes):
        if kind in ("varlen", "sparse"):
            if batch.rank is None:
                raise ValueError(f"parse_example: {kind} features need serialized of known "
                                 "rank")
            rank = (1 if kind == "varlen" else len(shape[2])) + batch.rank
            out += [(dtypes.int64, TensorShape([None, rank])), (dt, TensorShape([None])),
                    (dtypes.int64, TensorShape([rank]))]
            continue
        if kind == "ragged":
            if batch.rank is None:
                raise ValueError("parse_example: ragged features need serialized of known rank")
            if batch.rank == 0 and _dense_ragged(shape):
                out.append((dt, TensorShape([None] + [n for _, n in shape[1]])))
                continue
            out += [(dt, TensorShape([None]))] + [
                (shape[2], TensorShape([None]))] * (len(shape[1]) + batch.rank)
            continue
        rest = list(shape) if kind == "fixed" else [None] + list(shape)
        out.append((dt, TensorShape(None if dims is None else dims + rest)))
    return out


@register_op("ParseExample", stateful=False, multi_output=True)
class ParseExample:
    """Dense features of serialized Examples (any batch shape, scalar for one example)."""

    def infer(serialized, *, keys, kinds, types, shapes, defaults):
        if serialized.dtype is not dtypes.string:
            raise errors.InvalidArgumentError(None, None, "serialized must be a string tensor, "
                                              f"got {serialized.dtype.name}")
        return _out_specs(serialized.shape, kinds, types, shapes)

    def kernel(serialized, *, keys, kinds, types, shapes, defaults):
        return _example_outputs(np.asarray(serialized), keys, kinds, types, shapes, defaults)


def _step_values(p, key: str, dt) -> list:
    """The values of each step of feature list ``key`` (no steps when it is missing)."""
    fl = p.feature_lists.feature_list
    return [_values(f, key, dt) for f in fl[key].feature] if key in fl else []


def _sequence_composite(parsed: list, batched: bool, key: str, kind: str, dt, sd) -> list:
    """A VarLen (SparseTensor ``[step, index]``) or Ragged (one ragged dim per step) list."""
    steps = [_step_values(p, key, dt) for p in parsed]
    if kind == "varlen":
        rows = [(np.asarray([(t, j) for t, v in enumerate(st) for j in range(len(v))],
                            np.int64).reshape(-1, 2),
                 np.concatenate(st) if st else np.zeros(0, _values_np(dt))) for st in steps]
        width = max((len(v) for st in steps for v in st), default=0)
        depth = max((len(st) for st in steps), default=0)
        return list(_sparse_outputs(rows if batched else rows[:1], batched, [depth, width], dt))
    rows = [(np.concatenate(st) if st else np.zeros(0, _values_np(dt)),
             [np.concatenate([[0], np.cumsum([len(v) for v in st])]).astype(sd.np)])
            for st in steps]
    vals, splits = _stack_ragged(rows, 1, sd.np, dt) if batched else rows[0]
    return [vals] + splits


def _values_np(dt):
    return object if dt is dtypes.string else dt.np


def _sequence_outputs(serialized: np.ndarray, ctx_cfg: tuple, seq_cfg: tuple) -> tuple:
    flat = np.asarray(serialized, dtype=object).reshape(-1)
    parsed = [_parse_message(s, "SequenceExample") for s in flat]
    outs = list(_features_outputs([p.context.feature for p in parsed], serialized.shape,
                                  *ctx_cfg, "Context "))
    lengths = []
    keys, kinds, types, shapes, defaults = seq_cfg
    for key, kind, dt, shape, default in zip(keys, kinds, types, shapes, defaults):
        if kind != "seq":
            ragged = kind == "ragged"
            outs += _sequence_composite(parsed, serialized.ndim == 1, shape[0] if ragged
                                        else key, kind, dt, shape[2] if ragged else None)
            continue
        items = []
        for p in parsed:
            fl = p.feature_lists.feature_list
            if key not in fl:
                if default is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Feature list: {key} is required but could not be found.")
                items.append(np.zeros((0,) + shape, dtype=_values_np(dt)))
                continue
            items.append(np.stack([_fixed({key: f}, key, dt, shape, None, "Sequence ")
                                   for f in fl[key].feature]) if fl[key].feature else
                         np.zeros((0,) + shape, dtype=_values_np(dt)))
        padded, lens = _stack_padded(items, dt, shape, None)
        outs.append(padded.reshape(serialized.shape + padded.shape[1:]))
        lengths.append(lens.reshape(serialized.shape))
    return tuple(outs + lengths)


def _sequence_specs(batch: TensorShape, seq_cfg: tuple) -> list:
    """Output specs of the feature lists (before the lengths of the dense ones)."""
    out = []
    for kind, dt, shape in zip(seq_cfg[1], seq_cfg[2], seq_cfg[3]):
        if kind == "seq":
            out += _out_specs(batch, ("seq",), (dt,), (shape,))
        elif kind == "varlen":
            rank = 2 + batch.rank
            out += [(dtypes.int64, TensorShape([None, rank])), (dt, TensorShape([None])),
                    (dtypes.int64, TensorShape([rank]))]
        else:
            out += [(dt, TensorShape([None]))] + [(shape[2], TensorShape([None]))] * (
                1 + batch.rank)
    return out


@register_op("ParseSequenceExample", stateful=False, multi_output=True)
class ParseSequenceExample:
    """Context features, padded feature lists and their lengths of SequenceExamples."""

    def infer(serialized, *, ctx_cfg, seq_cfg):
        if serialized.dtype is not dtypes.string:
            raise errors.InvalidArgumentError(None, None, "serialized must be a string tensor, "
                                              f"got {serialized.dtype.name}")
        batch = serialized.shape
        ctx = _out_specs(batch, ctx_cfg[1], ctx_cfg[2], ctx_cfg[3])
        lens = [(dtypes.int64, batch) for k in seq_cfg[1] if k == "seq"]
        return ctx + _sequence_specs(batch, seq_cfg) + lens

    def kernel(serialized, *, ctx_cfg, seq_cfg):
        return _sequence_outputs(np.asarray(serialized), ctx_cfg, seq_cfg)


def _string_tensor(serialized):
    t = string_tensor(serialized)
    if t.dtype is not dtypes.string:
        raise errors.InvalidArgumentError(None, None, f"serialized must be a string tensor, "
                                          f"got {t.dtype.name}")
    return t


def parse_example(serialized, features: dict, example_names=None, name=None) -> dict:
    """Parses a batch (vector) of serialized Examples into dense tensors.

    Args:
        serialized: a string vector.
        features: {key: FixedLenFeature or FixedLenSequenceFeature(allow_missing=True)}.
        example_names: a hint that changes nothing: TensorFlow puts the names in its error
            messages only (twinflow's name the example's position).
        name: the op name.

    Returns:
        {key: tensor of shape [batch] + shape} (sequence features: [batch, None] + shape).
    """
    cfg = _config(features, allow_sequence=False)
    t = _string_tensor(serialized)
    if t.shape.rank not in (0, 1) and any(k not in ("fixed", "seq") for k in cfg[1]):
        raise ValueError(f"parse_example: VarLen/Sparse/RaggedFeature need a scalar or a "
                         f"vector of serialized examples, got shape {t.shape}")
    outs = bind(ParseExample, [t],
                dict(zip(("keys", "kinds", "types", "shapes", "defaults"), cfg)), name=name)
    return dict(zip(cfg[0], _composites(list(outs), cfg[1], cfg[3], t.shape.rank == 1)))


def _composites(outs: list, kinds, extras, batched: bool, sequence: bool = False) -> list:
    """The op's outputs grouped into one value per feature (SparseTensor, RaggedTensor);
    ``sequence``: feature lists (one more dimension, the step, outside each value)."""
    values, it = [], iter(outs)
    for kind, extra in zip(kinds, extras):
        if kind in ("varlen", "sparse"):
            static = [None] * (1 + sequence) if kind == "varlen" else list(extra[2])
            values.append(SparseTensor(next(it), next(it), next(it), _shape=TensorShape(
                [None] * batched + static)))
        elif kind == "ragged":
            flat = next(it)
            n = _width(kind, extra, batched) - 1 if not sequence else 1 + batched
            values.append(RaggedTensor._from_nested_splits(flat, [next(it) for _ in range(n)]))
        else:
            values.append(next(it))
    return values


def parse_single_example(serialized, features: dict, example_names=None, name=None) -> dict:
    """Parses one serialized Example (a string scalar) into dense tensors.

    Args:
        serialized: a string scalar.
        features, example_names, name: as for ``parse_example``.

    Returns:
        {key: tensor}.
    """
    t = _string_tensor(serialized)
    if t.shape.rank not in (None, 0):
        raise ValueError(f"parse_single_example needs a scalar, got shape {t.shape}")
    return parse_example(t, features, name=name)


def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None) -> tuple:
    """Parses a batch of serialized SequenceExamples.

    Args:
        serialized: a string vector (or scalar).
        context_features: {key: FixedLenFeature}.
        sequence_features: {key: FixedLenSequenceFeature}.
        example_names: a hint that changes nothing: TensorFlow puts the names in its error
            messages only (twinflow's name the example's position).
        name: the op name.

    Returns:
        (context dict, feature_list dict of [batch, max_len] + shape tensors padded with
        zeros, lengths dict of int64 [batch] tensors).
    """
    ctx_cfg = _config(context_features, True) if context_features else ((),) * 5
    seq_cfg = _config(sequence_features, True) if sequence_features else ((),) * 5
    for k, kind in zip(ctx_cfg[0] + seq_cfg[0], ctx_cfg[1] + seq_cfg[1]):
        if kind == "sparse":  # as in TensorFlow 2.21
            raise ValueError(f"parse_sequence_example: unsupported SparseFeature for key {k!r} "
                             "(use VarLenFeature or RaggedFeature)")
    for k, kind in zip(ctx_cfg[0], ctx_cfg[1]):
        if kind == "seq":
            raise ValueError(f"context feature {k!r} must be a FixedLen/VarLen/RaggedFeature")
    for k, kind, extra in zip(seq_cfg[0], seq_cfg[1], seq_cfg[3]):
        if kind == "fixed":
            raise ValueError(f"sequence feature {k!r} must be a FixedLenSequenceFeature, "
                             "VarLenFeature or RaggedFeature")
        if kind == "ragged" and extra[1]:
            raise NotImplementedError(
                f"parse_sequence_example: RaggedFeature {k!r} in sequence_features with "
                "partitions is not supported in twinflow")
    t = _string_tensor(serialized)
    if t.shape.rank not in (0, 1) and any(k not in ("fixed", "seq")
                                          for k in ctx_cfg[1] + seq_cfg[1]):
        raise ValueError(f"parse_sequence_example: VarLen/RaggedFeature need a scalar or a "
                         f"vector of serialized examples, got shape {t.shape}")
    outs = list(bind(ParseSequenceExample, [t], {"ctx_cfg": ctx_cfg, "seq_cfg": seq_cfg},
                     name=name))
    batched = t.shape.rank == 1
    nc = sum(_width(kind, extra, batched) for kind, extra in zip(ctx_cfg[1], ctx_cfg[3]))
    ns = sum(3 if kind == "varlen" else 2 + batched if kind == "ragged" else 1
             for kind in seq_cfg[1])
    ctx = _composites(outs[:nc], ctx_cfg[1], ctx_cfg[3], batched)
    seq = _composites(outs[nc:nc + ns], seq_cfg[1], seq_cfg[3], batched, sequence=True)
    dense = [k for k, kind in zip(seq_cfg[0], seq_cfg[1]) if kind == "seq"]
    return (dict(zip(ctx_cfg[0], ctx)), dict(zip(seq_cfg[0], seq)),
            dict(zip(dense, outs[nc + ns:])))


def _width(kind: str, extra, batched: bool) -> int:
    """How many op outputs a context (or Example) feature has."""
    if kind in ("varlen", "sparse"):
        return 3
    if kind == "ragged":
        return 1 + (0 if not batched and _dense_ragged(extra) else len(extra[1]) + batched)
    return 1


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None) -> tuple:
    """Parses one serialized SequenceExample.

    Args:
        serialized: a string scalar.
        context_features: {key: FixedLenFeature}.
        sequence_features: {key: FixedLenSequenceFeature}.
        example_name: a hint that changes nothing: TensorFlow puts the name in its error
            messages only.
        name: the op name.

    Returns:
        (context dict, feature_list dict of [len] + shape tensors).
    """
    ctx, seq, _ = parse_sequence_example(serialized, context_features, sequence_features,
                                         name=name)
    return ctx, seq
