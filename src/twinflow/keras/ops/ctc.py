"""``keras.ops.ctc_loss`` and ``keras.ops.ctc_decode`` (batch-major Keras forms of
``tw.nn``'s CTC loss and decoders; one CTC implementation, in ``ops/nn/ctc.py``)."""
from __future__ import annotations

from ...core import dtypes
from ...ops import array_ops as A
from ...ops import math_ops as MO
from ...ops.nn import ctc as _ctc
from ...ops.sparse import ops as _sparse_ops
from ...ops.sparse.tensor import SparseTensor
from ..settings import epsilon
from ._common import result_type, tensor

__all__ = ["ctc_loss", "ctc_decode"]


def ctc_loss(target, output, target_length, output_length, mask_index: int = 0):
    """CTC loss of batch-major logits.

    Args:
        target: ``(batch, max_label_length)`` integer labels.
        output: ``(batch, max_time, num_classes)`` logits (softmax is applied here).
        target_length: ``(batch,)`` label lengths.
        output_length: ``(batch,)`` logit lengths.
        mask_index: the blank class.

    Returns:
        ``(batch,)`` losses (float64 inputs compute in float32, returned as float64).
    """
    target = MO.cast(tensor(target), dtypes.int32)
    output = tensor(output)
    result = result_type(output.dtype, dtypes.float32)
    compute = dtypes.float32 if result is dtypes.float64 else result
    loss = _ctc.ctc_loss(target, MO.cast(output, compute), tensor(target_length),
                         tensor(output_length), logits_time_major=False,
                         blank_index=mask_index)
    return MO.cast(loss, result)


def _dense(decoded: list, batch, steps) -> list:
    """Each decoded SparseTensor as a ``(batch, steps)`` array padded with -1."""
    shape = MO.cast(A.stack([batch, steps]), dtypes.int64)
    return [_sparse_ops.to_dense(SparseTensor(sp.indices, sp.values, shape), default_value=-1)
            for sp in decoded]


def ctc_decode(inputs, sequence_lengths, strategy: str = "greedy", beam_width: int = 100,
               top_paths: int = 1, merge_repeated: bool = True, mask_index: int = 0) -> tuple:
    """Decodes batch-major CTC outputs.

    Args:
        inputs: ``(batch, max_time, num_classes)`` logits or log-probabilities.
        sequence_lengths: ``(batch,)`` lengths.
        strategy: ``'greedy'`` or ``'beam_search'``.
        beam_width: the beam width (beam search).
        top_paths: how many paths (beam search).
        merge_repeated: merge repeated labels (greedy).
        mask_index: the blank class.

    Returns:
        ``(decoded, scores)``: ``decoded`` is ``(top_paths, batch, max_time)`` int32 padded
        with -1; ``scores`` the paths' (negative) log-probabilities.
    """
    x = tensor(inputs)
    shape = A.shape(x)
    batch, steps = shape[0], shape[1]
    x = A.transpose(x, [1, 0, 2])
    x = MO.cast(x, result_type(x.dtype, dtypes.float32))
    lengths = MO.cast(tensor(sequence_lengths), dtypes.int32)
    if strategy == "greedy":
        decoded, scores = _ctc.ctc_greedy_decoder(x, lengths, merge_repeated=merge_repeated,
                                                  blank_index=mask_index)
    elif strategy == "beam_search":
        if mask_index is not None:   # the decoder's blank is the last class
            x = A.concat([x[..., :mask_index], x[..., mask_index + 1:],
                          x[..., mask_index:mask_index + 1]], -1)
        decoded, scores = _ctc.ctc_beam_search_decoder(x, lengths, beam_width=beam_width,
                                                       top_paths=top_paths)
    else:
        raise ValueError(f"Invalid strategy {strategy}. Supported values are 'greedy' and "
                         "'beam_search'.")
    dense = MO.cast(A.stack(_dense(list(decoded), batch, steps), 0), dtypes.int32)
    if strategy == "beam_search" and mask_index is not None:
        blank = mask_index if mask_index >= 0 else mask_index + x.shape.as_list()[-1]
        dense = MO.where(MO.greater_equal(dense, blank), dense + 1, dense)
    return dense, scores


def ctc_label_dense_to_sparse(labels, label_lengths) -> SparseTensor:
    """The first ``label_lengths[i]`` labels of each row of ``labels``, as a SparseTensor.

    Args:
        labels: ``(batch, max_label_length)`` dense labels.
        label_lengths: ``(batch,)`` lengths.

    Returns:
        A SparseTensor of ``labels``' shape.
    """
    labels = tensor(labels)
    lengths = MO.cast(tensor(label_lengths), dtypes.int32)
    shape = A.shape(labels)
    mask = MO.less(A.expand_dims(A.range(shape[1]), 0), A.expand_dims(lengths, 1))
    indices = MO.cast(MO.where(mask), dtypes.int64)
    values = A.gather_nd(labels, indices)
    return SparseTensor(indices, values, MO.cast(shape, dtypes.int64))


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """tf.keras 2's CTC loss of softmax outputs: ``(batch, 1)`` losses.

    Args:
        y_true: ``(batch, max_label_length)`` labels.
        y_pred: ``(batch, max_time, num_classes)`` softmax outputs (the blank is the last
            class).
        input_length: ``(batch, 1)`` output lengths.
        label_length: ``(batch, 1)`` label lengths.

    Returns:
        ``(batch, 1)`` losses.
    """
    label_length = MO.cast(A.squeeze(tensor(label_length), axis=[-1]), dtypes.int32)
    input_length = MO.cast(A.squeeze(tensor(input_length), axis=[-1]), dtypes.int32)
    sparse = ctc_label_dense_to_sparse(MO.cast(tensor(y_true), dtypes.int32), label_length)
    logp = MO.log(A.transpose(tensor(y_pred), [1, 0, 2]) + epsilon())
    return A.expand_dims(_ctc.ctc_loss_v1(sparse, logp, input_length), 1)


def legacy_ctc_decode(y_pred, input_length, greedy: bool = True, beam_width: int = 100,
                      top_paths: int = 1) -> tuple:
    """tf.keras 2's CTC decoding of softmax outputs (the blank is the last class).

    Args:
        y_pred: ``(batch, max_time, num_classes)`` softmax outputs.
        input_length: ``(batch,)`` lengths.
        greedy: greedy decoding, else beam search (TensorFlow 1's, merging repeats).
        beam_width: the beam width.
        top_paths: how many paths.

    Returns:
        ``(list of (batch, max_time) decodings padded with -1, log-probabilities)``.
    """
    x = tensor(y_pred)
    shape = A.shape(x)
    logp = MO.log(A.transpose(x, [1, 0, 2]) + epsilon())
    lengths = MO.cast(tensor(input_length), dtypes.int32)
    if greedy:
        decoded, log_prob = _ctc.ctc_greedy_decoder(logp, lengths)
    else:
        decoded, log_prob = _ctc.ctc_beam_search_decoder_v1(
            logp, lengths, beam_width=beam_width, top_paths=top_paths)
    return _dense(list(decoded), shape[0], shape[1]), log_prob
