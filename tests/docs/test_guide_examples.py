"""The examples of every docs/*.md page and README.md run: every ```python block (```python no-run
blocks excepted) runs on its own as ``example.py`` in an empty directory, and a plain ```text
block right after it is its exact standard output (with that directory's path removed)."""
from __future__ import annotations

import os
import re
import runpy
from pathlib import Path

import pytest

import twinflow as tw
from twinflow.core.devices import runtime

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide.md"
README = ROOT / "README.md"
_FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)


def guide_examples(path: Path = GUIDE) -> list:
    """(line number, code, expected output or None) for each runnable block of ``path``."""
    text = path.read_text(encoding="utf-8")
    fences = [(m.group(1).split(), m.group(2), m.start(), m.end())
              for m in _FENCE.finditer(text)]
    examples = []
    for i, (info, body, start, end) in enumerate(fences):
        if info[:1] != ["python"] or "no-run" in info[1:]:
            continue
        expected = None
        if i + 1 < len(fences):
            info2, body2, start2, _ = fences[i + 1]
            if info2 == ["text"] and not text[end:start2].strip():
                expected = body2
        examples.append((text.count("\n", 0, start) + 1, body, expected))
    return examples


# Every page of docs/ and the README: a new page is checked without editing this file.
PAGES = [README] + sorted((ROOT / "docs").glob("*.md"))
EXAMPLES = [(f"{page.name}:{n}", c, e) for page in PAGES for n, c, e in guide_examples(page)]


def test_guide_has_examples():
    assert len(guide_examples(GUIDE)) >= 15
    assert sum(e is not None for _, _, e in guide_examples(GUIDE)) >= 10
    assert len(guide_examples(README)) >= 2


@pytest.fixture
def restore_switches():
    runtime.reset(None, start=False)  # as in a new process: logical devices configurable
    yield
    tw.config.run_functions_eagerly(False)
    runtime.reset(None)


@pytest.mark.parametrize("where, code, expected", EXAMPLES, ids=[w for w, _, _ in EXAMPLES])
def test_guide_example(where, code, expected, tmp_path, monkeypatch, capsys, restore_switches):
    path = tmp_path / "example.py"
    path.write_text(code, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out.replace(str(tmp_path) + os.sep, "")
    if expected is not None:
        assert out == expected, f"{where}: the example's output differs from the document"
