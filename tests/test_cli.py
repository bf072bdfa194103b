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
    assert ">>> grad_log1pexp(tf.constant(100.)).numpy()\n1.0" in text
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


# ----- twinflow inspect -----

EXAMPLE = '''\
import twinflow as tf


@tf.function
def step(x, n):
    y = x * 2.0 + 0.0
    if tf.reduce_sum(x) > 0:
        y = y + 1.0
    return tf.matmul(y, tf.transpose(y)) * n


def plain(a):
    return a * 3


@tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
def signed(v):
    return v + 1
'''


def _example(tmp_path):
    path = tmp_path / "inspect_example.py"
    path.write_text(EXAMPLE)
    return str(path)


def test_parse_arg():
    spec = cli.parse_arg("float32[2,3]")
    assert spec.dtype is tw.float32 and spec.shape.as_list() == [2, 3]
    assert cli.parse_arg("int32[]").shape.as_list() == []
    assert cli.parse_arg("float32[?, 3]").shape.as_list() == [None, 3]
    assert cli.parse_arg("bool").shape.rank is None
    assert cli.parse_arg("3") == 3 and cli.parse_arg("'relu'") == "relu"
    assert cli.parse_arg("True") is True and cli.parse_arg("[1, 2]") == [1, 2]
    for bad in ("flot32[2]", "float32[x]", "not a literal"):
        try:
            cli.parse_arg(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


def test_inspect_file_function(tmp_path, capsys):
    path = _example(tmp_path)
    assert cli.main(["inspect", f"{path}:step", "--arg", "float32[2,3]", "--arg", "2.0"]) == 0
    out = capsys.readouterr().out
    sections = ["concrete function", "AutoGraph: converted code", "traced graph",
                "compiler passes", "optimized graph", "generated Python"]
    positions = [out.index(s) for s in sections]
    assert positions == sorted(positions)
    assert "ag__.if_stmt" in out                      # AutoGraph converted the if
    assert "inspect_example.py:6  y = x * 2.0 + 0.0" in out   # ops under their source line
    assert "Mul = Mul(x, Const)" in out and "float32[2,3]" in out
    assert "then_branch (cond_true_1):" in out        # sub-graphs are listed too
    # the If op sits under the `if` line, not under the last line of its branch
    headers = [h for h in out.split("    cond = StatelessIf")[0].splitlines()
               if h.startswith("  inspect_example.py:")]
    assert headers[-1].startswith("  inspect_example.py:7  if tf.reduce_sum(x) > 0:")
    assert "arithmetic        1 change\n" in out      # x + 0.0 removed
    traced, optimized = out.split("== optimized graph")
    assert "AddV2 = AddV2(Mul, Const_1)" in traced and "AddV2(Mul" not in optimized
    source = out.split("generated Python")[1]
    assert "# Mul (Mul) inspect_example.py:6 in step: y = x * 2.0 + 0.0" in source


def test_inspect_plain_function_and_sections(tmp_path, capsys):
    path = _example(tmp_path)
    assert cli.main(["inspect", f"{path}:plain", "--args", "int32[?]",
                     "--show", "passes,source"]) == 0
    out = capsys.readouterr().out
    assert "traced graph" not in out and "AutoGraph" not in out
    assert "compiler passes: 3 -> 3 ops" in out
    assert "def plain(a0):" in out and "return a * 3" in out
    # No --arg: a tw.function with an input_signature is traced for it.
    assert cli.main(["inspect", f"{path}:signed", "--show", "signature"]) == 0
    assert "TensorSpec(shape=(None,), dtype=tw.int32" in capsys.readouterr().out


def test_inspect_api_and_module_target(capsys):
    lines = []
    cf = cli.inspect_function(lambda x: tw.nn.relu(x) * 2.0, [tw.TensorSpec([4])],
                              out=lines.append, sections=["graph"])
    assert cf.structured_outputs.shape.as_list() == [4]
    assert any("Relu = Relu(x)" in line for line in lines)
    fn = cli.load_target("twinflow.nn:relu")
    assert fn is tw.nn.relu


def test_inspect_errors(tmp_path, capsys):
    path = _example(tmp_path)
    assert cli.main(["inspect", path]) == 1
    assert "functions it defines: step, signed, plain" in capsys.readouterr().err
    assert cli.main(["inspect", f"{path}:step"]) == 1
    assert "give one --arg per parameter" in capsys.readouterr().err
    assert cli.main(["inspect", f"{path}:nope", "--arg", "1"]) == 1
    assert "has no 'nope'" in capsys.readouterr().err
    try:
        cli.main(["inspect", f"{path}:plain", "--arg", "float32[2", "--show", "graph"])
    except SystemExit as e:
        assert e.code == 2
    assert "neither a tensor spec" in capsys.readouterr().err
