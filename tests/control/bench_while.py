"""Measures a 1000-iteration scalar while_loop in a tw.function against the same loop in plain
Python on NumPy scalars (issue 4's target: at most 1.5x). Not collected by pytest.

    python tests/control/bench_while.py

Codegen inlines the loop into the generated function (tw.function(...).get_concrete_function(x)
.generated_source shows it); the scalar ops are Python operators on NumPy scalars there.
"""
from __future__ import annotations

import timeit

import numpy as np

import twinflow as tw


def main() -> None:
    @tw.function
    def loop(x):
        return tw.while_loop(lambda i, x: i < 1000, lambda i, x: (i + 1, x * 0.99 + 1.0),
                             [0, x])[1]

    # The fair baseline: NumPy constants made once, outside the loop, as by hand.
    n, one = np.int32(1000), np.int32(1)
    a, b = np.float32(0.99), np.float32(1.0)

    def python_loop(x):
        i = np.int32(0)
        while i < n:
            x = x * a + b
            i = i + one
        return x

    x = tw.constant(1.0)
    assert abs(float(loop(x)) - float(python_loop(np.float32(1.0)))) < 1e-3
    ratios = []
    for _ in range(5):
        tg = min(timeit.repeat(lambda: loop(x), number=10, repeat=3)) / 10
        tp = min(timeit.repeat(lambda: python_loop(np.float32(1.0)), number=10, repeat=3)) / 10
        ratios.append(tg / tp)
    print(f"while_loop 1000 scalar iterations: graph {tg * 1e3:.2f} ms, Python on NumPy "
          f"scalars {tp * 1e3:.2f} ms, median ratio {sorted(ratios)[2]:.2f}x")


if __name__ == "__main__":
    main()
