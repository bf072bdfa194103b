"""The issue-17 audit table: every example call of the issue, run eagerly and in a function.

Each row is ``(name, modes, call, expect)``: ``call(tf)`` makes the call with the module under
test (twinflow, or TensorFlow to check the expectations), ``modes`` is ``"EG"`` (eagerly and
inside ``tf.function``) or ``"E"`` (not an op: saves, Keras, tf.data), and ``expect`` is
either a tuple of acceptable error class names (TensorFlow's, matched against the class and
its bases) or a predicate on the returned value (converted with ``numpy()`` where possible).

Run it as ``PYTHONPATH=src python tools/issue17_audit.py`` (``--tf`` runs it with TensorFlow,
``-v`` lists every row). ``tests/test_issue17_audit.py`` requires every row to pass.
"""
from __future__ import annotations

import gc
import linecache
import os
import sys
import tempfile
import threading

import numpy as np

NAN = float("nan")
INF = float("inf")
BIG = ("ResourceExhaustedError", "InvalidArgumentError", "ValueError")
BAD = ("InvalidArgumentError", "ValueError")
TYPE = ("TypeError",)


def _x23(tf):
    return tf.reshape(tf.range(6.), [2, 3])


def _equal(expected):
    expected = np.asarray(expected)

    def check(v):
        v = np.asarray(v)
        return v.shape == expected.shape and bool(np.all(
            (v == expected) | (np.isnan(v.astype(float)) & np.isnan(expected.astype(float)))))
    return check


def _zeros_huge(tf):  # a dimension past 2**32 in an empty tensor (nothing to allocate)
    return tf.zeros([2 ** 32 + 3, 0]).shape[0]


def _uniform_huge(tf):
    return tf.random.uniform([0, 2 ** 32 + 3]).shape[1]


def _while_neg(tf):
    return tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)],
                         maximum_iterations=-1)


def _seed_shape(tf):
    return tf.random.stateless_uniform([2], seed=[1])


def _seed_type(tf):
    return tf.random.stateless_uniform([2], seed=[1.5, 2.5])


_VARIABLES: dict = {}


def _variable_grad(tf):
    if tf.__name__ not in _VARIABLES:  # made by the eager run, captured by the function
        _VARIABLES[tf.__name__] = tf.Variable(3.)
    v = _VARIABLES[tf.__name__]
    with tf.GradientTape() as tape:
        tape.watch(v)
    return tape.gradient(v, v)


def _module_without_super(tf):
    class Count(tf.Module):
        def __init__(self):
            self.v = tf.Variable(1.)

    c = Count()
    return len(c.trainable_variables)


def _filter_not_bool(tf):
    return list(tf.data.Dataset.range(3).filter(lambda x: x))


def _filter_not_scalar(tf):
    return list(tf.data.Dataset.range(3).filter(lambda x: tf.fill([2], True)))


def _generator_breaks_spec(tf):
    def gen():
        yield np.zeros([2], np.float32)
    sig = tf.TensorSpec([3], tf.float32)
    return list(tf.data.Dataset.from_generator(gen, output_signature=sig))


def _concat_dtypes(tf):
    return tf.data.Dataset.range(2).concatenate(tf.data.Dataset.from_tensors(1.))


def _sample_weights(tf):
    ds = [tf.data.Dataset.range(2), tf.data.Dataset.range(2)]
    return list(tf.data.Dataset.sample_from_datasets(ds, weights=[0.5, 0.3, 0.2]))


def _keras(tf):
    return tf.keras


def _fit_negative_batch(tf):
    m = _keras(tf).Sequential([_keras(tf).Input((3,)), _keras(tf).layers.Dense(1)])
    m.compile("sgd", "mse")
    return m.fit(np.ones((4, 3), np.float32), np.ones((4, 1), np.float32), batch_size=-1,
                 verbose=0)


def _batchnorm_axis(tf):
    return _keras(tf).layers.BatchNormalization(axis=5)(tf.ones([2, 3]))


def _sequential_wrong_rank(tf):
    m = _keras(tf).Sequential([_keras(tf).Input((3,)), _keras(tf).layers.Dense(2)])
    return m(tf.ones([2, 3, 3]))


def _mse_bogus(tf):
    return _keras(tf).losses.MeanSquaredError(reduction="bogus")([1.], [2.])


