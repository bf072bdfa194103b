"""tw.print, tw.debugging assertions and numeric checks, eagerly and in graphs."""
from __future__ import annotations

import io
import logging
import sys

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import run_graph
from twinflow.core.context import ctx
from twinflow.eager.execute import bind
from twinflow.graph.core_ops import Placeholder
from twinflow.ops.debugging_ops import format_tensor


def placeholder(shape, dtype=tw.float32):
    return bind(Placeholder, [], {"dtype": dtype, "shape": tw.TensorShape(shape)})


# ----- formatting -----

@pytest.mark.parametrize("value, text", [
    (np.array([[1, 2], [3, 4]], np.int32), "[[1 2]\n [3 4]]"),
    (np.float32(2.0), "2"),
    (np.array([0.1, 2.5, 1e-7], np.float32), "[0.1 2.5 1e-07]"),
    (np.float32(3.14159265), "3.14159274"),
    (np.float64(0.1), "0.1"),
    (np.array([True, False]), "[1 0]"),
    (np.array([b"a", b"b"], object), '["a" "b"]'),
    (np.array([np.nan, np.inf, -np.inf], np.float32), "[nan inf -inf]"),
    (np.arange(10), "[0 1 2 ... 7 8 9]"),
    (np.arange(6), "[0 1 2 3 4 5]"),
    (np.zeros((0,), np.int32), "[]"),
])
def test_format_tensor(value, text):
    assert format_tensor(value) == text


def test_format_tensor_elides_rows_and_columns():
    text = format_tensor(np.arange(100).reshape(10, 10))
    assert text.splitlines() == ["[[0 1 2 ... 7 8 9]", " [10 11 12 ... 17 18 19]",
                                 " [20 21 22 ... 27 28 29]", " ...", " [70 71 72 ... 77 78 79]",
                                 " [80 81 82 ... 87 88 89]", " [90 91 92 ... 97 98 99]]"]


def test_format_tensor_3d_and_summarize():
    assert format_tensor(np.arange(8).reshape(2, 2, 2)) == "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"
    assert format_tensor(np.arange(10), summarize=1) == "[0 ... 9]"
    assert format_tensor(np.arange(10), summarize=-1) == "[0 1 2 3 4 5 6 7 8 9]"


# ----- tw.print -----

def test_print_default_stderr(capsys):
    tw.print("x:", tw.constant([[1, 2], [3, 4]]))
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "x: [[1 2]\n [3 4]]\n"


def test_print_stdout_sep_end(capsys):
    tw.print("a", tw.constant(1.5), 7, sep="|", end="!\n", output_stream=sys.stdout)
    assert capsys.readouterr().out == "a|1.5|7!\n"


def test_print_structures_and_python_values(capsys):
    tw.print({"b": tw.constant([1, 2]), "a": 3}, [tw.constant(1.0), "s"],
             output_stream=sys.stdout)
    assert capsys.readouterr().out == "{'a': 3, 'b': [1 2]} [1, 's']\n"


def test_print_shape_dtype_and_variable(capsys):
    x = tw.constant([[1.0, 2.0]])
    tw.print("Shape:", x.shape, output_stream=sys.stdout)
    tw.print(tw.Variable([1.0, 2.0]), output_stream=sys.stdout)
    assert capsys.readouterr().out == "Shape: TensorShape([1, 2])\n[1 2]\n"


def test_print_summarize(capsys):
    tw.print(tw.range(20), summarize=2, output_stream=sys.stdout)
    tw.print(tw.range(8), summarize=-1, output_stream=sys.stdout)
    assert capsys.readouterr().out == "[0 1 ... 18 19]\n[0 1 2 3 4 5 6 7]\n"


def test_print_string_scalar_raw(capsys):
    tw.print(tw.constant("hello"), output_stream=sys.stdout)
    assert capsys.readouterr().out == "hello\n"


def test_print_braces_in_text(capsys):
    tw.print("{}", tw.constant(1), "{x}", output_stream=sys.stdout)
    assert capsys.readouterr().out == "{} 1 {x}\n"


