"""Connectionist temporal classification: ``ctc_loss`` (dense or sparse labels), the greedy and
beam-search decoders, ``collapse_repeated`` and ``ctc_unique_labels``.

``CTCLoss`` is TensorFlow's op (sparse labels, blank = the last class); ``CTCLossDense`` is
twinflow's fused form of TensorFlow's dense-label path (any blank, padded labels with lengths).
Both return the loss and its gradient wrt the logits, computed together by the forward-backward
recursion of ``ctc_core``; the gradient rule scales that second output, and refuses a second
derivative as TensorFlow does.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.create import range as _range
from ..array.gather import gather
from ..array.join import concat
from ..array.layout import expand_dims, transpose
from ..array.shape import shape
from ..core import convert
from ..math.binary import multiply, subtract
from ..math.cast import cast
from ..math.comparison import less, where
from ..sparse.tensor import SparseTensor
from . import ctc_core

_FLOAT = "T:type=float in [float,double]"


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


def _rank_check(what: str, s: TensorShape, rank: int) -> None:
    if s.rank is not None and s.rank != rank:
        raise _err(f"{what} must be rank {rank}, got shape {s}")


def _loss_infer(inputs, *rest, **attrs):
    _rank_check("inputs", inputs.shape, 3)
    dims = inputs.shape.as_list() if inputs.shape.rank is not None else [None] * 3
    return [(inputs.dtype, TensorShape([dims[1]])), (inputs.dtype, TensorShape(dims))]


def _check_lengths(seq_len: np.ndarray, t_max: int, batch: int) -> None:
    if seq_len.shape != (batch,):
        raise _err(f"len(sequence_length) != batch_size: sequence_length has shape "
                   f"{list(seq_len.shape)}, batch_size is {batch}")
    if (seq_len > t_max).any() or (seq_len < 0).any():
        raise _err(f"sequence_length must be in [0, max_time={t_max}], got "
                   f"{seq_len.tolist()}")


def _check_labels(labels: list, num_classes: int) -> None:
    for b, lab in enumerate(labels):
        if len(lab) and (lab.min() < 0 or lab.max() >= num_classes):
            raise _err(f"labels of batch {b} must be in [0, {num_classes}), got {lab.tolist()}")


def _ctc_grad(op, dloss, dgradient):
    if dgradient is not None:
        raise LookupError("Currently there is no way to take the second derivative of "
                          "ctc_loss due to the fused implementation's interaction with "
                          "gradients")
    if dloss is None:
        return (None,) * len(op.inputs)
    return (multiply(expand_dims(expand_dims(dloss, 0), -1), op.outputs[1]),) + \
        (None,) * (len(op.inputs) - 1)


_CTC_SCHEMA = ("inputs:T, labels_indices:int64, labels_values:int32, sequence_length:int32 -> "
               "loss:T, gradient:T | preprocess_collapse_repeated:bool=False; "
               "ctc_merge_repeated:bool=True; ignore_longer_outputs_than_inputs:bool=False; "
               + _FLOAT)


@register_op("CTCLoss", multi_output=True, schema=_CTC_SCHEMA)
class CTCLoss:
    """CTC loss of sparse labels against time-major logits (blank = the last class)."""

    infer = _loss_infer
    grad = _ctc_grad

    def kernel(inputs, labels_indices, labels_values, sequence_length, *,
               preprocess_collapse_repeated=False, ctc_merge_repeated=True,
               ignore_longer_outputs_than_inputs=False):
        t_max, batch, classes = inputs.shape
        _check_lengths(sequence_length, t_max, batch)
        if labels_indices.ndim != 2 or labels_indices.shape[0] != labels_values.shape[0]:
            raise _err(f"labels_indices must be [N, 2] matching labels_values [N], got "
                       f"{list(labels_indices.shape)} and {list(labels_values.shape)}")
        rows = labels_indices[:, 0] if labels_indices.size else np.zeros(0, np.int64)
        if ((rows < 0) | (rows >= batch)).any():
            raise _err(f"labels_indices batch entries must be in [0, {batch})")
        labels = [labels_values[rows == b].astype(np.int64) for b in range(batch)]
        if preprocess_collapse_repeated:
            labels = [lab[np.r_[True, lab[1:] != lab[:-1]]] if len(lab) else lab
                      for lab in labels]
        _check_labels(labels, classes)
        skip = np.zeros(batch, bool)
        for b, lab in enumerate(labels):
            if not len(lab):
                raise _err(f"Labels length is zero in batch {b}")
            if len(lab) > sequence_length[b]:
                if not ignore_longer_outputs_than_inputs:
                    raise _err(f"Not enough time for target transition sequence (required: "
                               f"{len(lab)}, available: {sequence_length[b]}), batch {b}. "
                               "Set ignore_longer_outputs_than_inputs=True to skip it")
                skip[b] = True
        loss, grad = ctc_core.ctc_loss_and_grad(inputs, labels, sequence_length, classes - 1,
                                                ctc_merge_repeated)
        loss[skip] = 0
        grad[:, skip] = 0
        return loss, grad


@register_op("CTCLossDense", multi_output=True, schema=(
    "logits:T, labels:int32, label_length:int32, logit_length:int32 -> loss:T, gradient:T | "
    f"blank_index:int; {_FLOAT}"))
class CTCLossDense:
    """CTC loss of padded dense labels ``[batch, max_label]`` with lengths, against time-major
    logits; ``blank_index`` any class (negative counts from the end)."""

    def infer(logits, labels, label_length, logit_length, *, blank_index):
        _rank_check("labels", labels.shape, 2)
        return _loss_infer(logits)

    grad = _ctc_grad

    def kernel(logits, labels, label_length, logit_length, *, blank_index):
        t_max, batch, classes = logits.shape
        _check_lengths(logit_length, t_max, batch)
        blank = blank_index + classes if blank_index < 0 else blank_index
        if not 0 <= blank < classes:
            raise _err(f"blank_index {blank_index} out of range for {classes} classes")
        if labels.ndim != 2 or labels.shape[0] != batch or label_length.shape != (batch,):
            raise _err(f"labels must be [batch={batch}, max_label] with label_length "
                       f"[{batch}], got {list(labels.shape)} and {list(label_length.shape)}")
        if (label_length < 0).any() or (label_length > labels.shape[1]).any():
            raise _err(f"label_length must be in [0, {labels.shape[1]}], got "
                       f"{label_length.tolist()}")
        seqs = [labels[b, :label_length[b]].astype(np.int64) for b in range(batch)]
        _check_labels(seqs, classes)
        return ctc_core.ctc_loss_and_grad(logits, seqs, logit_length, blank)


@name_scoped
def ctc_loss(labels: TensorLike, logits: TensorLike, label_length: TensorLike | None,
             logit_length: TensorLike, logits_time_major: bool = True, unique=None,
             blank_index: int | None = None, name: str | None = None) -> Tensor:
    """Connectionist temporal classification loss (softmax applied here).

    Args:
        labels: ``[batch, max_label]`` int padded labels, or a SparseTensor of them.
        logits: ``[frames, batch, classes]`` (or batch-major, see ``logits_time_major``).
        label_length: ``[batch]`` label lengths (None for sparse labels).
        logit_length: ``[batch]`` valid frames per entry.
        logits_time_major: whether ``logits`` is time-major.
        unique: optional ``(unique_y, unique_idx)`` of ``ctc_unique_labels(labels)``; the
            labels are then ``unique_y`` gathered by ``unique_idx``.
        blank_index: the blank class (default 0 for dense labels; required for sparse).
        name: op name.

    Returns:
        ``[batch]`` negative log-likelihoods.
    """
    logits = convert(logits)
    if not logits_time_major:
        logits = transpose(logits, [1, 0, 2])
    logit_length = cast(convert(logit_length), dtypes.int32)
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when `labels` is a "
                             "`SparseTensor`.")
        return _sparse_ctc(labels, logits, logit_length, int(blank_index))
    if label_length is None:
        raise ValueError("tw.nn.ctc_loss: label_length is required for dense labels")
    labels = cast(convert(labels), dtypes.int32)
    if unique is not None:
        labels = cast(gather(unique[0], unique[1], batch_dims=1), dtypes.int32)
    label_length = cast(convert(label_length), dtypes.int32)
    return bind(CTCLossDense, [logits, labels, label_length, logit_length],
                {"blank_index": 0 if blank_index is None else int(blank_index)})[0]


def _sparse_ctc(labels: SparseTensor, logits: Tensor, logit_length: Tensor, blank: int):
    """TensorFlow's sparse path: move the blank class last, shift labels above it down."""
    classes = shape(logits)[2]
    b = classes + blank if blank < 0 else convert(blank)
    perm = concat([_range(b), _range(b + 1, classes), expand_dims(b, 0)], 0)
    logits = gather(logits, perm, axis=2)
    values = cast(labels.values, dtypes.int32)
    b32 = cast(b, dtypes.int32)
    values = where(less(values, b32), values, subtract(values, 1))
    return ctc_loss_v1(SparseTensor(labels.indices, values, labels.dense_shape), logits,
                       logit_length)


