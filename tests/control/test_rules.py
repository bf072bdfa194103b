"""Control-flow argument rules are checked once: the same bad call raises the same error class
and message eagerly and inside tw.function (TensorFlow's messages where it has them)."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw


def _lt10(i):
    return i < 10


def _inc(i):
    return i + 1


BAD = [
    ("while max not scalar", ValueError, "'maximum_iterations' must be a scalar",
     lambda: tw.while_loop(_lt10, _inc, [0], maximum_iterations=[2])),
    ("while max float", TypeError, "'maximum_iterations' must be an integer scalar",
     lambda: tw.while_loop(_lt10, _inc, [0], maximum_iterations=2.5)),
    ("while parallel 0", TypeError, "'parallel_iterations' must be a positive integer.",
     lambda: tw.while_loop(_lt10, _inc, [0], parallel_iterations=0)),
    ("while parallel -1", TypeError, "'parallel_iterations' must be a positive integer.",
     lambda: tw.while_loop(_lt10, _inc, [0], parallel_iterations=-1)),
    ("while parallel float", TypeError, "'parallel_iterations' must be a positive integer.",
     lambda: tw.while_loop(_lt10, _inc, [0], parallel_iterations=2.5)),
    ("while cond not callable", TypeError, "'cond' must be callable.",
     lambda: tw.while_loop(1, _inc, [0])),
    ("while body not callable", TypeError, "'body' must be callable.",
     lambda: tw.while_loop(_lt10, 1, [0])),
    ("while no loop vars", ValueError, "'loop_vars' must be provided.",
     lambda: tw.while_loop(lambda: False, lambda: (), [])),
    ("while body structure", ValueError, "must return the structure of loop_vars",
     lambda: tw.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,), [0, 1])),
    ("while body dtype", TypeError, "enters the loop as int32 but the loop body makes it float32",
     lambda: tw.while_loop(_lt10, lambda i: tw.cast(i, tw.float32), [tw.constant(0)])),
    ("while cond int", TypeError, "the condition of a while loop must be a bool scalar",
     lambda: tw.while_loop(lambda i: i, lambda i: i - 1, [tw.constant(3)])),
    ("while cond vector", TypeError, "must be a bool scalar, got bool of shape (2,)",
     lambda: tw.while_loop(lambda i: i < [3, 4], _inc, [tw.constant(0)])),
    ("while body None", ValueError, "Attempt to convert a value (None)",
     lambda: tw.while_loop(_lt10, lambda i: None, [tw.constant(0)])),
    ("map_fn scalar", ValueError, "elements must have rank >= 1",
     lambda: tw.map_fn(lambda a: a, tw.constant(1.0))),
    ("map_fn dtype", TypeError, "tw.map_fn: fn returned int32 where float32 was expected",
     lambda: tw.map_fn(lambda a: tw.cast(a, tw.int32), tw.constant([1.0, 2.0]))),
    ("map_fn structure", ValueError, "tw.map_fn: fn returned 2 tensors but 1 were expected",
     lambda: tw.map_fn(lambda a: (a, a), tw.constant([1.0, 2.0]))),
    ("map_fn rows", ValueError, "all elements must have the same first dimension, got 2 and 3",
     lambda: tw.map_fn(lambda a: a[0], (tw.zeros([2]), tw.zeros([3])))),
    ("scan empty", ValueError, "tw.scan on empty elems needs an initializer",
     lambda: tw.scan(lambda a, b: a + b, tw.zeros([0]))),
    ("foldl empty", ValueError, "tw.foldl on empty elems needs an initializer",
     lambda: tw.foldl(lambda a, b: a + b, tw.zeros([0]))),
    ("foldl structure", ValueError, "tw.foldl: fn must return the structure of the accumulator",
     lambda: tw.foldl(lambda a, b: (a, b), tw.zeros([2]), initializer=tw.constant(0.0))),
    ("map_fn parallel 0", TypeError, "'parallel_iterations' must be a positive integer.",
     lambda: tw.map_fn(lambda x: x, tw.constant([1.0]), parallel_iterations=0)),
    ("scan parallel 0", TypeError, "'parallel_iterations' must be a positive integer.",
     lambda: tw.scan(lambda a, x: a + x, tw.constant([1.0]), parallel_iterations=0)),
    ("switch_case no branches", ValueError, "Must provide at least one item in 'branch_fns'",
     lambda: tw.switch_case(tw.constant(0), [])),
    ("switch_case not callable", TypeError, "'branch_fns[1]' must be callable.",
     lambda: tw.switch_case(tw.constant(0), [lambda: 1, 2])),
    ("switch_case float index", TypeError, "branch_index must be int32",
     lambda: tw.switch_case(tw.constant(1.0), [lambda: 1, lambda: 2])),
    ("switch_case vector index", ValueError, "branch_index must be a scalar",
     lambda: tw.switch_case(tw.constant([0]), [lambda: 1, lambda: 2])),
    ("switch_case default", TypeError, "'default' must be callable.",
     lambda: tw.switch_case(tw.constant(0), [lambda: 1], default=3)),
    ("cond true_fn", TypeError, "'true_fn' must be callable.",
     lambda: tw.cond(tw.constant(True), 1, lambda: 2)),
    ("cond false_fn None", TypeError, "'false_fn' must be callable.",
     lambda: tw.cond(tw.constant(True), lambda: 1, None)),
    ("cond int pred", TypeError, "pred must be a bool tensor",
     lambda: tw.cond(tw.constant(1), lambda: 1, lambda: 2)),
    ("cond vector pred", ValueError, "pred must be a scalar",
     lambda: tw.cond(tw.constant([True, False]), lambda: 1, lambda: 2)),
    ("case not a pair", TypeError, "must be a (pred, fn) pair",
     lambda: tw.case([tw.constant(True)])),
    ("case fn", TypeError, "'pred_fn_pairs[0][1]' must be callable.",
     lambda: tw.case([(tw.constant(True), 1)], default=lambda: 2)),
]


@pytest.mark.parametrize("name,cls,msg,call", BAD, ids=[b[0] for b in BAD])
def test_same_error_eagerly_and_in_a_graph(name, cls, msg, call):
    with pytest.raises(cls) as eager:
        call()
    with pytest.raises(cls) as graph:
        tw.function(call, autograph=False)()
    assert msg in str(eager.value)
    first_line = str(graph.value).split(" (at ")[0]
    assert str(eager.value).split(" (at ")[0] == first_line


@pytest.mark.parametrize("m", [-1, -5, 0, 3])
def test_maximum_iterations_counts_the_same_everywhere(m):
    """A negative maximum runs no iteration (as TensorFlow), eagerly, in a graph (inlined by
    codegen) and through the While kernel (a tensor maximum, fed at run time)."""
    expected = min(max(m, 0), 10)

    def f(limit):
        return tw.while_loop(_lt10, _inc, [tw.constant(0)], maximum_iterations=limit)[0]

    assert int(f(m)) == expected
    assert int(tw.function(f)(tw.constant(m))) == expected
    g = tw.Graph()
    with g.as_default():
        lim = tw.compat.v1.placeholder(tw.int32, [])
        out = f(lim)
    assert int(tw.compat.v1.Session(graph=g).run(out, {lim: m})) == expected
    op = next(o for o in g.get_operations() if o.type in ("While", "StatelessWhile"))
    kernel_out = op.opdef.kernel(np.int32(0), np.int32(m), **op.attrs)
    assert int(kernel_out[0]) == expected and len(kernel_out[-1]) == expected
    lowered = op.opdef.lower(op)(np.int32(0), np.int32(m))
    assert int(lowered[0]) == expected


def test_switch_case_out_of_range_runs_the_default_in_every_mode():
    fns = [lambda: tw.constant(10), lambda: tw.constant(20)]
    for i in (-1, 0, 1, 7):
        want = 10 if i == 0 else 20
        assert int(tw.switch_case(i, fns)) == want
        assert int(tw.function(lambda k: tw.switch_case(k, fns))(tw.constant(i))) == want


BAD_INVARIANTS = [
    ("count", "shape_invariants has 2 entries for 1 loop variables",
     [tw.TensorShape([]), tw.TensorShape([])]),
    ("incompatible", "loop variable #0 has shape (), not compatible with its shape invariant (2,)",
     [tw.TensorShape([2])]),
]


@pytest.mark.parametrize("name,msg,inv", BAD_INVARIANTS, ids=[b[0] for b in BAD_INVARIANTS])
def test_shape_invariants_are_checked_in_both_modes(name, msg, inv):
    def call():
        return tw.while_loop(_lt10, lambda i: [i + 1], [tw.constant(0)], shape_invariants=inv)
    for run in (call, tw.function(call)):
        with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            run()


def test_shapes_may_vary_eagerly_but_not_in_a_graph_without_invariants():
    def call():
        return tw.while_loop(lambda x: tw.size(x) < 4, lambda x: [tw.concat([x, x], 0)],
                             [tw.constant([1])])
    assert call()[0].shape == (4,)      # as TensorFlow's eager loop
    with pytest.raises(ValueError, match="enters the loop with shape"):
        tw.function(call)()


def test_case_exclusive_is_checked_in_both_modes():
    def call(a, b):
        return tw.case([(a > 0, lambda: tw.constant(1)), (b > 0, lambda: tw.constant(2))],
                       default=lambda: tw.constant(3), exclusive=True)
    f = tw.function(call)
    one, minus = tw.constant(1), tw.constant(-1)
    assert int(call(one, minus)) == 1 and int(f(one, minus)) == 1
    assert int(call(minus, minus)) == 3 and int(f(minus, minus)) == 3
    for run in (call, f):
        with pytest.raises(tw.errors.InvalidArgumentError, match="more than one condition"):
            run(one, one)
