"""Candidate sampling and the sampled losses: the ``*_candidate_sampler`` ops,
``compute_accidental_hits``, ``nce_loss`` and ``sampled_softmax_loss``.

A sampler draws ``num_sampled`` class ids from a fixed distribution over ``[0, range_max)``
(with ``unique``: without repeats, counting the tries) and reports, for the true and the
sampled classes, how often each would be expected in a draw (TensorFlow's formulas: ``n * p``,
or ``1 - (1 - p) ** tries`` when unique). The losses are compositions of ``embedding_lookup``,
``matmul`` and the cross-entropy ops, so they are differentiable in weights, biases and inputs.
"""
from __future__ import annotations

import math
import threading

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.join import concat
from ..array.layout import expand_dims, stop_gradient
from ..array.shape import reshape, shape
from ..core import convert
from ..linalg_ops import matmul
from ..math.cast import cast
from ..math.comparison import equal
from ..math.reduce import reduce_any, reduce_sum
from ..math.unary import log
from ..random.seeds import _seed_attrs, _stream
from .losses import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits
from .normalization import embedding_lookup

_SAMPLER_SCHEMA = ("true_classes:int64 -> sampled_candidates:int64, true_expected_count:float, "
                   "sampled_expected_count:float | num_true:int >=1; num_sampled:int >=1; "
                   "unique:bool; range_max:int >=1; probs:list(float); seed:int; seed2:int")


def _sampler_infer(true_classes, *, num_true, num_sampled, unique, range_max, probs, seed,
                   seed2):
    s = true_classes.shape
    if s.rank is not None and s.rank != 2:
        raise InvalidArgumentError(None, None, f"true_classes must be a matrix [batch, "
                                               f"num_true], got shape {s}")
    batch = s[0] if s.rank == 2 else None
    f32 = dtypes.float32
    return [(dtypes.int64, TensorShape([num_sampled])), (f32, TensorShape([batch, num_true])),
            (f32, TensorShape([num_sampled]))]


def _expected(p: np.ndarray, num_sampled: int, tries: int, unique: bool) -> np.ndarray:
    if not unique:
        return (num_sampled * p).astype(np.float32)
    return (-np.expm1(tries * np.log1p(-np.minimum(p, 1.0)))).astype(np.float32)


def _sampler_kernel(true_classes, *, num_true, num_sampled, unique, range_max, probs, seed,
                    seed2):
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise InvalidArgumentError(None, None, f"true_classes must be [batch, num_true="
                                               f"{num_true}], got shape "
                                               f"{list(true_classes.shape)}")
    if unique and num_sampled > range_max:
        raise InvalidArgumentError(None, None, f"num_sampled ({num_sampled}) must be <= "
                                               f"range_max ({range_max}) when unique")
    p = np.asarray(probs, np.float64)
    gen = _stream("candidate_sampler", np.int64, seed, seed2)
    if unique:
        picked: dict = {}
        tries = 0
        while len(picked) < num_sampled:
            for c in gen.choice(range_max, size=2 * num_sampled, p=p):
                tries += 1
                picked.setdefault(int(c), None)
                if len(picked) == num_sampled:
                    break
        sampled = np.fromiter(picked, np.int64, num_sampled)
    else:
        tries = num_sampled
        sampled = gen.choice(range_max, size=num_sampled, p=p).astype(np.int64)
    tc = np.clip(true_classes, 0, range_max - 1)
    return (sampled, _expected(p[tc], num_sampled, tries, unique),
            _expected(p[sampled], num_sampled, tries, unique))


def _no_grad(op, *dys):
    return None


CandidateSampler = register_op("CandidateSampler", multi_output=True, stateful=True,
                               schema=_SAMPLER_SCHEMA)(type("CandidateSampler", (), {
                                   "__doc__": "Draws class ids from a fixed distribution "
                                              "``probs`` over [0, range_max).",
                                   "infer": _sampler_infer, "kernel": _sampler_kernel,
                                   "grad": _no_grad}))


def _sample(true_classes, num_true, num_sampled, unique, range_max, probs, seed) -> tuple:
    tc = cast(convert(true_classes), dtypes.int64)
    attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
             "range_max": int(range_max), "probs": [float(v) for v in probs],
             **_seed_attrs(seed)}
    return tuple(bind(CandidateSampler, [tc], attrs))


