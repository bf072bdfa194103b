"""``tw.test``: TensorFlow's test utilities, so that users' ``tf.test.TestCase`` tests run.

twinflow runs on the CPU with NumPy: there is no GPU, CUDA, ROCm or XLA build, and every op has
finished when it returns (``experimental.sync_devices`` has nothing to wait for).
"""
from __future__ import annotations

import contextlib
import re
import shutil
import sys
import tempfile
import time
import types
import unittest
from collections.abc import Callable, Iterator

import numpy as np

from .autodiff.tape import GradientTape
from .core import dtypes, nest
from .core.errors import OpError
from .eager.execute import convert_to_tensor
from .graph.tensor import Tensor
from .ops.array_ops import reshape
from .ops.variables import Variable
from .saved_model.graph_import import as_graph_def_message

__all__ = ["TestCase", "Benchmark", "main", "compute_gradient", "assert_equal_graph_def",
           "gpu_device_name", "is_gpu_available", "is_built_with_cuda", "is_built_with_rocm",
           "is_built_with_gpu_support", "is_built_with_xla", "is_cpu_target_available",
           "disable_with_predicate", "with_eager_op_as_function", "experimental"]


def _np(value):
    """A tensor, variable, nested list... as a NumPy array."""
    if isinstance(value, (Tensor, Variable)):
        return np.asarray(value.numpy())
    return np.asarray(value)


def _assert_all(name: str, comparison: np.ufunc, symbol: str, what: str) -> Callable:
    """The ``TestCase.<name>(a, comparison_target)`` that checks ``comparison`` elementwise."""
    def assert_all(self, a, comparison_target) -> None:
        self._compare(a, comparison, comparison_target, what)
    assert_all.__name__, assert_all.__qualname__ = name, f"TestCase.{name}"
    assert_all.__doc__ = (f"Asserts every element of ``a`` is {symbol} ``comparison_target``.\n\n"
                          "Args:\n    a: the array/tensor.\n    comparison_target: the bound.\n")
    return assert_all


