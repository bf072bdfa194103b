"""Large matrix products of compiled graphs split over threads (ops/matmul_split.py)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import twinflow as tw
from twinflow.core import blas, workers
from twinflow.ops import matmul_split


@pytest.fixture
def intra():
    th = tw.config.threading
    old = th.get_intra_op_parallelism_threads()
    yield th.set_intra_op_parallelism_threads
    th.set_intra_op_parallelism_threads(old)


def _kernel(shape_a, shape_b, ta=False, tb=False, dtype=tw.float32):
    f = tw.function(lambda a, b: tw.matmul(a, b, transpose_a=ta, transpose_b=tb))
    cf = f.get_concrete_function(tw.TensorSpec(shape_a, dtype), tw.TensorSpec(shape_b, dtype))
    op = next(op for op in cf.optimized_graph.get_operations() if op.type == "MatMul")
    return f, op.opdef.lower(op)


@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
@pytest.mark.parametrize("m,n", [(256, 96), (64, 320)])   # split by rows / by columns
def test_split_products_match_the_unsplit_product(intra, monkeypatch, ta, tb, m, n):
    k = 300
    rng = np.random.default_rng(0)
    a = rng.normal(size=(k, m) if ta else (m, k)).astype(np.float32)
    b = rng.normal(size=(n, k) if tb else (k, n)).astype(np.float32)
    ref = np.matmul(a.T if ta else a, b.T if tb else b)
    monkeypatch.setattr(matmul_split, "SPLIT_MIN_FLOPS", 1 << 20)
    f, kernel = _kernel(a.shape, b.shape, ta, tb)
    assert kernel.__name__ == "split_matmul" and kernel.fresh_result
    blocks = []
    real = workers.run_calls
    monkeypatch.setattr(matmul_split, "run_calls",
                        lambda calls, n: blocks.append(len(calls)) or real(calls, n))
    monkeypatch.setattr(blas, "threads_itself", lambda: False)   # as OPENBLAS_NUM_THREADS=1
    intra(2)
    split = kernel(a, b)
    assert blocks == [2]
    # Each block is an ordinary BLAS product: at most rounding differences from the whole.
    np.testing.assert_allclose(split, ref, rtol=1e-5, atol=1e-4)
    intra(1)
    np.testing.assert_array_equal(kernel(a, b), ref)   # one thread: the plain product
    assert blocks == [2]


def test_a_blas_that_threads_itself_gets_the_whole_product(intra, monkeypatch):
    # OpenBLAS's own threads beat twinflow's split (no hand-off): the kernel steps aside.
    monkeypatch.setattr(matmul_split, "SPLIT_MIN_FLOPS", 1 << 20)
    _, kernel = _kernel([256, 300], [300, 96])
    calls = []
    monkeypatch.setattr(matmul_split, "run_calls", lambda c, n: calls.append(c))
    monkeypatch.setattr(blas, "threads_itself", lambda: True)
    rng = np.random.default_rng(1)
    a = rng.normal(size=(256, 300)).astype(np.float32)
    b = rng.normal(size=(300, 96)).astype(np.float32)
    intra(2)
    np.testing.assert_array_equal(kernel(a, b), np.matmul(a, b))
    assert calls == []


def test_blas_threads_itself_unless_it_runs_on_one_thread(monkeypatch):
    for count, itself in ((1, False), (2, True), (None, True)):
        monkeypatch.setattr(blas, "get_threads", lambda c=count: c)
        assert blas.threads_itself() is itself


def test_large_graph_products_split_by_default_and_small_ones_do_not():
    _, big = _kernel([256, 1024], [1024, 256])
    assert big.__name__ == "split_matmul"
    for args in (([8, 8], [8, 8]), ([None, 1024], [1024, 256]),
                 ([4, 256, 1024], [1024, 256]), ([256, 1024], [1024, 256], False, False,
                                                  tw.int32)):
        _, k = _kernel(*args)
        assert getattr(k, "__name__", "") != "split_matmul"


def test_a_split_product_inside_a_concurrent_group_runs_unsplit(intra, monkeypatch):
    monkeypatch.setattr(workers, "_backoff", workers._Backoff())   # concurrency on
    monkeypatch.setattr(matmul_split, "machine_busy", lambda: False)
    _, kernel = _kernel([256, 1024], [1024, 256])
    rng = np.random.default_rng(2)
    a = rng.normal(size=(256, 1024)).astype(np.float32)
    b = rng.normal(size=(1024, 256)).astype(np.float32)
    intra(2)
    out = workers.run_calls([(kernel, (a, b)), (kernel, (b.T, a.T))], 2)
    np.testing.assert_array_equal(out[0], np.matmul(a, b))   # nested: one plain product
    np.testing.assert_array_equal(out[1], np.matmul(b.T, a.T))
