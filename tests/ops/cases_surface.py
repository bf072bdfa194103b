"""Cases for the top-level names of issue 16: roll, sequence_mask, searchsorted, histograms,
unique_with_counts, unravel_index, vectorized_map.

Names start with ``surf_`` so that ``pytest -k surf_`` selects them.
"""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(16)
A = rng.normal(size=(3, 4))
C = rng.normal(size=(2, 3, 4))
SEQ = np.sort(rng.normal(size=(2, 6)), axis=-1)
VALS = np.concatenate([rng.normal(size=(2, 3)), SEQ[:, 1:3]], axis=1)  # includes ties
LENS = np.array([[0, 3], [5, 1]], dtype=np.int32)
HV = np.array([-1.0, 0.0, 0.4, 1.5, 2.0, 4.99, 5.0, 7.0])
W = rng.normal(size=(4, 2))


def _np_roll(x, shift, axis):
    return np.roll(x, shift, axis)


def _np_hist_bins(v, lo, hi, n):
    return np.clip(np.floor((v - lo) / (hi - lo) * n), 0, n - 1).astype(np.int32)


def _np_unique_counts(x):
    _, first, counts = np.unique(x, return_index=True, return_counts=True)
    order = np.argsort(first)
    y = x[np.sort(first)]
    return y, np.array([list(y).index(v) for v in x], np.int32), counts[order].astype(np.int32)


def _per_row(x):
    return np.sum(np.exp(x) / np.exp(x).sum(-1, keepdims=True) * 2.0, 0) + (x[None] @ W)[0, 0]


def _vmap_row(r):
    return tw.reduce_sum(tw.nn.softmax(r) * 2.0, axis=0) + tw.matmul(r[None], W)[0, 0]


def _vmap_layout(r):
    m = tw.reshape(r, [2, 2])
    return tw.concat([tw.transpose(m), tw.expand_dims(r[1:3], 0)], 0) * tw.reduce_max(r)


def _np_vmap_layout(x):
    out = []
    for r in x:
        m = r.reshape(2, 2)
        out.append(np.concatenate([m.T, r[None, 1:3]], 0) * r.max())
    return np.stack(out)


CASES = [
    Case(lambda x: tw.roll(x, 1, 0), [A], lambda x: np.roll(x, 1, 0), name="surf_roll"),
    Case(lambda x: tw.roll(x, [2, -1, 3], [0, 2, 2]), [C],
         lambda x: np.roll(x, (2, -1, 3), (0, 2, 2)), name="surf_roll_multi_axis"),
    Case(lambda x: tw.roll(x, -7, -1), [A.astype(np.int32)], lambda x: np.roll(x, -7, -1),
         name="surf_roll_int32"),
    Case(lambda n: tw.sequence_mask(n, 6), [LENS],
         lambda n: np.arange(6) < n[..., None], name="surf_sequence_mask"),
    Case(lambda n: tw.sequence_mask(n, 4, dtype=tw.float32), [LENS[0]],
         lambda n: (np.arange(4) < n[..., None]).astype(np.float32),
         name="surf_sequence_mask_float"),
    Case(lambda n: tw.sequence_mask(n), [LENS],
         lambda n: np.arange(5) < n[..., None], name="surf_sequence_mask_default_maxlen",
         graph=False),
    Case(lambda s, v: tw.searchsorted(s, v), [SEQ, VALS],
         lambda s, v: np.stack([np.searchsorted(a, b) for a, b in zip(s, v)]).astype(np.int32),
         name="surf_searchsorted_left"),
    Case(lambda s, v: tw.searchsorted(s, v, side="right", out_type=tw.int64), [SEQ, VALS],
         lambda s, v: np.stack([np.searchsorted(a, b, "right") for a, b in zip(s, v)]),
         name="surf_searchsorted_right_int64"),
    Case(lambda v: tw.histogram_fixed_width(v, [0.0, 5.0], nbins=5), [HV],
         lambda v: np.bincount(_np_hist_bins(v, 0.0, 5.0, 5), minlength=5).astype(np.int32),
         name="surf_histogram_fixed_width"),
    Case(lambda v: tw.histogram_fixed_width_bins(v, [0.0, 5.0], nbins=3, dtype=tw.int64),
         [HV], lambda v: _np_hist_bins(v, 0.0, 5.0, 3).astype(np.int64),
         name="surf_histogram_fixed_width_bins"),
    Case(tw.unique_with_counts, [np.array([1, 1, 2, 4, 4, 4, 7, 8, 8, 2], np.int32)],
         _np_unique_counts, name="surf_unique_with_counts", graph=False),
    Case(lambda i: tw.unravel_index(i, [3, 4, 2]), [np.array([0, 5, 23, 11], np.int64)],
         lambda i: np.stack(np.unravel_index(i, (3, 4, 2))), name="surf_unravel_index"),
    Case(lambda i: tw.unravel_index(i, [3, 4]), [np.int32(7)],
         lambda i: np.array([1, 3], np.int32), name="surf_unravel_index_scalar"),
    Case(lambda x: tw.vectorized_map(_vmap_row, x), [A],
         lambda x: np.stack([_per_row(r) for r in x]), name="surf_vectorized_map"),
    Case(lambda x: tw.vectorized_map(_vmap_layout, x), [A], _np_vmap_layout,
         name="surf_vectorized_map_layout"),
]


def _np_reverse_sequence(x, n):
    out = x.copy()
    for b, k in enumerate(n):
        out[:k, b] = x[:k, b][::-1]
    return out


CASES += [
    Case(lambda x, n: tw.reverse_sequence(x, n, seq_axis=0, batch_axis=1),
         [C[0].T.copy(), np.array([2, 4, 0], np.int64)], _np_reverse_sequence,
         name="surf_reverse_sequence"),
    Case(lambda x: tw.saturate_cast(x * 100.0, tw.uint8), [A],
         lambda x: np.clip(x * 100.0, 0, 255).astype(np.uint8), name="surf_saturate_cast"),
    Case(lambda a, b: tw.broadcast_dynamic_shape(a, b),
         [np.array([2, 1, 3], np.int32), np.array([4, 1], np.int32)],
         lambda a, b: np.array([2, 4, 3], np.int32), name="surf_broadcast_dynamic_shape"),
    Case(lambda x: tw.timestamp() + x * 0.0, [np.float64(1.0)], None, stateful_random=True,
         name="surf_timestamp"),
    Case(lambda x: tw.parallel_stack([x, x * 2.0]), [A], lambda x: np.stack([x, x * 2]),
         name="surf_parallel_stack"),
]

# Output lengths depend on values: checked eagerly above, in a graph in test_surface_api.py.
COVERED_ELSEWHERE = {
    "UniqueWithCounts": "surf_unique_with_counts (eager) and "
                        "tests/ops/test_surface_api.py::test_unique_with_counts_in_function",
}
