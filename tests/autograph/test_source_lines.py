"""Ops created by AutoGraph-converted code point at the user's own file, line and line text.

Each line a test expects is marked with a ``# @name`` comment; ``_line("name")`` finds it, so
the tests do not depend on where in this file the functions sit.
"""
from __future__ import annotations

import sys
import traceback

import numpy as np
import pytest

import twinflow as tw
from twinflow.autograph import to_code

with open(__file__, encoding="utf-8") as _f:
    _LINES = _f.read().splitlines()


def _line(marker: str) -> int:
    hits = [i + 1 for i, text in enumerate(_LINES) if text.rstrip().endswith(f"# @{marker}")]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def _text(marker: str) -> str:
    return _LINES[_line(marker) - 1].strip()


def _all_ops(graph) -> list:
    """The ops of ``graph`` and of every sub-graph nested in it (If branches, While bodies)."""
    out = []
    for op in graph.get_operations():
        out.append(op)
        for v in op.attrs.values():
            for g in v if isinstance(v, (list, tuple)) else [v]:
                if hasattr(g, "get_operations") and hasattr(g, "outputs"):
                    out.extend(_all_ops(g))
    return out


def _ops(fn, *args, autograph: bool = True) -> list:
    f = tw.function(fn, autograph=autograph)
    return _all_ops(f.get_concrete_function(*args).graph)


def _one(ops: list, *types: str):
    found = [op for op in ops if op.type in types]
    assert len(found) == 1, [(op.name, op.type) for op in ops]
    return found[0]


def _assert_at(op, marker: str, function: str) -> None:
    src = op.source
    assert src is not None, op
    assert (src.filename, src.lineno, src.line) == (__file__, _line(marker), _text(marker)), \
        (op.name, op.type, str(src))
    assert src.function == function, str(src)


# ----- if / elif / else ---------------------------------------------------------------------

def step(x):
    y = x * 2.0  # @step_mul
    if tw.reduce_sum(y) > 0:  # @step_if
        y = tw.nn.relu(y)  # @step_relu
    return y


def test_if_op_points_at_the_if_line():
    ops = _ops(step, tw.TensorSpec([3]))
    _assert_at(_one(ops, "Mul"), "step_mul", "step")
    _assert_at(_one(ops, "Sum"), "step_if", "step")
    _assert_at(_one(ops, "If", "StatelessIf"), "step_if", "step")
    # An op inside the branch: its own line, and the user's function name (not `if_body_1`).
    _assert_at(_one(ops, "Relu"), "step_relu", "step")


def sign(x):
    if x > 0:  # @sign_if
        y = x * 3.0  # @sign_then
    elif x < 0:  # @sign_elif
        y = x * 5.0  # @sign_elif_body
    else:
        y = tw.abs(x)  # @sign_else
    return y


def test_elif_else():
    ops = _ops(sign, tw.TensorSpec([]))
    conds = [op for op in ops if op.type in ("If", "StatelessIf")]
    assert len(conds) == 2
    _assert_at(conds[0], "sign_if", "sign")
    _assert_at(conds[1], "sign_elif", "sign")
    _assert_at(_one(ops, "Less"), "sign_elif", "sign")
    muls = [op for op in ops if op.type == "Mul"]
    assert [op.source.lineno for op in muls] == [_line("sign_then"), _line("sign_elif_body")]
    _assert_at(_one(ops, "Abs"), "sign_else", "sign")


# ----- loops -----------------------------------------------------------------------------------

def count(n):
    i = tw.constant(0)
    s = tw.constant(0)
    while i < n:  # @count_while
        s = s + i * 2  # @count_body
        i += 1  # @count_inc
    return s


def test_while_op_points_at_the_while_line():
    ops = _ops(count, tw.TensorSpec([], tw.int32))
    _assert_at(_one(ops, "While", "StatelessWhile"), "count_while", "count")
    for op in ops:
        if op.type == "Less":
            _assert_at(op, "count_while", "count")   # the test, traced twice
    _assert_at(_one(ops, "Mul"), "count_body", "count")
    add_lines = sorted(op.source.lineno for op in ops if op.type in ("Add", "AddV2"))
    assert add_lines == [_line("count_body"), _line("count_inc")]


def total(xs):
    s = tw.constant(0.0)
    for x in xs:  # @total_for
        s = s + tw.reduce_sum(x)  # @total_body
    return s


