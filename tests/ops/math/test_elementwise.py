"""The elementwise tables bind each row's OpDef and public function under the row's names.

``unary.py``, ``binary.py`` and ``comparison.py`` unpack what ``declare`` and
``public_functions`` return into module names in table order; a row moved without its name
would silently bind ``exp`` to ``Log``. This test catches that.
"""
from __future__ import annotations

import pytest

from twinflow.graph.registry import REGISTRY
from twinflow.ops.math import binary, comparison, elementwise, unary
from twinflow.ops.math import complex as complex_parts

TABLES = [(unary, unary.UNARY), (binary, binary.BINARY), (comparison, comparison.COMPARISON),
          (complex_parts, complex_parts.COMPLEX_PARTS)]


@pytest.mark.parametrize("module,table", TABLES, ids=lambda v: getattr(v, "__name__", ""))
def test_rows_are_bound_to_their_names(module, table):
    for row in table:
        opdef = getattr(module, row.op)
        assert opdef is REGISTRY[row.op] and opdef.name == row.op and opdef.doc == row.doc
        assert opdef.grad is row.grad
        if row.fn is not None:
            fn = getattr(module, row.fn)
            assert fn.__name__ == row.fn and fn.__module__ == module.__name__
            assert opdef in [c.cell_contents for c in fn.__closure__]  # the op it binds


def test_binary_rows_keep_the_scalar_lowering_and_dtype_rule():
    for row in binary.BINARY + comparison.COMPARISON:
        opdef = getattr(binary, row.op, None) or getattr(comparison, row.op)
        if isinstance(row, elementwise.Binary):
            assert opdef.same_dtype == row.same_dtype
            assert hasattr(opdef, "lower") == (row.infix is not None)
        else:
            assert not opdef.same_dtype


def test_generated_docstrings_have_args_and_returns():
    doc = unary.exp.__doc__
    assert doc.startswith("e ** x elementwise (``tw.exp``).")
    assert "Args:\n        x: a floating-point or complex tensor.\n" in doc
    assert "Returns:\n        The exponential." in doc
    assert "y: a tensor or value of the same dtype." in binary.pow.__doc__
