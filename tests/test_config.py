"""tw.config: devices and the run_functions_eagerly switch."""
from __future__ import annotations

import twinflow as tw
from twinflow.core.context import ctx


def test_list_physical_devices():
    devs = tw.config.list_physical_devices()
    assert devs == [tw.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")]
    assert devs[0].name == "/physical_device:CPU:0" and devs[0].device_type == "CPU"
    assert tw.config.list_physical_devices("CPU") == devs
    assert tw.config.list_physical_devices("GPU") == []
    assert tw.config.experimental.list_physical_devices("GPU") == []
    assert tw.config.experimental.list_physical_devices() == devs


def test_list_logical_devices():
    assert [d.device_type for d in tw.config.list_logical_devices()] == ["CPU"]
    assert tw.config.list_logical_devices("GPU") == []


def test_run_functions_eagerly_statement():
    assert tw.config.functions_run_eagerly() is False
    try:
        tw.config.run_functions_eagerly(True)
        assert tw.config.functions_run_eagerly() is True
        assert ctx.run_functions_eagerly is True
    finally:
        tw.config.run_functions_eagerly(False)
    assert tw.config.functions_run_eagerly() is False


def test_run_functions_eagerly_context_manager_restores():
    with tw.config.run_functions_eagerly(True):
        assert tw.config.functions_run_eagerly()
        with tw.config.run_functions_eagerly(False):
            assert not tw.config.functions_run_eagerly()
        assert tw.config.functions_run_eagerly()
    assert not tw.config.functions_run_eagerly()


def test_misc_no_ops():
    tw.config.set_soft_device_placement(True)
    assert tw.config.get_soft_device_placement()
    tw.config.threading.set_intra_op_parallelism_threads(2)
    assert tw.config.threading.get_intra_op_parallelism_threads() == 2
    tw.config.threading.set_intra_op_parallelism_threads(0)
    cpu = tw.config.list_physical_devices("CPU")[0]
    tw.config.experimental.set_memory_growth(cpu, True)
    tw.config.set_visible_devices([cpu])


def test_device_scope_and_executing_eagerly():
    assert tw.executing_eagerly()
    with tw.device("/cpu:0"):
        x = tw.constant(1.0) + tw.constant(2.0)
    assert x.device.endswith("CPU:0")
    g = tw.Graph()
    with g.as_default():
        assert not tw.executing_eagerly()
