"""keras.utils.FeatureSpace against Keras 3.15 (tests/fixtures/keras_utils/feature_space.npz,
made by make_feature_space.py there)."""
import pathlib

import numpy as np
import pytest

import twinflow as tw

FS = tw.keras.utils.FeatureSpace
WANT = np.load(pathlib.Path(__file__).parents[2] / "fixtures" / "keras_utils" /
               "feature_space.npz")["out"]
DATA = {"age": np.array([20.0, 30.0, 40.0, 50.0]), "city": np.array(["a", "b", "a", "c"]),
        "n": np.array([1, 2, 1, 3]), "tag": np.array(["x", "y", "x", "z"])}


def _space(**kwargs):
    return FS({"age": "float_normalized", "city": "string_categorical",
               "n": "integer_categorical", "tag": FS.string_hashed(num_bins=4)},
              crosses=[("city", "n")], crossing_dim=5, **kwargs)


def test_matches_keras_and_builds_models():
    fs = _space()
    with pytest.raises(ValueError, match="adapt"):
        fs(DATA)
    fs.adapt(tw.data.Dataset.from_tensor_slices(DATA).batch(2))
    np.testing.assert_allclose(fs(DATA).numpy(), WANT, rtol=1e-6)
    np.testing.assert_allclose(fs({k: v[1] for k, v in DATA.items()}).numpy(), WANT[1],
                               rtol=1e-6)
    ds = tw.data.Dataset.from_tensor_slices(DATA).batch(4).map(fs)
    np.testing.assert_allclose(next(iter(ds)).numpy(), WANT, rtol=1e-6)
    encoded = fs.get_encoded_features()
    model = tw.keras.Model(fs.get_inputs(), tw.keras.layers.Dense(1)(encoded))
    assert model.predict({k: v.reshape(-1, 1) for k, v in DATA.items()},
                         verbose=0).shape == (4, 1)


def test_dict_mode_presets_and_errors():
    fs = FS({"age": "float_rescaled", "city": FS.string_categorical(output_mode="int"),
             "n": FS.float_discretized(num_bins=3, bin_boundaries=[1.5, 2.5])},
            output_mode="dict")
    fs.adapt(DATA)
    out = fs(DATA)
    assert out["city"].dtype == tw.int64 and out["n"].shape == (4, 3)
    np.testing.assert_array_equal(out["n"].numpy().argmax(1), [0, 1, 0, 2])
    assert FS.from_config(fs.get_config()).output_mode == "dict"
    bad = FS({"city": FS.string_categorical(output_mode="int")})
    bad.adapt(DATA)
    with pytest.raises(ValueError, match="not been encoded"):
        bad(DATA)
    with pytest.raises(ValueError, match="Invalid feature type"):
        FS({"x": "complex"})
    with pytest.raises(ValueError, match="unknown features"):
        FS({"x": "float"}, crosses=[("x", "y")])
