"""tw.function: tracing, caching, retracing, signatures, semantics."""
from __future__ import annotations

import logging

import numpy as np
import pytest

import twinflow as tw


def test_decorator_and_call_form_match_eager():
    def f(x, y, b):
        return tw.matmul(x, y) + b

    x1 = tw.constant([[1.0, 2.0]])
    y1 = tw.constant([[2.0], [3.0]])
    b1 = tw.constant(4.0)
    assert np.array_equal(tw.function(f)(x1, y1, b1).numpy(), f(x1, y1, b1).numpy())

    @tw.function(jit_compile=True)
    def g(x):
        return x * 2.0

    assert g(tw.constant(3.0)).numpy() == 6.0
    assert tw.function(experimental_compile=False)(lambda x: x + 1)(tw.constant(1)).numpy() == 2


def test_python_side_effects_only_while_tracing(capsys):
    @tw.function
    def f(x):
        print("Tracing!")
        return x * x + tw.constant(2)

    assert f(tw.constant(2)).numpy() == 6
    assert f(tw.constant(3)).numpy() == 11
    assert capsys.readouterr().out == "Tracing!\n"
    f(2)
    f(3)
    assert capsys.readouterr().out == "Tracing!\nTracing!\n"
    assert f.experimental_get_tracing_count() == 3


def test_cache_keys_like_tensorflow():
    @tw.function
    def f(x, n=1, flag=None):
        return x * n

    a = tw.constant([1.0, 2.0])
    f(a)
    f(tw.constant([3.0, 4.0]))                 # same dtype and shape: no retrace
    assert f.experimental_get_tracing_count() == 1
    f(tw.constant([1.0, 2.0, 3.0]))            # new shape
    f(tw.constant([1, 2]))                     # new dtype
    assert f.experimental_get_tracing_count() == 3
    f(a, 2)
    f(a, n=2)                                  # same call, keyword form
    f(a, 2.0)                                  # float 2.0 is not int 2
    assert f.experimental_get_tracing_count() == 5
    f(np.ones(2, np.float32))                  # NumPy arrays key by dtype and shape
    assert f.experimental_get_tracing_count() == 5


def test_structures_and_objects():
    @tw.function
    def f(d, xs):
        return d["a"] + xs[0] + xs[1]

    one = tw.constant(1.0)
    assert f({"a": one}, [one, one]).numpy() == 3.0
    assert f({"a": one}, [one, tw.constant(5.0)]).numpy() == 7.0
    assert f.experimental_get_tracing_count() == 1

    class Obj:
        scale = 2.0

    @tw.function
    def g(o, x):
        return x * o.scale

    o1, o2 = Obj(), Obj()
    g(o1, one)
    g(o1, one)
    g(o2, one)
    assert g.experimental_get_tracing_count() == 2


def test_input_signature_and_reduce_retracing():
    @tw.function(input_signature=[tw.TensorSpec([None], tw.float32)])
    def f(x):
        return x + 1.0

    assert f(tw.constant([1.0])).numpy().tolist() == [2.0]
    assert f(tw.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 3.0, 4.0]
    assert f([1.0, 2.0]).numpy().tolist() == [2.0, 3.0]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(ValueError):
        f(tw.constant([[1.0]]))
    with pytest.raises(ValueError):
        f(tw.constant([1, 2]))

    @tw.function(reduce_retracing=True)
    def g(x):
        return x * 2

    for n in range(1, 6):
        g(tw.constant(np.ones(n, np.float32)))
    assert g.experimental_get_tracing_count() == 2
    cf = g.get_concrete_function(tw.constant(np.ones(7, np.float32)))
    assert cf.inputs[0].shape.as_list() == [None]


def test_get_concrete_function_and_signature():
    @tw.function
    def f(x, y):
        return {"sum": x + y, "n": 3}

    cf = f.get_concrete_function(tw.TensorSpec([None, 2], tw.float32, name="x"),
                                 tw.TensorSpec([None, 2], tw.float32))
    assert [t.shape.as_list() for t in cf.inputs] == [[None, 2], [None, 2]]
    assert len(cf.outputs) == 2
    args, kwargs = cf.structured_input_signature
    assert args[0].shape.as_list() == [None, 2] and kwargs == {}
    out = cf(tw.constant(np.ones((3, 2), np.float32)), tw.constant(np.ones((3, 2), np.float32)))
    assert out["sum"].numpy().shape == (3, 2) and int(out["n"]) == 3
    # A later call with a fitting shape reuses the concrete function traced for None dims.
    f(tw.constant(np.ones((5, 2), np.float32)), tw.constant(np.ones((5, 2), np.float32)))
    assert f.experimental_get_tracing_count() == 1
    text = cf.pretty_printed_signature()
    assert "Input Parameters:" in text and "TensorSpec(shape=(None, 2)" in text
    assert "f(" in str(cf.graph.signature)


