"""keras.export.ExportArchive over twinflow's SavedModel writer."""
import numpy as np
import pytest

import twinflow as tw

keras = tw.keras


def _trained():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("adam", "mse")
    model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
    return model


def test_export_archive_endpoints_and_collections(tmp_path, capsys):
    model = _trained()
    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serve", model.call, [tw.TensorSpec([None, 3], tw.float32, "x")])

    @tw.function
    def double(x):
        return model(x) * 2.0
    double(tw.ones([1, 3]))
    archive.add_endpoint("double", double)
    archive.add_variable_collection("optimizer_variables", model.optimizer.variables)
    path = str(tmp_path / "exported")
    archive.write_out(path)
    assert "Endpoint 'serve'" in capsys.readouterr().out
    loaded = tw.saved_model.load(path)
    x = np.ones((2, 3), np.float32)
    want = model.predict(x, verbose=0)
    np.testing.assert_allclose(loaded.serve(tw.constant(x)).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(loaded.double(tw.ones([1, 3])).numpy(), 2 * want[:1], rtol=1e-6)
    assert len(loaded.optimizer_variables) == len(model.optimizer.variables)
    assert sorted(loaded.signatures) == ["double", "serve", "serving_default"]
    out = loaded.signatures["serving_default"](x=tw.constant(x))
    np.testing.assert_allclose(list(out.values())[0].numpy(), want, rtol=1e-6)
    assert len(archive.variables) == 2 and len(archive.trainable_variables) == 2


def test_track_and_add_endpoint_with_keras_tensors(tmp_path):
    model = _trained()
    archive = keras.export.ExportArchive()
    archive.track_and_add_endpoint("call", model, [keras.Input((3,))])
    archive.write_out(str(tmp_path / "e"), verbose=False)
    loaded = tw.saved_model.load(str(tmp_path / "e"))
    np.testing.assert_allclose(loaded.call(tw.ones([1, 3])).numpy(),
                               model.predict(np.ones((1, 3)), verbose=0), rtol=1e-6)


def test_export_archive_errors(tmp_path):
    archive = keras.export.ExportArchive()
    with pytest.raises(ValueError, match="No endpoints"):
        archive.write_out(str(tmp_path / "x"))
    with pytest.raises(ValueError, match="input_signature"):
        archive.add_endpoint("f", lambda x: x)

    @tw.function
    def never(x):
        return x
    with pytest.raises(ValueError, match="never been called"):
        archive.add_endpoint("g", never)
    with pytest.raises(ValueError, match="not yet been built"):
        archive.track(keras.layers.Dense(2))
    archive.add_endpoint("h", lambda x: x + 1.0, [tw.TensorSpec([2], tw.float32)])
    with pytest.raises(ValueError, match="already taken"):
        archive.add_endpoint("h", lambda x: x, [tw.TensorSpec([2], tw.float32)])
    with pytest.raises(ValueError, match="list/tuple/set"):
        archive.add_variable_collection("c", tw.Variable(1.0))
    with pytest.raises(ValueError, match="jax"):
        archive.add_endpoint("j", lambda x: x, [tw.TensorSpec([2], tw.float32)],
                             is_static=True)


def test_one_function_under_two_signature_keys_is_described_once(tmp_path):
    from twinflow.saved_model.load import read_saved_model
    model = _trained()
    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serve", model.call, [tw.TensorSpec([None, 3], tw.float32, "x")])
    archive.write_out(str(tmp_path / "e"), verbose=False)   # serve is serving_default too
    sm = read_saved_model(str(tmp_path / "e"))
    nodes = sm.meta_graphs[0].object_graph_def.nodes
    bare = [n.bare_concrete_function for n in nodes
            if n.WhichOneof("kind") == "bare_concrete_function"]
    assert bare and all(list(b.argument_keywords) == ["x"] for b in bare)
