"""tw.experimental misc (Optional, dlpack, async/strict/executor switches), tw.CriticalSection,
tw.types.experimental and SupportsTracingProtocol keys in tw.function."""
import threading
import warnings

import numpy as np
import pytest

import twinflow as tw


def test_dlpack_round_trip_shares_memory():
    x = tw.constant([1.0, 2.0, 3.0])
    y = tw.experimental.dlpack.from_dlpack(tw.experimental.dlpack.to_dlpack(x))
    assert np.shares_memory(x._value, y._value) and y.dtype == tw.float32
    z = tw.experimental.dlpack.from_dlpack(np.arange(3, dtype=np.int16))  # any __dlpack__
    assert z.dtype == tw.int16
    with pytest.raises(tw.errors.InvalidArgumentError, match="string"):
        tw.experimental.dlpack.to_dlpack(tw.constant(["a"]))


def test_execution_switches():
    with tw.experimental.async_scope():
        y = tw.constant(1.0) + 1.0
    tw.experimental.async_clear_error()
    assert float(y) == 2.0
    with tw.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR"):
        assert float(tw.function(lambda a: a * 2.0)(tw.constant(2.0))) == 4.0
    with pytest.raises(ValueError, match="one executor"):
        with tw.experimental.function_executor_type("INLINE"):
            pass
    assert tw.experimental.Optional.from_value(tw.constant(1)).has_value()


def test_strict_mode_turns_twinflow_deprecations_into_errors():
    from twinflow.function import runtime_options
    with warnings.catch_warnings():
        tw.experimental.enable_strict_mode()
        assert runtime_options.strict_mode_enabled()
        flt = [f for f in warnings.filters if f[2] is DeprecationWarning and f[0] == "error"]
        assert flt and flt[0][3].pattern.startswith("twinflow")
    runtime_options._strict[0] = False


def test_critical_section_serializes_read_modify_write():
    cs = tw.CriticalSection()
    v = tw.Variable(0)

    def incr():
        old = v.read_value()
        v.assign(old + 1)
        return v.read_value()

    assert int(cs.execute(incr)) == 1

    @tw.function
    def step():
        return cs.execute(incr)

    def work():
        for _ in range(100):
            step()
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(v.numpy()) == 401

    @tw.function
    def nested():
        return cs.execute(lambda: cs.execute(incr))
    with pytest.raises(ValueError, match="already running"):
        nested()

    def checked(x):
        tw.debugging.assert_positive(x)
        return x * 2.0

    @tw.function
    def fails(x):
        return cs.execute(lambda: checked(x))
    with pytest.raises(tw.errors.InvalidArgumentError):
        fails(tw.constant(-1.0))
    assert int(step()) == 402  # the lock was released after the error


class Config:
    def __init__(self, n):
        self.n = n

    def __tf_tracing_type__(self, context):
        return ConfigType(self.n)


class ConfigType(tw.types.experimental.TraceType):
    def __init__(self, n):
        self.n = n

    def is_subtype_of(self, other):
        return self == other

    def most_specific_common_supertype(self, others):
        return self if all(o == self for o in others) else None

    def __hash__(self):
        return hash(self.n)

    def __eq__(self, other):
        return isinstance(other, ConfigType) and other.n == self.n


def test_types_experimental_and_tracing_protocol():
    traces = []

    @tw.function
    def f(x, cfg):
        traces.append(cfg.n)
        return x * cfg.n
    f(tw.constant(1.0), Config(2))
    f(tw.constant(1.0), Config(2))  # a new object of an equal TraceType: no retrace
    f(tw.constant(1.0), Config(3))
    assert traces == [2, 3]
    assert isinstance(Config(1), tw.types.experimental.SupportsTracingProtocol)
    cf = f.get_concrete_function(tw.constant(1.0), Config(2))
    assert isinstance(cf, tw.types.experimental.AtomicFunction)
    assert issubclass(tw.types.experimental.FunctionType, __import__("inspect").Signature)
    strategy = tw.distribute.MirroredStrategy()
    with strategy.scope():
        mv = tw.Variable(1.0)
    assert isinstance(mv, tw.types.experimental.distributed.Mirrored)
    assert not isinstance(tw.constant(1.0), tw.types.experimental.distributed.PerReplica)
