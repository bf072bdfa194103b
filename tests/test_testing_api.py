"""tw.test (TestCase assertions, compute_gradient, helpers), tw.sysconfig and tw.types."""
import unittest

import numpy as np
import pytest

import twinflow as tw


class _UserTest(tw.test.TestCase):
    def test_passes(self):
        x = tw.constant([1.0, 2.0])
        self.assertAllClose({"a": x, "b": [x, 3.0]}, {"a": [1.0, 2.0], "b": [[1.0, 2.0], 3.0]})
        self.assertAllEqual(tw.constant([[1, 2]]), np.array([[1, 2]]))
        self.assertAllInRange(x, 1.0, 2.0)
        self.assertAllInSet(tw.constant([1, 2, 1]), {1, 2})
        self.assertAllGreater(x, 0.5)
        self.assertAllLessEqual(x, 2.0)
        self.assertNotAllClose(x, [1.0, 2.5])
        self.assertDTypeEqual(x, np.float32)
        self.assertShapeEqual(np.zeros((2,)), x)
        self.assertEqual(self.evaluate({"v": tw.Variable(3)}), {"v": 3})
        with self.assertRaisesOpError("Incompatible|shapes"):
            tw.add(tw.constant([1, 2]), tw.constant([1, 2, 3]))

    def test_fails_on_mismatch(self):
        with self.assertRaises(AssertionError):
            self.assertAllClose(tw.constant([1.0]), [1.1])
        with self.assertRaises(AssertionError):
            self.assertAllEqual([1, 2], [1, 2, 3])
        with self.assertRaises(AssertionError):
            self.assertAllInRange([0.0, 3.0], 1.0, 2.0)


def test_a_user_testcase_runs_under_unittest():
    result = unittest.TextTestRunner(stream=open("/dev/null", "w")).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(_UserTest))
    assert result.wasSuccessful() and result.testsRun == 2


def test_compute_gradient_matches_the_jacobian():
    x = tw.constant([[1.0, 2.0], [3.0, 4.0]], tw.float64)
    theory, numeric = tw.test.compute_gradient(lambda a, b: tw.reduce_sum(a * b, 0),
                                               [x, tw.constant(2.0, tw.float64)])
    np.testing.assert_allclose(theory[0], [[2, 0, 2, 0], [0, 2, 0, 2]])
    np.testing.assert_allclose(theory[1], [[4], [6]])
    for t, n in zip(theory, numeric):
        np.testing.assert_allclose(t, n, atol=1e-6)
    with pytest.raises(TypeError, match="floating"):
        tw.test.compute_gradient(lambda a: a, [tw.constant([1])])


def test_environment_answers_and_graph_def_comparison():
    assert tw.test.gpu_device_name() == "" and tw.test.is_gpu_available() is False
    assert not (tw.test.is_built_with_cuda() or tw.test.is_built_with_xla()
                or tw.test.is_built_with_rocm() or tw.test.is_built_with_gpu_support())
    tw.test.experimental.sync_devices()
    assert tw.sysconfig.get_build_info()["is_cuda_build"] is False
    with pytest.raises(NotImplementedError, match="C\\+\\+"):
        tw.sysconfig.get_include()
    g1, g2 = tw.Graph(), tw.Graph()
    for g, order in ((g1, (1.0, 2.0)), (g2, (1.0, 2.0))):
        with g.as_default():
            tw.constant(order[0], name="a")
            tw.constant(order[1], name="b")
    tw.test.assert_equal_graph_def(g1.as_graph_def(), g2.as_graph_def())
    with g2.as_default():
        tw.constant(3.0, name="c")
    with pytest.raises(AssertionError, match="only actual"):
        tw.test.assert_equal_graph_def(g1.as_graph_def(), g2.as_graph_def())


def test_types_and_benchmark():
    f = tw.function(lambda x: x + 1)
    assert isinstance(f, tw.types.experimental.PolymorphicFunction)
    cf = f.get_concrete_function(tw.TensorSpec([], tw.float32))
    assert isinstance(cf, tw.types.experimental.ConcreteFunction)
    assert not isinstance(len, tw.types.experimental.Callable)
    bench = tw.test.Benchmark()
    report = bench.run_op_benchmark(lambda: f(tw.constant(1.0)), min_iters=3, name="add")
    assert report["name"] == "add" and report["wall_time"] > 0