_SAMPLER_ARGS = """
    Args:
        true_classes: ``[batch, num_true]`` int64 target classes.
        num_true: the number of targets per example.
        num_sampled: how many classes to sample.
        unique: sample without repeats (then ``num_sampled <= range_max``).
        range_max: the number of classes.
        seed: the op seed.
        name: op name.

    Returns:
        ``(sampled_candidates [num_sampled] int64, true_expected_count [batch, num_true],
        sampled_expected_count [num_sampled])`` (float32 counts).
    """


def uniform_candidate_sampler(true_classes: TensorLike, num_true: int, num_sampled: int,
                              unique: bool, range_max: int, seed: int | None = None,
                              name: str | None = None) -> tuple:
    """Samples classes uniformly from ``[0, range_max)``
    (``tw.random.uniform_candidate_sampler``).
    """
    return _sample(true_classes, num_true, num_sampled, unique, range_max,
                   np.full(int(range_max), 1.0 / int(range_max)), seed)


def log_uniform_candidate_sampler(true_classes: TensorLike, num_true: int, num_sampled: int,
                                  unique: bool, range_max: int, seed: int | None = None,
                                  name: str | None = None) -> tuple:
    """Samples classes by Zipf's law, ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``
    (``tw.random.log_uniform_candidate_sampler``; ids should be sorted by frequency).
    """
    c = np.arange(int(range_max), dtype=np.float64)
    p = (np.log(c + 2) - np.log(c + 1)) / math.log(int(range_max) + 1)
    return _sample(true_classes, num_true, num_sampled, unique, range_max, p, seed)


def fixed_unigram_candidate_sampler(true_classes: TensorLike, num_true: int, num_sampled: int,
                                    unique: bool, range_max: int, vocab_file: str = "",
                                    distortion: float = 1.0, num_reserved_ids: int = 0,
                                    num_shards: int = 1, shard: int = 0, unigrams=(),
                                    seed: int | None = None, name: str | None = None) -> tuple:
    """Samples classes by given unigram counts raised to ``distortion``
    (``tw.random.fixed_unigram_candidate_sampler``).

    Args:
        true_classes: ``[batch, num_true]`` int64 target classes.
        num_true: the number of targets per example.
        num_sampled: how many classes to sample.
        unique: sample without repeats.
        range_max: the number of classes (``num_reserved_ids + len(unigrams)``).
        vocab_file: not supported (pass ``unigrams``); a non-empty value raises.
        distortion: the exponent applied to each count.
        num_reserved_ids: leading ids with probability 0.
        num_shards: only 1 is supported.
        shard: only 0 is supported.
        unigrams: the counts of the ids after the reserved ones.
        seed: the op seed.
        name: op name.

    Returns:
        ``(sampled_candidates, true_expected_count, sampled_expected_count)``.
    """
    if vocab_file or num_shards != 1 or shard != 0:
        raise NotImplementedError("tw.random.fixed_unigram_candidate_sampler: vocab_file and "
                                  "sharding are not supported; pass unigrams")
    counts = np.concatenate([np.zeros(int(num_reserved_ids)),
                             np.asarray(unigrams, np.float64) ** float(distortion)])
    if counts.size != int(range_max) or counts.sum() <= 0:
        raise InvalidArgumentError(None, None, f"fixed_unigram_candidate_sampler: "
                                               f"num_reserved_ids + len(unigrams) = {counts.size}"
                                               f" must equal range_max = {range_max}, with a "
                                               "positive total")
    return _sample(true_classes, num_true, num_sampled, unique, range_max,
                   counts / counts.sum(), seed)


# The learned distribution of each LearnedUnigramCandidateSampler, by its attributes (as
# TensorFlow keeps it in the op's kernel instance, which eager execution caches by attrs):
# every class starts with count 1; each call adds the true classes it saw after sampling.
_LEARNED: dict = {}
_LEARNED_LOCK = threading.Lock()


def _learned_kernel(true_classes, *, num_true, num_sampled, unique, range_max, seed, seed2):
    key = (num_true, num_sampled, unique, range_max, seed, seed2)
    with _LEARNED_LOCK:
        counts = _LEARNED.setdefault(key, np.ones(range_max, np.float64))
        probs = counts / counts.sum()
        out = _sampler_kernel(true_classes, num_true=num_true, num_sampled=num_sampled,
                              unique=unique, range_max=range_max, probs=list(probs),
                              seed=seed, seed2=seed2)
        seen = true_classes[(true_classes >= 0) & (true_classes < range_max)]
        np.add.at(counts, seen.astype(np.intp), 1.0)
    return out


