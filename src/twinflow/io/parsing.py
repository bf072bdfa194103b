"""Parsing ``tf.train.Example`` / ``SequenceExample`` protos into tensors.

``parse_single_example``, ``parse_example``, ``parse_single_sequence_example`` and
``parse_sequence_example`` are ops (``ParseExample``/``ParseSequenceExample``), so they work in
``Dataset.map`` and inside ``tw.function``. Dense features (``FixedLenFeature``,
``FixedLenSequenceFeature``) are supported; ``VarLenFeature``, ``SparseFeature`` and
``RaggedFeature`` return SparseTensor/RaggedTensor values, which twinflow does not have yet:
parsing them raises NotImplementedError saying so.
"""
from __future__ import annotations

import collections

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.registry import register_op
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
    """A feature of any length (parsed to a SparseTensor: not supported yet)."""


class SparseFeature(collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype",
                                                             "size", "already_sorted"])):
    """A sparse feature from index and value features (not supported yet)."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False) -> SparseFeature:
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class RaggedFeature(collections.namedtuple("RaggedFeature", ["dtype", "value_key",
                                                             "partitions", "row_splits_dtype",
                                                             "validate"])):
    """A feature parsed to a RaggedTensor (not supported yet)."""

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32,
                validate=False) -> RaggedFeature:
        return super().__new__(cls, dtype, value_key, partitions, row_splits_dtype, validate)


def _config(features: dict, allow_sequence: bool) -> tuple:
    """(keys, kinds, dtypes, shapes, defaults) as hashable attrs."""
    if not isinstance(features, dict) or not features:
        raise ValueError("features must be a non-empty dict of feature configs")
    keys, kinds, types, shapes, defaults = [], [], [], [], []
    for key in sorted(features):
        f = features[key]
        if isinstance(f, (VarLenFeature, SparseFeature, RaggedFeature)):
            raise NotImplementedError(
                f"{type(f).__name__} ({key!r}) parses to a "
                f"{'RaggedTensor' if isinstance(f, RaggedFeature) else 'SparseTensor'}, which "
                "twinflow does not have yet (composite tensors, issue 13); use FixedLenFeature "
                "or FixedLenSequenceFeature(allow_missing=True)")
        if not isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            raise TypeError(f"Unsupported feature config for {key!r}: {f!r}")
        dt = dtypes.as_dtype(f.dtype)
        if dt not in _KINDS:
            raise ValueError(f"Feature {key!r}: dtype must be float32, int64 or string, got "
                             f"{dt.name}")
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


def _example_outputs(serialized: np.ndarray, keys, kinds, types, shapes, defaults) -> tuple:
    flat = np.asarray(serialized, dtype=object).reshape(-1)
    parsed = [_parse_message(s, "Example").features.feature for s in flat]
    outs = []
    for key, kind, dt, shape, default in zip(keys, kinds, types, shapes, defaults):
        if kind == "fixed":
            vals = [_fixed(f, key, dt, shape, default, "") for f in parsed]
            a = np.stack(vals) if vals else np.zeros((0,) + shape, dt.np)
            outs.append(a.reshape(serialized.shape + shape))
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
            outs.append(padded.reshape(serialized.shape + padded.shape[1:]))
    return tuple(outs)


def _out_specs(batch: TensorShape, kinds, types, shapes) -> list:
    dims = batch.as_list() if batch.rank is not None else None
    out = []
    for kind, dt, shape in zip(kinds, types, shapes):
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


def _sequence_outputs(serialized: np.ndarray, ctx_cfg: tuple, seq_cfg: tuple) -> tuple:
    flat = np.asarray(serialized, dtype=object).reshape(-1)
    parsed = [_parse_message(s, "SequenceExample") for s in flat]
    outs = []
    keys, kinds, types, shapes, defaults = ctx_cfg
    for key, dt, shape, default in zip(keys, types, shapes, defaults):
        vals = [_fixed(p.context.feature, key, dt, shape, default, "Context ") for p in parsed]
        outs.append(np.stack(vals).reshape(serialized.shape + shape))
    lengths = []
    keys, kinds, types, shapes, defaults = seq_cfg
    for key, dt, shape, default in zip(keys, types, shapes, defaults):
        items = []
        for p in parsed:
            fl = p.feature_lists.feature_list
            if key not in fl:
                if default is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Feature list: {key} is required but could not be found.")
                items.append(np.zeros((0,) + shape, dtype=object if dt is dtypes.string
                                      else dt.np))
                continue
            items.append(np.stack([_fixed({key: f}, key, dt, shape, None, "Sequence ")
                                   for f in fl[key].feature]) if fl[key].feature else
                         np.zeros((0,) + shape, dtype=object if dt is dtypes.string
                                  else dt.np))
        padded, lens = _stack_padded(items, dt, shape, None)
        outs.append(padded.reshape(serialized.shape + padded.shape[1:]))
        lengths.append(lens.reshape(serialized.shape))
    return tuple(outs + lengths)


@register_op("ParseSequenceExample", stateful=False, multi_output=True)
class ParseSequenceExample:
    """Context features, padded feature lists and their lengths of SequenceExamples."""

    def infer(serialized, *, ctx_cfg, seq_cfg):
        if serialized.dtype is not dtypes.string:
            raise errors.InvalidArgumentError(None, None, "serialized must be a string tensor, "
                                              f"got {serialized.dtype.name}")
        batch = serialized.shape
        ctx = _out_specs(batch, ctx_cfg[1], ctx_cfg[2], ctx_cfg[3])
        seq = _out_specs(batch, ("seq",) * len(seq_cfg[0]), seq_cfg[2], seq_cfg[3])
        lens = [(dtypes.int64, batch) for _ in seq_cfg[0]]
        return ctx + seq + lens

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
        example_names: ignored.
        name: the op name.

    Returns:
        {key: tensor of shape [batch] + shape} (sequence features: [batch, None] + shape).
    """
    cfg = _config(features, allow_sequence=False)
    outs = bind(ParseExample, [_string_tensor(serialized)],
                dict(zip(("keys", "kinds", "types", "shapes", "defaults"), cfg)), name=name)
    return dict(zip(cfg[0], outs))