def test_for_over_a_tensor():
    ops = _ops(total, tw.TensorSpec([4, 2]))
    _assert_at(_one(ops, "While", "StatelessWhile"), "total_for", "total")
    _assert_at(_one(ops, "Sum"), "total_body", "total")


def first_positive(xs):
    r = tw.constant(-1.0)
    for x in tw.range(5):  # @fp_for
        if xs[x] > 0:  # @fp_if
            r = tw.identity(xs[x])  # @fp_then
            break
    return r


def test_break_in_a_tensor_loop():
    ops = _ops(first_positive, tw.TensorSpec([5]))
    _assert_at(_one(ops, "While", "StatelessWhile"), "fp_for", "first_positive")
    _assert_at(_one(ops, "If", "StatelessIf"), "fp_if", "first_positive")
    _assert_at(_one(ops, "Identity"), "fp_then", "first_positive")


def early(x):
    if tw.reduce_sum(x) > 0:  # @early_if
        return x * 2.0
    y = tw.exp(x)  # @early_after
    return y


def test_code_after_a_return_in_a_branch():
    ops = _ops(early, tw.TensorSpec([2]))
    _assert_at(_one(ops, "Exp"), "early_after", "early")
    # the `if` itself, then the generated `if not do_return:` guarding the code after it
    conds = [op.source.lineno for op in ops if op.type in ("If", "StatelessIf")]
    assert conds == [_line("early_if"), _line("early_after")]


# ----- expressions and asserts -----------------------------------------------------------------

def choose(x):
    y = (tw.sqrt(x)  # @choose_start
         if tw.reduce_sum(x) > 0
         else tw.square(x))  # @choose_else
    return y


def test_conditional_expression():
    ops = _ops(choose, tw.TensorSpec([2]))
    # A multi-line expression's op sits on the line it starts, as unconverted Python has it.
    _assert_at(_one(ops, "If", "StatelessIf"), "choose_start", "choose")
    _assert_at(_one(ops, "Sqrt"), "choose_start", "choose")
    _assert_at(_one(ops, "Square"), "choose_else", "choose")


def both(x, y):
    ok = (tw.reduce_sum(x) > 0) and (tw.reduce_sum(y) > 0)  # @both_and
    either = (tw.reduce_max(x) > 1) or (  # @both_or
        tw.reduce_min(y) > 1)  # @both_or_right
    return tw.logical_and(ok, either)  # @both_ret


def test_and_or():
    ops = _ops(both, tw.TensorSpec([2]), tw.TensorSpec([2]))
    _assert_at([op for op in ops if op.type == "Sum"][1], "both_and", "both")
    _assert_at(_one(ops, "Max"), "both_or", "both")
    _assert_at(_one(ops, "Min"), "both_or_right", "both")
    ands = [op for op in ops if op.type == "LogicalAnd"]
    assert [op.source.lineno for op in ands] == [_line("both_and"), _line("both_ret")]
    _assert_at(_one(ops, "LogicalOr"), "both_or", "both")


def checked(x):
    assert tw.reduce_all(x > 0), "x must be positive"  # @checked_assert
    return tw.math.log(x)  # @checked_log


def test_assert():
    ops = _ops(checked, tw.TensorSpec([3]))
    _assert_at(_one(ops, "Assert"), "checked_assert", "checked")
    _assert_at(_one(ops, "Log"), "checked_log", "checked")


def multi_line_call(a, b):
    if tw.reduce_sum(a) > 0:
        c = tw.matmul(  # @mlc_matmul
            a,
            b)
    else:
        c = tw.matmul(a, b) * 2.0
    return c


def test_same_locations_as_unconverted_python():
    # Without tensor control flow the converted function must place every op exactly where
    # plain Python does.
    def plain(a, b):
        c = tw.matmul(  # @plain_matmul
            a,
            tw.transpose(b))  # @plain_transpose
        d = [c * float(k) for k in range(2)]
        return tw.add_n(d) if len(d) > 1 else d[0]

    specs = (tw.TensorSpec([2, 3]), tw.TensorSpec([2, 3]))
    converted = [(op.type, str(op.source)) for op in _ops(plain, *specs)]
    unconverted = [(op.type, str(op.source)) for op in _ops(plain, *specs, autograph=False)]
    assert converted == unconverted
    ops = _ops(plain, *specs)
    _assert_at(_one(ops, "MatMul"), "plain_matmul", "plain")
    _assert_at(_one(ops, "Transpose"), "plain_transpose", "plain")
    ops = _ops(multi_line_call, tw.TensorSpec([2, 2]), tw.TensorSpec([2, 2]))
    assert _line("mlc_matmul") in [op.source.lineno for op in ops if op.type == "MatMul"]