LearnedUnigramCandidateSampler = register_op(
    "LearnedUnigramCandidateSampler", multi_output=True, stateful=True,
    schema=_SAMPLER_SCHEMA.replace("; probs:list(float)", ""))(type(
        "LearnedUnigramCandidateSampler", (), {
            "__doc__": "Draws class ids from the unigram distribution of the true classes "
                       "seen so far (every class starts with count 1).",
            "infer": lambda true_classes, **attrs: _sampler_infer(true_classes, probs=(),
                                                                  **attrs),
            "kernel": _learned_kernel, "grad": _no_grad}))


def learned_unigram_candidate_sampler(true_classes: TensorLike, num_true: int,
                                      num_sampled: int, unique: bool, range_max: int,
                                      seed: int | None = None, name: str | None = None
                                      ) -> tuple:
    """Samples classes from the distribution of the true classes seen so far
    (``tw.random.learned_unigram_candidate_sampler``; counts start at 1 per class and grow by
    each call's ``true_classes``).

    Args:
        true_classes: ``[batch, num_true]`` int64 target classes.
        num_true: the number of targets per example.
        num_sampled: how many classes to sample.
        unique: sample without repeats.
        range_max: the number of classes.
        seed: the op seed.
        name: op name.

    Returns:
        ``(sampled_candidates, true_expected_count, sampled_expected_count)``.
    """
    tc = cast(convert(true_classes), dtypes.int64)
    attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
             "range_max": int(range_max), **_seed_attrs(seed)}
    return tuple(bind(LearnedUnigramCandidateSampler, [tc], attrs, name=name))


def all_candidate_sampler(true_classes: TensorLike, num_true: int, num_sampled: int,
                          unique: bool, seed: int | None = None, name: str | None = None) -> tuple:
    """Returns every class ``0..num_sampled-1``, each expected once
    (``tw.random.all_candidate_sampler``; for testing).

    Args:
        true_classes: ``[batch, num_true]`` int64 target classes.
        num_true: the number of targets per example.
        num_sampled: the number of classes.
        unique: ignored by TensorFlow's op too (every class is returned once).
        seed: unused (nothing is random).
        name: op name.

    Returns:
        ``(range(num_sampled), ones [batch, num_true], ones [num_sampled])``.
    """
    tc = cast(convert(true_classes), dtypes.int64)
    n = int(num_sampled)
    ones_true = cast(equal(tc, tc), dtypes.float32)
    return (convert(np.arange(n, dtype=np.int64)), ones_true,
            convert(np.ones(n, np.float32)))


for _fn in (uniform_candidate_sampler, log_uniform_candidate_sampler):
    _fn.__doc__ += _SAMPLER_ARGS


def compute_accidental_hits(true_classes: TensorLike, sampled_candidates: TensorLike,
                            num_true: int, seed: int | None = None,
                            name: str | None = None) -> tuple:
    """Where a sampled class equals one of an example's true classes
    (``tw.nn.compute_accidental_hits``).

    Args:
        true_classes: ``[batch, num_true]`` int64.
        sampled_candidates: ``[num_sampled]`` int64.
        num_true: the number of targets per example.
        seed: unused (nothing is random).
        name: op name.

    Returns:
        ``(indices, ids, weights)``: the example index and sampled position of each hit, and
        ``-FLT_MAX`` weights to add to those logits.
    """
    tc = cast(convert(true_classes), dtypes.int64)
    sc = cast(convert(sampled_candidates), dtypes.int64)
    hits = bind(AccidentalHits, [tc, sc])
    return hits[:, 0], cast(hits[:, 1], dtypes.int64), \
        cast(hits[:, 0], dtypes.float32) * 0 - np.finfo(np.float32).max