def parse_single_example(serialized, features: dict, example_names=None, name=None) -> dict:
    """Parses one serialized Example (a string scalar) into dense tensors.

    Args:
        serialized: a string scalar.
        features: {key: FixedLenFeature or FixedLenSequenceFeature(allow_missing=True)}.
        example_names: ignored.
        name: the op name.

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
        example_names: ignored.
        name: the op name.

    Returns:
        (context dict, feature_list dict of [batch, max_len] + shape tensors padded with
        zeros, lengths dict of int64 [batch] tensors).
    """
    ctx_cfg = _config(context_features, True) if context_features else ((),) * 5
    seq_cfg = _config(sequence_features, True) if sequence_features else ((),) * 5
    for k, kind in zip(ctx_cfg[0], ctx_cfg[1]):
        if kind != "fixed":
            raise ValueError(f"context feature {k!r} must be a FixedLenFeature")
    for k, kind in zip(seq_cfg[0], seq_cfg[1]):
        if kind != "seq":
            raise ValueError(f"sequence feature {k!r} must be a FixedLenSequenceFeature")
    outs = list(bind(ParseSequenceExample, [_string_tensor(serialized)],
                     {"ctx_cfg": ctx_cfg, "seq_cfg": seq_cfg}, name=name))
    nc, ns = len(ctx_cfg[0]), len(seq_cfg[0])
    return (dict(zip(ctx_cfg[0], outs[:nc])), dict(zip(seq_cfg[0], outs[nc:nc + ns])),
            dict(zip(seq_cfg[0], outs[nc + ns:])))


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None) -> tuple:
    """Parses one serialized SequenceExample.

    Args:
        serialized: a string scalar.
        context_features: {key: FixedLenFeature}.
        sequence_features: {key: FixedLenSequenceFeature}.
        example_name: ignored.
        name: the op name.

    Returns:
        (context dict, feature_list dict of [len] + shape tensors).
    """
    ctx, seq, _ = parse_sequence_example(serialized, context_features, sequence_features,
                                         name=name)
    return ctx, seq
