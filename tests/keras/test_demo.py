"""The training demo behind ``twinflow demo`` (short run; the full run is 10 epochs)."""
from __future__ import annotations

import glob
import os

from twinflow.keras.demo import run_demo


def test_demo_eager_and_graph_agree_and_write_outputs(tmp_path):
    lines: list = []
    result = run_demo(str(tmp_path), epochs=2, verbose=2, print_fn=lines.append)
    assert result["max_loss_diff"] <= 1e-5
    assert result["test_accuracy"] > 0.8
    assert result["speedup"] > 0
    assert glob.glob(os.path.join(str(tmp_path), "logs", "graph", "train", "events.*"))
    assert os.path.exists(result["checkpoint"] + ".index.json")
    text = "\n".join(lines)
    assert "speedup" in text and "test accuracy" in text