@name_scoped
def ctc_loss_v1(labels: SparseTensor, inputs: TensorLike, sequence_length: TensorLike,
                preprocess_collapse_repeated: bool = False, ctc_merge_repeated: bool = True,
                ignore_longer_outputs_than_inputs: bool = False, time_major: bool = True,
                logits=None, name: str | None = None) -> Tensor:
    """TensorFlow 1's CTC loss: sparse labels, blank = the last class
    (``tw.compat.v1.nn.ctc_loss``).

    Args:
        labels: a SparseTensor of int32 labels ``[batch, max_label]``.
        inputs: ``[frames, batch, classes]`` logits (batch-major if not ``time_major``).
        sequence_length: ``[batch]`` valid frames.
        preprocess_collapse_repeated: merge repeated labels before the loss.
        ctc_merge_repeated: standard CTC; False: repeated frames are separate labels.
        ignore_longer_outputs_than_inputs: a too-long label gives loss 0 instead of an error.
        time_major: whether ``inputs`` is time-major.
        logits: alias of ``inputs``.
        name: op name.

    Returns:
        ``[batch]`` negative log-likelihoods.
    """
    if not isinstance(labels, SparseTensor):
        raise TypeError("tw.compat.v1.nn.ctc_loss: labels must be a SparseTensor")
    inputs = convert(inputs if logits is None else logits)
    if not time_major:
        inputs = transpose(inputs, [1, 0, 2])
    attrs = {"preprocess_collapse_repeated": bool(preprocess_collapse_repeated),
             "ctc_merge_repeated": bool(ctc_merge_repeated),
             "ignore_longer_outputs_than_inputs": bool(ignore_longer_outputs_than_inputs)}
    return bind(CTCLoss, [inputs, labels.indices, cast(labels.values, dtypes.int32),
                          cast(convert(sequence_length), dtypes.int32)], attrs)[0]


