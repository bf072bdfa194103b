"""Runs every Case of every ``cases_*.py`` module and checks that every op has one."""
from __future__ import annotations

import importlib
import pathlib

import pytest

from twinflow.graph.registry import REGISTRY

from .harness import op_types_used, run_case

_HERE = pathlib.Path(__file__).parent
_MODULES = sorted(p.stem for p in _HERE.glob("cases_*.py"))
CASES = []
for _m in _MODULES:
    CASES.extend(importlib.import_module(f"{__package__}.{_m}").CASES)

# Ops checked elsewhere: graph plumbing, state, randomness and control flow have their own tests
# (they name the test that covers them).
COVERED_ELSEWHERE = {
    "Placeholder": "used by every case",
    "_Send": "tests/compiler/test_partition.py::test_partitions_are_joined_by_send_and_recv",
    "_Recv": "tests/compiler/test_partition.py::test_partitions_are_joined_by_send_and_recv",
    "Const": "used by every case",
    "NoOp": "tests/compat/test_session.py::test_initializer_resets_variables",
    "WriteSummary": "tests/summary/test_summary.py::test_summary_inside_function_writes_each_call",
    "MakeIterator": "tests/data/test_dataset.py::test_loop_over_dataset_inside_function_makes_"
                    "a_new_pass_per_call",
    "IteratorGetNext": "tests/data/test_dataset.py (same test)",
    "IteratorGetNextOrEnd": "tests/data/test_dataset.py::test_unknown_cardinality_loop_in_"
                            "function_runs_a_while_until_the_end",
}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op(case):
    run_case(case)


def test_every_op_has_a_case():
    used = set()
    for c in CASES:
        used |= op_types_used(c)
    extra = set()
    for _m in _MODULES:
        extra |= set(getattr(importlib.import_module(f"{__package__}.{_m}"),
                             "COVERED_ELSEWHERE", {}))
    missing = sorted(set(REGISTRY) - used - set(COVERED_ELSEWHERE) - extra)
    assert not missing, f"ops without a registry case: {missing}"
