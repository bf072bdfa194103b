"""py_function / numpy_function: their outputs have unknown shapes and their gradient reruns
Python, so they are checked by their own tests rather than the generic harness."""
CASES: list = []

COVERED_ELSEWHERE = {
    "EagerPyFunc": "tests/data/test_py_function.py (eager, graph, gradients, Dataset.map)",
    "PyFunc": "tests/data/test_py_function.py::test_py_function_eager_graph_and_numpy_function",
}
