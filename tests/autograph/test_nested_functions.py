"""AutoGraph converts functions defined inside converted code (nested defs, methods of local
classes, lambdas) with every converter, as it converts the function holding them.

A nested function is created by converted code and so carries ``ag__`` among its free
variables: ``converted_call`` and ``tw.map_fn`` take it as converted and never convert it again.
It once got only the expression and ``if``/loop passes: a ``return`` in its ``if`` stayed inside
the generated branch function, whose value ``ag__.if_stmt(...)`` dropped, and the function
silently returned None. Each test compares the graph with eager execution.
"""
from __future__ import annotations

import ast

import numpy as np
import pytest

import twinflow as tw
from twinflow.autograph.conversion import convert_ast
from twinflow.autograph.converters import for_statements, if_statements, while_statements
from twinflow.autograph.converters.base import ConversionError, Namer

X = tw.constant(np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32))


def _both(fn, *args):
    f = tw.function(fn)
    g = f(*args)
    with tw.config.run_functions_eagerly(True):
        e = f(*args)
    g_flat, e_flat = tw.nest.flatten(g), tw.nest.flatten(e)
    assert len(g_flat) == len(e_flat)
    for a, b in zip(g_flat, e_flat):
        assert a is not None
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    return g


def _discarded_calls(fn) -> list:
    """The ``ag__`` operator calls of ``fn``'s converted code whose value is thrown away."""
    tree = convert_ast(fn)
    return [n.value.func.attr for n in ast.walk(tree)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Attribute)
            and isinstance(n.value.func.value, ast.Name) and n.value.func.value.id == "ag__"
            and n.value.func.attr in ("if_stmt", "while_stmt", "for_stmt", "if_exp")]


def _returns_in_generated(fn) -> list:
    """Names of generated branch/loop functions that still hold a user ``return`` (one that
    does not just return the statement's variables)."""
    bad = []
    for n in ast.walk(convert_ast(fn)):
        if isinstance(n, ast.FunctionDef) and n.name.startswith(("if_body_", "else_body_",
                                                                "loop_body_")):
            for s in n.body[:-1]:
                if any(isinstance(r, ast.Return) for r in ast.walk(s)
                       if not isinstance(s, ast.FunctionDef)):
                    bad.append(n.name)
    return bad


# ----- return in if/else -------------------------------------------------------------------------

def if_else_returns(x):
    def op(t):
        if tw.reduce_mean(t) > 0:
            return tw.sin(t) * 0.5
        else:
            return tw.cos(t) * 0.3
    return op(x), op(-x)


def early_return(x):
    def op(t):
        if tw.reduce_mean(t) > 0:
            return tw.sin(t)
        return tw.cos(t)
    return op(x), op(-x)


def elif_returns(x):
    def op(t):
        m = tw.reduce_mean(t)
        if m > 0.5:
            return t * 3.0
        elif m > 0:
            return t * 2.0
        else:
            z = t - 1.0     # bound only on a path that returns: undefined after the if
            return z * 2.0
    return op(x), op(-x), op(x * 10.0 + 10.0)


@pytest.mark.parametrize("fn", [if_else_returns, early_return, elif_returns])
def test_nested_returns_in_if_match_eager(fn):
    _both(fn, X)
    assert _discarded_calls(fn) == []
    assert _returns_in_generated(fn) == []


def test_nested_if_else_returns_values():
    a, b = tw.function(if_else_returns)(X)
    xs = np.asarray(X)
    m = xs.mean()
    want = (np.sin(xs) * 0.5 if m > 0 else np.cos(xs) * 0.3,
            np.sin(-xs) * 0.5 if -m > 0 else np.cos(-xs) * 0.3)
    np.testing.assert_allclose(np.asarray(a), want[0], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(b), want[1], rtol=1e-5)


def test_elif_chain_of_returns_at_top_level():
    # The variable bound only in the last, returning branch is undefined after both branches
    # of the outer `if`: that is no error unless it is read (it once raised a TypeError).
    def op(t):
        m = tw.reduce_mean(t)
        if m > 0.5:
            return t * 3.0
        elif m > 0:
            return t * 2.0
        else:
            z = t - 1.0
            return z * 2.0
    for v in ([1.0, 2.0], [0.1, 0.2], [-1.0, -2.0]):
        _both(op, tw.constant(v))