def _decoded_infer(top_paths: int, dtype, batch):
    idx = [(dtypes.int64, TensorShape([None, 2]))] * top_paths
    val = [(dtypes.int64, TensorShape([None]))] * top_paths
    shp = [(dtypes.int64, TensorShape([2]))] * top_paths
    return idx + val + shp + [(dtype, TensorShape([batch, top_paths]))]


def _batch_of(inputs) -> int | None:
    _rank_check("inputs", inputs.shape, 3)
    return inputs.shape[1] if inputs.shape.rank == 3 else None


@register_op("CTCGreedyDecoder", multi_output=True, schema=(
    "inputs:T, sequence_length:int32 -> decoded_indices:int64, decoded_values:int64, "
    f"decoded_shape:int64, log_probability:T | merge_repeated:bool=False; blank_index:int=-1; "
    f"{_FLOAT}"))
class CTCGreedyDecoder:
    """Best-path decoding of time-major logits."""

    def infer(inputs, sequence_length, *, merge_repeated=False, blank_index=-1):
        return _decoded_infer(1, inputs.dtype, _batch_of(inputs))

    def kernel(inputs, sequence_length, *, merge_repeated=False, blank_index=-1):
        t_max, batch, classes = inputs.shape
        _check_lengths(sequence_length, t_max, batch)
        blank = blank_index + classes if blank_index < 0 else blank_index
        if not 0 <= blank < classes:
            raise _err(f"blank_index {blank_index} out of range for {classes} classes")
        seqs, log_prob = ctc_core.greedy_decode(inputs, sequence_length, blank, merge_repeated)
        return ctc_core.to_sparse(seqs) + (log_prob,)


