"""Graphs whose ops sit on several devices: partitions joined by _Send/_Recv, run concurrently."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import twinflow as tw
from tests.helpers.devices import logical_cpus
from twinflow.cli import inspect_function
from twinflow.core.context import process

CPU = "/job:localhost/replica:0/task:0/device:CPU:"


@pytest.fixture(autouse=True)
def three_cpus():
    with logical_cpus(3) as devices:
        yield devices


def _types(graph) -> list:
    return [op.type for op in graph.get_operations()]


def test_partitions_are_joined_by_send_and_recv():
    @tw.function
    def f(a):
        with tw.device("/cpu:1"):
            b = a * 2.0
        with tw.device("/device:CPU:2"):
            c = a + 1.0
        return b + c, b

    cf = f.get_concrete_function(tw.TensorSpec([], tw.float32))
    assert [op.device for op in cf.graph.get_operations() if op.type in ("Mul", "AddV2")] == [
        "/device:CPU:1", "/device:CPU:2", ""]
    s, b = f(tw.constant(1.0))
    assert (float(s), float(b)) == (4.0, 2.0)
    assert process.quiet   # the devices' idle threads keep no one off the eager fast path
    assert (s.device, b.device) == (CPU + "0", CPU + "1")
    parts = {p.device.short_name: p for p in cf.partitions}
    assert set(parts) == {"CPU:0", "CPU:1", "CPU:2"}
    assert _types(parts["CPU:1"].optimized.graph).count("_Send") == 1  # b, to CPU:0's add
    assert len(parts["CPU:1"].optimized.outputs) == 1  # and b itself, returned from CPU:1
    assert _types(parts["CPU:2"].optimized.graph).count("_Send") == 1
    recvs = [op for op in parts["CPU:0"].optimized.graph.get_operations() if op.type == "_Recv"]
    assert sorted(op.get_attr("send_device")[-5:] for op in recvs) == ["CPU:1", "CPU:2"]
    assert all(op.device == CPU + "0" for op in parts["CPU:0"].optimized.graph.get_operations())
    # GraphDefs carry the placement: requested devices in the traced graph, full names (and
    # the _Send/_Recv nodes) in the partitions.
    assert [n.device for n in cf.graph.as_graph_def().node if n.op == "Mul"] == ["/device:CPU:1"]
    nodes = parts["CPU:1"].optimized.graph.as_graph_def().node
    assert "_Send" in [n.op for n in nodes] and {n.device for n in nodes} == {CPU + "1"}
    # Every partition went through the passes: the constants folded into each one's Mul/Add.
    assert all(isinstance(p.pass_stats, dict) and "constant_folding" in p.pass_stats
               for p in parts.values())


def test_unplaced_ops_follow_the_callers_device():
    @tw.function
    def f(a):
        with tw.device("/cpu:1"):
            b = a * 2.0
        return b + 1.0

    with tw.device("/cpu:2"):
        r = f(tw.constant(1.0))
    assert (float(r), r.device) == (3.0, CPU + "2")
    cf = f.get_concrete_function(tw.constant(1.0))
    with tw.device("/cpu:1"):
        assert cf.partitions == []   # everything on CPU:1: the whole program runs
        assert f(tw.constant(1.0)).device == CPU + "1"

    @tw.function
    def g(a):
        return a + 1.0

    with tw.device("/cpu:1"):
        assert g(tw.constant(1.0)).device == CPU + "1"
    assert g(tw.constant(1.0)).device == CPU + "0"


def _sleep(x):
    time.sleep(0.4)
    return x


def _sleepers(dev_a: str, dev_b: str):
    @tw.function
    def f(x):
        with tw.device(dev_a):
            a = tw.py_function(_sleep, [x], tw.float32)
        with tw.device(dev_b):
            b = tw.py_function(_sleep, [x + 1.0], tw.float32)
        return a + b
    return f


def test_partitions_on_two_devices_run_concurrently():
    apart, together = _sleepers("/cpu:0", "/cpu:1"), _sleepers("/cpu:1", "/cpu:1")
    x = tw.constant(1.0)
    assert float(apart(x)) == 3.0 and float(together(x)) == 3.0   # (traced, threads started)
    t0 = time.perf_counter()
    apart(x)
    t_apart = time.perf_counter() - t0
    t0 = time.perf_counter()
    together(x)
    t_together = time.perf_counter() - t0
    assert t_together >= 0.8            # one device: the two sleeps in turn
    assert t_apart < 0.7, t_apart       # two devices: about the time of one sleep (0.4 s)


def test_concurrent_callers_of_a_partitioned_function_do_not_deadlock():
    f = _sleepers("/cpu:1", "/cpu:2")
    x = tw.constant(1.0)
    results = []
    threads = [threading.Thread(target=lambda: results.append(float(f(x))), daemon=True)
               for _ in range(3)]   # (daemon: a deadlock fails the test, not the whole run)
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert results == [3.0] * 3


def test_variable_updates_keep_program_order_across_devices():
    with tw.device("/cpu:1"):
        v = tw.Variable(1.0)

    @tw.function
    def f():
        with tw.device("/cpu:1"):
            v.assign(v * 10.0)
        with tw.device("/cpu:2"):
            r = v.read_value() + 1.0
            v.assign_add(1.0)
        return r, v.read_value()

    for _ in range(2):
        v.assign(1.0)
        r, after = f()
        assert (float(r), float(after)) == (11.0, 11.0)
    assert len(f.get_concrete_function().partitions) == 3


def test_an_error_in_one_partition_fails_the_call_without_hanging():
    def boom(x):
        raise ValueError("boom")

    @tw.function
    def f(x):
        with tw.device("/cpu:1"):
            a = tw.py_function(boom, [x], tw.float32)
        return a + x

    with pytest.raises(Exception, match="boom"):
        f(tw.constant(1.0))

    @tw.function
    def g(x):
        with tw.device("/cpu:1"):
            y = tw.debugging.check_numerics(tw.math.log(x), "bad log")
        return y * 2.0

    assert float(g(tw.constant(1.0))) == 0.0
    with pytest.raises(tw.errors.InvalidArgumentError, match="bad log"):
        g(tw.constant(-1.0))


def test_gradients_and_control_flow_through_a_partitioned_function():
    w = tw.Variable([1.0, 2.0])

    @tw.function
    def f(x):
        with tw.device("/cpu:1"):
            h = tw.reduce_sum(w * x)
        with tw.device("/cpu:2"):
            h2 = tw.cond(h > 0.0, lambda: h * h, lambda: -h)
        return h2

    x = tw.constant([3.0, 4.0])
    with tw.GradientTape() as tape:
        y = f(x)
    assert float(y) == 121.0
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), 2 * 11.0 * x.numpy())
    assert float(f(tw.constant([-3.0, -4.0]))) == 11.0


def test_hard_placement_of_a_graph_op_on_a_missing_device():
    @tw.function
    def f(x):
        with tw.device("/cpu:9"):
            return x + 1.0

    assert f(tw.constant(1.0)).device == CPU + "0"   # soft placement: CPU:0
    tw.config.set_soft_device_placement(False)
    try:
        with pytest.raises(tw.errors.InvalidArgumentError, match="CPU:9"):
            f(tw.constant(1.0))
    finally:
        tw.config.set_soft_device_placement(True)


def test_inspect_shows_the_partitions_and_log_placement(capfd):
    @tw.function
    def f(a):
        with tw.device("/cpu:1"):
            b = a * a
        return b + 1.0

    lines: list = []
    inspect_function(f, [tw.TensorSpec([2], tw.float32)], out=lines.append,
                     sections=["graph", "devices"])
    text = "\n".join(lines)
    assert "on /device:CPU:1" in text
    assert "partitioned across 2 devices: CPU:1, CPU:0" in text
    assert "_Send(" in text and "_Recv(" in text
    tw.debugging.set_log_device_placement(True)
    try:
        f(tw.constant([1.0, 2.0]))
    finally:
        tw.debugging.set_log_device_placement(False)
    err = capfd.readouterr().err
    assert f"Mul: (Mul): {CPU}1" in err and f"AddV2: (AddV2): {CPU}0" in err
