"""Codegen: straight-line source, kernels as constants, name reuse, errors with source lines."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw


def test_generated_source_is_one_line_per_op_with_user_lines():
    @tw.function
    def f(x, y):
        a = tw.matmul(x, y)  # first op
        return a + 1.0

    cf = f.get_concrete_function(tw.TensorSpec([2, 2]), tw.TensorSpec([2, 2]))
    src = cf.generated_source
    body = [ln for ln in src.splitlines() if "  # " in ln]
    assert len(body) == 2
    assert "first op" in body[0] and "MatMul" in body[0]
    assert cf.optimized_graph is not cf.graph
    assert set(cf.pass_stats) >= {"prune", "constant_folding", "cse", "arithmetic"}
    compile(src, "<check>", "exec")


def test_buffers_names_are_reused():
    @tw.function
    def f(x):
        for _ in range(10):
            x = tw.exp(x * -0.5)
        return x

    src = f.get_concrete_function(tw.TensorSpec([3])).generated_source
    assert "r5" not in src          # intermediates recycle a couple of names
    x = np.ones(3, np.float32)
    expected = x
    for _ in range(10):
        expected = np.exp(expected * np.float32(-0.5))
    np.testing.assert_allclose(f(tw.constant(x)).numpy(), expected, rtol=1e-6)


def test_compiled_matches_reference_interpreter():

    @tw.function
    def f(x):
        y = tw.reduce_sum(x * x, axis=0)
        return y, tw.exp(-y)

    cf = f.get_concrete_function(tw.TensorSpec([3, 2]))
    x = np.random.default_rng(0).normal(size=(3, 2)).astype(np.float32)
    ref = [t.numpy() for t in f.python_function(tw.constant(x))]
    got = cf(tw.constant(x))
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g.numpy(), r, rtol=1e-6)


def test_experimental_get_compiler_ir():
    f = tw.function(lambda x: x + 1.0)
    assert "def " in f.experimental_get_compiler_ir(tw.constant(1.0))()


def test_error_inside_compiled_code_names_the_op():
    @tw.function
    def f(x):
        return tw.reshape(x, [5])  # bad reshape

    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        f.get_concrete_function(tw.TensorSpec([None]))(tw.constant([1.0, 2.0]))
    assert "Reshape" in str(e.value)


def test_large_ufunc_intermediates_are_overwritten_in_place_only_when_private():
    n = 1 << 13
    xv = np.random.default_rng(1).normal(size=n).astype(np.float32)
    x = tw.constant(xv)
    v = tw.Variable(np.ones(n, np.float32))

    @tw.function
    def f(x):
        a = x * 2.0 + 1.0
        b = a * a - x
        r = tw.reshape(b, [-1])      # a view of b: b must not be overwritten
        c = b * 3.0
        d = v * 2.0 + c              # the variable's array must never be written
        return c + r, d - x

    src = f.get_concrete_function(x).generated_source
    assert "out=" in src
    a = xv * 2 + 1
    b = a * a - xv
    c = b * 3
    for _ in range(2):
        o1, o2 = f(x)
        np.testing.assert_allclose(o1.numpy(), c + b, rtol=1e-6)
        np.testing.assert_allclose(o2.numpy(), 2 + c - xv, rtol=1e-5, atol=1e-5)
    assert np.all(v.numpy() == 1.0) and np.array_equal(x.numpy(), xv)


def test_variable_updates_take_over_private_gradient_buffers():
    rng = np.random.default_rng(2)
    xv = rng.normal(size=(16, 300)).astype(np.float32)
    wv = rng.normal(size=(300, 40)).astype(np.float32)
    x = tw.constant(xv)
    w = tw.Variable(wv)
    seen = []

    @tw.function
    def step(x):
        with tw.GradientTape() as tape:
            loss = tw.reduce_sum(tw.nn.relu(tw.matmul(x, w)))
        before = w.read_value()
        (g,) = tape.gradient(loss, [w])
        w.assign_sub(0.5 * g)
        return before

    src = step.get_concrete_function(x).generated_source
    assert "out=" in src            # 0.5 * g overwrites the fresh transposed-matmul result
    expected = wv
    for _ in range(3):
        seen.append(step(x).numpy())
        grad = xv.T @ (xv @ expected > 0).astype(np.float32)
        expected = expected - np.float32(0.5) * grad
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5, atol=1e-5)
    # Values read earlier are never overwritten by later updates.
    np.testing.assert_allclose(seen[0], wv)


def test_variable_update_from_a_private_buffer_writes_into_it_not_the_variable():
    n = 1 << 13
    v = tw.Variable(np.ones(n, np.float32))
    x = tw.constant(np.arange(n, dtype=np.float32))

    @tw.function
    def f(x):
        old = v.read_value()
        v.assign_sub(x * 2.0)
        v.assign_add(x * 1.0 + 1.0)
        return old

    src = f.get_concrete_function(x).generated_source
    assert "AssignSubVariableOp" in src
    old = f(x)
    np.testing.assert_array_equal(old.numpy(), np.ones(n, np.float32))
    np.testing.assert_array_equal(v.numpy(), 1 - np.arange(n) * 2 + np.arange(n) + 1)
    np.testing.assert_array_equal(x.numpy(), np.arange(n, dtype=np.float32))


def test_lowered_grad_kernels_match_the_kernels():
    from twinflow.compiler.codegen import _kernel_of

    rng = np.random.default_rng(3)
    logits = rng.normal(size=(8, 5)).astype(np.float32)
    labels = rng.integers(0, 5, size=8).astype(np.int32)

    @tw.function
    def f(logits, labels, y):
        with tw.GradientTape() as tape:
            tape.watch([logits, y])
            h = tw.nn.relu(logits * y)
            loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=h + tw.constant(np.ones(5, np.float32))))
        return (loss, *tape.gradient(loss, [logits, y]))

    args = (tw.constant(logits), tw.constant(labels), tw.constant(np.float32(1.5)))
    cf = f.get_concrete_function(*args)
    lowered = [op.type for op in cf.optimized_graph.get_operations()
               if op.type not in ("Placeholder", "Const") and _kernel_of(op)[0] is not
               op.opdef.kernel]
    assert {"ReluGrad", "SparseSoftmaxCrossEntropyWithLogits", "SumToShape", "Mean"} <= \
        set(lowered)
    got = f(*args)
    with tw.GradientTape() as tape:
        tape.watch([args[0], args[2]])
        h = tw.nn.relu(args[0] * args[2])
        loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(
            labels=args[1], logits=h + tw.constant(np.ones(5, np.float32))))
    want = (loss, *tape.gradient(loss, [args[0], args[2]]))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(tw.errors.InvalidArgumentError, match="label value of 7"):
        f(args[0], tw.constant(np.full(8, 7, np.int32)), args[2])


def test_a_function_named_like_a_kernel_cell_still_runs():
    def k0(x):  # the generated function takes the user's name; k0 is also a kernel cell
        return tw.nn.relu(x) + 1.0

    def k1(x):
        return tw.exp(tw.nn.relu(x))

    for fn in (k0, k1):
        out = tw.function(fn)(tw.constant([-1.0, 2.0])).numpy()
        np.testing.assert_allclose(out, fn(tw.constant([-1.0, 2.0])).numpy())