@register_op("CTCBeamSearchDecoder", multi_output=True, schema=(
    "inputs:T, sequence_length:int32 -> decoded_indices:N*int64, decoded_values:N*int64, "
    "decoded_shape:N*int64, log_probability:T | beam_width:int >=1; top_paths:int >=1; "
    f"merge_repeated:bool=True; {_FLOAT}"))
class CTCBeamSearchDecoder:
    """Prefix beam search over time-major logits (blank = the last class)."""

    def infer(inputs, sequence_length, *, beam_width, top_paths, merge_repeated=True):
        if top_paths > beam_width:
            raise _err(f"top_paths ({top_paths}) must be <= beam_width ({beam_width})")
        return _decoded_infer(top_paths, inputs.dtype, _batch_of(inputs))

    def kernel(inputs, sequence_length, *, beam_width, top_paths, merge_repeated=True):
        t_max, batch, _ = inputs.shape
        _check_lengths(sequence_length, t_max, batch)
        paths, log_prob = ctc_core.beam_search_decode(inputs, sequence_length, beam_width,
                                                      top_paths, merge_repeated)
        parts = [ctc_core.to_sparse(p) for p in paths]
        return tuple(p[0] for p in parts) + tuple(p[1] for p in parts) + \
            tuple(p[2] for p in parts) + (log_prob,)


def ctc_greedy_decoder(inputs: TensorLike, sequence_length: TensorLike,
                       merge_repeated: bool = True, blank_index: int | None = None) -> tuple:
    """Greedy (best-path) CTC decoding.

    Args:
        inputs: ``[max_time, batch, classes]`` logits.
        sequence_length: ``[batch]`` valid steps.
        merge_repeated: merge runs of one class.
        blank_index: the blank class (default: the last; negative counts from the end).

    Returns:
        ``([SparseTensor decoded], log_probability [batch, 1])``.
    """
    out = bind(CTCGreedyDecoder, [convert(inputs),
                                  cast(convert(sequence_length), dtypes.int32)],
               {"merge_repeated": bool(merge_repeated),
                "blank_index": -1 if blank_index is None else int(blank_index)})
    return [SparseTensor(out[0], out[1], out[2])], out[3]


def ctc_beam_search_decoder(inputs: TensorLike, sequence_length: TensorLike,
                            beam_width: int = 100, top_paths: int = 1) -> tuple:
    """Beam-search CTC decoding (repeated labels of a path are kept, TensorFlow 2's rule).

    Args:
        inputs: ``[max_time, batch, classes]`` logits (blank = the last class).
        sequence_length: ``[batch]`` valid steps.
        beam_width: beams kept per step.
        top_paths: paths returned.

    Returns:
        ``(decoded: list of top_paths SparseTensors, log_probability [batch, top_paths])``.
    """
    return ctc_beam_search_decoder_v1(inputs, sequence_length, beam_width, top_paths, False)


