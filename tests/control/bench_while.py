"""Measures a 1000-iteration scalar while_loop in a tw.function against the same loop in plain
Python on NumPy scalars (issue 4's target: at most 1.5x). Not collected by pytest.

    python tests/control/bench_while.py            # as the code base is
    python tests/control/bench_while.py --fast     # with the two changes proposed for the
                                                   # ops/codegen owners (see --help)
"""
from __future__ import annotations

import argparse
import operator
import timeit

import numpy as np

import twinflow as tw
from twinflow.compiler.codegen import compile_program
from twinflow.compiler.pipeline import optimize
from twinflow.compiler.program import Program
from twinflow.control import subgraph
from twinflow.graph.registry import get_op


def _constant(f):
    return lambda op: f


def _fast_mode() -> None:
    """(1) binary ops lowered to Python operators (same results on NumPy values, no ufunc
    call); (2) 0-d constants as NumPy scalars (NumPy's scalar fast path)."""
    for name, f in (("AddV2", operator.add), ("Sub", operator.sub), ("Mul", operator.mul),
                    ("Less", operator.lt)):
        get_op(name).lower = _constant(f)

    def compile_subgraph(g):
        prog, _ = optimize(Program(g, g.inputs, g.outputs))
        for op in prog.graph.get_operations():
            v = op.attrs.get("value") if op.type == "Const" else None
            if isinstance(v, np.ndarray) and v.ndim == 0:
                op.attrs["value"] = v[()]
        return compile_program(prog, g.name).run
    subgraph.set_subgraph_compiler(compile_subgraph)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fast", action="store_true", help=_fast_mode.__doc__)
    if parser.parse_args().fast:
        _fast_mode()

    @tw.function
    def loop(x):
        return tw.while_loop(lambda i, x: i < 1000, lambda i, x: (i + 1, x * 0.99 + 1.0),
                             [0, x])[1]

    def python_loop(x):
        i = np.int32(0)
        while i < 1000:
            x = x * np.float32(0.99) + np.float32(1.0)
            i = i + np.int32(1)
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
