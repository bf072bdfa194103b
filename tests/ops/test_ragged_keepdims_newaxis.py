"""Ragged reductions with keepdims=True and tw.newaxis / Ellipsis in ragged indexing, against
plain-Python references (values taken from TensorFlow 2.21), eagerly and in tw.function."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from tests.ops.composite_check import check, check_grad

ROWS = [[1.0, 2.0], [], [3.0]]
ROWS3 = [[[1.0, 2.0], [3.0]], [], [[4.0]]]


def rt(rows=ROWS):
    return tw.ragged.constant(rows)


def _py_reduce_rows(rows, fn, empty):
    return [[fn(r) if r else empty] for r in rows]


@pytest.mark.parametrize("name,fn,empty", [
    ("reduce_sum", sum, 0.0),
    ("reduce_max", max, float(np.finfo(np.float32).min)),
    ("reduce_mean", lambda r: sum(r) / len(r), float("nan")),
])
def test_keepdims_along_ragged_axis(name, fn, empty):
    op = getattr(tw, name)
    check(lambda x: op(x, axis=1, keepdims=True), (rt(),), _py_reduce_rows(ROWS, fn, empty))
    check(lambda x: op(x, axis=-1, keepdims=True), (rt(),), _py_reduce_rows(ROWS, fn, empty))


def test_keepdims_rows_and_all():
    check(lambda x: tw.reduce_sum(x, axis=0, keepdims=True), (rt(),), [[4.0, 2.0]])
    check(lambda x: tw.reduce_sum(x, keepdims=True), (rt(),), [[6.0]])
    check(lambda x: tw.reduce_sum(x, axis=[0, 1], keepdims=True), (rt(),), [[6.0]])


def test_keepdims_rank3():
    x = rt(ROWS3)
    inner = ("ragged", [[[3.0], [3.0]], [], [[4.0]]])
    check(lambda v: tw.reduce_sum(v, axis=2, keepdims=True), (x,), inner)
    check(lambda v: tw.reduce_sum(v, axis=-1, keepdims=True), (x,), inner)
    check(lambda v: tw.reduce_sum(v, axis=[1, 2], keepdims=True), (x,),
          [[[6.0]], [[0.0]], [[4.0]]])
    u = tw.RaggedTensor.from_row_lengths(tw.reshape(tw.range(8.0), [4, 2]), [1, 0, 3])
    check(lambda v: tw.reduce_sum(v, axis=2, keepdims=True), (u,),
          ("ragged", [[[1.0]], [], [[5.0], [9.0], [13.0]]]))
    check(lambda v: tw.reduce_sum(v, axis=1, keepdims=True), (u,),
          [[[0.0, 1.0]], [[0.0, 0.0]], [[12.0, 15.0]]])


def test_keepdims_gradient():
    def loss(v):
        x = tw.RaggedTensor.from_row_lengths(v, [2, 1, 2])
        return tw.reduce_sum(tw.reduce_max(x, axis=1, keepdims=True) ** 2
                             + tw.reduce_mean(x, axis=0, keepdims=True))
    check_grad(loss, np.array([1.0, 2.5, 0.5, 3.0, -1.0]))


def test_newaxis():
    x = rt()
    check(lambda v: v[tw.newaxis], (x,), ("ragged", [ROWS]))
    check(lambda v: v[tw.newaxis, tw.newaxis], (x,), ("ragged", [[ROWS]]))
    check(lambda v: v[:, tw.newaxis], (x,), ("ragged", [[r] for r in ROWS]))
    check(lambda v: v[:, :, tw.newaxis], (x,), ("ragged", [[[a] for a in r] for r in ROWS]))
    check(lambda v: v[1:, tw.newaxis, :1], (x,), ("ragged", [[[]], [[3.0]]]))
    check(lambda v: v[0, tw.newaxis], (x,), [[1.0, 2.0]])
    check(lambda v: v[..., tw.newaxis], (x,), ("ragged", [[[a] for a in r] for r in ROWS]))
    check(lambda v: v[:, :, tw.newaxis], (rt(ROWS3),),
          ("ragged", [[[[1.0, 2.0]], [[3.0]]], [], [[[4.0]]]]))
    check(lambda v: v[..., 0], (tw.ragged.constant([[[1.0, 2.0]], [[3.0, 4.0]]],
                                                   ragged_rank=1),),
          ("ragged", [[1.0], [3.0]]))
    with pytest.raises(ValueError, match="one Ellipsis"):
        x[..., 0, ...]


def test_newaxis_gradient():
    def loss(v):
        x = tw.RaggedTensor.from_row_lengths(v, [2, 0, 3])
        return tw.reduce_sum(x[:, tw.newaxis, 1:].flat_values ** 2)
    check_grad(loss, np.array([1.0, 2.5, 0.5, 3.0, -1.0]))