class Model:
    scale = 2.0

    def call(self, x):
        note = """
not indented like the method"""
        if tw.reduce_sum(x) > 0:  # @method_if
            x = x * self.scale  # @method_mul
        return x, note


def test_method_with_a_string_less_indented_than_its_body():
    m = Model()
    f = tw.function(m.call)
    ops = _all_ops(f.get_concrete_function(tw.TensorSpec([2])).graph)
    _assert_at(_one(ops, "If", "StatelessIf"), "method_if", "call")
    _assert_at(_one(ops, "Mul"), "method_mul", "call")
    _, note = f(tw.constant([1.0, 2.0]))
    assert note == "\nnot indented like the method"


def test_lambda_ops_point_at_its_line():
    f = tw.function(lambda x: tw.nn.relu(x) if tw.reduce_sum(x) > 0 else -x)  # @lambda
    ops = _all_ops(f.get_concrete_function(tw.TensorSpec([2])).graph)
    for t in ("If", "StatelessIf", "Relu", "Neg", "Sum"):
        for op in ops:
            if op.type == t:
                assert (op.source.filename, op.source.lineno) == (__file__, _line("lambda"))


# ----- errors ---------------------------------------------------------------------------------

def bad_matmul(a, b):
    if tw.reduce_sum(a) > 0:  # @bad_if
        c = tw.matmul(a, b)  # @bad_matmul
    else:
        c = a
    return c


def test_trace_time_shape_error_names_the_user_line():
    f = tw.function(bad_matmul)
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        f.get_concrete_function(tw.TensorSpec([2, 3]), tw.TensorSpec([2, 3]))
    msg = str(e.value)
    assert f"{__file__}:{_line('bad_matmul')}" in msg and _text("bad_matmul") in msg
    assert "MatMul" in msg


def test_run_time_shape_error_names_the_op_and_user_line():
    f = tw.function(bad_matmul)
    f.get_concrete_function(tw.TensorSpec([None, None]), tw.TensorSpec([None, None]))
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        f(tw.ones([2, 3]), tw.ones([2, 3]))
    msg = str(e.value)
    assert "MatMul" in msg
    assert f"{__file__}:{_line('bad_matmul')} in bad_matmul: {_text('bad_matmul')}" in msg


def python_error(x, k):
    if tw.reduce_sum(x) > 0:  # @pyerr_if
        y = x * (1 / (k - k))  # @pyerr_div
    else:
        y = x
    return y


def test_python_error_traceback_shows_the_original_lines():
    f = tw.function(python_error)
    with pytest.raises(ZeroDivisionError) as e:
        f(tw.constant([1.0]), 3)
    frames = [fr for fr in traceback.extract_tb(e.value.__traceback__)
              if fr.filename == __file__ and fr.name == "python_error"]
    assert frames, traceback.format_tb(e.value.__traceback__)
    # the If op's frame, then the branch: both read as the user's function and lines
    assert [fr.lineno for fr in frames] == [_line("pyerr_if"), _line("pyerr_div")]
    assert [fr.line for fr in frames] == [_text("pyerr_if"), _text("pyerr_div")]
    if sys.version_info >= (3, 11):
        text = "".join(traceback.format_tb(e.value.__traceback__))
        assert _text("pyerr_div") in text


def test_undefined_branch_variable_error_names_the_if_line():
    def half(x):
        if tw.reduce_sum(x) > 0:  # @half_if
            z = x * 2.0
        return z

    with pytest.raises(Exception) as e:
        tw.function(half).get_concrete_function(tw.TensorSpec([2]))
    assert f"{__file__}:{_line('half_if')}" in str(e.value)


def test_to_code_unchanged_and_numerics():
    assert "ag__.if_stmt" in to_code(step)
    np.testing.assert_allclose(tw.function(step)(tw.constant([1.0, -2.0, 3.0])).numpy(),
                               [2.0, 0.0, 6.0])
    assert int(tw.function(count)(tw.constant(4))) == 12
