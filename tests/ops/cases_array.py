"""Cases for the array ops: layout, joining/splitting, slicing, gathering, creation, sorting.

Names start with ``arr_`` so that ``pytest -k arr_`` selects them.
"""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(7)
A = rng.normal(size=(3, 4))
B = rng.normal(size=(3, 4))
C = rng.normal(size=(2, 3, 4))
V = rng.permutation(np.linspace(-2.0, 2.0, 7))  # distinct values: sorting is differentiable
IA = rng.integers(-5, 5, size=(3, 4)).astype(np.int32)
IB = rng.integers(-5, 5, size=(3, 4)).astype(np.int32)
TIES = np.array([[3, 1, 3, 2, 1], [0, 0, 5, 5, 0]], dtype=np.int32)


def _np_gather_batch(p, i):
    return np.stack([p[b][:, i[b]] for b in range(p.shape[0])])


def _np_top_k(x, k):
    idx = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, -1), idx.astype(np.int32)


def _np_scatter_nd(ind, upd, shape):
    out = np.zeros(shape, upd.dtype)
    np.add.at(out, tuple(ind[..., k] for k in range(ind.shape[-1])), upd)
    return out


def _np_unique(x):
    _, first = np.unique(x, return_index=True)
    y = x[np.sort(first)]
    return y, np.array([list(y).index(v) for v in x], dtype=np.int32)


