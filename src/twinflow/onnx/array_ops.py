"""Converters of shape and array ops: Reshape, Transpose, Shape, StridedSlice, Pack/Unpack,
Split, Concat, Fill, Gather, Tile, Pad, Slice, Range, ExpandDims/Squeeze.

ONNX takes shapes, axes and indices as int64 tensors; TensorFlow's int32 ones are cast.
"""
from __future__ import annotations

import numpy as np

from .converter import converts, unsupported

_BIG = np.iinfo(np.int64).max
_SMALL = np.iinfo(np.int64).min


def _i64(cx, t) -> str:
    return cx.cast(cx.name(t), np.int64)


def _const_ints(cx, op, t, what: str) -> list:
    v = cx.value_of(t)
    if v is None:
        raise unsupported(op, f"its {what} is computed at run time; ONNX export needs it "
                              "constant")
    return [int(x) for x in np.ravel(v)]


@converts("Reshape")
def _reshape(cx, op):
    x, shape = cx.name(op.inputs[0]), _i64(cx, op.inputs[1])
    # TensorFlow's 0 is an empty dimension; ONNX reads 0 as "copy" unless allowzero=1
    # (opset 14 on; before, a constant shape holding 0 is refused)
    if cx.opset >= 14:
        return [cx.node("Reshape", [x, shape], op.name, allowzero=1)]
    known = cx.value_of(op.inputs[1])
    if known is not None and 0 in np.ravel(known):
        raise unsupported(op, "a reshape to an empty dimension needs opset 14 or newer")
    return [cx.node("Reshape", [x, shape], op.name)]


@converts("Transpose")
def _transpose(cx, op):
    perm = op.attrs.get("perm")
    if perm is None:
        rank = op.inputs[0].shape.rank
        if rank is None:
            raise unsupported(op, "a Transpose without perm needs the input's rank")
        perm = list(range(rank))[::-1]
    return [cx.node("Transpose", [cx.name(op.inputs[0])], op.name,
                    perm=[int(p) for p in perm])]


@converts("Shape", "Size")
def _shape(cx, op):
    r = cx.node(op.type, [cx.name(op.inputs[0])], f"{op.name}/i64", dtype=np.int64)
    return [cx.cast(r, op.outputs[0].dtype.np, op.name)]


@converts("Rank")
def _rank(cx, op):
    rank = op.inputs[0].shape.rank
    if rank is not None:
        return [cx.const(np.asarray(rank, np.int32), op.name)]
    s = cx.node("Shape", [cx.name(op.inputs[0])], f"{op.name}/shape", dtype=np.int64)
    return [cx.cast(cx.node("Size", [s], f"{op.name}/i64"), np.int32, op.name)]


@converts("ExpandDims")
def _expand_dims(cx, op):
    return [cx.node("Unsqueeze", [cx.name(op.inputs[0]), cx.ints([op.attrs["axis"]])],
                    op.name)]


@converts("Squeeze")
def _squeeze(cx, op):
    dims = op.attrs.get("squeeze_dims") or ()
    ins = [cx.name(op.inputs[0])] + ([cx.ints(dims)] if dims else [])
    return [cx.node("Squeeze", ins, op.name)]


@converts("Pack")
def _pack(cx, op):
    axis = cx.ints([op.attrs["axis"]])
    parts = [cx.node("Unsqueeze", [cx.name(t), axis], f"{op.name}/expand")
             for t in op.inputs]
    if len(parts) == 1:
        return [cx.node("Identity", parts, op.name)]
    return [cx.node("Concat", parts, op.name, axis=int(op.attrs["axis"]))]


def _split(cx, op, x: str, sizes: list, axis: int, hint: str) -> list:
    if len(sizes) == 1:
        return [cx.node("Identity", [x], hint)]
    return cx.node("Split", [x, cx.ints(sizes)], hint, n_out=len(sizes), axis=axis)


@converts("Unpack")
def _unpack(cx, op):
    num, axis = int(op.attrs["num"]), int(op.attrs["axis"])
    parts = _split(cx, op, cx.name(op.inputs[0]), [1] * num, axis, f"{op.name}/split")
    ax = cx.ints([axis])
    return [cx.node("Squeeze", [p, ax], f"{op.name}:{i}") for i, p in enumerate(parts)]


