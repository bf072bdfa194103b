"""tw.config / tw.debugging / tw.autograph leftovers of issue 16."""
import tracemalloc

import pytest

import twinflow as tw


def test_config_leftovers():
    c = tw.config.experimental
    assert c.tensor_float_32_execution_enabled()
    c.enable_tensor_float_32_execution(False)
    assert not c.tensor_float_32_execution_enabled()
    c.enable_tensor_float_32_execution(True)
    assert c.get_device_policy() == "silent"
    c.set_device_policy("warn")
    assert c.get_device_policy() == "warn"
    c.set_device_policy(None)
    with pytest.raises(ValueError, match="device_policy"):
        c.set_device_policy("bad")
    with pytest.raises(NotImplementedError, match="explicit"):
        c.set_device_policy("explicit")
    assert c.get_memory_info("CPU:0") == {"current": 0, "peak": 0} or tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        x = tw.zeros([256, 1024])
        info = c.get_memory_info("CPU:0")
        assert info["current"] >= x.numpy().nbytes and info["peak"] >= info["current"]
        c.reset_memory_stats("CPU:0")
        assert abs(c.get_memory_usage("CPU:0") - info["current"]) < 1 << 16
    finally:
        tracemalloc.stop()
    with pytest.raises(ValueError, match="host"):
        c.get_memory_info("GPU:0")
    assert tw.config.experimental_functions_run_eagerly() is False


def test_debugging_leftovers():
    with pytest.raises(ValueError, match="same type"):
        tw.debugging.assert_same_float_dtype([tw.constant(1.0), tw.constant(1.0, tw.float64)])
    assert tw.debugging.assert_same_float_dtype([tw.constant(1.0)]) == tw.float32
    with pytest.raises(ValueError, match="floating"):
        tw.debugging.assert_same_float_dtype([tw.constant(1)])
    with pytest.raises(tw.errors.InvalidArgumentError, match="rank in"):
        tw.debugging.assert_rank_in(tw.zeros([2, 3]), [1, 3])
    assert tw.debugging.assert_rank_in(tw.zeros([2, 3]), [1, 2]) is None
    assert tw.debugging.get_log_device_placement() is False
    assert not tw.debugging.is_traceback_filtering_enabled()
    tw.debugging.disable_traceback_filtering()
    with pytest.raises(NotImplementedError):
        tw.debugging.enable_traceback_filtering()


def test_autograph_leftovers(capsys):
    def f(x):
        if x > 0:
            x = x * 2
        return x
    g = tw.autograph.to_graph(f)
    assert int(tw.function(g)(tw.constant(3))) == 6
    assert int(tw.function(g)(tw.constant(-3))) == -3
    with pytest.raises(NotImplementedError):
        tw.autograph.to_graph(f, recursive=False)
    tw.autograph.set_verbosity(1, alsologtostdout=True)
    try:
        @tw.function
        def h(x):
            tw.autograph.trace("tracing", x.shape)
            return x + 1
        h(tw.constant(1))
        h(tw.constant(2))
    finally:
        tw.autograph.set_verbosity(0)
    out = capsys.readouterr().out
    assert out.count("tracing (") == 1 and "Converted" in out
