"""Cases for the first ops (arithmetic templates, reshape, reductions, matmul)."""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(42)
A = rng.normal(size=(3, 4))
B = rng.normal(size=(3, 4))
ROW = rng.normal(size=(4,))

CASES = [
    Case(tw.add, [A, B], np.add, name="add"),
    Case(tw.add, [A, ROW], np.add, name="add_broadcast"),
    Case(tw.add, [A.astype(np.float32), B.astype(np.float32)], np.add, name="add_f32"),
    Case(tw.subtract, [A, ROW], np.subtract, name="subtract"),
    Case(tw.multiply, [A, ROW[None, :]], np.multiply, name="multiply"),
    Case(lambda x, y, z: tw.add_n([x, y, z]), [A, B, A], lambda x, y, z: x + y + z,
         name="add_n"),
    Case(tw.negative, [A], np.negative, name="negative"),
    Case(tw.exp, [A], np.exp, name="exp"),
    Case(lambda x: tw.cast(x, tw.float32), [A], lambda x: x.astype(np.float32), name="cast",
         eps=1e-2, grad_rtol=1e-3, grad_atol=1e-4),
    Case(lambda x: tw.cast(x * 1.5, tw.int32), [A], lambda x: (x * 1.5).astype(np.int32),
         name="cast_to_int"),
    Case(lambda x: tw.reshape(x, [2, -1]), [A], lambda x: x.reshape(2, -1), name="reshape"),
    Case(lambda x: tw.reshape(x, tw.shape(x)[::-1]) if False else tw.reshape(x, [4, 3]),
         [A], lambda x: x.reshape(4, 3), name="reshape_static"),
    Case(lambda x: tw.broadcast_to(x, [2, 3, 4]), [ROW], lambda x: np.broadcast_to(x, (2, 3, 4)),
         name="broadcast_to"),
    Case(tw.identity, [A], lambda x: x, name="identity"),
    Case(lambda x: tw.reduce_sum(x, axis=1), [A], lambda x: x.sum(1), name="reduce_sum_axis"),
    Case(lambda x: tw.reduce_sum(x, axis=[0, 1], keepdims=True), [A],
         lambda x: x.sum((0, 1), keepdims=True), name="reduce_sum_keepdims"),
    Case(tw.reduce_sum, [A], np.sum, name="reduce_sum_all"),
    Case(tw.matmul, [A, B.T.copy()], np.matmul, name="matmul"),
    Case(lambda a, b: tw.matmul(a, b, transpose_b=True), [A, B], lambda a, b: a @ b.T,
         name="matmul_tb"),
    Case(lambda a, b: tw.matmul(a, b, transpose_a=True), [A, B], lambda a, b: a.T @ b,
         name="matmul_ta"),
    Case(lambda a, b: tw.matmul(a, b, transpose_a=True, transpose_b=True), [A, B.T.copy()],
         lambda a, b: a.T @ b.T, name="matmul_tab"),
    Case(tw.matmul, [rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5))], np.matmul,
         name="matmul_batch_broadcast"),
    Case(lambda x, y: tw.stack([x, y], axis=1), [A, B], lambda x, y: np.stack([x, y], 1),
         name="stack"),
    Case(lambda x: tw.unstack(x, num=4, axis=1), [A], lambda x: list(np.moveaxis(x, 1, 0)),
         name="unstack"),
    Case(tw.zeros_like, [A], np.zeros_like, name="zeros_like"),
    Case(tw.ones_like, [A], np.ones_like, name="ones_like"),
]

COVERED_ELSEWHERE = {
    "SumToShape": "gradient of every broadcasting binary op (add_broadcast)",
    "ReducedShape": "gradient of reductions",
    "Shape": "gradients of reshape / broadcast_to",
    "ReadVariableOp": "tests/ops/test_variables.py",
    "AssignVariableOp": "tests/ops/test_variables.py",
    "AssignAddVariableOp": "tests/ops/test_variables.py",
    "AssignSubVariableOp": "tests/ops/test_variables.py",
}
