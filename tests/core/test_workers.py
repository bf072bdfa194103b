"""core.workers: a few kernel calls at once on persistent threads."""
from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from twinflow.core import workers


@pytest.fixture(autouse=True)
def fresh_backoff(monkeypatch):
    """Each test starts with concurrency on (earlier runs may have made it back off)."""
    monkeypatch.setattr(workers, "_backoff", workers._Backoff())


def _ident(_=None) -> int:
    return threading.get_ident()


def test_results_come_back_in_call_order_and_a_worker_helps():
    def sleepy(v):
        time.sleep(0.1)     # (releases the GIL, as BLAS does)
        return threading.get_ident()

    idents = workers.run_calls([(sleepy, (v,)) for v in range(4)], 2)
    assert threading.get_ident() in idents and len(set(idents)) == 2
    calls = [(lambda v: v * v, (v,)) for v in range(7)]
    assert workers.run_calls(calls, 3) == [v * v for v in range(7)]


def test_one_thread_runs_everything_in_order_on_the_caller():
    order = []
    calls = [(order.append, (v,)) for v in range(4)]
    workers.run_calls(calls, 1)
    assert order == [0, 1, 2, 3]
    assert set(workers.run_calls([(_ident, ())] * 3, 1)) == {threading.get_ident()}


def test_the_first_error_in_call_order_is_raised_after_all_calls_finish():
    done = []

    def fail(msg):
        raise ValueError(msg)

    def slow():
        np.linalg.svd(np.ones((200, 200)))
        done.append(True)

    calls = [(slow, ()), (fail, ("second",)), (slow, ()), (fail, ("fourth",))]
    with pytest.raises(ValueError, match="second"):
        workers.run_calls(calls, 2)
    assert done == [True, True]                 # every call ran
    assert workers.run_calls([(lambda: 3, ())] * 2, 2) == [3, 3]   # still usable


def test_nested_runs_stay_on_their_thread():
    def inner():
        return set(workers.run_calls([(_ident, ())] * 4, 4))

    outer = workers.run_calls([(inner, ()), (inner, ())], 2)
    assert all(len(ids) == 1 for ids in outer)


def test_threads_calling_at_once_all_get_their_results():
    out: dict = {}

    def caller(k):
        for _ in range(50):
            res = workers.run_calls([(lambda v: v + k, (v,)) for v in range(3)], 2)
            assert res == [k, k + 1, k + 2]
        out[k] = True

    ts = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert sorted(out) == [0, 1, 2, 3]


def test_cpu_threads_resolves_zero_to_the_cores():
    assert workers.cpu_threads(3) == 3
    assert workers.cpu_threads(0) >= 1


def test_runs_go_in_order_for_a_while_after_concurrency_did_not_pay(monkeypatch):
    backoff = workers._Backoff()
    monkeypatch.setattr(workers, "_backoff", backoff)
    backoff.judge(False, 0.0, 1.0)              # no worker took a call: skip the next run
    assert (backoff.left, backoff.next) == (1, 2)
    backoff.judge(True, 2.0, 1.0)               # the caller waited longer than it worked
    assert (backoff.left, backoff.next) == (2, 4)
    me = threading.get_ident()

    def sleepy():
        time.sleep(0.02)
        return threading.get_ident()

    for _ in range(2):
        assert set(workers.run_calls([(sleepy, ())] * 2, 2)) == {me}
    assert backoff.left == 0
    for _ in range(10):
        backoff.judge(False, 0.0, 1.0)
    assert backoff.next == workers._Backoff.MAX_SKIP
    backoff.left = 0
    backoff.judge(True, 0.0, 1.0)               # a good run: concurrency again at once
    assert (backoff.left, backoff.next) == (0, 1)


def test_the_machine_is_busy_while_the_load_average_exceeds_the_cores(monkeypatch):
    monkeypatch.setattr(workers, "_load", [-1e9, False])
    cores = os.cpu_count() or 1
    monkeypatch.setattr(workers.os, "getloadavg", lambda: (cores + 2.0, 0.0, 0.0))
    assert workers.machine_busy()
    monkeypatch.setattr(workers, "_load", [-1e9, False])
    monkeypatch.setattr(workers.os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    assert not workers.machine_busy()
