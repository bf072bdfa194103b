"""The MPI collective ops in one process (a one-worker communicator): eager and graph agree,
their gradients, and their argument checks. Two real workers: test_mpi.py."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow import errors

pytest.importorskip("mpi4py")

from twinflow.distribute import mpi, mpi_ops  # noqa: E402

from .test_mpi import _OneComm  # noqa: E402


@pytest.fixture
def comm():
    return mpi.Communicator(_OneComm(), timeout=5)


def test_all_reduce_eager_and_graph(comm):
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    n = np.array([3, 4], np.int64)
    eager = mpi_ops.all_reduce([x, n], "mean", comm)
    graph = tw.function(lambda a, b: mpi_ops.all_reduce([a, b], "mean", comm))(x, n)
    for e, g, ref in zip(eager, graph, (x, n)):
        np.testing.assert_array_equal(e.numpy(), ref)
        np.testing.assert_array_equal(g.numpy(), ref)
        assert e.dtype == g.dtype == tw.as_dtype(ref.dtype)
    assert mpi_ops.all_reduce([], "sum", comm) == []


def test_all_reduce_gradient_is_the_all_reduced_upstream_gradient(comm):
    x = tw.constant([[1.0, -2.0], [3.0, 0.5]])
    for reduction in ("sum", "mean"):
        with tw.GradientTape() as tape:
            tape.watch(x)
            y, = mpi_ops.all_reduce([x * x], reduction, comm)
            loss = tw.reduce_sum(y * 3.0)
        np.testing.assert_allclose(tape.gradient(loss, x).numpy(), 6 * x.numpy())
    with tw.GradientTape() as tape:
        tape.watch(x)
        y, = mpi_ops.all_reduce([x], "max", comm)
    assert tape.gradient(y, x) is None


def test_all_gather_along_an_axis_and_its_gradient(comm):
    x = tw.constant(np.arange(6.0, dtype=np.float32).reshape(2, 3))

    @tw.function
    def f(x):
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = mpi_ops.all_gather(x, axis=-1, communicator=comm)
            loss = tw.reduce_sum(y * y)
        return y, tape.gradient(loss, x)

    y, g = f(x)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())
    assert f.get_concrete_function(x).structured_outputs[0].shape.as_list() == [2, None]


def test_bad_calls_raise_the_same_error_eagerly_and_in_a_graph(comm):
    for fn in (lambda: mpi_ops.all_reduce([tw.constant([True])], "sum", comm),
               lambda: mpi_ops.all_reduce([tw.constant(1.0)], "prod", comm),
               lambda: mpi_ops.all_gather(tw.constant(1.0), communicator=comm)):
        with pytest.raises(errors.InvalidArgumentError):
            fn()
        with pytest.raises(errors.InvalidArgumentError):
            tw.function(fn)()


def test_unknown_group_key_is_a_clear_error():
    with pytest.raises(errors.InvalidArgumentError, match="no MPI communicator has group_key"):
        from twinflow.eager.execute import bind
        bind(mpi_ops.MpiAllReduce, [tw.constant(1.0)],
             {"reduction": "sum", "group_key": 10**6, "timeout": 0.0, "bytes_per_pack": 0})


def test_group_keys_are_stable(comm):
    assert mpi_ops.register_group(comm) == mpi_ops.register_group(comm)
    assert mpi_ops.register_group(mpi.Communicator(_OneComm())) != mpi_ops.register_group(comm)
