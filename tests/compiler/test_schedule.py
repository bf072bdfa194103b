"""Inter-op concurrency: independent heavy ops grouped side by side (compiler/schedule.py)."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import schedule
from twinflow.compiler.pipeline import optimize
from twinflow.compiler.program import Program
from twinflow.core import workers


@pytest.fixture(autouse=True)
def fresh_backoff(monkeypatch):
    """Each test starts with concurrency on (earlier runs may have made it back off)."""
    monkeypatch.setattr(workers, "_backoff", workers._Backoff())
    monkeypatch.setattr(schedule, "machine_busy", lambda: False)
    monkeypatch.setattr(schedule.blas, "threads_itself", lambda: False)  # (as one BLAS thread)
    monkeypatch.setattr(schedule, "GROUP_MIN_FLOPS", 2 << 20)   # (small products, fast tests)



@pytest.fixture
def threads():
    th = tw.config.threading
    old = th.get_intra_op_parallelism_threads(), th.get_inter_op_parallelism_threads()

    def set_threads(intra: int, inter: int) -> None:
        th.set_intra_op_parallelism_threads(intra)
        th.set_inter_op_parallelism_threads(inter)
    yield set_threads
    set_threads(*old)


def _mlp_step(dtype, sizes=(256, 256, 128, 10), batch=64):
    rng = np.random.default_rng(0)
    params = [tw.Variable((rng.normal(size=(m, n)) / np.sqrt(m)).astype(dtype))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = tw.constant(rng.normal(size=(batch, sizes[0])).astype(dtype))

    @tw.function
    def step(x):
        with tw.GradientTape() as tape:
            h = x
            for w in params:
                h = tw.nn.relu(tw.matmul(h, w))
            loss = tw.reduce_sum(h * h)
        grads = tape.gradient(loss, params)
        for w, g in zip(params, grads):
            w.assign_sub(0.001 * g)
        return loss, grads
    return step, x, params


def test_the_two_products_of_a_dense_gradient_run_as_one_group():
    step, x, _ = _mlp_step(np.float32)
    cf = step.get_concrete_function(x)
    lines = [ln for ln in cf.generated_source.splitlines() if "concurrent:" in ln]
    assert len(lines) == 1
    assert lines[0].count("(MatMul)") == 2
    assert "schedule" in cf.pass_stats


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_concurrent_and_serial_steps_agree_bit_for_bit(threads, dtype):
    runs = []
    for inter in (1, 2):
        threads(1, inter)
        step, x, params = _mlp_step(dtype)
        outs = [step(x) for _ in range(3)]
        runs.append([float(o[0]) for o in outs] + [g.numpy() for g in outs[-1][1]]
                    + [w.numpy() for w in params])
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


def test_the_inter_op_setting_sizes_the_group(threads):
    def ident(_):
        time.sleep(0.1)    # (releases the GIL, as BLAS does: a worker takes the other call)
        return threading.get_ident()

    threads(1, 1)
    assert set(schedule.run_group(ident, (0,), ident, (1,))) == {threading.get_ident()}
    threads(1, 2)
    assert len(set(schedule.run_group(ident, (0,), ident, (1,)))) == 2


def _program(fn, *specs):
    cf = tw.function(fn).get_concrete_function(*specs)
    return Program(cf.graph, cf.graph.inputs, cf.graph.outputs)


def test_a_later_independent_product_moves_up_and_a_dependent_one_does_not():
    spec = tw.TensorSpec([128, 128], tw.float32)

    def f(a, b, c):
        p = tw.matmul(a, b)              # heavy
        q = tw.nn.relu(p) + 1.0          # depends on p
        r = tw.matmul(q, c)              # heavy, depends on p: stays
        s = tw.matmul(c, b)              # heavy, independent, ready before p: moves up
        return r, s

    prog, stats = optimize(_program(f, spec, spec, spec))
    assert stats["schedule"] == 1
    ops = prog.graph.get_operations()
    mm = [i for i, op in enumerate(ops) if op.type == "MatMul"]
    assert mm[1] == mm[0] + 1                        # s follows p
    eligible = set(range(len(ops)))
    groups = schedule.concurrent_groups(ops, eligible)
    assert list(groups.values()) == [[mm[0], mm[1]]]  # r is not in it: it reads p
    rng = np.random.default_rng(1)
    a, b, c = (rng.normal(size=(128, 128)).astype(np.float32) for _ in range(3))
    r, s = tw.function(f)(a, b, c)
    np.testing.assert_allclose(r.numpy(), (np.maximum(a @ b, 0) + 1) @ c, rtol=1e-5)
    np.testing.assert_allclose(s.numpy(), c @ b, rtol=1e-5)


def test_small_or_unknown_shape_products_are_not_heavy():
    small = tw.TensorSpec([16, 16], tw.float32)
    unknown = tw.TensorSpec([None, 256], tw.float32)
    w = tw.TensorSpec([256, 256], tw.float32)
    for spec_a, spec_b in ((small, small), (unknown, w)):
        prog = _program(lambda a, b: (tw.matmul(a, b), tw.matmul(b, b)), spec_a, spec_b)
        mms = [op for op in prog.graph.get_operations() if op.type == "MatMul"]
        assert schedule.flops(mms[0]) < schedule.GROUP_MIN_FLOPS
    big = [op for op in _program(lambda a: tw.matmul(a, a), w).graph.get_operations()
           if op.type == "MatMul"]
    assert schedule.flops(big[0]) == 2 * 256 ** 3


def test_the_single_threaded_executor_runs_groups_on_the_calling_thread(threads):
    def ident(_):
        time.sleep(0.1)    # (releases the GIL, as BLAS does: a worker takes the other call)
        return threading.get_ident()

    threads(2, 2)
    with tw.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR"):
        assert set(schedule.run_group(ident, (0,), ident, (1,))) == {threading.get_ident()}
    assert len(set(schedule.run_group(ident, (0,), ident, (1,)))) == 2


def test_groups_run_in_order_on_a_busy_machine(threads, monkeypatch):
    def ident(_):
        time.sleep(0.1)
        return threading.get_ident()

    threads(1, 2)
    monkeypatch.setattr(schedule, "machine_busy", lambda: True)
    assert set(schedule.run_group(ident, (0,), ident, (1,))) == {threading.get_ident()}


def test_groups_run_in_order_when_blas_threads_each_product(threads, monkeypatch):
    def ident(_):
        time.sleep(0.05)
        return threading.get_ident()

    threads(1, 2)
    monkeypatch.setattr(schedule.blas, "threads_itself", lambda: True)
    assert set(schedule.run_group(ident, (0,), ident, (1,))) == {threading.get_ident()}