def _conv_layer_zero_stride(tf):
    return _keras(tf).layers.Conv2D(1, 2, strides=0)(tf.ones([1, 4, 4, 1]))


def _pool_layer_zero_stride(tf):
    return _keras(tf).layers.MaxPooling2D(2, strides=0)(tf.ones([1, 4, 4, 1]))


def _manager(tf, keep):
    with tempfile.TemporaryDirectory() as d:
        tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.)), d, max_to_keep=keep)


def _state_outside(tf):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "checkpoint"), "w") as f:  # each one's state file format
            f.write('model_checkpoint_path: "../x"\n' if tf.__name__ == "tensorflow" else
                    '{"model_checkpoint_path": "../x", "all_model_checkpoint_paths": ["../x"]}')
        return tf.train.latest_checkpoint(d)


def _tracing_elsewhere(tf):
    """A thread traces a function (slowly) while this one runs eager ops."""
    started, done = threading.Event(), threading.Event()

    @tf.function
    def slow(x):
        started.set()
        done.wait(5)
        return x + 1.
    t = threading.Thread(target=lambda: slow(tf.constant(1.)))
    t.start()
    started.wait(5)
    try:
        return float(tf.add(1., 2.).numpy())
    finally:
        done.set()
        t.join()


def _linecache_growth(tf):
    gc.collect()
    before = len(linecache.cache)
    for i in range(50):
        tf.function(lambda x, i=i: x + float(i))(tf.constant(1.))
    gc.collect()
    return len(linecache.cache) - before


def _check_parity(tf):
    def f(x):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2., lambda: -x)
    return bool(tf.debugging.experimental.check_parity(f, tf.constant([1., 2.])).agree)