def test_print_file_object_and_file_url(tmp_path):
    buf = io.StringIO()
    tw.print("v", tw.constant(3), output_stream=buf)
    assert buf.getvalue() == "v 3\n"
    path = tmp_path / "log.txt"
    tw.print("one", output_stream=f"file://{path}")
    tw.print("two", output_stream=f"file://{path}")
    assert path.read_text() == "one\ntwo\n"


def test_print_logging(caplog):
    with caplog.at_level(logging.INFO, logger="twinflow"):
        tw.print("logged", tw.constant(5), output_stream=logging.INFO)
        tw.print("warned", output_stream=logging.warning)
    assert [r.getMessage() for r in caplog.records] == ["logged 5", "warned"]
    assert caplog.records[1].levelno == logging.WARNING


def test_print_bad_stream():
    with pytest.raises(ValueError):
        tw.print("x", output_stream="nowhere")


def test_print_returns_none_eagerly():
    assert tw.print("x", output_stream=io.StringIO()) is None


def test_print_in_graph_runs_each_time(capsys):
    g = tw.Graph()
    with g.as_default():
        x = placeholder([2])
        y = x * x
        p = tw.print("y =", y, output_stream=sys.stdout)
    assert capsys.readouterr().out == ""       # building prints nothing
    assert p.type == "PrintV2" and p.stateful
    run_graph([p], {id(x): np.array([1.0, 2.0], np.float32)})
    run_graph([p], {id(x): np.array([3.0, 4.0], np.float32)})
    assert capsys.readouterr().out == "y = [1 4]\ny = [9 16]\n"
    assert "PrintV2" in str(g.as_graph_def())


def test_print_in_graph_to_file_object():
    buf = io.StringIO()
    g = tw.Graph()
    with g.as_default():
        x = placeholder([])
        p = tw.print("x", x, output_stream=buf)
    assert "key: \"_stream\"" not in str(g.as_graph_def())
    run_graph([p], {id(x): np.float32(2.5)})
    assert buf.getvalue() == "x 2.5\n"


# ----- assertions -----

def test_assert_equal_passes_and_fails():
    assert tw.debugging.assert_equal(tw.constant([1, 2]), tw.constant([1, 2])) is None
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        tw.debugging.assert_equal(tw.constant([1, 2, 3]), tw.constant([1, 5, 3]), message="oops")
    assert str(e.value).splitlines() == [
        "oops", "Condition x == y did not hold.", "Indices of first 1 different values:",
        "[[1]]", "Corresponding x values:", "[2]", "Corresponding y values:", "[5]",
        "First 3 elements of x:", "[1 2 3]", "First 3 elements of y:", "[1 5 3]"]


def test_assert_equal_with_python_values_and_shapes():
    tw.debugging.assert_equal(tw.constant(np.zeros((32, 10))).shape, (32, 10))
    tw.assert_equal(tw.constant(2.0), 2.0)
    with pytest.raises(tw.errors.InvalidArgumentError):
        tw.debugging.assert_equal(tw.constant(np.zeros((3, 10))).shape, (32, 10))


@pytest.mark.parametrize("fn, x, y, ok", [
    ("assert_less", [1, 2], [2, 3], True), ("assert_less", [1, 3], [2, 3], False),
    ("assert_less_equal", [1, 3], [2, 3], True), ("assert_less_equal", [4], [3], False),
    ("assert_greater", [3, 4], [2, 3], True), ("assert_greater", [3, 3], [2, 3], False),
    ("assert_greater_equal", [3, 3], [2, 3], True), ("assert_greater_equal", [1], [2], False),
    ("assert_none_equal", [1, 2], [2, 1], True), ("assert_none_equal", [1, 2], [1, 3], False),
])
def test_comparison_asserts(fn, x, y, ok):
    f = getattr(tw.debugging, fn)
    if ok:
        assert f(tw.constant(x), tw.constant(y)) is None
    else:
        with pytest.raises(tw.errors.InvalidArgumentError, match="did not hold"):
            f(tw.constant(x), tw.constant(y), message="custom")