def test_nested_python_condition_returns():
    # A Python condition keeps a Python `if`: the value must still come back.
    def f(x):
        def op(t, flag):
            if flag:
                return t + 1.0
            else:
                return t - 1.0
        return op(x, True), op(x, False)
    a, b = _both(f, X)
    np.testing.assert_allclose(np.asarray(a) - np.asarray(b), 2.0)


# ----- return in loops ---------------------------------------------------------------------------

def return_in_tensor_for(x):
    def first_index_over(t, limit):
        for i in tw.range(tw.shape(t)[0]):
            if t[i] > limit:
                return i
        return tw.constant(-1)
    v = tw.reshape(x, [-1])
    return first_index_over(v, 0.5), first_index_over(v, 100.0)


def return_in_while(x):
    def halve_until(t):
        n = tw.constant(0)
        while tw.reduce_max(tw.abs(t)) > 0.1:
            if n >= 3:
                return t * 0.0
            t = t / 2.0
            n += 1
        return t
    return halve_until(x), halve_until(x * 0.01)


def break_continue_in_loop(x):
    def op(t):
        s = tw.zeros_like(t[0])
        for i in tw.range(tw.shape(t)[0]):
            if tw.reduce_sum(t[i]) < -100.0:
                continue
            if i >= 2:
                break
            s += t[i]
        return s
    return op(x)


@pytest.mark.parametrize("fn", [return_in_tensor_for, return_in_while, break_continue_in_loop])
def test_nested_returns_and_jumps_in_loops_match_eager(fn):
    _both(fn, X)
    assert _discarded_calls(fn) == []
    assert _returns_in_generated(fn) == []


def test_nested_return_in_python_for():
    def f(x):
        def op(t):
            for k in [1.0, 2.0, 3.0]:
                if k > 1.5:
                    return t * k
            return t
        return op(x)
    np.testing.assert_allclose(np.asarray(_both(f, X)), np.asarray(X) * 2.0, rtol=1e-6)


# ----- nested two deep, methods of local classes --------------------------------------------------

def two_deep(x):
    def outer(t):
        def inner(u):
            if tw.reduce_sum(u) > 0:
                return u * 2.0
            else:
                return u * -3.0
        if tw.reduce_max(t) > 100.0:
            return t
        return inner(t) + inner(-t)
    return outer(x)


def local_class_method(x):
    class Scaler:
        def __init__(self, k):
            self.k = k

        def apply(self, t):
            if tw.reduce_mean(t) > 0:
                return t * self.k
            else:
                return t / self.k
    s = Scaler(4.0)
    return s.apply(x), s.apply(-x)


@pytest.mark.parametrize("fn", [two_deep, local_class_method])
def test_deeper_nesting_matches_eager(fn):
    _both(fn, X)
    assert _discarded_calls(fn) == []
    assert _returns_in_generated(fn) == []


# ----- callbacks passed to tw.map_fn --------------------------------------------------------------

def map_fn_nested_def(x):
    def op(t):
        if tw.reduce_mean(t) > 0:
            return tw.sin(t) * 0.5
        else:
            return tw.cos(t) * 0.3
    return tw.map_fn(op, x)


def map_fn_nested_lambda(x):
    return tw.map_fn(lambda t: t * 2.0 if tw.reduce_mean(t) > 0 else t - 1.0, x)


def map_fn_nested_def_in_loop(x):
    def op(t):
        acc = tw.zeros_like(t)
        for i in tw.range(3):
            if tw.reduce_sum(acc) > 10.0:
                return acc
            acc += tw.abs(t) * tw.cast(i + 1, tw.float32)
        return acc
    return tw.map_fn(op, x)


@pytest.mark.parametrize("fn", [map_fn_nested_def, map_fn_nested_lambda,
                                map_fn_nested_def_in_loop])
def test_map_fn_with_nested_callback_matches_eager(fn):
    _both(fn, X)
    assert _discarded_calls(fn) == []