class TestCase(unittest.TestCase):
    """``unittest.TestCase`` with TensorFlow's array assertions (tensors are accepted anywhere
    an array is) and ``evaluate``."""

    def evaluate(self, tensors):
        """The NumPy values of a structure of tensors.

        Args:
            tensors: a tensor, variable, or a nested structure of them.

        Returns:
            The same structure with NumPy values.
        """
        return nest.map_structure(
            lambda t: t.numpy() if isinstance(t, (Tensor, Variable)) else t, tensors)

    def get_temp_dir(self) -> str:
        """A temporary folder for this test (removed when the test ends).

        Returns:
            Its path.
        """
        path = tempfile.mkdtemp(prefix="twinflow_test_")
        self.addCleanup(_rmtree, path)
        return path

    def _structure(self, a, b, check: Callable, msg) -> None:
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertEqual(set(a), set(b), msg)
            for k in a:
                self._structure(a[k], b[k], check, msg)
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and \
                any(isinstance(e, (Tensor, Variable, dict, list, tuple)) for e in (*a, *b)):
            self.assertEqual(len(a), len(b), msg)
            for x, y in zip(a, b):
                self._structure(x, y, check, msg)
            return
        check(_np(a), _np(b))

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None) -> None:  # noqa: N802
        """Asserts that two structures of arrays/tensors are elementwise close.

        Args:
            a: the actual value (nested lists, dicts, tensors or arrays).
            b: the expected value.
            rtol: relative tolerance.
            atol: absolute tolerance.
            msg: extra text for the failure message.
        """
        def check(x, y):
            self.assertEqual(x.shape, y.shape, f"Shape mismatch: {x.shape} vs {y.shape}. {msg}")
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=msg or "",
                                       equal_nan=True)
        self._structure(a, b, check, msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6,  # noqa: N802
                                      float_rtol=1e-6, float_atol=1e-6, half_rtol=1e-3,
                                      half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None) -> None:
        """``assertAllClose`` with tolerances loosened for float32 and float16 values.

        Args:
            a: the actual value.
            b: the expected value.
            rtol: relative tolerance (float64).
            atol: absolute tolerance (float64).
            float_rtol: at least this for float32/complex64.
            float_atol: at least this for float32/complex64.
            half_rtol: at least this for float16.
            half_atol: at least this for float16.
            bfloat16_rtol: at least this for bfloat16.
            bfloat16_atol: at least this for bfloat16.
            msg: extra text for the failure message.
        """
        dt = _np(a).dtype
        if dt in (np.float32, np.complex64):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        elif dt == np.float16:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        elif dt.name == "bfloat16":
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None) -> None:  # noqa: N802
        """Asserts that two arrays are not elementwise close.

        Args:
            a: one value.
            b: the other.
            rtol: relative tolerance.
            atol: absolute tolerance.
            msg: extra text for the failure message.
        """
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are close at all elements")

    def assertAllEqual(self, a, b, msg=None) -> None:  # noqa: N802
        """Asserts that two arrays/tensors have equal shapes and values.

        Args:
            a: the actual value.
            b: the expected value.
            msg: extra text for the failure message.
        """
        x, y = _np(a), _np(b)
        self.assertEqual(x.shape, y.shape, f"Shape mismatch: {x.shape} vs {y.shape}. {msg}")
        np.testing.assert_array_equal(x, y, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None) -> None:  # noqa: N802
        """Asserts that two arrays differ somewhere.

        Args:
            a: one value.
            b: the other.
            msg: extra text for the failure message.
        """
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are equal at all elements")

    def _compare(self, a, comparison: np.ufunc, b, what: str) -> None:
        x = _np(a)
        if not np.all(comparison(x, b)):
            raise AssertionError(f"Not every element is {what} {b}: {x}")

    assertAllGreater = _assert_all("assertAllGreater", np.greater, ">", "greater than")
    assertAllGreaterEqual = _assert_all("assertAllGreaterEqual", np.greater_equal, ">=",
                                        "at least")
    assertAllLess = _assert_all("assertAllLess", np.less, "<", "less than")
    assertAllLessEqual = _assert_all("assertAllLessEqual", np.less_equal, "<=", "at most")

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                         open_upper_bound=False) -> None:
        """Asserts every element lies in the range.

        Args:
            target: the array/tensor.
            lower_bound: the lower bound.
            upper_bound: the upper bound.
            open_lower_bound: exclude the lower bound.
            open_upper_bound: exclude the upper bound.
        """
        self._compare(target, np.greater if open_lower_bound else np.greater_equal,
                      lower_bound, "above")
        self._compare(target, np.less if open_upper_bound else np.less_equal,
                      upper_bound, "below")

    def assertAllInSet(self, target, expected_set) -> None:  # noqa: N802
        """Asserts every element is one of ``expected_set``.

        Args:
            target: the array/tensor.
            expected_set: the allowed values.
        """
        extra = set(_np(target).reshape(-1).tolist()) - set(expected_set)
        if extra:
            raise AssertionError(f"{sorted(extra)} are not in {set(expected_set)}")

    def assertNear(self, f1, f2, err, msg=None) -> None:  # noqa: N802
        """Asserts ``|f1 - f2| <= err``.

        Args:
            f1: a number.
            f2: a number.
            err: the tolerance.
            msg: extra text for the failure message.
        """
        self.assertTrue(abs(float(f1) - float(f2)) <= err,
                        f"{f1} != {f2} +/- {err}{' : ' + msg if msg else ''}")

    def assertArrayNear(self, farray1, farray2, err, msg=None) -> None:  # noqa: N802
        """Asserts two lists of numbers are elementwise within ``err``.

        Args:
            farray1: a list of numbers.
            farray2: a list of numbers.
            err: the tolerance.
            msg: extra text for the failure message.
        """
        self.assertEqual(len(farray1), len(farray2), msg)
        for a, b in zip(farray1, farray2):
            self.assertNear(a, b, err, msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None) -> None:  # noqa: N802
        """As ``assertArrayNear``, for two arrays of any (equal) shape.

        Args:
            ndarray1, ndarray2: the arrays.
            err, msg: as in ``assertArrayNear``.
        """
        self.assertTrue(np.allclose(_np(ndarray1), _np(ndarray2), rtol=0, atol=err), msg)

    def assertShapeEqual(self, input_a, input_b, msg=None) -> None:  # noqa: N802
        """Asserts an array's shape equals a tensor's.

        Args:
            input_a: a NumPy array.
            input_b: a tensor.
            msg: extra text for the failure message.
        """
        self.assertEqual(tuple(np.shape(input_a)), tuple(input_b.shape), msg)

    def assertDTypeEqual(self, target, expected_dtype) -> None:  # noqa: N802
        """Asserts the dtype of ``target`` (or each of a list) is ``expected_dtype``.

        Args:
            target: an array/tensor or a list of them.
            expected_dtype: a NumPy or twinflow dtype.
        """
        want = np.dtype(dtypes.as_dtype(expected_dtype).np)
        for t in target if isinstance(target, list) else [target]:
            self.assertEqual(_np(t).dtype, want)

    def assertLen(self, container, expected_len, msg=None) -> None:  # noqa: N802
        """Asserts ``len(container) == expected_len``.

        Args:
            container: a sized object.
            expected_len: the length.
            msg: extra text for the failure message.
        """
        self.assertEqual(len(container), expected_len, msg)

    def assertStartsWith(self, actual, expected_start, msg=None) -> None:  # noqa: N802
        """Asserts a string starts with a prefix.

        Args:
            actual: the string.
            expected_start: the prefix.
            msg: extra text for the failure message.
        """
        self.assertTrue(actual.startswith(expected_start),
                        msg or f"{actual!r} does not start with {expected_start!r}")

    def assertItemsEqual(self, first, second, msg=None) -> None:  # noqa: N802
        """Asserts two sequences hold the same items, in any order.

        Args:
            first: a sequence.
            second: a sequence.
            msg: extra text for the failure message.
        """
        self.assertCountEqual(first, second, msg)

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type,  # noqa: N802
                                       expected_err_re_or_predicate) -> Iterator[None]:
        """A context that must raise ``exception_type`` whose message matches.

        Args:
            exception_type: the exception class.
            expected_err_re_or_predicate: a regular expression searched in the message, or a
                predicate of the exception.

        Returns:
            The context manager.
        """
        pred = expected_err_re_or_predicate
        if isinstance(pred, str):
            pattern = pred
            pred = lambda e: re.search(pattern, str(e)) is not None  # noqa: E731
        try:
            yield
        except exception_type as e:
            if not pred(e):
                raise AssertionError(f"Exception {e!r} does not match {pattern!r}") from e
        else:
            raise AssertionError(f"{exception_type.__name__} not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        """A context that must raise a twinflow ``OpError`` whose message matches.

        Args:
            expected_err_re_or_predicate: a regular expression or a predicate.

        Returns:
            The context manager.
        """
        return self.assertRaisesWithPredicateMatch(OpError, expected_err_re_or_predicate)


def _rmtree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


class Benchmark:
    """Base class of benchmarks: ``report_benchmark`` records one measurement."""

    def __init__(self) -> None:
        """Starts with no reports."""
        self.reports: list[dict] = []

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None) -> None:
        """Records (and prints) one measurement.

        Args:
            iters: iterations run.
            cpu_time: CPU seconds per iteration.
            wall_time: wall seconds per iteration.
            throughput: items per second.
            extras: a dict of other numbers.
            name: the benchmark's name (default: the class name).
            metrics: a list of ``{"name", "value"}`` dicts.
        """
        entry = {"name": name or type(self).__name__, "iters": iters, "cpu_time": cpu_time,
                 "wall_time": wall_time, "throughput": throughput, "extras": extras or {},
                 "metrics": metrics or []}
        self.reports.append(entry)
        print(f"benchmark {entry['name']}: " + ", ".join(
            f"{k}={v}" for k, v in entry.items() if k != "name" and v not in (None, {}, [])))

    def evaluate(self, tensors):
        """The NumPy values of a structure of tensors (timing ``tw.function`` calls).

        Args:
            tensors: a tensor or a nested structure of them.

        Returns:
            The same structure with NumPy values.
        """
        return nest.map_structure(
            lambda t: t.numpy() if isinstance(t, (Tensor, Variable)) else t, tensors)

    def run_op_benchmark(self, fn: Callable, burn_iters=2, min_iters=10, name=None) -> dict:
        """Times ``fn()`` (a twinflow callable, not TensorFlow's session and op).

        Args:
            fn: a callable running the work.
            burn_iters: untimed warm-up calls.
            min_iters: timed calls.
            name: the benchmark's name.

        Returns:
            The report dict (``wall_time`` in seconds per call).
        """
        if not callable(fn):
            raise TypeError("run_op_benchmark takes a callable in twinflow (there are no "
                            "sessions)")
        for _ in range(burn_iters):
            fn()
        start = time.perf_counter()
        for _ in range(min_iters):
            fn()
        wall = (time.perf_counter() - start) / min_iters
        self.report_benchmark(iters=min_iters, wall_time=wall, name=name)
        return self.reports[-1]


def main(argv=None) -> None:
    """Runs the tests of ``__main__`` (``unittest.main``).

    Args:
        argv: the command-line arguments (default ``sys.argv``).
    """
    unittest.main(module="__main__", argv=argv if argv is not None else sys.argv)


def compute_gradient(f: Callable, x, delta=None) -> tuple:
    """The theoretical (backprop) and numerical (central differences) Jacobians of ``f``.

    Args:
        f: a function of the tensors ``x`` returning one tensor.
        x: a list of tensors/arrays (floating).
        delta: the finite-difference step (default 1/1024).

    Returns:
        ``(theoretical, numerical)``: lists with one ``[y_size, x_size]`` array per ``x``.
    """
    delta = 1.0 / 1024 if delta is None else delta
    xs = [convert_to_tensor(v) for v in x]
    for v in xs:
        if not v.dtype.is_floating:
            raise TypeError(f"compute_gradient needs floating inputs, got {v.dtype.name}")
    with GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = convert_to_tensor(f(*xs))
        flat_y = [y] if y.shape.rank == 0 else list(_unstack_flat(y))
    theory, numeric = [], []
    for i, v in enumerate(xs):
        n, m = v.shape.num_elements(), y.shape.num_elements()
        jac = np.zeros((m, n), v.dtype.np)
        for r, yr in enumerate(flat_y):
            g = tape.gradient(yr, v)
            if g is not None:
                jac[r] = _np(g).reshape(-1)
        theory.append(jac)
        base = _np(v).astype(v.dtype.np)
        num = np.zeros((m, n), v.dtype.np)
        for c in range(n):
            cols = []
            for sign in (1, -1):
                moved = base.copy().reshape(-1)
                moved[c] += sign * delta
                args = [convert_to_tensor(moved.reshape(base.shape)) if k == i else xs[k]
                        for k in range(len(xs))]
                cols.append(_np(f(*args)).reshape(-1))
            num[:, c] = (cols[0] - cols[1]) / (2 * delta)
        numeric.append(num)
    del tape
    return theory, numeric


def _unstack_flat(y: Tensor):
    flat = reshape(y, [-1])
    return [flat[j] for j in range(y.shape.num_elements())]


def assert_equal_graph_def(expected, actual) -> None:
    """Asserts two GraphDefs hold the same nodes (in any order).

    Args:
        expected: a GraphDef message (or its bytes).
        actual: a GraphDef message (or its bytes).
    """
    a, b = as_graph_def_message(expected), as_graph_def_message(actual)
    na = {n.name: n for n in a.node}
    nb = {n.name: n for n in b.node}
    if set(na) != set(nb):
        raise AssertionError(f"GraphDefs differ in nodes: only expected {sorted(set(na) - set(nb))}"
                             f", only actual {sorted(set(nb) - set(na))}")
    for name in sorted(na):
        if na[name] != nb[name]:
            raise AssertionError(f"GraphDefs differ at node {name!r}:\n{na[name]}\nvs\n"
                                 f"{nb[name]}")


def gpu_device_name() -> str:
    """The name of a GPU device: twinflow has none, so ``""``.

    Returns:
        ``""``.
    """
    return ""


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None) -> bool:
    """Whether a GPU is available: twinflow runs on the CPU only.

    Args:
        cuda_only: as TensorFlow's.
        min_cuda_compute_capability: as TensorFlow's.

    Returns:
        False.
    """
    return False


def _built_without(name: str, what: str) -> Callable[[], bool]:
    """``is_built_with_<what>()``: always False (twinflow is NumPy on the CPU)."""
    def built_with() -> bool:
        return False
    built_with.__name__ = built_with.__qualname__ = name
    built_with.__doc__ = f"Whether twinflow was built with {what}.\n\nReturns:\n    False.\n"
    return built_with


is_built_with_cuda = _built_without("is_built_with_cuda", "CUDA")
is_built_with_rocm = _built_without("is_built_with_rocm", "ROCm")
is_built_with_gpu_support = _built_without("is_built_with_gpu_support", "GPU support")
is_built_with_xla = _built_without("is_built_with_xla",
                                   "XLA (it compiles graphs to Python instead)")


def is_cpu_target_available(target) -> bool:
    """Whether an XLA/LLVM CPU code-generation target is available: twinflow has none.

    Args:
        target: the target's name (``"x86"``, ``"aarch64"``...).

    Returns:
        False.
    """
    return False


def disable_with_predicate(pred, skip_message) -> Callable:
    """Decorator that skips a test method when ``pred()`` is true.

    Args:
        pred: a callable returning a bool.
        skip_message: the skip reason.

    Returns:
        The decorator.
    """
    def decorator(fn):
        def wrapped(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            return fn(self, *args, **kwargs)
        wrapped.__name__, wrapped.__doc__ = fn.__name__, fn.__doc__
        return wrapped
    return decorator


def with_eager_op_as_function(cls=None, only_as_function=False):
    """TensorFlow's test decorator that adds variants running eager ops as functions.

    twinflow has one eager mode, so the class is returned as it is.

    Args:
        cls: the test class.
        only_as_function: as TensorFlow's.

    Returns:
        ``cls`` (or a decorator when ``cls`` is None).
    """
    if cls is None:
        return lambda c: c
    return cls


def _sync_devices() -> None:
    """Waits for every device to finish its work: twinflow ops finish when they return.

    Returns:
        None.
    """


experimental = types.SimpleNamespace(sync_devices=_sync_devices)
