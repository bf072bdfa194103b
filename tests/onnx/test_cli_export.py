"""``twinflow export``: a SavedModel signature or FILE.py:NAME to an ONNX file."""
from __future__ import annotations

import pathlib
import textwrap

import numpy as np

import twinflow as tf
from twinflow import cli

from .helpers import onnx, run, session

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "onnx"


def test_export_a_function_of_a_file(tmp_path, capsys):
    src = tmp_path / "model.py"
    src.write_text(textwrap.dedent("""
        import numpy as np
        import twinflow as tf
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))

        @tf.function
        def net(x):
            return tf.nn.relu(x @ w - 4.0)
    """))
    out = tmp_path / "net.onnx"
    assert cli.main(["export", f"{src}:net", str(out), "--arg", "float32[?,3]",
                     "--opset", "18"]) == 0
    assert "wrote" in capsys.readouterr().out
    proto = onnx.load(str(out))
    assert proto.opset_import[0].version == 18
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(run(session(proto), x)[0], np.maximum(x @ w - 4, 0))


def test_export_errors_are_reported(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text("import twinflow as tf\nf = tf.function(lambda x: tf.linalg.det(x))\n")
    out = tmp_path / "m.onnx"
    assert cli.main(["export", f"{src}:f", str(out)]) == 1
    assert "--arg" in capsys.readouterr().err
    assert cli.main(["export", f"{src}:f", str(out), "--arg", "float32[3,3]"]) == 1
    assert "MatrixDeterminant" in capsys.readouterr().err
    assert not out.exists()


def test_export_a_saved_model_signature(tmp_path, capsys):
    tf.keras.utils.set_random_seed(3)
    module = tf.Module()
    module.dense = tf.keras.layers.Dense(3)
    module.dense.build((None, 4))
    module.serve = tf.function(lambda x: {"y": module.dense(x)},
                               input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    saved = tmp_path / "saved"
    tf.saved_model.save(module, str(saved), signatures={"serving_default": module.serve})
    out = tmp_path / "s.onnx"
    assert cli.main(["export", str(saved), str(out)]) == 0, capsys.readouterr().err
    x = np.ones((5, 4), np.float32)
    got = run(session(onnx.load(str(out))), x)[0]
    np.testing.assert_allclose(got, module.dense(x).numpy(), rtol=1e-5)
    assert cli.main(["export", str(saved), str(out), "--signature", "nope"]) == 1
    assert "serving_default" in capsys.readouterr().err


def test_export_a_saved_model_written_by_tensorflow(tmp_path, capsys):
    """tests/fixtures/onnx/make_fixtures.py wrote the SavedModel and TensorFlow's outputs."""
    out = tmp_path / "tf.onnx"
    assert cli.main(["export", str(FIXTURES / "tf_saved_model"), str(out), "--opset",
                     "13"]) == 0, capsys.readouterr().err
    io = np.load(FIXTURES / "tf_saved_model_io.npz")
    sess = session(onnx.load(str(out)))
    assert [i.name for i in sess.get_inputs()] == ["image"]
    assert [o.name for o in sess.get_outputs()] == ["probs"]
    np.testing.assert_allclose(run(sess, io["image"])[0], io["probs"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(run(sess, io["image"][:2])[0], io["probs"][:2], rtol=1e-5,
                               atol=1e-6)