def ctc_beam_search_decoder_v1(inputs: TensorLike, sequence_length: TensorLike,
                               beam_width: int = 100, top_paths: int = 1,
                               merge_repeated: bool = True) -> tuple:
    """TensorFlow 1's beam-search decoder (``tw.compat.v1.nn.ctc_beam_search_decoder``).

    Args:
        inputs: ``[max_time, batch, classes]`` logits (blank = the last class).
        sequence_length: ``[batch]`` valid steps.
        beam_width: beams kept per step.
        top_paths: paths returned.
        merge_repeated: merge equal consecutive labels of each returned path.

    Returns:
        ``(decoded: list of top_paths SparseTensors, log_probability [batch, top_paths])``.
    """
    k = int(top_paths)
    out = bind(CTCBeamSearchDecoder, [convert(inputs),
                                      cast(convert(sequence_length), dtypes.int32)],
               {"beam_width": int(beam_width), "top_paths": k,
                "merge_repeated": bool(merge_repeated)})
    decoded = [SparseTensor(out[i], out[k + i], out[2 * k + i]) for i in range(k)]
    return decoded, out[3 * k]


def _no_grad(op, *dys):
    return (None,) * len(op.inputs)


@register_op("CTCCollapseRepeated", multi_output=True, schema=(
    "labels:T, seq_length:int32 -> collapsed_labels:T, new_seq_length:int32 | "
    "T:type in [int32,int64]"))
class CTCCollapseRepeated:
    """Merges runs of equal labels of each row (within ``seq_length``), padding with 0."""

    def infer(labels, seq_length):
        _rank_check("labels", labels.shape, 2)
        batch = labels.shape[0] if labels.shape.rank == 2 else None
        return [(labels.dtype, TensorShape([batch, None])),
                (dtypes.int32, TensorShape([batch]))]

    grad = _no_grad

    def kernel(labels, seq_length):
        if seq_length.shape != labels.shape[:1]:
            raise _err(f"seq_length must be [batch={labels.shape[0]}], got "
                       f"{list(seq_length.shape)}")
        keep = np.ones(labels.shape, bool)
        keep[:, 1:] = labels[:, 1:] != labels[:, :-1]
        keep &= np.arange(labels.shape[1])[None, :] < seq_length[:, None]
        new_len = keep.sum(1).astype(np.int32)
        out = np.zeros((labels.shape[0], int(new_len.max(initial=0))), labels.dtype)
        out[np.arange(out.shape[1])[None, :] < new_len[:, None]] = labels[keep]
        return out, new_len


@register_op("CTCUniqueLabels", multi_output=True,
             schema="labels:T -> unique_y:T, unique_idx:int32 | T:type in [int32,int64]")
class CTCUniqueLabels:
    """Per row: the distinct labels in order of appearance (padded with 0) and, for each
    label, its position among them."""

    def infer(labels):
        _rank_check("labels", labels.shape, 2)
        return [(labels.dtype, labels.shape), (dtypes.int32, labels.shape)]

    grad = _no_grad

    def kernel(labels):
        uniq = np.zeros_like(labels)
        idx = np.zeros(labels.shape, np.int32)
        for b, row in enumerate(labels):
            seen: dict = {}
            for i, v in enumerate(row.tolist()):
                idx[b, i] = seen.setdefault(v, len(seen))
            uniq[b, :len(seen)] = list(seen)
        return uniq, idx


def collapse_repeated(labels: TensorLike, seq_length: TensorLike,
                      name: str | None = None) -> tuple:
    """Merges repeated labels of each row into one.

    Args:
        labels: ``[batch, max_len]`` int32/int64 labels.
        seq_length: ``[batch]`` lengths.
        name: op name.

    Returns:
        ``(collapsed_labels [batch, new_max_len] padded with 0, new_seq_length [batch])``.
    """
    return tuple(bind(CTCCollapseRepeated, [convert(labels, dtype_hint=dtypes.int32),
                                            cast(convert(seq_length), dtypes.int32)],
                      name=name))


def ctc_unique_labels(labels: TensorLike, name: str | None = None) -> tuple:
    """The distinct labels of each row and each label's index among them.

    Args:
        labels: ``[batch, max_len]`` int32/int64 labels.
        name: op name.

    Returns:
        ``(unique_y [batch, max_len] padded with 0, unique_idx [batch, max_len] int32)``.
    """
    return tuple(bind(CTCUniqueLabels, [convert(labels, dtype_hint=dtypes.int32)], name=name))