def test_map_fn_nested_def_values_and_one_if_per_body():
    out = tw.function(map_fn_nested_def)(X)
    xs = np.asarray(X)
    want = np.where(xs.mean(axis=1, keepdims=True) > 0, np.sin(xs) * 0.5, np.cos(xs) * 0.3)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5)


def test_map_fn_nested_def_in_method_under_tape():
    class Model:
        def forward(self, x):
            def op(t):
                if tw.reduce_mean(t) > 0:
                    return tw.sin(t) * 0.5
                else:
                    return tw.cos(t) * 0.3
            with tw.GradientTape() as tape:
                tape.watch(x)
                loss = tw.reduce_sum(tw.map_fn(op, x))
            return loss, tape.gradient(loss, x)
    _both(Model().forward, X)


# ----- closures over outer variables --------------------------------------------------------------

def closure_reads_outer(x):
    scale = tw.reduce_max(x)
    offset = 1.5

    def op(t):
        if tw.reduce_mean(t) > 0:
            return t * scale + offset
        return t - scale
    return op(x), op(-x)


def closure_shadows_outer(x):
    # `y` assigned in op is op's own local, though the enclosing function binds `y` too.
    y = x * 100.0

    def op(t):
        if tw.reduce_mean(t) > 0:
            y = t + 1.0
        else:
            y = t - 1.0
        return y
    return op(x), op(-x), y


def closure_appends_to_outer_list(x):
    # The list belongs to the enclosing function: appending stays a Python side effect.
    seen = []

    def op(t):
        seen.append(t)
        if tw.reduce_mean(t) > 0:
            return t
        return -t
    a = op(x)
    b = op(x * 2.0)
    return a, b, tw.add_n(seen)


def closure_over_loop_variable(x):
    # A def in a (Python) loop, with a default bound per iteration and a closure over `x`.
    total = tw.zeros_like(x)
    for k in range(3):
        def op(t, k=k):
            if tw.reduce_mean(t) > 0:
                return t * float(k) + x
            return t
        total += op(x)
    return total


def nested_local_list_in_tensor_loop(x):
    # A list the nested function binds itself is carried through its tensor loop.
    def squares(t):
        out = []
        for i in tw.range(tw.shape(t)[0]):
            out.append(t[i] * t[i])
        return tw.stack(out)
    return squares(x)


@pytest.mark.parametrize("fn", [closure_reads_outer, closure_shadows_outer,
                                closure_appends_to_outer_list, closure_over_loop_variable,
                                nested_local_list_in_tensor_loop])
def test_closures_match_eager(fn):
    _both(fn, X)


def test_closure_shadowing_leaves_outer_value():
    a, b, y = tw.function(closure_shadows_outer)(X)
    np.testing.assert_allclose(np.asarray(y), np.asarray(X) * 100.0, rtol=1e-6)


# ----- the converted source and the lowering's guard ----------------------------------------------

def test_to_code_of_nested_function_assigns_if_stmt():
    code = tw.autograph.to_code(if_else_returns)
    assert "retval_" in code and "ag__.retval(retval_)" in code
    for line in code.splitlines():
        assert not line.strip().startswith("ag__.if_stmt("), line


def test_nested_function_in_if_branch_is_converted():
    def f(x):
        if tw.reduce_sum(x) > -1e9:
            def op(t):
                if tw.reduce_mean(t) > 0:
                    return t + 1.0
                return t - 1.0
            y = op(x)
        else:
            y = x
        return y
    _both(f, X)
    assert _returns_in_generated(f) == []


@pytest.mark.parametrize("src,lower", [
    ("if c:\n    return 1\nelse:\n    y = 2", if_statements.lower),
    ("while c:\n    return 1", while_statements.lower),
    ("for i in c:\n    return 1", for_statements.lower),
])
def test_lowering_refuses_unconverted_return(src, lower):
    # A `return` reaching the if/loop lowering would return from the generated function and
    # be dropped: conversion fails loudly instead of returning None.
    node = ast.parse(src).body[0]
    args = (node, set(), Namer(), lambda b, d: b)
    if lower is not if_statements.lower:
        args += (lambda e: e,)
    with pytest.raises(ConversionError, match="`return` was not converted"):
        lower(*args)
