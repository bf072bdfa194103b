"""Registry cases owned by graph mode (tw.function)."""
from __future__ import annotations

CASES: list = []

COVERED_ELSEWHERE = {
    # One op per tw.function call made under a GradientTape; eager only (traced calls inline).
    "StatefulPartitionedCall": "tests/function/test_gradients.py",
}