ROWS = [
    # silent wrong answers: sizes past 32 bits
    ("zeros([2**32+3, 0]).shape", "EG", _zeros_huge, lambda v: int(v) == 2 ** 32 + 3),
    ("random.uniform([0, 2**32+3]).shape", "EG", _uniform_huge,
     lambda v: int(v) == 2 ** 32 + 3),
    ("reshape(range(6), [2**32+6])", "EG",
     lambda tf: tf.reshape(tf.range(6), [2 ** 32 + 6]), BAD),
    ("zeros([2**40, 2**40])", "EG", lambda tf: tf.zeros([2 ** 40, 2 ** 40]), BIG),
    ("random.uniform([2**40])", "EG", lambda tf: tf.random.uniform([2 ** 40]), BIG),
    ("range(2**31-2, 2**31+1)", "EG", lambda tf: tf.range(2 ** 31 - 2, 2 ** 31 + 1),
     _equal([2 ** 31 - 2, 2 ** 31 - 1, 2 ** 31])),
    # eager skips checks that graphs make
    ("pad(x23, [[1,1]])", "EG", lambda tf: tf.pad(_x23(tf), [[1, 1]]), BAD),
    ("gather(x23, [0], axis=3)", "EG", lambda tf: tf.gather(_x23(tf), [0], axis=3), BAD),
    ("reshape(range(6), [-2,3])", "EG", lambda tf: tf.reshape(tf.range(6), [-2, 3]), BAD),
    ("unstack(x23, num=5)", "EG", lambda tf: tf.unstack(_x23(tf), num=5), BAD),
    ("fill([2], [1.,2.])", "EG", lambda tf: tf.fill([2], [1., 2.]), BAD),
    ("linalg.inv(int matrix)", "EG", lambda tf: tf.linalg.inv([[1, 0], [0, 1]]),
     BAD + TYPE + ("NotFoundError",)),
    ("stateless_uniform(seed=[1])", "EG", _seed_shape, BAD),
    ("stateless_uniform(seed=[1.5, 2.5])", "EG", _seed_type, BAD + TYPE),
    ("while_loop(maximum_iterations=-1): 0 iterations", "EG", _while_neg, _equal([0])),
    # float axes
    ("expand_dims(x, 1.5)", "EG", lambda tf: tf.expand_dims(_x23(tf), 1.5), TYPE),
    ("transpose(x, [1.5, 0])", "EG", lambda tf: tf.transpose(_x23(tf), [1.5, 0]), TYPE + BAD),
    ("concat([x, x], 1.5)", "EG", lambda tf: tf.concat([_x23(tf), _x23(tf)], 1.5), TYPE),
    ("argmax(x, 1.5)", "EG", lambda tf: tf.argmax(_x23(tf), 1.5), TYPE),
    ("cumsum(x, 1.5)", "EG", lambda tf: tf.cumsum(_x23(tf), 1.5), TYPE),
    ("reverse(x, [1.5])", "EG", lambda tf: tf.reverse(_x23(tf), [1.5]), TYPE + BAD),
    # variables
    ("Variable([1,2], shape=[3])", "E", lambda tf: tf.Variable([1, 2], shape=[3]), BAD),
    ("Variable(constant([1.5]), dtype=int32)", "E",
     lambda tf: tf.Variable(tf.constant([1.5]), dtype=tf.int32), BAD),
    # NaN semantics
    ("argmax([1, nan, 2])", "EG", lambda tf: tf.argmax([1., NAN, 2.]), _equal(2)),
    ("unique([nan, nan, 1]) keeps NaNs apart", "EG", lambda tf: tf.unique([NAN, NAN, 1.])[0],
     _equal([NAN, NAN, 1.])),
    ("softmax([inf, 1])", "EG", lambda tf: tf.nn.softmax([INF, 1.]), _equal([NAN, 0.])),
    ("softmax([nan, 1])", "EG", lambda tf: tf.nn.softmax([NAN, 1.]), _equal([NAN, 0.])),
    ("softmax float64 [nan, 1]", "EG",
     lambda tf: tf.nn.softmax(tf.constant([NAN, 1.], tf.float64)), _equal([NAN, NAN])),
    # tf.data
    ("filter predicate int64", "E", _filter_not_bool, BAD + TYPE),
    ("filter predicate not scalar", "E", _filter_not_scalar, BAD + TYPE),
    ("from_generator breaks output_signature", "E", _generator_breaks_spec, BAD + TYPE),
    ("concatenate int64 + float32", "E", _concat_dtypes, TYPE),
    ("prefetch(-5)", "E", lambda tf: tf.data.Dataset.range(3).prefetch(-5), BAD),
    ("batch(2.5)", "E", lambda tf: tf.data.Dataset.range(3).batch(2.5), TYPE + BAD),
    ("sample_from_datasets wrong-length weights", "E", _sample_weights, BAD),
    # Keras
    ("fit(batch_size=-1)", "E", _fit_negative_batch, BAD),
    ("Dense('3')", "E", lambda tf: _keras(tf).layers.Dense("3"), BAD + TYPE),
    ("BatchNormalization(axis=5)", "E", _batchnorm_axis, BAD),
    ("Sequential((3,)) called on (2,3,3)", "E", _sequential_wrong_rank, BAD),
    ("MeanSquaredError(reduction='bogus')", "E", _mse_bogus, BAD),
    ("max_pool2d(x, ksize=0)", "EG",
     lambda tf: tf.nn.max_pool2d(tf.ones([1, 4, 4, 1]), 0, 1, "VALID"), BAD),
    # saves
    ("CheckpointManager(max_to_keep=0)", "E", lambda tf: _manager(tf, 0), BAD),
    ("CheckpointManager(max_to_keep=-1)", "E", lambda tf: _manager(tf, -1), BAD),
    ("latest_checkpoint naming ../x", "E", _state_outside,
     ("PermissionDeniedError",)),
    # threads and leaks
    ("eager op while another thread traces", "E", _tracing_elsewhere, _equal(3.)),
    ("linecache entries left by 50 dropped functions", "E", _linecache_growth,
     lambda v: int(v) <= 5),
    # raw internal errors
    ("conv2d(strides=0)", "EG",
     lambda tf: tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1, 1]), 0, "VALID"), BAD),
    ("max_pool2d(strides=0)", "EG",
     lambda tf: tf.nn.max_pool2d(tf.ones([1, 4, 4, 1]), 2, 0, "VALID"), BAD),
    ("avg_pool2d(strides=0)", "EG",
     lambda tf: tf.nn.avg_pool2d(tf.ones([1, 4, 4, 1]), 2, 0, "VALID"), BAD),
    ("keras Conv2D(strides=0)", "E", _conv_layer_zero_stride, BAD),
    ("keras MaxPooling2D(strides=0)", "E", _pool_layer_zero_stride, BAD),
    ("unstack(scalar)", "EG", lambda tf: tf.unstack(tf.constant(1.)), BAD),
    ("linalg.diag_part(vector)", "EG", lambda tf: tf.linalg.diag_part(tf.ones([3])), BAD),
    ("switch_case(i, [])", "EG", lambda tf: tf.switch_case(tf.constant(0), []), BAD),
    ("reduce_sum(x, 'a')", "EG", lambda tf: tf.reduce_sum(_x23(tf), "a"), TYPE + BAD),
    ("constant([[1, 2], [3]])", "EG", lambda tf: tf.constant([[1, 2], [3]]), BAD),
    ("reshape(x, [2.5, 2])", "EG", lambda tf: tf.reshape(tf.range(6), [2.5, 2]), TYPE + BAD),
    # the guides' bugs
    ("gradient of a Variable wrt itself", "EG", _variable_grad, _equal(1.)),
    ("Module subclass without super().__init__()", "E", _module_without_super,
     _equal(1)),
]

