"""Control-flow ops hold sub-graphs and variant values: tests/control checks them (values,
eager vs graph, finite-difference gradients in both modes, higher order)."""
from __future__ import annotations

CASES: list = []

COVERED_ELSEWHERE = {
    name: "tests/control"
    for name in ("If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile",
                 "WhileHistoryRead", "WhileHistoryOneHot", "WhileHistoryLength",
                 "VariantZerosLike", "TensorListReserve", "TensorListFromTensor",
                 "TensorListStack", "TensorListGetItem", "TensorListSetItem",
                 "TensorListClearItem", "TensorListOneHot", "TensorListLength",
                 "TensorListConcat", "TensorListSplitLike")
}
