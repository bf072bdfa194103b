"""tw.saved_model: round trips through a fresh process without the models' source, SavedModels
written by TensorFlow 2.21 (tests/fixtures/saved_model), corrupt files, options."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import twinflow as tw

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "..", "src"))
FIXTURES = os.path.join(HERE, "..", "fixtures", "saved_model")

# Run in a fresh process, from a folder where the models' source is not importable.
LOADER = r"""
import json, sys
import numpy as np
import twinflow as tw
out, results = sys.argv[1], {}
try:
    import sm_models  # noqa: F401
    results["source_importable"] = True
except ImportError:
    results["source_importable"] = False
e = np.load(out + "/expected.npz")
X = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
m = tw.saved_model.load(out + "/module")
sig = m.signatures["serving_default"]
r = sig(x=tw.constant(X))
results["module_sig"] = [sorted(r), float(np.abs(r["y"].numpy() - e["module_y"]).max()),
                         float(abs(r["z"].numpy() - e["module_z"]))]
results["module_call"] = float(np.abs(m(X)["y"].numpy() - e["module_y"]).max())
results["scaled"] = m.scaled(tw.constant(X), tw.constant(2.0)).numpy().tolist()
results["n_vars"] = [len(m.variables), len(m.trainable_variables), len(m.inner.variables)]
results["steps_trainable"] = bool(m.inner.steps.trainable)
with tw.GradientTape() as tape:
    loss = tw.reduce_sum(m(X)["y"])
grads = tape.gradient(loss, [m.inner.w, m.inner.b])
results["grad_w"] = grads[0].numpy().tolist()
opt = tw.keras.optimizers.SGD(0.1)
before = float(tw.reduce_sum(m(X)["y"]))
for _ in range(3):
    with tw.GradientTape() as tape:
        loss = tw.reduce_sum(tw.square(m(X)["y"]))
    gs = tape.gradient(loss, m.trainable_variables)
    opt.apply_gradients([(g, v) for g, v in zip(gs, m.trainable_variables) if g is not None])
results["trained"] = [before, float(tw.reduce_sum(m(X)["y"]))]
ct = tw.saved_model.load(out + "/counter")
results["counter"] = [float(ct.step(tw.constant(1.5))), float(ct.step(tw.constant(1.5))),
                      int(ct.count.numpy())]
lp = tw.saved_model.load(out + "/loop")
results["loop"] = float(np.abs(np.array([lp(tw.constant(1.5), tw.constant(n)).numpy()
                                          for n in (0, 2, 3)]) - e["loop"]).max())
with tw.GradientTape() as tape:
    y = lp(tw.constant(1.5), tw.constant(3))
results["loop_grad"] = float(tape.gradient(y, lp.w))
c = tw.saved_model.load(out + "/custom")
x = tw.constant([0.1, 2.0, -3.0])
with tw.GradientTape() as tape:
    tape.watch(x)
    y = c(x)
results["custom"] = tape.gradient(y, x).numpy().tolist()
for name in ("sequential", "functional", "subclassed", "sequential_saved"):
    k = tw.saved_model.load(out + "/" + name)
    sig = k.signatures["serving_default"]
    key = list(sig.structured_input_signature[1])[0]
    ref = e[name.replace("_saved", "")]
    results[name] = [float(np.abs(sig(**{key: tw.constant(X)})["output_0"].numpy() - ref).max()),
                     float(np.abs(k.serve(X).numpy() - ref).max())]