@register_op("AccidentalHits", schema="true_classes:int64, sampled:int64 -> hits:int32")
class AccidentalHits:
    """``[n_hits, 2]``: (example, sampled position) pairs where the sampled id is a true one."""

    def infer(true_classes, sampled):
        return dtypes.int32, TensorShape([None, 2])

    def kernel(true_classes, sampled):
        m = np.any(true_classes[:, :, None] == sampled[None, None, :], axis=1)
        return np.argwhere(m).astype(np.int32).reshape(-1, 2)

    grad = _no_grad


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, subtract_log_q, remove_accidental_hits, seed):
    """(logits, labels) ``[batch, num_true + num_sampled]`` of TensorFlow's
    ``_compute_sampled_logits``."""
    if isinstance(weights, (list, tuple)):
        weights = concat(list(weights), 0) if len(weights) > 1 else weights[0]
    x = convert(inputs)
    labels = cast(convert(labels), dtypes.int64)
    if labels.shape.rank == 1:
        labels = expand_dims(labels, -1)
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True,
                                                       num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (stop_gradient(v) for v in sampled_values)
    sampled = cast(sampled, dtypes.int64)
    labels_flat = reshape(labels, [-1])
    w = convert(weights)
    true_w = embedding_lookup(w, labels_flat)                        # [batch * num_true, dim]
    sampled_w = embedding_lookup(w, sampled)                         # [num_sampled, dim]
    b = convert(biases)
    true_b = reshape(embedding_lookup(b, labels_flat), [-1, num_true])
    sampled_b = embedding_lookup(b, sampled)
    # [batch, num_true, dim] (dim may be unknown until run time)
    true_w = reshape(true_w, concat([[-1, num_true], shape(true_w)[1:]], 0))
    true_logits = reduce_sum(expand_dims(x, 1) * true_w, -1) + true_b
    sampled_logits = matmul(x, sampled_w, transpose_b=True) + sampled_b
    if remove_accidental_hits:
        hit = reduce_any(equal(expand_dims(labels, -1), reshape(sampled, [1, 1, -1])), axis=1)
        sampled_logits = sampled_logits + cast(hit, x.dtype) * (-np.finfo(np.float32).max)
    if subtract_log_q:
        true_logits = true_logits - log(cast(true_expected, x.dtype))
        sampled_logits = sampled_logits - log(cast(sampled_expected, x.dtype))
    logits = concat([true_logits, sampled_logits], 1)
    out_labels = concat([cast(equal(true_logits, true_logits), x.dtype) / num_true,
                         sampled_logits * 0], 1)
    return logits, stop_gradient(out_labels)


@name_scoped
def nce_loss(weights: TensorLike, biases: TensorLike, labels: TensorLike, inputs: TensorLike,
             num_sampled: int, num_classes: int, num_true: int = 1, sampled_values=None,
             remove_accidental_hits: bool = False, name: str = "nce_loss") -> Tensor:
    """Noise-contrastive estimation loss per example (``tw.nn.nce_loss``).

    Args:
        weights: ``[num_classes, dim]`` class embeddings (or a list of shards, concatenated).
        biases: ``[num_classes]`` class biases.
        labels: ``[batch, num_true]`` int64 target classes.
        inputs: ``[batch, dim]`` activations.
        num_sampled: negative classes to sample per batch.
        num_classes: the number of classes.
        num_true: targets per example.
        sampled_values: a sampler's result to use; default ``log_uniform_candidate_sampler``
            (unique).
        remove_accidental_hits: push sampled classes that are true ones out of the loss.

    Returns:
        ``[batch]`` losses (sum of sigmoid cross-entropies over true and sampled classes).
    """
    logits, lab = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                  num_true, sampled_values, True, remove_accidental_hits, None)
    return reduce_sum(sigmoid_cross_entropy_with_logits(labels=lab, logits=logits), 1)


@name_scoped
def sampled_softmax_loss(weights: TensorLike, biases: TensorLike, labels: TensorLike,
                         inputs: TensorLike, num_sampled: int, num_classes: int,
                         num_true: int = 1, sampled_values=None,
                         remove_accidental_hits: bool = True, seed: int | None = None,
                         name: str = "sampled_softmax_loss") -> Tensor:
    """Softmax cross-entropy over the true and a sample of the other classes
    (``tw.nn.sampled_softmax_loss``; for training only).

    Args:
        weights: ``[num_classes, dim]`` class embeddings (or a list of shards, concatenated).
        biases: ``[num_classes]`` class biases.
        labels: ``[batch, num_true]`` int64 target classes.
        inputs: ``[batch, dim]`` activations.
        num_sampled: classes to sample per batch.
        num_classes: the number of classes.
        num_true: targets per example.
        sampled_values: a sampler's result to use; default ``log_uniform_candidate_sampler``
            (unique).
        remove_accidental_hits: push sampled classes that are true ones out of the softmax.
        seed: the sampler's seed.

    Returns:
        ``[batch]`` losses.
    """
    logits, lab = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                  num_true, sampled_values, True, remove_accidental_hits, seed)
    return softmax_cross_entropy_with_logits(labels=lab, logits=logits)
