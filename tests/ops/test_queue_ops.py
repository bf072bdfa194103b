"""tw.queue: order, batching, padding, priorities, shuffling, closing, blocking, threads, and the
same behaviour inside tw.function."""
import threading
import time

import numpy as np
import pytest

import twinflow as tw


def test_fifo_order_components_and_batches():
    q = tw.queue.FIFOQueue(3, [tw.float32, tw.int32], shapes=[[2], []])
    assert q.enqueue([[1.0, 2.0], 3]) is None
    q.enqueue_many([[[1.0, 2.0], [3.0, 4.0]], [4, 5]])
    assert int(q.size()) == 3
    a, b = q.dequeue()
    np.testing.assert_array_equal(a, [1.0, 2.0])
    assert int(b) == 3 and b.dtype == tw.int32
    a, b = q.dequeue_many(2)
    np.testing.assert_array_equal(a, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(b, [4, 5])
    assert q.dtypes == [tw.float32, tw.int32] and q.shapes == [tw.TensorShape([2]),
                                                             tw.TensorShape([])]


def test_one_component_queue_returns_a_tensor_and_named_queue_a_dict():
    q = tw.queue.FIFOQueue(5, tw.int32, shapes=[[]])
    q.enqueue(7)
    assert isinstance(q.dequeue(), tw.Tensor)
    named = tw.queue.FIFOQueue(5, [tw.int32, tw.float32], names=["a", "b"])
    named.enqueue({"a": 1, "b": 2.0})
    out = named.dequeue()
    assert int(out["a"]) == 1 and float(out["b"]) == 2.0
    with pytest.raises(ValueError, match="dictionary"):
        named.enqueue([1, 2.0])


def test_bad_elements_are_refused_before_running():
    q = tw.queue.FIFOQueue(3, [tw.float32, tw.int32], shapes=[[2], []])
    with pytest.raises(TypeError):
        q.enqueue([[1.0, 2.0], 3.5])
    with pytest.raises(ValueError, match="incompatible"):
        q.enqueue([[1.0, 2.0, 3.0], 3])
    with pytest.raises(ValueError, match="rank at least 1"):
        tw.queue.FIFOQueue(3, tw.int32).enqueue_many(1)
    with pytest.raises(ValueError, match="same length"):
        tw.queue.FIFOQueue(3, [tw.int32, tw.float32], shapes=[[]])
    with pytest.raises(tw.errors.InvalidArgumentError, match="specified shapes"):
        tw.queue.FIFOQueue(3, tw.int32).dequeue_many(1)


def test_close_drains_then_fails():
    q = tw.queue.FIFOQueue(5, tw.int32, shapes=[[]])
    q.enqueue_many([[1, 2]])
    q.close()
    assert bool(q.is_closed())
    with pytest.raises(tw.errors.CancelledError, match="is closed"):
        q.enqueue(3)
    with pytest.raises(tw.errors.OutOfRangeError, match="insufficient elements"):
        q.dequeue_many(3)
    np.testing.assert_array_equal(q.dequeue_up_to(5), [1, 2])
    with pytest.raises(tw.errors.OutOfRangeError):
        q.dequeue()


def test_padding_priority_and_random_shuffle():
    pf = tw.queue.PaddingFIFOQueue(5, [tw.int32, tw.string], shapes=[[None], []])
    pf.enqueue([[1, 2, 3], "x"])
    pf.enqueue([[1], "y"])
    a, s = pf.dequeue_many(2)
    np.testing.assert_array_equal(a, [[1, 2, 3], [1, 0, 0]])
    assert list(s.numpy()) == [b"x", b"y"]
    with pytest.raises(ValueError, match="shapes"):
        tw.queue.PaddingFIFOQueue(5, [tw.int32], shapes=None)

    pq = tw.queue.PriorityQueue(5, [tw.string], shapes=[[]])
    assert pq.dtypes == [tw.int64, tw.string]
    for p, v in ((3, "c"), (1, "a"), (2, "b")):
        pq.enqueue((p, v))
    pri, val = pq.dequeue_many(3)
    np.testing.assert_array_equal(pri, [1, 2, 3])
    assert list(val.numpy()) == [b"a", b"b", b"c"]

    rs = tw.queue.RandomShuffleQueue(10, 2, tw.int32, shapes=[[]], seed=1)
    rs.enqueue_many([list(range(6))])
    got = [int(rs.dequeue()) for _ in range(4)]  # keeps min_after_dequeue=2 behind
    assert int(rs.size()) == 2
    rs.close()
    got += list(rs.dequeue_up_to(5).numpy())
    assert sorted(got) == list(range(6)) and got != list(range(6))


def test_dequeue_waits_for_a_producer_thread_and_close_wakes_it():
    q = tw.queue.FIFOQueue(2, tw.int32, shapes=[[]])
    out = []

    def consumer():
        try:
            while True:
                out.append(int(q.dequeue()))
        except tw.errors.OutOfRangeError:
            out.append("done")
    t = threading.Thread(target=consumer)
    t.start()
    for i in range(20):
        q.enqueue(i)  # waits while the queue is full
    q.close()
    t.join(5)
    assert out == list(range(20)) + ["done"]


def test_cancel_pending_enqueues_and_timeouts():
    q = tw.queue.FIFOQueue(1, tw.int32, shapes=[[]])
    q.enqueue(1)
    errors = []

    def producer():
        try:
            q.enqueue(2)  # blocks: the queue is full
        except tw.errors.CancelledError as e:
            errors.append(e)
    t = threading.Thread(target=producer)
    t.start()
    time.sleep(0.05)
    q.close(cancel_pending_enqueues=True)
    t.join(5)
    assert len(errors) == 1
    empty = tw.queue.FIFOQueue(1, tw.int32, shapes=[[]])
    start = time.monotonic()
    with pytest.raises(tw.errors.DeadlineExceededError):
        tw.raw_ops.QueueDequeueV2(handle=empty.queue_ref, component_types=[tw.int32],
                                  timeout_ms=50)
    assert time.monotonic() - start < 2


def test_queue_ops_run_in_order_inside_function():
    q = tw.queue.FIFOQueue(5, tw.int32, shapes=[[]])

    @tw.function
    def step(x):
        q.enqueue(x)
        q.enqueue(x + 1)
        return q.dequeue(), q.size()

    v, n = step(tw.constant(1))
    assert (int(v), int(n)) == (1, 1)
    v, n = step(tw.constant(10))
    assert (int(v), int(n)) == (2, 2)

    @tw.function
    def batch():
        return q.dequeue_many(2)
    out = batch()
    np.testing.assert_array_equal(out, [10, 11])
    assert batch.get_concrete_function().structured_outputs.shape.as_list() == [2]


def test_from_list_selects_a_queue():
    a = tw.queue.FIFOQueue(2, tw.int32, shapes=[[]])
    b = tw.queue.FIFOQueue(2, tw.int32, shapes=[[]])
    tw.queue.QueueBase.from_list(1, [a, b]).enqueue(5)
    assert int(b.size()) == 1 and int(a.size()) == 0
    with pytest.raises(TypeError):
        tw.queue.QueueBase.from_list(0, [a, tw.queue.FIFOQueue(2, tw.float32)])


def test_random_shuffle_follows_the_global_seed():
    def run():
        q = tw.queue.RandomShuffleQueue(10, 0, tw.int32, shapes=[[]])
        q.enqueue_many([list(range(8))])
        return q.dequeue_many(8).numpy().tolist()
    try:
        tw.random.set_seed(3)
        first = run()
        tw.random.set_seed(3)
        assert run() == first and sorted(first) == list(range(8))
    finally:
        tw.random.set_seed(None)


def test_graph_def_writes_tensorflow_queue_attrs():
    # The enqueue's components each keep their dtype: Tcomponents lists them (no N, no T).
    q = tw.queue.FIFOQueue(5, [tw.float32, tw.int32])

    @tw.function(autograph=False)
    def f(x):
        q.enqueue([x, tw.constant(1)])
        return q.dequeue()

    gd = f.get_concrete_function(tw.TensorSpec([], tw.float32)).graph.as_graph_def()
    nodes = {n.op: n for n in gd.node}
    enq = nodes["QueueEnqueueV2"]
    assert sorted(k for k in enq.attr if not k.startswith("_")) == ["Tcomponents"]
    assert list(enq.attr["Tcomponents"].list.type) == [1, 3]  # DT_FLOAT, DT_INT32
    assert list(nodes["QueueDequeueV2"].attr["component_types"].list.type) == [1, 3]