def _dim(op, t, axis: int):
    shape = t.shape
    if shape.rank is None or shape[axis] is None:
        raise unsupported(op, f"it splits axis {axis} whose size is unknown when tracing")
    return int(shape[axis])


@converts("Split")
def _split_op(cx, op):
    n, axis = int(op.attrs["num_split"]), int(op.attrs["axis"])
    x = op.inputs[0]
    if n > 1 and cx.opset >= 18 and (x.shape.rank is None or x.shape[axis] is None):
        return cx.node("Split", [cx.name(x)], op.name, n_out=n, axis=axis, num_outputs=n)
    size = _dim(op, x, axis)
    return _split(cx, op, cx.name(op.inputs[0]), [size // n] * n, axis, op.name)


@converts("SplitV")
def _split_v(cx, op):
    axis = int(op.attrs["axis"])
    sizes = _const_ints(cx, op, op.inputs[1], "size_splits")
    if -1 in sizes:
        i = sizes.index(-1)
        sizes[i] = _dim(op, op.inputs[0], axis) - (sum(sizes) + 1)
    return _split(cx, op, cx.name(op.inputs[0]), sizes, axis, op.name)


@converts("ConcatV2", "Concat")
def _concat(cx, op):
    names = [cx.name(t) for t in op.inputs]
    if len(names) == 1:
        return [cx.node("Identity", names, op.name)]
    return [cx.node("Concat", names, op.name, axis=int(op.attrs["axis"]))]


@converts("Fill")
def _fill(cx, op):
    return [cx.node("Expand", [cx.name(op.inputs[1]), _i64(cx, op.inputs[0])], op.name)]


@converts("BroadcastTo")
def _broadcast_to(cx, op):
    return [cx.node("Expand", [cx.name(op.inputs[0]), _i64(cx, op.inputs[1])], op.name)]


@converts("ZerosLike", "OnesLike")
def _zeros_like(cx, op):
    x = cx.name(op.inputs[0])
    fill = np.zeros if op.type == "ZerosLike" else np.ones
    value = cx.onnx.numpy_helper.from_array(fill([1], cx.dtype(x)))
    shape = cx.node("Shape", [x], f"{op.name}/shape", dtype=np.int64)
    return [cx.node("ConstantOfShape", [shape], op.name, dtype=cx.dtype(x), value=value)]


@converts("GatherV2")
def _gather(cx, op):
    if int(op.attrs.get("batch_dims", 0)) != 0:
        raise unsupported(op, "batch_dims other than 0")
    return [cx.node("Gather", [cx.name(op.inputs[0]), cx.name(op.inputs[1])], op.name,
                    axis=int(op.attrs.get("axis", 0)))]


@converts("Tile")
def _tile(cx, op):
    return [cx.node("Tile", [cx.name(op.inputs[0]), _i64(cx, op.inputs[1])], op.name)]


def _pads(cx, op, t) -> str:
    p = cx.value_of(t)
    if p is not None:   # [[b0, e0], [b1, e1]...] -> [b0, b1, ..., e0, e1, ...]
        p = np.asarray(p, np.int64).reshape(-1, 2)
        return cx.ints(list(p[:, 0]) + list(p[:, 1]))
    flat = cx.node("Transpose", [_i64(cx, t)], f"{op.name}/pads_T", perm=[1, 0])
    return cx.node("Reshape", [flat, cx.ints([-1])], f"{op.name}/pads")


@converts("PadV2", "Pad", "MirrorPad")
def _pad(cx, op):
    x, pads = cx.name(op.inputs[0]), _pads(cx, op, op.inputs[1])
    if op.type == "MirrorPad":
        if op.attrs["mode"] != "REFLECT":
            raise unsupported(op, "ONNX has no SYMMETRIC padding mode")
        return [cx.node("Pad", [x, pads], op.name, mode="reflect")]
    ins = [x, pads] + ([cx.name(op.inputs[2])] if len(op.inputs) > 2 else [])
    return [cx.node("Pad", ins, op.name, mode="constant")]


@converts("Slice")
def _slice(cx, op):
    begin = _i64(cx, op.inputs[1])
    size = _i64(cx, op.inputs[2])
    # size -1 means "to the end"
    minus = cx.node("Equal", [size, cx.const(np.asarray(-1, np.int64))], f"{op.name}/all",
                    dtype=bool)
    end = cx.node("Where", [minus, cx.const(np.asarray(_BIG, np.int64)),
                            cx.node("Add", [begin, size], f"{op.name}/sum")], f"{op.name}/end")
    return [cx.node("Slice", [cx.name(op.inputs[0]), begin, end], op.name)]


@converts("Range")
def _range(cx, op):
    return [cx.node("Range", [cx.name(t) for t in op.inputs], op.name)]


def _bits(mask: int, n: int) -> list:
    return [bool(mask >> i & 1) for i in range(n)]


@converts("StridedSlice")
def _strided_slice(cx, op):
    x = op.inputs[0]
    strides = _const_ints(cx, op, op.inputs[3], "strides")
    begin, end = cx.value_of(op.inputs[1]), cx.value_of(op.inputs[2])
    a = op.attrs
    n = len(strides)
    bm, em, el = _bits(a["begin_mask"], n), _bits(a["end_mask"], n), _bits(a["ellipsis_mask"], n)
    new, shrink = _bits(a["new_axis_mask"], n), _bits(a["shrink_axis_mask"], n)
    rank = x.shape.rank
    if rank is None:
        raise unsupported(op, "a StridedSlice of a tensor of unknown rank")
    spec, axes, steps, squeeze, unsqueeze = [], [], [], [], []
    dim = 0    # the input axis the spec entry applies to
    out = 0    # the axis of the sliced-and-expanded result before squeezing
    for i in range(n):
        if el[i]:
            covered = rank - (n - i - 1 - sum(new[i + 1:]))
            out += covered - dim
            dim = covered
            continue
        if new[i]:
            unsqueeze.append(out)
            out += 1
            continue
        s = strides[i]
        if s == 0:
            raise unsupported(op, "a stride of 0")
        if shrink[i]:
            squeeze.append(out)
            s = 1
        # (spec index, start from the mask or None, end from the mask or None)
        spec.append((i, (0 if s > 0 else _BIG) if bm[i] and not shrink[i] else None,
                     (_BIG if s > 0 else _SMALL) if em[i] and not shrink[i] else None,
                     shrink[i]))
        steps.append(s)
        axes.append(dim)
        dim += 1
        out += 1
    r = cx.name(x)
    if axes:
        if begin is not None and end is not None:
            b, e = np.ravel(begin).astype(np.int64), np.ravel(end).astype(np.int64)
            starts = [int(b[i]) if sb is None else sb for i, sb, _, _ in spec]
            ends = [(_BIG if b[i] == -1 else int(b[i]) + 1) if sh else
                    int(e[i]) if se is None else se for i, _, se, sh in spec]
            starts, ends = cx.ints(starts), cx.ints(ends)
        else:
            starts, ends = _dynamic_bounds(cx, op, spec)
        r = cx.node("Slice", [r, starts, ends, cx.ints(axes), cx.ints(steps)],
                    f"{op.name}/slice")
    if unsqueeze:
        r = cx.node("Unsqueeze", [r, cx.ints(unsqueeze)], f"{op.name}/newaxis")
    if squeeze:
        r = cx.node("Squeeze", [r, cx.ints(squeeze)], f"{op.name}/shrink")
    return [cx.node("Identity", [r], op.name)]


def _dynamic_bounds(cx, op, spec) -> tuple:
    """Slice starts/ends from begin/end tensors computed at run time (a loop's index)."""
    idx = cx.ints([i for i, *_ in spec])
    b = cx.node("Gather", [_i64(cx, op.inputs[1]), idx], f"{op.name}/begin")
    e = cx.node("Gather", [_i64(cx, op.inputs[2]), idx], f"{op.name}/end")
    big = cx.const(np.asarray(_BIG, np.int64))
    last = cx.node("Equal", [b, cx.const(np.asarray(-1, np.int64))], f"{op.name}/is_last",
                   dtype=bool)
    one_more = cx.node("Where", [last, big, cx.node("Add", [b, cx.const(np.asarray(
        1, np.int64))], f"{op.name}/next")], f"{op.name}/shrink_end")

    def pick(fixed: list, dynamic: str, hint: str) -> str:
        use = [f is not None for f in fixed]
        if not any(use):
            return dynamic
        vals = cx.ints([0 if f is None else f for f in fixed])
        return cx.node("Where", [cx.const(np.asarray(use)), vals, dynamic], hint)
    starts = pick([sb for _, sb, _, _ in spec], b, f"{op.name}/starts")
    ends = pick([se for _, _, se, _ in spec], e, f"{op.name}/ends")
    shrink = [sh for *_, sh in spec]
    if any(shrink):
        ends = cx.node("Where", [cx.const(np.asarray(shrink)), one_more, ends],
                       f"{op.name}/ends_shrunk")
    return starts, ends


@converts("ReverseV2")
def _reverse(cx, op):
    axes = [int(a) for a in op.attrs["axis"]]
    if not axes:
        return [cx.node("Identity", [cx.name(op.inputs[0])], op.name)]
    n = len(axes)
    return [cx.node("Slice", [cx.name(op.inputs[0]), cx.ints([-1] * n), cx.ints([_SMALL] * n),
                              cx.ints(axes), cx.ints([-1] * n)], op.name)]


@converts("Repeat")
def _repeat(cx, op):
    """np.repeat with one repeat count: each element copied ``r`` times along ``axis``."""
    x = op.inputs[0]
    r = _const_ints(cx, op, op.inputs[1], "repeats")
    if len(r) != 1:
        raise unsupported(op, "repeats that differ per element")
    axis = op.attrs.get("axis")
    name = cx.name(x)
    rank = x.shape.rank
    if axis is None:
        name, rank, axis = cx.node("Reshape", [name, cx.ints([-1])], f"{op.name}/flat"), 1, 0
    if rank is None:
        raise unsupported(op, "a Repeat of a tensor of unknown rank")
    axis = axis % rank
    grown = cx.node("Unsqueeze", [name, cx.ints([axis + 1])], f"{op.name}/expand")
    tiles = [1] * (rank + 1)
    tiles[axis + 1] = r[0]
    tiled = cx.node("Tile", [grown, cx.ints(tiles)], f"{op.name}/tile")
    scale = [1] * rank
    scale[axis] = r[0]
    shape = cx.node("Mul", [cx.node("Shape", [name], f"{op.name}/shape", dtype=np.int64),
                            cx.ints(scale)], f"{op.name}/target")
    return [cx.node("Reshape", [tiled, shape], op.name)]


@converts("OneHot")
def _one_hot(cx, op):
    """(indices[..., None] == range(depth)) picks on/off values; a negative or too large
    index is all off, as in TensorFlow (ONNX's OneHot would count negatives from the end)."""
    idx, depth, on, off = (cx.name(t) for t in op.inputs)
    axis = int(op.attrs.get("axis", -1))
    rank = op.inputs[0].shape.rank
    if rank is None:
        raise unsupported(op, "a OneHot of indices of unknown rank")
    idx = cx.cast(idx, np.int64)
    zero, one = (cx.const(np.asarray(v, np.int64)) for v in (0, 1))
    positions = cx.node("Range", [zero, cx.cast(depth, np.int64), one], f"{op.name}/range")
    hot = cx.node("Equal", [cx.node("Unsqueeze", [idx, cx.ints([rank])], f"{op.name}/idx"),
                            positions], f"{op.name}/hot", dtype=bool)
    r = cx.node("Where", [hot, on, off], f"{op.name}/values", dtype=cx.dtype(on))
    if axis in (-1, rank):
        return [cx.node("Identity", [r], op.name)]
    perm = list(range(rank))
    perm.insert(axis, rank)
    return [cx.node("Transpose", [r], op.name, perm=perm)]


@converts("Where")
def _where(cx, op):
    x = cx.name(op.inputs[0])
    if cx.dtype(x) != np.bool_:
        x = cx.node("Not", [cx.node("Equal", [x, cx.const(np.asarray(0, cx.dtype(x)))],
                                    f"{op.name}/zero", dtype=bool)], f"{op.name}/nonzero")
    nz = cx.node("NonZero", [x], f"{op.name}/nz", dtype=np.int64)
    return [cx.node("Transpose", [nz], op.name, perm=[1, 0])]
