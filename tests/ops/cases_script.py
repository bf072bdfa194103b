"""py_function / numpy_function (outputs of unknown shape, a gradient that reruns Python:
checked by their own tests) and ensure_shape."""
import numpy as np

import twinflow as tw

from .harness import Case

_X = np.random.default_rng(3).normal(size=(2, 3))

CASES = [
    Case(lambda x: tw.ensure_shape(x, [None, 3]), [_X], lambda x: x, name="ensure_shape"),
    Case(lambda x: tw.ensure_shape(x * 2.0, [2, None]), [_X.astype(np.float32)],
         lambda x: x * 2, name="ensure_shape_f32", rtol=1e-5),
]

COVERED_ELSEWHERE = {
    "IteratorClose": "tests/data/test_threads.py::test_a_loop_in_a_function_closes_its_pass",
    "IteratorGetNextFrom": "tests/data/test_pipelines.py::test_next_of_an_iterator_inside_a_"
                           "function_takes_a_new_element_per_call",
    "EagerPyFunc": "tests/data/test_py_function.py (eager, graph, gradients, Dataset.map)",
    "PyFunc": "tests/data/test_py_function.py::test_py_function_eager_graph_and_numpy_function",
}
