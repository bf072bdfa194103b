"""Ragged and sparse ops traced with every dimension unknown (input_signature [None, None])
give what they give eagerly."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from tests.ops.composite_check import as_py

SPEC = tw.RaggedTensorSpec([None, None], tw.float32, 1)


def _sp(x):
    return tw.sparse.from_dense(x.to_tensor())


OPS = {
    "to_tensor": lambda x: x.to_tensor(),
    "to_tensor_shape": lambda x: x.to_tensor(shape=[2, 2]),
    "row": lambda x: x[2],
    "rows": lambda x: x[1:],
    "columns": lambda x: x[:, :1],
    "bounding_shape": lambda x: x.bounding_shape(),
    "reduce_rows": lambda x: tw.reduce_sum(x, axis=1),
    "reduce_columns": lambda x: tw.reduce_max(x, axis=0),
    "concat_rows": lambda x: tw.concat([x, x], 1),
    "stack": lambda x: tw.stack([x, x]),
    "gather": lambda x: tw.gather(x, [2, 0]),
    "tile": lambda x: tw.tile(x, [2, 1]),
    "boolean_mask": lambda x: tw.ragged.boolean_mask(x, x > 1.5),
    "from_tensor": lambda x: tw.RaggedTensor.from_tensor(x.to_tensor(), padding=0.0),
    "to_sparse": lambda x: x.to_sparse(),
    "map_fn": lambda x: tw.map_fn(tw.reduce_sum, x, fn_output_signature=tw.float32),
    "merge_dims": lambda x: tw.RaggedTensor.from_row_lengths(x, [2, 1]).merge_dims(1, 2),
    "sparse_roundtrip": lambda x: tw.sparse.to_dense(_sp(x)),
    "sparse_transpose": lambda x: tw.sparse.transpose(_sp(x)),
    "sparse_reshape": lambda x: tw.sparse.reshape(_sp(x), [-1]),
    "sparse_reduce": lambda x: tw.sparse.reduce_sum(_sp(x), axis=1),
    "sparse_concat": lambda x: tw.sparse.concat(1, [_sp(x)] * 2),
    "sparse_fill_empty_rows": lambda x: tw.sparse.fill_empty_rows(_sp(x), 9.0)[0],
    "sparse_matmul": lambda x: tw.sparse.sparse_dense_matmul(_sp(x), tw.ones([3, 2])),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_graph_with_unknown_shapes_matches_eager(name):
    fn = OPS[name]
    x = tw.ragged.constant([[1.0, 2.0], [], [3.0, 4.0, 5.0]])
    eager = as_py(fn(x))
    graph = as_py(tw.function(fn, input_signature=[SPEC], autograph=False)(x))
    assert graph == eager
    assert np.asarray(eager, dtype=object).size > 0
