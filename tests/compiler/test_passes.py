"""Compiler passes: each is pure, counts its changes, and never touches stateful ops."""
from __future__ import annotations

import numpy as np

import twinflow as tw
from twinflow.compiler import compile_program, optimize
from twinflow.compiler.arithmetic import simplify_arithmetic
from twinflow.compiler.constant_folding import fold_constants
from twinflow.compiler.cse import eliminate_common_subexpressions
from twinflow.compiler.program import Program, bind_captures
from twinflow.compiler.prune import prune
from twinflow.eager.func_graph import TensorSpec, trace_func_graph


def _program(fn, *specs):
    fg = trace_func_graph(fn, specs, name="f")
    n = len(fg.inputs) - len(fg.captures)
    return bind_captures(fg, fg.inputs[:n], fg.captures, fg.outputs)


def _types(prog):
    return [op.type for op in prog.graph.get_operations()]


def test_prune_drops_dead_ops_but_keeps_stateful():
    v = tw.Variable(1.0)

    def f(x):
        _ = x * 3.0              # dead
        v.assign_add(1.0)        # stateful, no consumer: kept
        return x + 1.0

    prog = _program(f, TensorSpec([], tw.float32))
    before = len(prog.graph.get_operations())
    new, removed = prune(prog)
    assert removed == 2          # the Mul and its constant
    assert "AssignAddVariableOp" in _types(new)
    assert len(prog.graph.get_operations()) == before   # the input Program is untouched


def test_constant_folding():
    def f(x):
        return x + tw.constant(2.0) * tw.constant(3.0)

    new, n = fold_constants(_program(f, TensorSpec([], tw.float32)))
    assert n == 1
    consts = [op.attrs["value"] for op in new.graph.get_operations() if op.type == "Const"]
    assert 6.0 in [float(c) for c in consts]


def test_cse_merges_duplicates():
    def f(x):
        return tw.exp(x) + tw.exp(x)

    new, n = eliminate_common_subexpressions(_program(f, TensorSpec([2], tw.float32)))
    assert n == 1
    new, _ = prune(new)
    assert _types(new).count("Exp") == 1


def test_arithmetic_identities():
    def f(x):
        return (x * 1.0 + 0.0) - 0.0

    new, n = simplify_arithmetic(_program(f, TensorSpec([None, 3], tw.float32)))
    assert n == 3
    new, _ = prune(new)
    assert new.outputs[0] is new.inputs[0]


def test_uniform_constant_operands_become_scalars_bit_for_bit():
    col = np.full((4, 1), 0.1, np.float32)
    signs = np.array([[0.0], [-0.0], [0.0], [0.0]], np.float32)   # equal, but not the same bits
    mixed = np.array([[1.0], [2.0], [1.0], [1.0]], np.float32)

    def f(x, small):
        return (x * tw.constant(col), tw.constant(col) - x, x * tw.constant(signs),
                x + tw.constant(mixed), small * tw.constant(col))   # the last one broadcasts x

    specs = (TensorSpec([4, 3], tw.float32), TensorSpec([3], tw.float32))
    prog = _program(f, *specs)
    new, n = simplify_arithmetic(prog)
    assert n == 2
    shapes = [op.attrs["value"].shape for op in prune(new)[0].graph.get_operations()
              if op.type == "Const"]
    assert sorted(shapes) == [(), (), (4, 1), (4, 1), (4, 1)]
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    x[0, 0] = -0.0
    small = np.array([1.0, -0.0, 3.0], np.float32)
    want = [x * col, col - x, x * signs, x + mixed, small * col]
    got = compile_program(optimize(prog)[0])(x, small)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g.view(np.uint32), w.view(np.uint32))


def test_pow_to_multiplies():
    def f(x):
        return tw.pow(x, 2) + tw.pow(x, 3)

    prog = _program(f, TensorSpec([4], tw.float32))
    opt, stats = optimize(prog)
    assert stats["arithmetic"] == 2
    assert "Pow" not in _types(opt)
    x = np.arange(4, dtype=np.float32)
    (out,) = compile_program(opt)(x)
    np.testing.assert_allclose(out, x ** 2 + x ** 3)


def test_double_transpose_removed():
    def f(x):
        return tw.transpose(tw.transpose(x)) * 2.0

    opt, stats = optimize(_program(f, TensorSpec([2, 3], tw.float32)))
    assert "Transpose" not in _types(opt)
    assert stats["arithmetic"] >= 1


def test_stateful_ops_never_merged_or_folded():
    v = tw.Variable(1.0)

    def f():
        a = v.read_value()
        v.assign_add(1.0)
        b = v.read_value()
        return a, b

    prog = _program(f)
    opt, stats = optimize(prog)
    assert _types(opt).count("ReadVariableOp") == _types(prog).count("ReadVariableOp") == 3
    a, b = compile_program(opt)()
    assert (float(a), float(b)) == (1.0, 2.0)


def test_pipeline_is_pure_and_reports_counts():
    prog = _program(lambda x: x * 1.0 + tw.constant(1.0) * tw.constant(2.0),
                    TensorSpec([], tw.float32))
    n_ops = len(prog.graph.get_operations())
    opt, stats = optimize(prog)
    assert set(stats) >= {"prune", "constant_folding", "arithmetic", "cse"}
    assert len(prog.graph.get_operations()) == n_ops
    assert isinstance(opt, Program) and opt.graph is not prog.graph


def test_identity_reshapes_and_broadcasts_are_removed_but_not_stateful_reads():
    v = tw.Variable(np.ones((2, 3), np.float32))

    def f(x):
        a = tw.reshape(x, [2, 3])                   # no-op: removed
        b = tw.broadcast_to(a * 2.0, [2, 3])        # no-op: removed
        c = tw.reshape(b, [3, 2])                   # a real reshape: kept
        d = tw.broadcast_to(tw.reduce_sum(x), [2, 3])   # a real broadcast: kept
        return c, d + tw.reshape(v.read_value(), [2, 3])

    prog = _program(f, TensorSpec([2, 3], tw.float32))
    new, n = simplify_arithmetic(prog)
    assert n == 3
    new, _ = prune(new)
    types = _types(new)
    assert types.count("Reshape") == 1 and types.count("BroadcastTo") == 1
    assert "ReadVariableOp" in types
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = compile_program(new)(x)
    want = compile_program(prog)(x)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[0], (x * 2).reshape(3, 2))
    np.testing.assert_array_equal(got[1], np.full((2, 3), x.sum()) + 1)
