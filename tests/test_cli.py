"""The twinflow command: version, demo --tour, bench dispatch."""
from __future__ import annotations

import twinflow as tw
from twinflow import cli


def test_version(capsys):
    assert cli.main(["version"]) == 0
    assert capsys.readouterr().out == f"twinflow {tw.__version__}\n"


def test_eager_tour(capsys):
    lines = []
    cli.eager_tour(lines.append)
    text = "\n".join(lines) + capsys.readouterr().out
    assert "hello, [[4.]]" in text
    assert "tw.Tensor(12.0, shape=(), dtype=float32)" in text
    assert "at x = 100: 1.0" in text
    assert "x: [[1 2]\n [3 4]]" in text
    assert "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')" in text


def test_demo_tour_flag(capsys):
    assert cli.main(["demo", "--tour"]) == 0
    assert "GradientTape" in capsys.readouterr().out


def test_no_command_prints_help(capsys):
    assert cli.main([]) == 0
    assert "demo" in capsys.readouterr().out


def test_bench_dispatch(capsys):
    assert cli.main(["bench", "--quick", "--repeat", "1", "--min-time", "0",
                     "--only", "add2", "--no-others"]) == 0
    out = capsys.readouterr().out
    assert "add2 [eager]" in out
