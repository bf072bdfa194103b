"""tw.function keeps a bounded number of graphs and no source text of dropped ones."""
from __future__ import annotations

import gc
import importlib
import linecache
import logging
import tracemalloc

import numpy as np

import twinflow as tw

function_module = importlib.import_module("twinflow.function.function")


def test_dropped_functions_leave_no_linecache_entry():
    before = len(linecache.cache)
    for _ in range(100):
        f = tw.function(lambda x: x * 2. + 1.)
        assert float(f(tw.constant(1.))) == 3.
    del f
    gc.collect()
    assert len(linecache.cache) - before <= 2


def test_retrace_cache_is_bounded_and_memory_flat(monkeypatch):
    monkeypatch.setattr(function_module, "MAX_TRACES", 8)
    logging.getLogger("twinflow").setLevel(logging.ERROR)
    try:
        @tw.function
        def g(x, i):
            return x + i

        x = tw.constant(1.)
        for i in range(40):
            g(x, i)
        gc.collect()
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        for i in range(40, 120):
            assert float(g(x, i)) == 1. + i
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
        tracemalloc.stop()
    finally:
        logging.getLogger("twinflow").setLevel(logging.NOTSET)
    assert len(g._concretes) == 8 and len(set(map(id, g._cache.values()))) <= 8
    assert grown < 250_000, grown  # ~14 kB per graph kept: 80 kept would be > 1 MB


def test_retrace_warning_states_the_bound(caplog):
    f = tw.function(lambda x: x)
    with caplog.at_level(logging.WARNING, logger="twinflow"):
        for i in range(6):
            f(tw.ones([i + 1]))
    assert "keeps its 1024 most recently used graphs" in caplog.text


def test_a_graph_in_use_survives_eviction(monkeypatch):
    monkeypatch.setattr(function_module, "MAX_TRACES", 4)
    logging.getLogger("twinflow").setLevel(logging.ERROR)
    try:
        f = tw.function(lambda x, i: x * i)
        hot = tw.constant([1., 2.])
        f(hot, 0)
        for i in range(1, 30):
            f(tw.constant(1.), i)
            assert f(hot, 0).numpy().tolist() == [0., 0.]
        # the hot graph was traced once; every other call traced its own
        assert f.experimental_get_tracing_count() == 30
    finally:
        logging.getLogger("twinflow").setLevel(logging.NOTSET)


def test_long_eager_loop_memory_is_flat():
    x = tw.constant(np.ones((4, 4), np.float32))
    v = tw.Variable(np.zeros((4, 4), np.float32))
    for _ in range(200):
        v.assign_add(tw.matmul(x, x) * 0.)
    gc.collect()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    for _ in range(600):
        with tw.GradientTape() as tape:
            y = tw.reduce_sum(tw.matmul(x, v) + 1.)
        tape.gradient(y, v)
        v.assign_add(tw.matmul(x, x) * 0.)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - start
    tracemalloc.stop()
    assert grown < 50_000, grown


def test_repeated_fit_memory_is_flat():
    K = tw.keras
    m = K.Sequential([K.Input((4,)), K.layers.Dense(3, activation="relu"), K.layers.Dense(1)])
    m.compile("adam", "mse")
    x, y = np.ones((32, 4), np.float32), np.ones((32, 1), np.float32)

    def train(n):
        for _ in range(n):
            m.fit(x, y, batch_size=8, epochs=1, verbose=0)
    train(5)  # warm up: traces, optimizer slots, history
    gc.collect()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    train(40)  # 160 steps
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - start
    tracemalloc.stop()
    assert grown < 30_000, grown  # ~3 KB measured; a leak of 200 B a step fails
