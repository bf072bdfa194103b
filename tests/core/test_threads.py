"""Execution state is per thread: tracing, tapes and scopes in one thread never leak into
another. Run with a tiny switch interval so threads interleave inside every operation."""
from __future__ import annotations

import gc
import sys
import threading

import numpy as np

import twinflow as tw
from twinflow.core.context import process

THREADS = 8
ROUNDS = 12


@tw.function
def shared(x):
    return x * 2. + 1.


def _worker(i: int, errors: list, calls: list) -> None:
    try:
        x = tw.constant(np.full((3,), float(i), np.float32))
        v = tw.Variable(float(i))
        for r in range(ROUNDS):
            # eager ops give values, never symbolic tensors
            assert tw.add(1., 2.).numpy() == 3.
            np.testing.assert_allclose((x * 3.).numpy(), np.full(3, 3. * i))
            # a tape records only this thread's ops
            with tw.GradientTape() as tape:
                y = v * v
            assert tape.gradient(y, v).numpy() == 2. * i
            # a shared tw.function, called with shapes other threads trace too
            np.testing.assert_allclose(shared(x).numpy(), np.full(3, 2. * i + 1.))
            np.testing.assert_allclose(shared(tw.ones([r % 3 + 1])).numpy(),
                                       np.full(r % 3 + 1, 3.))
            # fresh tracing while the others run eagerly
            fresh = tw.function(lambda a, k=r: a + float(k))
            assert float(fresh(tw.constant(float(i)))) == i + r
            assert tw.executing_eagerly()
            # dataset iteration (its map function is traced)
            ds = tw.data.Dataset.range(4).map(lambda t: t * 2)
            assert [int(e) for e in ds] == [0, 2, 4, 6]
            with tw.name_scope(f"t{i}"):
                assert tw.Variable(1., name="w").name == f"t{i}/w:0"
            calls.append(1)
    except BaseException as e:  # noqa: BLE001  (collected and reported by the test)
        errors.append(f"thread {i}: {type(e).__name__}: {e}")


def _run_interleaved(targets: list) -> None:
    """Runs each target in its own thread, switching threads every microsecond."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=t) for t in targets]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)


def test_eight_threads_mixing_eager_tapes_functions_tracing_and_datasets():
    errors: list = []
    calls: list = []
    _run_interleaved([lambda i=i: _worker(i, errors, calls) for i in range(THREADS)])
    assert errors == []
    assert len(calls) == THREADS * ROUNDS
    assert tw.executing_eagerly() and tw.add(1., 2.).numpy() == 3.


def test_tracing_in_one_thread_leaves_other_threads_eager():
    inside, release = threading.Event(), threading.Event()

    @tw.function
    def slow(x):
        inside.set()
        release.wait(5)
        return x + 1.

    t = threading.Thread(target=lambda: slow(tw.constant(1.)))
    t.start()
    assert inside.wait(5)
    try:
        assert tw.executing_eagerly()
        assert tw.add(1., 2.).numpy() == 3.
        with tw.GradientTape() as tape:
            v = tw.Variable(3.)
            y = v * v
        assert tape.gradient(y, v).numpy() == 6.
    finally:
        release.set()
        t.join()


def test_unbuilt_keras_layer_called_from_threads_is_built_once():
    layer = tw.keras.layers.Dense(2)
    x = np.ones((1, 3), np.float32)
    barrier = threading.Barrier(THREADS)
    outs: list = []

    def call():
        barrier.wait()
        outs.append(layer(x).numpy())

    _run_interleaved([call] * THREADS)
    assert len(layer.weights) == 2 and len(outs) == THREADS
    assert all(np.array_equal(o, outs[0]) for o in outs)


def test_training_flag_of_a_layer_call_is_per_thread():
    seen: list = []

    class Probe(tw.keras.layers.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    inside, release = threading.Event(), threading.Event()

    class Outer(tw.keras.layers.Layer):
        def call(self, x, training=None):
            inside.set()
            release.wait(5)
            return x

    t = threading.Thread(target=lambda: Outer()(np.ones((1, 1), np.float32), training=True))
    t.start()
    assert inside.wait(5)
    try:
        Probe()(np.ones((1, 1), np.float32))
    finally:
        release.set()
        t.join()
    assert seen == [None]


def test_disable_eager_execution_applies_to_threads_started_later():
    v1 = tw.compat.v1
    v1.disable_eager_execution()
    try:
        seen: list = []
        _run_interleaved([lambda: seen.append(tw.executing_eagerly())])
        assert seen == [False] and not tw.executing_eagerly()
    finally:
        v1.enable_eager_execution()
    seen = []
    _run_interleaved([lambda: seen.append(tw.executing_eagerly())])
    assert seen == [True] and tw.executing_eagerly()
    gc.collect()
    assert process.quiet and process.busy_threads == 0  # the graph-mode thread ended


def test_op_seeds_are_never_handed_out_twice_across_threads():
    from twinflow.ops.random.seeds import get_seed
    tw.random.set_seed(1)
    seeds: list = []
    try:
        _run_interleaved([lambda: seeds.extend(get_seed(None)[1] for _ in range(200))]
                         * THREADS)
    finally:
        tw.random.set_seed(None)
    assert len(seeds) == len(set(seeds)) == 200 * THREADS


def test_name_scopes_and_control_dependencies_of_a_shared_graph_are_per_thread():
    from twinflow.graph.graph import Graph
    g = Graph()
    inside, release = threading.Event(), threading.Event()

    def scoped():
        with g.as_default(), tw.name_scope("a"):
            first = tw.constant(1.)
            with tw.control_dependencies([first]):
                inside.set()
                release.wait(5)

    t = threading.Thread(target=scoped)
    t.start()
    assert inside.wait(5)
    try:
        with g.as_default():
            c = tw.constant(2.)
            d = tw.add(c, c)
    finally:
        release.set()
        t.join()
    assert c.op.name == "Const" and d.op.name == "AddV2"
    assert d.op.control_inputs == [] and c.op.control_inputs == []


def test_layers_created_in_threads_get_distinct_names():
    names: list = []
    _run_interleaved([lambda: names.extend(tw.keras.layers.Dense(1).name for _ in range(50))]
                     * THREADS)
    assert len(set(names)) == len(names) == 50 * THREADS
