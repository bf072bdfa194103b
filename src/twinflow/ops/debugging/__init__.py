"""Debugging ops: ``tw.print``, ``tw.debugging.assert_*``, ``check_numerics``.

Printing and assertions are stateful ops, so in a graph they run each time the graph runs (and
passes never fold or prune them). Eagerly, assertions are checked with NumPy directly and raise
at once; while a graph is built, an assertion whose inputs are all known constants is checked at
build time too, as TensorFlow does.
"""
