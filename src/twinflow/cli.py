"""The ``twinflow`` command: ``demo``, ``bench`` and ``version``."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import numpy as np

import twinflow as tw

from . import bench
from .keras import demo as training_demo

__all__ = ["main", "eager_tour"]


def _section(out: Callable[[str], None], title: str) -> None:
    out("")
    out(f"== {title} " + "=" * max(0, 66 - len(title)))


def eager_tour(out: Callable[[str], None] = print) -> None:
    """A short tour of eager execution and gradients, on the seed documents' examples.

    Args:
        out: where each line goes (``print`` by default).
    """
    out("twinflow: TensorFlow 2's API on NumPy. Ops run at once and return values.")
    _section(out, "eager ops")
    out(f">>> tf.executing_eagerly()\n{tw.executing_eagerly()}")
    m = tw.matmul([[2.0]], [[2.0]])
    out(f'>>> "hello, {{}}".format(tf.matmul([[2.]], [[2.]]))\nhello, {m}')
    a = tw.constant([[1, 2], [3, 4]])
    b = tw.add(a, 1)
    out(f">>> a = tf.constant([[1, 2], [3, 4]]); print(a * tf.add(a, 1))\n{a * b!s}")
    out(f">>> np.multiply(a, b)\n{np.multiply(a, b)}")
    _section(out, "gradients (GradientTape)")
    x = tw.Variable(2.0)
    with tw.GradientTape() as tape:
        y = x * x * x
    out(f">>> x = tf.Variable(2.0); y = x * x * x; tape.gradient(y, x)\n"
        f"{tape.gradient(y, x)!s}")
    with tw.GradientTape() as outer:
        with tw.GradientTape() as inner:
            y = x * x * x
        dy = inner.gradient(y, x)
    out(f">>> second derivative of x**3 at 2\n{outer.gradient(dy, x)!s}")
    _section(out, "custom gradients (tf.custom_gradient)")

    @tw.custom_gradient
    def log1pexp(x):
        e = tw.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tw.math.log(1 + e), grad

    with np.errstate(over="ignore"):
        for v in (0.0, 100.0):
            t = tw.constant(v)
            with tw.GradientTape() as tape:
                tape.watch(t)
                y = log1pexp(t)
            out(f">>> d/dx log(1 + exp(x)) at x = {v:g}: {tape.gradient(y, t).numpy()}")
    _section(out, "jacobians")
    x = tw.constant([1.0, 2.0, 3.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    out(f">>> tape.jacobian(x * x, x) at x = [1, 2, 3]\n{tape.jacobian(y, x)!s}")
    _section(out, "debugging")
    out('>>> tf.print("x:", tf.constant([[1, 2], [3, 4]]), output_stream=sys.stdout)')
    tw.print("x:", tw.constant([[1, 2], [3, 4]]), output_stream=sys.stdout)
    try:
        tw.debugging.assert_less(tw.constant([1, 5]), tw.constant([2, 3]))
    except tw.errors.InvalidArgumentError as e:
        out(">>> tf.debugging.assert_less([1, 5], [2, 3])\nInvalidArgumentError: "
            + str(e).splitlines()[0])
    out(f">>> tf.config.list_physical_devices()\n{tw.config.list_physical_devices()}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``twinflow`` console command.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status.
    """
    parser = argparse.ArgumentParser(prog="twinflow", description="twinflow command line")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", add_help=False,
                   help="train a convnet on the digits eagerly and as a graph (--tour: a tour "
                        "of eager execution and gradients; --help: options)")
    sub.add_parser("bench", help="benchmarks against raw NumPy (twinflow bench --help)",
                   add_help=False)
    sub.add_parser("version", help="print the version")
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":
        return bench.main(argv[1:])
    if argv and argv[0] == "demo":
        if "--tour" in argv[1:]:
            eager_tour()
            return 0
        return training_demo.main(argv[1:])
    args = parser.parse_args(argv)
    if args.command == "version":
        print(f"twinflow {tw.__version__}")
        return 0
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
