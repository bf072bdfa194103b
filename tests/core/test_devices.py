"""Logical devices, ``tw.device`` placement of eager ops, soft placement, placement logging."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest

import twinflow as tw
from tests.helpers.devices import logical_cpus
from twinflow.core.devices import DeviceSpec

CPU = "/job:localhost/replica:0/task:0/device:CPU:"


@pytest.fixture
def three_cpus():
    with logical_cpus(3) as devices:
        yield devices


def test_configuration_only_before_the_runtime_starts():
    script = textwrap.dedent("""
        import twinflow as tf
        cpu = tf.config.list_physical_devices("CPU")[0]
        assert tf.config.get_logical_device_configuration(cpu) is None
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        tf.config.experimental.set_virtual_device_configuration(
            cpu, [tf.config.experimental.VirtualDeviceConfiguration()] * 3)
        assert len(tf.config.get_logical_device_configuration(cpu)) == 3
        x = tf.constant(1.0)
        try:
            tf.config.set_logical_device_configuration(cpu, [])
        except RuntimeError as e:
            print(e)
        print([d.name for d in tf.config.list_logical_devices()])
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["Virtual devices cannot be modified after being initialized",
                   "['/device:CPU:0', '/device:CPU:1', '/device:CPU:2']"]


def test_bad_configurations_are_refused():
    cpu = tw.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="memory limit on CPU"):
        tw.config.set_logical_device_configuration(
            cpu, [tw.config.LogicalDeviceConfiguration(memory_limit=10)])
    with pytest.raises(ValueError, match="Unrecognized device"):
        tw.config.set_logical_device_configuration("CPU:0", [])
    tw.constant(0.0)  # (the runtime starts at the first op)
    with pytest.raises(RuntimeError, match="after being initialized"):
        tw.config.set_logical_device_configuration(cpu, [])


def test_list_devices(three_cpus):
    assert [d.name for d in three_cpus] == ["/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]
    assert tw.config.list_logical_devices("GPU") == []
    assert tw.config.experimental.list_logical_devices() == three_cpus
    assert [d.name for d in tw.config.list_physical_devices()] == ["/physical_device:CPU:0"]


def test_eager_ops_run_on_the_scope_device(three_cpus):
    x = tw.constant(1.0)
    assert x.device == CPU + "0"
    with tw.device("/cpu:1"):
        y = tw.constant(2.0)
        z = x + y
        v = tw.Variable(3.0)
        m = tw.matmul(tw.ones([2, 2]), tw.ones([2, 2]))
    assert (y.device, z.device, v.device, m.device) == (CPU + "1",) * 4
    assert float(z) == 3.0
    assert (y + 1).device == CPU + "0"   # as TensorFlow: no scope means CPU:0
    with tw.device("CPU:2"):
        assert tw.identity(x).device == CPU + "2"
        with tw.device("/device:CPU:1"):
            assert tw.identity(x).device == CPU + "1"
        with tw.device(None):
            assert tw.identity(x).device == CPU + "0"
        with tw.device(""):
            assert tw.identity(x).device == CPU + "2"
    with tw.device(CPU + "1"):
        assert tw.identity(x).device == CPU + "1"


def test_soft_placement_falls_back_and_hard_placement_raises(three_cpus):
    x = tw.constant(1.0)
    assert tw.config.get_soft_device_placement()
    with tw.device("/cpu:7"):
        assert tw.identity(x).device == CPU + "0"
    with tw.device("/gpu:0"):
        assert tw.identity(x).device == CPU + "0"
    tw.config.set_soft_device_placement(False)
    try:
        with tw.device("/cpu:7"):
            with pytest.raises(tw.errors.InvalidArgumentError,
                               match=r"Could not satisfy device specification "
                                     r"'/job:localhost/replica:0/task:0/device:CPU:7'.*"
                                     r"\[Op:Identity\]"):
                tw.identity(x)
        with tw.device("/job:worker/cpu:0"):
            with pytest.raises(tw.errors.InvalidArgumentError, match="job:worker"):
                tw.identity(x)
    finally:
        tw.config.set_soft_device_placement(True)


def test_bad_device_strings():
    for bad in ("/foo:0", "nonsense"):
        with pytest.raises(ValueError, match="Unknown attribute"):
            with tw.device(bad):
                pass
    with pytest.raises(ValueError, match="Invalid device index"):
        with tw.device("/cpu:x"):
            pass
    with pytest.raises(NotImplementedError, match="device functions"):
        with tw.device(lambda op: "/cpu:0"):
            pass


def test_device_spec():
    s = DeviceSpec.from_string("/job:w/task:1/device:GPU:2")
    assert (s.job, s.replica, s.task, s.device_type, s.device_index) == ("w", None, 1, "GPU", 2)
    assert s.to_string() == "/job:w/task:1/device:GPU:2"
    assert DeviceSpec.from_string("/cpu:1").to_string() == "/device:CPU:1"
    assert DeviceSpec.from_string("cpu").to_string() == "/device:CPU:*"
    merged = DeviceSpec(job="localhost").make_merged_spec(DeviceSpec.from_string("/cpu:1"))
    assert merged.to_string() == "/job:localhost/device:CPU:1"
    assert s.replace(device_index=0) == DeviceSpec.from_string("/job:w/task:1/gpu:0")
    assert tw.DeviceSpec is DeviceSpec


def test_graph_ops_record_the_requested_device():
    g = tw.Graph()
    with g.as_default():
        a = tw.constant(1.0)
        with tw.device("/cpu:1"):
            b = tw.constant(1.0)
            with tw.device("/job:localhost"):
                c = tw.constant(1.0)
        with tw.device("/gpu:3"):
            d = tw.constant(1.0)
    assert [t.device for t in (a, b, c, d)] == [
        "", "/device:CPU:1", "/job:localhost/device:CPU:1", "/device:GPU:3"]
    assert b.op.device == "/device:CPU:1"


def test_device_scopes_are_per_thread(three_cpus):
    seen = []
    entered, release = threading.Event(), threading.Event()

    def other():
        with tw.device("/cpu:2"):
            entered.set()
            release.wait(10)
            seen.append(tw.identity(1.0).device)

    t = threading.Thread(target=other)
    t.start()
    entered.wait(10)
    seen.append(tw.identity(1.0).device)   # this thread has no scope
    release.set()
    t.join()
    assert seen == [CPU + "0", CPU + "2"]


def test_log_device_placement(three_cpus, capfd):
    tw.debugging.set_log_device_placement(True)
    try:
        with tw.device("/cpu:1"):
            tw.constant([1.0]) + 1
    finally:
        tw.debugging.set_log_device_placement(False)
    err = capfd.readouterr().err
    assert f"Executing op AddV2 in device {CPU}1" in err
    tw.constant([1.0]) + 1
    assert "Executing op" not in capfd.readouterr().err


def test_experimental_device_queries():
    cpu = tw.config.list_physical_devices("CPU")[0]
    assert tw.config.experimental.get_device_details(cpu) == {}
    with pytest.raises(ValueError, match="PhysicalDevice"):
        tw.config.experimental.get_device_details("CPU:0")
    assert tw.config.experimental.get_synchronous_execution()
    tw.config.experimental.set_synchronous_execution(True)
    with pytest.raises(NotImplementedError, match="asynchronous"):
        tw.config.experimental.set_synchronous_execution(False)