def test_variables_captured_and_read_at_call_time():
    v = tw.Variable(1.0)

    @tw.function
    def f(x):
        v.assign_add(x)
        return v.read_value()

    assert f(tw.constant(2.0)).numpy() == 3.0
    assert f(tw.constant(2.0)).numpy() == 5.0
    v.assign(10.0)
    assert f(tw.constant(1.0)).numpy() == 11.0
    cf = f.get_concrete_function(tw.constant(1.0))
    assert cf.variables == (v,)


def test_variables_only_on_first_trace():
    class M:
        def __init__(self):
            self.v = None

        @tw.function
        def __call__(self, x):
            if self.v is None:
                self.v = tw.Variable(2.0)
            return self.v * x

    m = M()
    assert m(tw.constant(3.0)).numpy() == 6.0

    @tw.function
    def bad(x):
        return tw.Variable(1.0) + x

    bad(tw.constant(1.0))
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        bad(tw.constant([1.0, 2.0]))


def test_methods_bind_per_instance():
    class Counter:
        def __init__(self, k):
            self.k = k

        @tw.function
        def scale(self, x):
            return x * self.k

    a, b = Counter(2.0), Counter(3.0)
    x = tw.constant(1.0)
    assert a.scale(x).numpy() == 2.0 and b.scale(x).numpy() == 3.0
    assert a.scale is a.scale
    assert a.scale.experimental_get_tracing_count() == 1


def test_nested_functions_inline():
    @tw.function
    def inner(x, y, b):
        return tw.matmul(x, y) + b

    @tw.function
    def outer(x):
        return inner(x, tw.constant([[2.0], [3.0]]), tw.constant(4.0))

    assert outer(tw.constant([[1.0, 2.0]])).numpy().tolist() == [[12.0]]
    cf = outer.get_concrete_function(tw.constant([[1.0, 2.0]]))
    assert "MatMul" in {op.type for op in cf.graph.get_operations()}
    assert inner.experimental_get_tracing_count() == 0


def test_run_functions_eagerly(capsys):
    @tw.function
    def f(x):
        print("run")
        assert tw.executing_eagerly() == tw.config.functions_run_eagerly()
        return x + 1

    x = tw.constant(1)
    for _ in range(3):
        f(x)
    assert capsys.readouterr().out == "run\n"
    with tw.config.run_functions_eagerly(True):
        for _ in range(3):
            f(x)
    assert capsys.readouterr().out == "run\nrun\nrun\n"
    assert not tw.config.functions_run_eagerly()


def test_symbolic_bool_raises():
    @tw.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tw.errors.OperatorNotAllowedInGraphError):
        f(tw.constant(1.0))


def test_retrace_reasons_and_warning(caplog):
    @tw.function
    def f(x, y):
        return x + y

    x = tw.constant(1)
    with caplog.at_level(logging.INFO, logger="twinflow"):
        for y in range(100, 107):
            f(x, y)
    reasons = f.experimental_retrace_reasons()
    assert reasons[0] == ("argument `y`: Python int 100 -> 101; pass a tensor or use "
                          "input_signature")
    assert len(reasons) == 6
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("out of the last" in w and "triggered tf.function retracing" in w
               for w in warnings)
    f(tw.constant([1, 2]), 106)
    assert "tensor shape" in f.experimental_retrace_reasons()[-1]


def test_runtime_error_names_op_and_source_line():
    @tw.function
    def f(x, y):
        return tw.matmul(x, y)  # the failing line

    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        f.get_concrete_function(tw.TensorSpec([None, None]), tw.TensorSpec([None, None]))(
            tw.constant(np.ones((2, 3), np.float32)), tw.constant(np.ones((2, 3), np.float32)))
    assert "MatMul" in str(e.value) and "the failing line" in str(e.value)


def test_tw_print_runs_every_call(capfd):
    @tw.function
    def f(x):
        tw.print("value", x)
        return x

    f(tw.constant(1))
    f(tw.constant(2))
    err = capfd.readouterr().err
    assert "value 1" in err and "value 2" in err
