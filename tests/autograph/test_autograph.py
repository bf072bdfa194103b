"""AutoGraph: Python control flow on tensors inside tw.function becomes If/While ops."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import twinflow as tw
from twinflow.autograph import AutoGraphError, AutoGraphWarning
from twinflow.autograph.operators import UndefinedVariableError


def _types(f, *args) -> list:
    return [op.type for op in f.get_concrete_function(*args).graph.get_operations()]


def _loops(types) -> int:
    return types.count("While") + types.count("StatelessWhile")


def _ifs(types) -> int:
    return types.count("If") + types.count("StatelessIf")


def _both(fn, *args):
    f = tw.function(fn)
    g = f(*args)
    with tw.config.run_functions_eagerly(True):
        e = f(*args)
    for a, b in zip(tw.nest.flatten(g), tw.nest.flatten(e)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    return g


# ----- if ---------------------------------------------------------------------------------------

def sign_elif(x):
    if x > 0:
        y = 1.0
    elif x < 0:
        y = -1.0
    else:
        y = 0.0
    return y * 10.0


def test_if_elif_else():
    f = tw.function(sign_elif)
    for v, want in ((3.0, 10.0), (-2.0, -10.0), (0.0, 0.0)):
        assert float(f(tw.constant(v))) == want
    assert f.experimental_get_tracing_count() == 1
    assert _ifs(_types(f, tw.constant(1.0))) == 1  # the elif is nested inside its sub-graph


def early_return(x):
    if tw.reduce_sum(x) > 0:
        return x * 2.0
    y = x - 1.0
    return y * 3.0


def test_return_inside_branch_then_code_after():
    for v in ([1.0, 2.0], [-1.0, -2.0]):
        _both(early_return, tw.constant(v))


def python_condition(x, flag):
    if flag:
        return x + 1.0
    return x - 1.0


def test_python_condition_stays_python():
    f = tw.function(python_condition)
    assert float(f(tw.constant(1.0), True)) == 2.0
    assert _ifs(_types(f, tw.constant(1.0), True)) == 0


def ternary_and_logic(x, y):
    z = x if x > y else y
    both = (x > 0) and (y > 0)
    either = (x > 0) or (y > 0)
    neither = not either
    return z, both, either, neither


def test_conditional_expression_and_bool_ops():
    for a, b in ((1.0, 2.0), (3.0, -1.0), (-1.0, -2.0)):
        _both(ternary_and_logic, tw.constant(a), tw.constant(b))
    assert python_and(3) == 3


def python_and(n):
    return n > 1 and n


# ----- loops ------------------------------------------------------------------------------------

def sum_to(n):
    s = 0
    i = 0
    while i < n:
        s += i
        i += 1
    return s


def test_while_data_dependent_trip_count_no_retrace():
    f = tw.function(sum_to)
    for n in (0, 5, 100):
        assert int(f(tw.constant(n))) == n * (n - 1) // 2
    assert f.experimental_get_tracing_count() == 1
    assert _loops(_types(f, tw.constant(3))) == 1
    assert sum_to(4) == 6  # plain Python still works


def for_range_break_continue(n):
    total = tw.constant(0)
    for i in tw.range(n):
        if i % 2 == 0:
            continue
        if i > 7:
            break
        total += i
    return total


def test_for_over_range_with_break_and_continue():
    f = tw.function(for_range_break_continue)
    assert int(f(tw.constant(20))) == 1 + 3 + 5 + 7
    assert int(f(tw.constant(4))) == 1 + 3
    assert _loops(_types(f, tw.constant(3))) == 1
    _both(for_range_break_continue, tw.constant(20))


def find_first_negative(x):
    for i in tw.range(tw.shape(x)[0]):
        if x[i] < 0:
            return i
    return -1


def test_return_inside_loop():
    f = tw.function(find_first_negative)
    assert int(f(tw.constant([1.0, 2.0, -3.0, -4.0]))) == 2
    assert int(f(tw.constant([1.0, 2.0]))) == -1


def for_over_tensor(x):
    acc = tw.zeros([2])
    for row in x:
        acc = acc + row * row
    return acc


def test_for_over_tensor_rows():
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    f = tw.function(for_over_tensor)
    np.testing.assert_allclose(f(tw.constant(a)).numpy(), (a * a).sum(0))
    f2 = tw.function(for_over_tensor, input_signature=[tw.TensorSpec([None, 2])])
    np.testing.assert_allclose(f2(tw.constant(a)).numpy(), (a * a).sum(0))
    assert _loops(_types(f2, tw.constant(a))) == 1


def python_loops_unroll(x):
    for _k in range(3):
        x = x * 2.0
    for w in [1.0, 2.0]:
        x = x + w
    return x


def test_python_range_and_list_unroll():
    f = tw.function(python_loops_unroll)
    assert float(f(tw.constant(1.0))) == 11.0
    assert _loops(_types(f, tw.constant(1.0))) == 0


def collect(x):
    out = []
    for i in tw.range(tw.shape(x)[0]):
        out.append(x[i] * 2.0)
    return tw.stack(out)


def test_list_append_in_tensor_loop_becomes_tensor_array():
    f = tw.function(collect, input_signature=[tw.TensorSpec([None])])
    np.testing.assert_allclose(f(tw.constant([1.0, 2.0, 3.0])).numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(f(tw.constant([5.0])).numpy(), [10.0])
    assert _loops(_types(f, tw.constant([1.0]))) == 1


def grow_nonempty(x):
    out = [x]
    for _i in tw.range(3):
        out.append(x)
    return out


def test_python_list_grown_in_tensor_loop_error_teaches():
    with pytest.raises(ValueError) as e:
        tw.function(grow_nonempty)(tw.constant(1.0))
    msg = str(e.value)
    assert "'out'" in msg and "tw.TensorArray" in msg and "test_autograph.py" in msg


def range_of_tensor(x):
    s = 0.0
    for i in range(tw.shape(x)[0]):
        s += x[i]
    return s


def test_builtin_range_and_len_of_tensor():
    f = tw.function(range_of_tensor, input_signature=[tw.TensorSpec([None])])
    assert float(f(tw.constant([1.0, 2.0, 3.0]))) == 6.0


# ----- errors that teach ------------------------------------------------------------------------

def one_branch(x):
    if x > 0:
        y = x * 2.0
    return y


def test_variable_defined_in_one_branch():
    with pytest.raises(UndefinedVariableError) as e:
        tw.function(one_branch)(tw.constant(1.0))
    msg = str(e.value)
    assert "'y'" in msg and "true branch" in msg and "before the `if`" in msg
    assert "test_autograph.py" in msg


def dtype_changes(x):
    if x > 0:
        y = tw.constant(1)
    else:
        y = tw.constant(1.0)
    return y


def test_dtype_changing_across_branches():
    with pytest.raises(TypeError) as e:
        tw.function(dtype_changes)(tw.constant(1.0))
    msg = str(e.value)
    assert "'y'" in msg and "int32" in msg and "float32" in msg and "tw.cast" in msg


def loop_dtype_changes(n):
    v = 0
    i = 0
    while i < n:
        v = tw.cast(v, tw.float32) + 0.5
        i += 1
    return v


def test_dtype_changing_across_iterations():
    with pytest.raises(TypeError) as e:
        tw.function(loop_dtype_changes)(tw.constant(3))
    msg = str(e.value)
    assert "'v'" in msg and "int32" in msg and "float32" in msg


def loop_shape_changes(n):
    v = tw.zeros([1])
    i = 0
    while i < n:
        v = tw.concat([v, v], 0)
        i += 1
    return v


def test_shape_changing_across_iterations():
    with pytest.raises(ValueError) as e:
        tw.function(loop_shape_changes)(tw.constant(3))
    assert "'v'" in str(e.value) and "shape" in str(e.value)


# ----- assert, print, recursion, fallback, to_code ----------------------------------------------

def with_assert(x):
    assert tw.reduce_sum(x) > 0, "sum must be positive"
    print("tracing with_assert")
    return x + 1.0


def test_assert_becomes_graph_assert_and_print_runs_at_trace(capsys):
    f = tw.function(with_assert)
    f(tw.constant([1.0]))
    f(tw.constant([2.0]))
    assert capsys.readouterr().out.count("tracing with_assert") == 1
    with pytest.raises(tw.errors.InvalidArgumentError, match="sum must be positive"):
        f(tw.constant([-1.0]))


def helper_abs(x):
    if x < 0:
        return -x
    return x


def calls_helper(x):
    return helper_abs(x) + 1.0


def test_called_user_functions_are_converted():
    f = tw.function(calls_helper)
    assert float(f(tw.constant(-2.0))) == 3.0
    assert float(f(tw.constant(2.0))) == 3.0


def test_fallback_warns_and_strict_raises():
    ns: dict = {}
    exec("def no_source(x):\n    return x * 2.0\n", ns)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f = tw.function(ns["no_source"])
        assert float(f(tw.constant(2.0))) == 4.0
    assert any(issubclass(x.category, AutoGraphWarning) and "source" in str(x.message)
               for x in w)
    with pytest.raises(AutoGraphError, match="source"):
        tw.autograph.convert(ns["no_source"], strict=True)
    g = tw.function(ns["no_source"],
                    experimental_autograph_options=tw.autograph.experimental.Feature.STRICT)
    with pytest.raises(AutoGraphError):
        g(tw.constant(2.0))


@tw.autograph.experimental.do_not_convert
def not_converted(x):
    if x > 0:
        return x
    return -x


def test_do_not_convert():
    assert tw.autograph.convert(not_converted) is not_converted
    with pytest.raises(tw.errors.OperatorNotAllowedInGraphError):
        tw.function(not_converted)(tw.constant(1.0))


def test_to_code_is_readable():
    code = tw.autograph.to_code(for_range_break_continue)
    assert "def loop_body" in code and "ag__.for_stmt" in code and "break_" in code
    compile(code, "<to_code>", "exec")
    assert "ag__.while_stmt" in tw.autograph.to_code(sum_to)


def grad_through_autograph(x):
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x
        i = 0
        while i < 3:
            if tw.reduce_sum(y) > 0:
                y = y * x
            else:
                y = y - x
            i += 1
        s = tw.reduce_sum(y)
    return tape.gradient(s, x)


def test_gradient_through_converted_control_flow():
    for v in ([1.0, 2.0], [-1.0, -0.5]):
        _both(grad_through_autograph, tw.constant(v))


def growing(n):
    v = tw.zeros([1])
    i = 0
    while i < n:
        tw.autograph.experimental.set_loop_options(shape_invariants=[(v, tw.TensorShape([None]))])
        v = tw.concat([v, v], 0)
        i += 1
    return v


def test_set_loop_options_shape_invariants():
    f = tw.function(growing)
    assert f(tw.constant(3)).shape == (8,)
    assert f(tw.constant(1)).shape == (2,)
    assert f.experimental_get_tracing_count() == 1


def test_lambda_entry_point_is_converted():
    f = tw.function(lambda x: helper_abs(x) * 2.0)
    assert float(f(tw.constant(-3.0))) == 6.0


def test_set_loop_options_refuses_maximum_iterations_in_a_loop_over_tensors():
    @tw.function
    def bounded(n):
        i = tw.constant(0)
        while i < n:
            tw.autograph.experimental.set_loop_options(maximum_iterations=3)
            i += 1
        return i
    with pytest.raises(NotImplementedError, match="maximum_iterations"):
        bounded(tw.constant(10))

    @tw.function
    def python_loop():  # as TensorFlow: a Python loop takes no options
        i = 0
        for _ in range(10):
            tw.autograph.experimental.set_loop_options(maximum_iterations=3)
            i += 1
        return i
    assert int(python_loop()) == 10
