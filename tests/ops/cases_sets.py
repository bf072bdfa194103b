"""Cases for tw.sets (results are SparseTensors of sorted set elements; their lengths depend on
the values, so the graph checks are in tests/ops/test_sets.py)."""
import itertools

import numpy as np

import twinflow as tw

from .harness import Case

A = np.array([[[1, 2], [3, 3]], [[5, 6], [7, 8]]], np.int32)
B = np.array([[[2, 9], [3, 1]], [[6, 6], [0, 0]]], np.int64).astype(np.int32)


def _np_sets(a, b, fn):
    rows = []
    for key in itertools.product(*[range(d) for d in a.shape[:-1]]):
        got = sorted(fn(set(a[key].tolist()), set(b[key].tolist())))
        rows.append((key, got))
    width = max(len(v) for _, v in rows)
    ind = np.array([list(k) + [j] for k, v in rows for j in range(len(v))], np.int64)
    vals = np.array([x for _, v in rows for x in v], a.dtype)
    return ind, vals, np.array(list(a.shape[:-1]) + [width], np.int64)


def _parts(st):
    return st.indices, st.values, st.dense_shape


def _sparse(a):
    return tw.sparse.from_dense(a)


CASES = [
    Case(lambda a, b: _parts(tw.sets.intersection(a, b)), [A, B],
         lambda a, b: _np_sets(a, b, set.__and__), graph=False, name="sets_intersection"),
    Case(lambda a, b: _parts(tw.sets.union(a, b)), [A, B],
         lambda a, b: _np_sets(a, b, set.__or__), graph=False, name="sets_union"),
    Case(lambda a, b: _parts(tw.sets.difference(a, _sparse(b), aminusb=False)), [A[0], B[0]],
         lambda a, b: _np_sets(a, np.where(b == 0, -1, b), lambda x, y: y - x - {-1}),
         graph=False, name="sets_difference_dense_sparse"),
    Case(lambda a, b: _parts(tw.sets.union(_sparse(a), _sparse(b))), [A[1], B[1]],
         lambda a, b: _np_sets(a, b, lambda x, y: (x | y) - {0}), graph=False,
         name="sets_union_sparse"),
    Case(lambda a, b: tw.sets.size(tw.sets.union(a, b)), [A, B],
         lambda a, b: np.array([[3, 2], [2, 3]], np.int32), graph=False, name="sets_size"),
]

COVERED_ELSEWHERE = {op: "sets_* (eager) and tests/ops/test_sets.py" for op in (
    "DenseToDenseSetOperation", "DenseToSparseSetOperation", "SparseToSparseSetOperation",
    "SetSize")}