# twinflow only (nothing like it in TensorFlow)
TW_ROWS = [
    ("check_parity of a function with a cond", "E", _check_parity, lambda v: v is True),
]

RAW = ("IndexError", "KeyError", "AttributeError", "ZeroDivisionError", "RecursionError",
       "MemoryError", "OverflowError", "UnboundLocalError", "NameError")


def _value(out):
    if hasattr(out, "numpy"):
        return out.numpy()
    if isinstance(out, (list, tuple)) and out and all(hasattr(o, "numpy") for o in out):
        return [o.numpy() for o in out]
    return out


def run_row(tf, row, mode: str) -> tuple[str, str]:
    """Runs one row in one mode.

    Args:
        tf: the module under test.
        row: ``(name, modes, call, expect)``.
        mode: ``"E"`` (eagerly) or ``"G"`` (inside ``tf.function``).

    Returns:
        ``(outcome, detail)``: outcome is ``"ok"``, ``"wrong"`` (a value where an error was
        expected, or the wrong value), ``"raw"`` (a raw internal error) or ``"class"`` (a clear
        error of another class than TensorFlow's).
    """
    _, _, call, expect = row
    try:
        if mode == "G":
            out = tf.function(lambda: call(tf))()
        else:
            out = call(tf)
        out = _value(out)
    except Exception as e:  # noqa: BLE001  (every error is classified)
        names = {c.__name__ for c in type(e).__mro__}
        detail = f"{type(e).__name__}: {str(e)[:90]}"
        if isinstance(expect, tuple) and names & set(expect):
            return "ok", detail
        return ("raw" if type(e).__name__ in RAW else "class"), detail
    if isinstance(expect, tuple):
        return "wrong", f"returned {str(out)[:90]}"
    try:
        good = bool(expect(out))
    except Exception as e:  # noqa: BLE001
        good, out = False, f"{out!r} ({type(e).__name__} checking it)"
    return ("ok" if good else "wrong"), f"returned {str(out)[:90]}"


def audit(tf, rows=None) -> list:
    """Runs every row in each of its modes.

    Args:
        tf: the module under test.
        rows: the rows (default: ``ROWS`` plus, for twinflow, ``TW_ROWS``).

    Returns:
        A list of ``(name, mode, outcome, detail)``.
    """
    if rows is None:
        rows = ROWS + ([] if tf.__name__ == "tensorflow" else TW_ROWS)
    out = []
    for row in rows:
        for mode in row[1]:
            out.append((row[0], mode) + run_row(tf, row, mode))
    return out


def main(argv: list) -> int:
    """Prints the audit's counts (and with ``-v`` every row).

    Args:
        argv: command-line arguments.

    Returns:
        0 when every row passes.
    """
    if "--tf" in argv:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf  # noqa: PLC0415  (only the module asked for is imported)
    else:
        import twinflow as tf  # noqa: PLC0415
    results = audit(tf)
    counts: dict = {}
    for name, mode, outcome, detail in results:
        counts[outcome] = counts.get(outcome, 0) + 1
        if "-v" in argv or outcome != "ok":
            print(f"{outcome:6} {mode} {name:48} {detail}")
    rows = len({r[0] for r in results})
    print(f"{rows} items, {len(results)} calls:",
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0 if counts.get("ok", 0) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