def test_assert_message_summarizes_values():
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        tw.debugging.assert_less(tw.constant([5, 6, 7, 8]), tw.constant(2), summarize=2)
    msg = str(e.value)
    assert "Condition x < y did not hold." in msg
    assert "First 2 elements of x:\n[5 6]" in msg


def test_sign_asserts():
    tw.debugging.assert_positive(tw.constant([1.0, 2.0]))
    tw.debugging.assert_non_negative(tw.constant([0, 2]))
    tw.debugging.assert_negative(tw.constant([-1.0]))
    tw.debugging.assert_non_positive(tw.constant([0.0, -1.0]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="positive"):
        tw.debugging.assert_positive(tw.constant([1.0, 0.0]))


def test_assert_near():
    tw.debugging.assert_near(tw.constant([1.0, 2.0]), tw.constant([1.0, 2.000001]))
    tw.debugging.assert_near(tw.constant([1.0]), tw.constant([1.1]), atol=0.2)
    with pytest.raises(tw.errors.InvalidArgumentError, match="not equal to tolerance"):
        tw.debugging.assert_near(tw.constant([1.0, 2.0]), tw.constant([1.0, 2.1]))


def test_assert_rank_and_scalar():
    tw.debugging.assert_rank(tw.constant([[1]]), 2)
    tw.debugging.assert_rank_at_least(tw.constant([[1]]), 1)
    with pytest.raises(ValueError, match="must have rank 1"):
        tw.debugging.assert_rank(tw.constant([[1]]), 1)
    with pytest.raises(tw.errors.InvalidArgumentError):
        tw.debugging.assert_rank(tw.constant(1.0), 1)
    assert float(tw.debugging.assert_scalar(tw.constant(3.0))) == 3.0


def test_assert_type():
    tw.debugging.assert_type(tw.constant(1.0), tw.float32)
    tw.debugging.assert_type(tw.Variable(1), tw.int32)
    with pytest.raises(TypeError, match="float32"):
        tw.debugging.assert_type(tw.constant(1), tw.float32)


def test_assert_shapes():
    x, y = tw.constant(np.zeros((4, 3))), tw.constant(np.zeros((4, 2)))
    s = tw.constant(1.0)
    tw.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N", "D")), (s, ())])
    tw.debugging.assert_shapes({x: ("...", 3)} if False else [(x, (..., 3)), (y, (4, None))])
    with pytest.raises(tw.errors.InvalidArgumentError, match="dimension 0"):
        tw.debugging.assert_shapes([(x, ("N", "Q")), (tw.constant(np.zeros((5, 2))), ("N", 2))])
    with pytest.raises(tw.errors.InvalidArgumentError, match="rank"):
        tw.debugging.assert_shapes([(x, ("N",))])


def test_Assert_eager():
    tw.debugging.Assert(tw.constant(True), [tw.constant([1, 2])])
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        tw.Assert(tw.constant(False), ["bad", tw.constant([1, 2, 3, 4])], summarize=2)
    # TensorFlow 2.21 shows the string as bytes: "Summarized data: b'bad'\n1, 2, ..."
    assert "Summarized data: b'bad'\n1, 2, ..." in str(e.value)


def test_assertions_in_graph_run_each_time():
    g = tw.Graph()
    with g.as_default():
        x = placeholder([2])
        y = placeholder([2])
        op = tw.debugging.assert_less(x, y, message="need x < y")
        a2 = tw.debugging.Assert(tw.reduce_all(tw.less(x, 10.0)), ["x too big:", x])
        near = tw.debugging.assert_near(x, y, atol=0.5)
    assert op.type == "Assert" and op.stateful and a2.type == "Assert"
    feeds = {id(x): np.array([1.0, 2.0], np.float32), id(y): np.array([1.2, 2.1], np.float32)}
    run_graph([op, a2, near], feeds)
    feeds[id(y)] = np.array([0.0, 3.0], np.float32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="need x < y"):
        run_graph([op], feeds)
    feeds[id(x)] = np.array([1.0, 20.0], np.float32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="x too big"):
        run_graph([a2], feeds)
    with pytest.raises(tw.errors.InvalidArgumentError, match="tolerance"):
        run_graph([near], feeds)


def test_static_assertion_fails_while_building_graph():
    g = tw.Graph()
    with g.as_default():
        with pytest.raises(tw.errors.InvalidArgumentError):
            tw.debugging.assert_equal(tw.constant(1), tw.constant(2))


# ----- numerics -----

def test_check_numerics_op():
    x = tw.constant([1.0, 2.0])
    assert tw.debugging.check_numerics(x, "fine").numpy().tolist() == [1.0, 2.0]
    with pytest.raises(tw.errors.InvalidArgumentError, match="bad values : Tensor had NaN"):
        tw.debugging.check_numerics(tw.constant([np.nan]), "bad values")
    with pytest.raises(tw.errors.InvalidArgumentError, match="Inf"):
        tw.debugging.assert_all_finite(tw.constant([np.inf]), "inf here")


def test_check_numerics_gradient_passes_through():
    x = tw.constant([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.debugging.check_numerics(x * x, "m")
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0])


@pytest.fixture
def numerics_on():
    tw.debugging.enable_check_numerics()
    try:
        yield
    finally:
        tw.debugging.disable_check_numerics()


def test_enable_check_numerics_eager(numerics_on):
    assert ctx.check_numerics and ctx.slow_path
    big = tw.constant([1e30], dtype=tw.float32)
    with np.errstate(over="ignore"):
        with pytest.raises(tw.errors.InvalidArgumentError, match="Mul"):
            big * big
    tw.constant([1.0]) * tw.constant([2.0])  # fine values pass


def test_disable_check_numerics():
    tw.debugging.enable_check_numerics()
    tw.debugging.disable_check_numerics()
    assert not ctx.check_numerics and not ctx.slow_path
    with np.errstate(over="ignore"):
        tw.constant([1e30]) * tw.constant([1e30])


def test_enable_check_numerics_graph_names_node(numerics_on):
    g = tw.Graph()
    with g.as_default():
        x = placeholder([1])
        y = tw.multiply(x, x, name="square_me")
    tw.debugging.disable_check_numerics()
    np.testing.assert_allclose(run_graph([y], {id(x): np.array([3.0], np.float32)})[0], [9.0])
    with np.errstate(over="ignore"):
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"op Mul \(node square_me\)"):
            run_graph([y], {id(x): np.array([1e30], np.float32)})


# ----- inside tw.function (graph mode as users meet it) -----

def test_print_and_assert_in_function(capsys):
    @tw.function
    def f(x):
        tw.print("in f:", x, output_stream=sys.stdout)
        tw.debugging.assert_less(x, 10.0, message="too big")
        return x * 2

    f(tw.constant([1.0, 2.0]))
    f(tw.constant([3.0, 4.0]))
    assert capsys.readouterr().out == "in f: [1 2]\nin f: [3 4]\n"
    with pytest.raises(tw.errors.InvalidArgumentError, match="too big"):
        f(tw.constant([30.0, 4.0]))


def test_seed000_check_numerics_in_function():
    @tw.function(experimental_compile=False)
    def debug_graph_function(x):
        tw.debugging.enable_check_numerics()
        y = x * x
        return y

    try:
        x = tw.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tw.float32)
        result = debug_graph_function(x)
        np.testing.assert_allclose(result.numpy(), [[1.0, 4.0], [9.0, 16.0]])
        with np.errstate(over="ignore"):
            with pytest.raises(tw.errors.InvalidArgumentError, match="op Mul"):
                debug_graph_function(tw.constant([[1e30, 1.0], [1.0, 1.0]]))
    finally:
        tw.debugging.disable_check_numerics()
