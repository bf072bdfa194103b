"""Python side effects on outside lists run while tracing only, as in TensorFlow."""
import twinflow as tf

seen_global = []


@tf.function
def _appends_to_global(x):
    seen_global.append(1)
    return x * 2


def test_append_to_global_list_runs_once_per_trace():
    seen_global.clear()
    for v in (1.0, 2.0, 3.0):
        _appends_to_global(tf.constant(v))
    assert seen_global == [1]


def test_append_to_closure_list():
    log = []

    @tf.function
    def f(x):
        log.append(x.shape)
        return x + 1

    f(tf.constant([1.0]))
    f(tf.constant([2.0]))
    f(tf.constant([1.0, 2.0]))
    assert len(log) == 2


def test_local_list_in_tensor_loop_still_becomes_tensor_array():
    @tf.function
    def f(n):
        out = []
        for i in tf.range(n):
            out.append(i * 2)
        return tf.stack(out)

    assert f(tf.constant(4)).numpy().tolist() == [0, 2, 4, 6]
