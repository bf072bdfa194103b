"""Replica threads' turn-taking when something fails: the run raises the error at once, no
replica thread is left behind, and a one-replica merge_call hands back the replica's value."""
from __future__ import annotations

import threading
import time

import pytest

import twinflow as tw

D = tw.distribute
DEVICES = ["/cpu:0", "/cpu:1"]


def _replica_threads() -> list:
    return [t for t in threading.enumerate() if t.name.startswith("twinflow-replica-")]


def _run_fails(fn, match, graph):
    s = D.MirroredStrategy(DEVICES)
    run = tw.function(lambda: s.run(fn)) if graph else (lambda: s.run(fn))
    start = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        run()
    assert time.perf_counter() - start < 8  # no replica waited out the 10 s join timeout
    assert _replica_threads() == []


def _rid() -> int:
    return D.get_replica_context()._replica_id


@pytest.mark.parametrize("graph", [False, True])
def test_a_replica_raising_first_stops_the_others_before_they_start(graph):
    ran = []

    def replica():
        ran.append(_rid())
        if _rid() == 0:
            raise ValueError("replica 0 failed")
        return D.get_replica_context().all_reduce("SUM", tw.constant(1.0))
    _run_fails(replica, "replica 0 failed", graph)
    assert ran == [0]


@pytest.mark.parametrize("graph", [False, True])
def test_a_replica_raising_wakes_the_ones_waiting_in_merge_call(graph):
    after = []

    def replica():
        if _rid() == 1:
            raise ValueError("replica 1 failed")
        out = D.get_replica_context().all_reduce("SUM", tw.constant(1.0))
        after.append(out)  # never reached: replica 0 is woken with the abort
        return out
    _run_fails(replica, "replica 1 failed", graph)
    assert after == []


@pytest.mark.parametrize("graph", [False, True])
def test_a_merge_function_raising_fails_every_replica(graph):
    def merge_fn(strategy, value):
        raise ValueError("merge failed")

    def replica():
        ctx = D.get_replica_context()
        ctx.merge_call(merge_fn, args=(tw.constant(1.0),))
        return ctx.merge_call(merge_fn, args=(tw.constant(2.0),))
    _run_fails(replica, "merge failed", graph)


def test_a_replica_aborted_in_a_finally_that_merges_does_not_wait():
    def replica():
        ctx = D.get_replica_context()
        try:
            if _rid() == 1:
                raise ValueError("replica 1 failed")
            ctx.all_reduce("SUM", tw.constant(1.0))
        finally:
            if _rid() == 0:
                ctx.all_reduce("SUM", tw.constant(2.0))  # aborted again at once
    _run_fails(replica, "replica 1 failed", False)


def test_the_run_still_works_after_a_failed_one():
    s = D.MirroredStrategy(DEVICES)
    with pytest.raises(ValueError):
        s.run(lambda: (_ for _ in ()).throw(ValueError("x")))
    out = s.run(lambda: D.get_replica_context().all_reduce("SUM", tw.constant(2.0)))
    assert [float(v) for v in s.experimental_local_results(out)] in ([4.0], [4.0, 4.0])
    assert _replica_threads() == []


@pytest.mark.parametrize("make", [lambda: D.OneDeviceStrategy("/cpu:0"),
                                  lambda: D.MirroredStrategy(["/cpu:0"])])
@pytest.mark.parametrize("graph", [False, True])
def test_one_replica_all_reduce_gives_a_plain_tensor(make, graph):
    s = make()
    seen = []

    def replica():
        ctx = D.get_replica_context()
        out = ctx.all_reduce("SUM", tw.constant(3.0))
        gathered = ctx.all_gather(tw.constant([1.0]), axis=0)
        merged = ctx.merge_call(lambda strategy, v: v * 2.0, args=(tw.constant(1.0),))
        seen.extend([out, gathered, merged])
        return out
    run = tw.function(lambda: s.run(replica)) if graph else (lambda: s.run(replica))
    out = run()
    assert not any(isinstance(v, D.DistributedValues) for v in seen + [out])
    assert float(out) == 3.0