CASES = [
    # ----- layout
    Case(lambda x: tw.transpose(x), [A], np.transpose, name="arr_transpose_default"),
    Case(lambda x: tw.transpose(x, [2, 0, 1]), [C], lambda x: x.transpose(2, 0, 1),
         name="arr_transpose_perm"),
    Case(lambda x: tw.transpose(x, [1, -1, 0]), [C], lambda x: x.transpose(1, 2, 0),
         name="arr_transpose_negative_perm"),
    Case(lambda x: tw.transpose(x, [1, 0]), [IA], lambda x: x.T, name="arr_transpose_int32"),
    Case(lambda x: tw.expand_dims(x, 1), [A], lambda x: x[:, None], name="arr_expand_dims"),
    Case(lambda x: tw.expand_dims(x, -1), [IA], lambda x: x[..., None],
         name="arr_expand_dims_neg_int32"),
    Case(lambda x: tw.squeeze(x, axis=1), [A.reshape(3, 1, 4)], lambda x: x[:, 0],
         name="arr_squeeze_axis"),
    Case(lambda x: tw.squeeze(x), [A.reshape(1, 3, 1, 4)], np.squeeze, name="arr_squeeze_all",
         unknown_shapes=True),
    Case(lambda x: tw.reverse(x, [0, -1]), [A], lambda x: x[::-1, ::-1], name="arr_reverse"),
    Case(lambda x: tw.reverse(x, [1]), [IA], lambda x: x[:, ::-1], name="arr_reverse_int32"),
    Case(tw.stop_gradient, [A], lambda x: x, grad=(), name="arr_stop_gradient"),
    Case(tw.size, [C], lambda x: np.int32(x.size), name="arr_size"),
    Case(lambda x: tw.size(x, out_type=tw.int64), [A], lambda x: np.int64(x.size),
         name="arr_size_int64"),
    Case(tw.rank, [C], lambda x: np.int32(x.ndim), name="arr_rank"),
    # ----- joining and splitting
    Case(lambda x, y: tw.concat([x, y], 0), [A, B], lambda x, y: np.concatenate([x, y], 0),
         name="arr_concat0"),
    Case(lambda x, y, z: tw.concat([x, y, z], axis=-1), [A, B[:, :2].copy(), A[:, :1].copy()],
         lambda x, y, z: np.concatenate([x, y, z], -1), name="arr_concat_last_three"),
    Case(lambda x, y: tw.concat([x, y], 1), [IA, IB], lambda x, y: np.concatenate([x, y], 1),
         name="arr_concat_int32"),
    Case(lambda x: tw.split(x, 2, axis=1), [A], lambda x: np.split(x, 2, 1), name="arr_split"),
    Case(lambda x: tw.split(x, [1, -1, 2], axis=1), [A],
         lambda x: np.split(x, [1, 2], 1), name="arr_split_sizes"),
    Case(lambda x: tw.split(x, [2, 1]), [IA], lambda x: np.split(x, [2]),
         name="arr_split_sizes_int32"),
    Case(lambda x: tw.split(x, 3)[1], [A], lambda x: x[1:2], name="arr_split_unused_outputs"),
    # ----- tile, pad
    Case(lambda x: tw.tile(x, [2, 3]), [A], lambda x: np.tile(x, (2, 3)), name="arr_tile"),
    Case(lambda x: tw.tile(x, [1, 2, 1]), [C], lambda x: np.tile(x, (1, 2, 1)),
         name="arr_tile_3d"),
    Case(lambda x: tw.tile(x, [2, 1]), [IA], lambda x: np.tile(x, (2, 1)),
         name="arr_tile_int32"),
    Case(lambda x: tw.pad(x, [[1, 0], [2, 1]]), [A], lambda x: np.pad(x, [[1, 0], [2, 1]]),
         name="arr_pad"),
    Case(lambda x: tw.pad(x, [[0, 1], [1, 1]], constant_values=7), [IA],
         lambda x: np.pad(x, [[0, 1], [1, 1]], constant_values=7), name="arr_pad_value_int32"),
    Case(lambda x: tw.pad(x, [[2, 1], [1, 3]], "REFLECT"), [A],
         lambda x: np.pad(x, [[2, 1], [1, 3]], mode="reflect"), name="arr_pad_reflect"),
    Case(lambda x: tw.pad(x, [[3, 1], [0, 4]], mode="symmetric"), [A],
         lambda x: np.pad(x, [[3, 1], [0, 4]], mode="symmetric"), name="arr_pad_symmetric"),
    # ----- slicing
    Case(lambda x: tw.slice(x, [1, 0], [2, -1]), [A], lambda x: x[1:3, :],
         name="arr_slice"),
    Case(lambda x: tw.slice(x, [0, 1, 1], [1, 2, 3]), [IA.reshape(1, 3, 4)],
         lambda x: x[0:1, 1:3, 1:4], name="arr_slice_int32"),
    Case(lambda x: x[1:, ::2], [A], lambda x: x[1:, ::2], name="arr_getitem_slices"),
    Case(lambda x: x[..., -1], [C], lambda x: x[..., -1], name="arr_getitem_ellipsis_int"),
    Case(lambda x: x[None, ::-1, 1, 3:0:-2], [C], lambda x: x[None, ::-1, 1, 3:0:-2],
         name="arr_getitem_newaxis_negative_step"),
    Case(lambda x: x[1], [IA], lambda x: x[1], name="arr_getitem_int32"),
    Case(lambda x: x[2, 3], [A], lambda x: x[2, 3], name="arr_getitem_scalar"),
    Case(lambda x: tw.strided_slice(x, [0, 1], [3, 4], [2, 2]), [A], lambda x: x[0:3:2, 1:4:2],
         name="arr_strided_slice"),
    # ----- gather and scatter
    Case(lambda x: tw.gather(x, [2, 0, 2]), [A], lambda x: x[[2, 0, 2]], name="arr_gather"),
    Case(lambda x, i: tw.gather(x, i, axis=2), [C, np.array([[3, 0], [1, 3]], np.int32)],
         lambda x, i: np.take(x, i, axis=2),
         name="arr_gather_axis_indices_input"),
    Case(lambda x: tw.gather(x, [[1, 1], [0, 2]], axis=-1), [IA],
         lambda x: np.take(x, [[1, 1], [0, 2]], axis=-1), name="arr_gather_int32"),
    Case(lambda x, i: tw.gather(x, i, axis=2, batch_dims=1),
         [C, np.array([[3, 0, 0], [1, 2, 3]], np.int32)], _np_gather_batch,
         name="arr_gather_batch_dims"),
    Case(lambda x: tw.gather_nd(x, [[0, 1], [1, 2], [0, 1]]), [C],
         lambda x: x[[0, 1, 0], [1, 2, 1]], name="arr_gather_nd"),
    Case(lambda x: tw.gather_nd(x, [[[2, 3]], [[0, 0]]]), [IA],
         lambda x: x[[[2], [0]], [[3], [0]]], name="arr_gather_nd_int32"),
    Case(lambda x: tw.gather_nd(x, [[1], [0]], batch_dims=1), [C],
         lambda x: np.stack([x[0, 1], x[1, 0]]), name="arr_gather_nd_batch_dims"),
    Case(lambda u: tw.scatter_nd([[1], [3], [1]], u, [5, 4]), [A],
         lambda u: _np_scatter_nd(np.array([[1], [3], [1]]), u, (5, 4)), name="arr_scatter_nd"),
    Case(lambda x, u: tw.tensor_scatter_nd_update(x, [[0, 1], [2, 3]], u),
         [A, np.array([5.0, 6.0])],
         lambda x, u: np.where(np.isin(np.arange(12).reshape(3, 4), [1, 11]),
                               np.array([[0, 5, 0, 0], [0, 0, 0, 0], [0, 0, 0, 6.0]]), x),
         name="arr_tensor_scatter_nd_update"),
    Case(lambda x, u: tw.tensor_scatter_nd_add(x, [[2], [0], [2]], u), [A, B],
         lambda x, u: x + np.stack([u[1], 0 * u[0], u[0] + u[2]]),
         name="arr_tensor_scatter_nd_add"),
    Case(lambda x: tw.boolean_mask(x, [True, False, True]), [A], lambda x: x[[0, 2]],
         name="arr_boolean_mask"),
    Case(lambda x: tw.boolean_mask(x, np.array([[True, False, True, True]] * 3) & (
        np.arange(3)[:, None] != 1)), [A], lambda x: x[[0, 0, 0, 2, 2, 2], [0, 2, 3, 0, 2, 3]],
         name="arr_boolean_mask_2d"),
    Case(lambda x: tw.boolean_mask(x, [False, True, True, False], axis=1), [IA],
         lambda x: x[:, 1:3], name="arr_boolean_mask_axis_int32"),
    # ----- creation
    Case(lambda i: tw.one_hot(i, 4), [np.array([0, 3, 1, 7], np.int32)],
         lambda i: np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]],
                            np.float32),
         name="arr_one_hot"),
    Case(lambda i: tw.one_hot(i, 3, on_value=5, off_value=-1, axis=0),
         [np.array([[0, 2], [1, 1]], np.int32)],
         lambda i: np.where(np.arange(3)[:, None, None] == i, 5, -1).astype(np.int32),
         name="arr_one_hot_axis_int32"),
    Case(lambda: tw.range(5), [], lambda: np.arange(5, dtype=np.int32), name="arr_range"),
    Case(lambda: tw.range(1.0, 2.0, 0.25), [], lambda: np.arange(1, 2, 0.25, dtype=np.float32),
         name="arr_range_float"),
    Case(lambda: tw.range(10, 1, -3, dtype=tw.int64), [],
         lambda: np.arange(10, 1, -3, dtype=np.int64), name="arr_range_negative_delta"),
    Case(lambda v: tw.fill([2, 3], v), [np.array(1.5)], lambda v: np.full((2, 3), v),
         name="arr_fill"),
    Case(lambda v: tw.fill([2], v), [np.array(4, np.int32)], lambda v: np.full((2,), v),
         name="arr_fill_int32"),
    Case(lambda: tw.zeros([2, 3]), [], lambda: np.zeros((2, 3), np.float32), name="arr_zeros"),
    Case(lambda: tw.ones((2,), dtype=tw.int32), [], lambda: np.ones(2, np.int32),
         name="arr_ones_int32"),
    Case(lambda x: tw.ones([tw.shape(x)[0], 2], tw.float64) * x[:, :1], [A],
         lambda x: np.ones((3, 2)) * x[:, :1], name="arr_ones_dynamic_shape"),
    Case(lambda x: tw.zeros(tw.shape(x), tw.int32), [A], lambda x: np.zeros(x.shape, np.int32),
         name="arr_zeros_shape_tensor"),
    Case(lambda x: tw.zeros_like(x, dtype=tw.float32), [IA],
         lambda x: np.zeros(x.shape, np.float32), name="arr_zeros_like_dtype"),
    Case(lambda x: tw.ones_like(x, dtype=tw.int32), [A], lambda x: np.ones(x.shape, np.int32),
         name="arr_ones_like_dtype"),
    Case(lambda: tw.eye(3), [], lambda: np.eye(3, dtype=np.float32), name="arr_eye"),
    Case(lambda: tw.eye(2, 3, batch_shape=[2], dtype=tw.int32), [],
         lambda: np.broadcast_to(np.eye(2, 3, dtype=np.int32), (2, 2, 3)),
         name="arr_eye_batch_int32"),
    Case(lambda: tw.linspace(0.0, 1.0, 5), [], lambda: np.linspace(0, 1, 5, dtype=np.float32),
         name="arr_linspace"),
    Case(lambda a, b: tw.linspace(a, b, 4), [np.array([0.0, 1.0]), np.array([1.0, -1.0])],
         lambda a, b: np.linspace(a, b, 4), grad=(), name="arr_linspace_vector"),
    # ----- sorting
    Case(tw.sort, [V], np.sort, name="arr_sort"),
    Case(lambda x: tw.sort(x, axis=0, direction="DESCENDING"), [A],
         lambda x: -np.sort(-x, axis=0), name="arr_sort_descending_axis0"),
    Case(tw.argsort, [TIES], lambda x: np.argsort(x, -1, kind="stable").astype(np.int32),
         name="arr_argsort_stable_int32"),
    Case(lambda x: tw.argsort(x, direction="DESCENDING"), [TIES],
         lambda x: np.argsort(-x, -1, kind="stable").astype(np.int32),
         name="arr_argsort_descending_int32"),
    Case(lambda x: tw.top_k(x, 3), [A], lambda x: _np_top_k(x, 3), name="arr_top_k"),
    Case(lambda x: tw.top_k(x, k=2), [TIES], lambda x: _np_top_k(x, 2),
         name="arr_top_k_ties_int32"),
    # ----- unique, meshgrid, repeat
    Case(lambda x: tw.unique(x), [np.array([3, 1, 3, 2, 1], np.int32)], _np_unique,
         graph=False, name="arr_unique"),
    Case(lambda a, b: tw.meshgrid(a, b), [V[:3].copy(), V[3:].copy()],
         lambda a, b: np.meshgrid(a, b), name="arr_meshgrid"),
    Case(lambda a, b: tw.meshgrid(a, b, indexing="ij"), [V[:3].copy(), V[3:].copy()],
         lambda a, b: np.meshgrid(a, b, indexing="ij"), name="arr_meshgrid_ij"),
    Case(lambda x: tw.repeat(x, [1, 3, 0], axis=0), [A], lambda x: np.repeat(x, [1, 3, 0], 0),
         name="arr_repeat"),
    Case(lambda x: tw.repeat(x, 2), [IA], lambda x: np.repeat(x, 2), name="arr_repeat_flat"),
    Case(lambda x: tw.repeat(x, 2, axis=-1), [A], lambda x: np.repeat(x, 2, -1),
         name="arr_repeat_scalar_axis"),
]

COVERED_ELSEWHERE = {
    "ConcatOffset": "gradient of concat (arr_concat*)",
    "SliceGrad": "gradient of slice and concat (arr_slice, arr_concat*)",
    "StridedSliceGrad": "gradient of indexing (arr_getitem_*, tests/ops/test_indexing.py)",
    "GatherGrad": "gradient of gather and sort (arr_gather*, arr_sort*, arr_top_k)",
    "MirrorPadGrad": "gradient of pad (arr_pad_reflect, arr_pad_symmetric)",
    "BooleanMaskGrad": "gradient of boolean_mask (arr_boolean_mask*)",
    "RepeatGrad": "gradient of repeat (arr_repeat*)",
    "Unique": "arr_unique (eager) and tests/ops/test_indexing.py::test_unique_in_graph",
}