print(json.dumps(results))
"""


def _run(args: list, cwd: str) -> str:
    env = dict(os.environ, PYTHONPATH=SRC, PYTHONWARNINGS="ignore")
    p = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """Models saved by one process, loaded by another that cannot import their source."""
    src = tmp_path_factory.mktemp("source")
    out = tmp_path_factory.mktemp("saved")
    shutil.copy(os.path.join(HERE, "sm_models.py"), src / "sm_models.py")
    _run([str(src / "sm_models.py"), str(out)], str(src))
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "load.py").write_text(LOADER)
    results = json.loads(_run([str(elsewhere / "load.py"), str(out)], str(elsewhere))
                         .strip().splitlines()[-1])
    return out, results


def test_module_round_trips_in_a_fresh_process_without_its_source(fresh):
    _, r = fresh
    assert r["source_importable"] is False
    assert r["module_sig"][0] == ["y", "z"]
    assert r["module_sig"][1] < 1e-6 and r["module_sig"][2] < 1e-4
    assert r["module_call"] < 1e-6
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    np.testing.assert_allclose(r["scaled"], x * 2.0, rtol=1e-6)
    assert r["n_vars"] == [9, 6, 3] and r["steps_trainable"] is False


def test_restored_variables_get_gradients_and_train(fresh):
    _, r = fresh
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    w = np.arange(6, dtype=np.float32).reshape(3, 2) / 5
    active = (x @ w + np.array([0.5, -0.5], np.float32)) > 0
    np.testing.assert_allclose(r["grad_w"], x.T @ active.astype(np.float32), rtol=1e-5)
    before, after = r["trained"]
    assert after < before


def test_assignments_in_a_restored_function_run_in_order(fresh):
    _, r = fresh
    assert r["counter"] == [3.0, 6.0, 2]


def test_while_loop_and_cond_round_trip_with_gradients(fresh):
    _, r = fresh
    assert r["loop"] < 1e-6
    assert r["loop_grad"] == pytest.approx(3 * 1.5 * 4.0)   # d(x w^3)/dw at w=2


def test_custom_gradient_survives_the_round_trip(fresh):
    _, r = fresh
    np.testing.assert_allclose(r["custom"], [0.2, 1.0, -1.0], rtol=1e-6)  # clipped 2x


@pytest.mark.parametrize("name", ["sequential", "functional", "subclassed",
                                  "sequential_saved"])
def test_keras_models_export_and_reload(fresh, name):
    _, r = fresh
    assert max(r[name]) < 1e-5


def test_saved_directory_layout_and_fingerprint(fresh):
    out, _ = fresh
    d = out / "module"
    assert sorted(os.listdir(d)) == ["assets", "fingerprint.pb", "saved_model.pb", "variables"]
    assert sorted(os.listdir(d / "variables")) == ["variables.data-00000-of-00001",
                                                   "variables.index"]
    assert tw.saved_model.contains_saved_model(str(d))
    assert not tw.saved_model.contains_saved_model(str(out))
    fp = tw.saved_model.experimental.read_fingerprint(str(d))
    assert fp.saved_model_checksum and fp.version == 1
    names = [n for n, _ in tw.train.list_variables(str(d / "variables" / "variables"))]
    assert "inner/w/.ATTRIBUTES/VARIABLE_VALUE" in names


# ----- SavedModels written by TensorFlow 2.21 -----

def test_loads_a_module_tensorflow_wrote():
    e = np.load(os.path.join(FIXTURES, "expected.npz"))
    m = tw.saved_model.load(os.path.join(FIXTURES, "tf_module"))
    out = m(e["x"])
    np.testing.assert_allclose(out["y"].numpy(), e["y"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["total"].numpy(), e["total"], rtol=1e-5)
    sig = m.signatures["serving_default"](x=tw.constant(e["x"]))
    np.testing.assert_allclose(sig["y"].numpy(), e["y"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.w.numpy(), e["w"])
    assert m.double(tw.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert m.double(tw.constant([[1, 2]])).numpy().tolist() == [[2, 4]]
    assert [int(m.bump()), int(m.bump())] == [10, 20] and int(m.count.numpy()) == 2
    with tw.GradientTape() as tape:
        loss = tw.reduce_sum(m(e["x"])["y"])
    grads = tape.gradient(loss, [m.w, m.b, m.scale])
    for g, ref in zip(grads, ("dw", "db", "dscale")):
        np.testing.assert_allclose(g.numpy(), e[ref], rtol=1e-5, atol=1e-6)


def test_loads_a_keras_export_tensorflow_wrote():
    e = np.load(os.path.join(FIXTURES, "expected.npz"))
    k = tw.saved_model.load(os.path.join(FIXTURES, "tf_keras"))
    np.testing.assert_allclose(k.serve(e["x"]).numpy(), e["keras"], rtol=1e-5, atol=1e-6)


def test_a_missing_op_is_named():
    with pytest.raises(tw.errors.NotFoundError, match="'LRN'"):
        tw.saved_model.load(os.path.join(FIXTURES, "tf_unknown_op"))


# ----- errors, atomicity, options -----

class _Small(tw.Module):
    def __init__(self):
        super().__init__()
        self.v = tw.Variable([1.0, 2.0])

    @tw.function(input_signature=[tw.TensorSpec([2], tw.float32)])
    def __call__(self, x):
        return x * self.v


def _saved(tmp_path):
    d = str(tmp_path / "small")
    tw.saved_model.save(_Small(), d)
    return d


def test_corrupt_or_truncated_files_raise_data_loss(tmp_path):
    d = _saved(tmp_path)
    pb = os.path.join(d, "saved_model.pb")
    data = open(pb, "rb").read()
    with open(pb, "wb") as f:
        f.write(data[: len(data) // 2])
    with pytest.raises(tw.errors.DataLossError, match="saved_model.pb"):
        tw.saved_model.load(d)
    with open(pb, "wb") as f:
        f.write(data)
    index = os.path.join(d, "variables", "variables.index")
    raw = open(index, "rb").read()
    with open(index, "wb") as f:
        f.write(raw[:-10])
    with pytest.raises(tw.errors.DataLossError):
        tw.saved_model.load(d)
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        tw.saved_model.load(str(tmp_path / "nothing"))


def test_a_failed_save_leaves_the_directory_unchanged(tmp_path):
    d = _saved(tmp_path)
    before = {n: open(os.path.join(d, n), "rb").read() for n in ("saved_model.pb",)}
    m = _Small()
    stray = tw.Variable(3.0)

    @tw.function(input_signature=[tw.TensorSpec([], tw.float32)])
    def f(x):
        return x * stray

    m.f = f
    with pytest.raises(ValueError, match="not tracked"):
        tw.saved_model.save(m, d)
    assert open(os.path.join(d, "saved_model.pb"), "rb").read() == before["saved_model.pb"]
    assert tw.saved_model.load(d)(tw.constant([1.0, 1.0])).numpy().tolist() == [1.0, 2.0]


def test_signatures_argument_and_assets(tmp_path):
    m = _Small()
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\n")
    m.vocab = tw.saved_model.Asset(str(path))

    @tw.function(input_signature=[tw.TensorSpec([None], tw.float32, name="values")])
    def total(values):
        return {"sum": tw.reduce_sum(values)}

    d = str(tmp_path / "sig")
    tw.saved_model.save(m, d, signatures={"serving_default": m.__call__, "total": total})
    r = tw.saved_model.load(d)
    assert sorted(r.signatures) == ["serving_default", "total"]
    assert r.signatures["total"](values=tw.constant([1.0, 2.0]))["sum"].numpy() == 3.0
    out = r.signatures["serving_default"](x=tw.constant([2.0, 2.0]))
    assert out["output_0"].numpy().tolist() == [2.0, 4.0]
    copied = r.vocab.asset_path.numpy().decode()
    assert copied.startswith(d) and open(copied).read() == "a\nb\n"


def test_options_and_constants():
    assert tw.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert tw.saved_model.SERVING == "serve"
    with pytest.raises(ValueError, match="not supported"):
        tw.saved_model.SaveOptions(experimental_io_device="/job:x")
    with pytest.raises(ValueError, match="Trackable"):
        tw.saved_model.save(object(), "/tmp/never")


def test_load_skipping_the_checkpoint_and_unknown_tags(tmp_path):
    d = _saved(tmp_path)
    r = tw.saved_model.load(d, options=tw.saved_model.LoadOptions(
        experimental_skip_checkpoint=True))
    assert r.v.numpy().tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="could not be found"):
        tw.saved_model.load(d, tags=["train"])


def test_twinflow_inspect_prints_the_signatures(fresh, capsys):
    from twinflow.cli import main
    out, _ = fresh
    assert main(["inspect", str(out / "module")]) == 0
    text = capsys.readouterr().out
    assert "signature_def['serving_default']:" in text
    assert "inputs['x'] tensor_info:" in text and "shape: (-1, 3)" in text
    assert "outputs['y'] tensor_info:" in text
    assert "Function Name: 'scaled'" in text
    assert main(["inspect", str(out)]) == 1   # a folder that is no SavedModel


def test_python_arguments_and_defaults_select_the_traced_function(tmp_path):
    class M(tw.Module):
        def __init__(self):
            super().__init__()
            self.v = tw.Variable(2.0)

        @tw.function
        def f(self, x, mode, scale=3):
            return x * self.v * scale if mode == "mul" else x + self.v

    m = M()
    m.f(tw.constant(1.0), "mul")
    m.f(tw.constant(1.0), "add", scale=1)
    d = str(tmp_path / "py")
    tw.saved_model.save(m, d)
    r = tw.saved_model.load(d)
    assert float(r.f(tw.constant(1.0), "mul")) == 6.0
    assert float(r.f(tw.constant(1.0), "add", scale=1)) == 3.0
    with pytest.raises(ValueError, match="match none"):
        r.f(tw.constant(1.0), "add")


def test_conv_and_pool_window_attrs_are_tensorflows_in_the_saved_functions(tmp_path):
    class Conv(tw.Module):
        def __init__(self):
            super().__init__()
            self.w = tw.Variable(np.ones((3, 3, 2, 4), np.float32) / 10)

        @tw.function(input_signature=[tw.TensorSpec([None, 8, 8, 2], tw.float32)])
        def __call__(self, x):
            y = tw.nn.conv2d(x, self.w, strides=2, padding="SAME")
            return tw.nn.max_pool2d(y, 2, 2, "VALID")

    m = Conv()
    d = str(tmp_path / "conv")
    tw.saved_model.save(m, d)
    from twinflow.saved_model.load import read_saved_model
    lib = read_saved_model(d).meta_graphs[0].graph_def.library
    nodes = {n.op: n for f in lib.function for n in f.node_def}
    assert list(nodes["Conv2D"].attr["strides"].list.i) == [1, 2, 2, 1]
    assert list(nodes["MaxPool"].attr["ksize"].list.i) == [1, 2, 2, 1]
    x = np.random.default_rng(2).normal(size=(2, 8, 8, 2)).astype(np.float32)
    np.testing.assert_allclose(tw.saved_model.load(d)(x).numpy(), m(x).numpy(), rtol=1e-6)


def test_a_text_format_saved_model_loads(tmp_path):
    from google.protobuf import text_format

    from twinflow.saved_model.load import read_saved_model
    d = _saved(tmp_path)
    sm = read_saved_model(d)
    os.remove(os.path.join(d, "saved_model.pb"))
    with open(os.path.join(d, "saved_model.pbtxt"), "w") as f:
        f.write(text_format.MessageToString(sm))
    assert tw.saved_model.load(d)(tw.constant([1.0, 1.0])).numpy().tolist() == [1.0, 2.0]


def test_a_multi_input_keras_model_exports_named_signature_inputs(tmp_path):
    k = tw.keras
    a, b = k.Input((3,), name="a"), k.Input((2,), name="b")
    model = k.Model([a, b], k.layers.Dense(1)(k.layers.Concatenate()([a, b])))
    xa = np.ones((4, 3), np.float32)
    xb = np.full((4, 2), 2.0, np.float32)
    d = str(tmp_path / "multi")
    model.export(d)
    r = tw.saved_model.load(d)
    sig = r.signatures["serving_default"]
    assert sorted(sig.structured_input_signature[1]) == ["a", "b"]
    np.testing.assert_allclose(sig(a=tw.constant(xa), b=tw.constant(xb))["output_0"].numpy(),
                               model([xa, xb]).numpy(), rtol=1e-6)
