"""Issue 17's audit table (tools/issue17_audit.py): every example call of the issue behaves as
TensorFlow 2.21 does (or, where the issue asks for more, as it asks), eagerly and inside
``tw.function``."""
from __future__ import annotations

import importlib.util
import os

import pytest

import twinflow as tw

_PATH = os.path.join(os.path.dirname(__file__), os.pardir, "tools", "issue17_audit.py")
_SPEC = importlib.util.spec_from_file_location("issue17_audit", _PATH)
audit = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(audit)

CASES = [(row, mode) for row in audit.ROWS + audit.TW_ROWS for mode in row[1]]


@pytest.mark.parametrize("row,mode", CASES, ids=[f"{m}-{r[0]}" for r, m in CASES])
def test_issue17_call_behaves_as_tensorflow(row, mode):
    outcome, detail = audit.run_row(tw, row, mode)
    assert outcome == "ok", detail


def test_every_row_runs_in_both_modes_where_it_is_an_op():
    assert len(CASES) >= 90
    assert sum(mode == "G" for _, mode in CASES) >= 35
