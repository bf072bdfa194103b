"""Cases for the debugging ops; the ops that print, assert or carry a Python gradient function
are covered by their own tests."""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(7)
A = rng.normal(size=(3, 4))

CASES = [
    Case(lambda x: tw.debugging.check_numerics(x, "checked"), [A], lambda x: x,
         name="check_numerics"),
    Case(lambda x: tw.debugging.check_numerics(x, "checked"), [A.astype(np.float32)],
         lambda x: x, name="check_numerics_f32"),
]

COVERED_ELSEWHERE = {
    "PrintV2": "tests/ops/test_debugging.py",
    "Assert": "tests/ops/test_debugging.py",
    "CustomGradient": "tests/autodiff/test_custom_gradient.py",
}
