"""No source file under src/ grows past 800 lines (docs/architecture.md: files one can hold in
one's head; the op families under ``ops/`` aim for about 600)."""
from __future__ import annotations

import pathlib

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"
MAX_LINES = 800



def test_no_source_file_is_over_800_lines():
    too_long = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        with path.open(encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > MAX_LINES:
            too_long.append(f"{rel}: {n} lines")
    assert not too_long, "split these files by family:\n" + "\n".join(too_long)


def test_the_check_sees_the_sources():
    assert len(list(SRC.rglob("*.py"))) > 100
