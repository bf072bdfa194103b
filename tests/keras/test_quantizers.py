"""``tw.keras.quantizers`` and ``Layer.quantize`` against Keras 3.15: the values Keras gives
(``tests/fixtures/keras_quantizers/make_fixtures.py``), eagerly and in ``tw.function``."""
from __future__ import annotations

import gzip
import json
import pathlib

import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
Q = keras.quantizers
F = json.loads(gzip.decompress((pathlib.Path(__file__).parents[1] / "fixtures" /
                                "keras_quantizers" / "keras_quantizers.json.gz").read_bytes()))
X = np.array(F["X"], np.float32)
X3 = np.array(F["X3"], np.float32)
K = np.array(F["K"], np.float32)


def _same(got, want, rtol=1e-6, atol=1e-6):
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    assert list(got.shape) == want["shape"]
    if want["dtype"].startswith("int"):
        assert str(got.dtype) == want["dtype"]
    np.testing.assert_allclose(got.astype(np.float64).reshape(-1), want["values"], rtol=rtol,
                               atol=atol)


@pytest.mark.parametrize("axis", [-1, 0, (0, 1)])
@pytest.mark.parametrize("to_numpy", [False, True])
def test_abs_max_quantize(axis, to_numpy):
    q, s = Q.abs_max_quantize(X, axis, to_numpy=to_numpy)
    want_q, want_s = F[f"abs_max_{axis}_{to_numpy}"]
    _same(q, want_q)
    _same(s, want_s)
    q, s = Q.AbsMaxQuantizer(value_range=(-8, 7))(X, axis=0)
    _same(q, F["abs_max_quantizer_int4"][0])


@pytest.mark.parametrize("block", [2, 4, 16])
@pytest.mark.parametrize("to_numpy", [False, True])
def test_grouped_with_zero_point(block, to_numpy):
    got = Q.abs_max_quantize_grouped_with_zero_point(K, block, to_numpy=to_numpy)
    for g, w in zip(got, F[f"grouped_{block}_{to_numpy}"], strict=True):
        _same(g, w, rtol=1e-5)


def test_float8_helpers_and_packing():
    for (a, m), w in zip(((3.0, 0), (3.0, 2), (0.0, 0), (np.inf, 0)), F["float8_scale"]):
        _same(Q.compute_float8_scale(tw.constant(a), tw.constant(2.0), 448.0, margin=m), w)
    _same(Q.compute_float8_amax_history(X, tw.constant(np.arange(4, dtype=np.float32))),
          F["amax_history"])
    for dt in ("float8_e4m3fn", "float8_e5m2"):
        _same(Q.quantize_and_dequantize(X * 100, tw.constant(0.3), dt, "float32"),
              F[f"qdq_{dt}"], rtol=1e-5)
    ints = np.array(F["ints"], np.int8)
    for axis in (0, 1):
        packed, shape, n = Q.pack_int4(tw.constant(ints), axis=axis)
        want, want_shape, want_n = F[f"pack_{axis}"]
        _same(packed, want)
        assert list(shape) == want_shape and n == want_n
        np.testing.assert_array_equal(Q.unpack_int4(packed, n, axis=axis).numpy(), ints)
        f = tw.function(lambda p, axis=axis, n=n: Q.unpack_int4(p, n, axis=axis))
        np.testing.assert_array_equal(f(packed).numpy(), ints)
    with pytest.raises(TypeError, match="int8"):
        Q.pack_int4(tw.constant(ints.astype(np.int32)))


def test_fake_quant():
    _same(Q.fake_quant_with_min_max_vars(X, -1.0, 1.5, 4), F["fake_quant"])
    _same(Q.fake_quant_with_min_max_vars(X, np.linspace(-2, -0.5, 6).astype(np.float32),
                                         np.linspace(0.5, 2, 6).astype(np.float32), 8, True,
                                         axis=1), F["fake_quant_axis"])


def _dense(name, cfg):
    d = keras.layers.Dense(5, activation="relu")
    d.build((None, 6))
    d.set_weights([K, np.linspace(-0.2, 0.2, 5).astype(np.float32)])
    d.quantize(cfg.mode if cfg else name, config=cfg)
    return d


@pytest.mark.parametrize("name,cfg", [
    ("int8", None), ("int4", Q.Int4QuantizationConfig(block_size=None)),
    ("int4b", Q.Int4QuantizationConfig(block_size=4)),
    ("int8_noact", Q.Int8QuantizationConfig(activation_quantizer=None))])
def test_dense_quantized_as_keras(name, cfg):
    d = _dense(name, cfg)
    _same(d(X), F[f"dense_{name}"], rtol=1e-5, atol=1e-5)
    _same(tw.function(lambda x: d(x))(X), F[f"dense_{name}"], rtol=1e-5, atol=1e-5)
    assert d.dtype_policy.quantization_mode == "int4" if "int4" in name else "int8"
    assert not d.trainable_weights or all(w.name.endswith("bias:0")
                                          for w in d.trainable_weights)


@pytest.mark.parametrize("eq,shape,bias", [("abc,cd->abd", (3, 5), "d"),
                                           ("abc,cde->abde", (3, 5, 2), None)])
def test_einsum_dense_quantized_as_keras(eq, shape, bias):
    e = keras.layers.EinsumDense(eq, shape, bias_axes=bias)
    e.build(tw.TensorShape([None, 3, 6]))
    kernel = K if eq == "abc,cd->abd" else np.stack([K, -K], -1)
    e.set_weights([kernel] + ([np.linspace(-0.2, 0.2, 5).astype(np.float32)] if bias else []))
    e.quantize("int8")
    _same(e(X3), F[f"einsum_{eq}"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["int8", "int4"])
def test_embedding_quantized_as_keras(name):
    emb = keras.layers.Embedding(7, 6)
    emb.build(None)
    emb.set_weights([np.array(F["table"], np.float32)])
    emb.quantize(name, config=Q.Int4QuantizationConfig(block_size=None) if name == "int4"
                 else None)
    _same(emb(np.array([[0, 3], [6, 2]])), F[f"embedding_{name}"], rtol=1e-6)


def test_quantized_layer_gradients_and_model_quantize():
    d = _dense("int8", None)
    x = tw.constant(X)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.reduce_sum(d(x))
    g = tape.gradient(y, x)
    assert g.shape == x.shape and np.isfinite(g.numpy()).all()
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4), keras.layers.Dense(2)])
    before = model(X).numpy()
    model.quantize("int8")
    assert [layer.quantization_mode for layer in model.layers] == ["int8", "int8"]
    np.testing.assert_allclose(model(X).numpy(), before, atol=0.05)
    with pytest.raises(ValueError, match="already quantized"):
        model.layers[0].quantize("int8")
    with pytest.raises(NotImplementedError, match="float8"):
        _float8()
    with pytest.raises(NotImplementedError, match="quantize"):
        keras.layers.Flatten().quantize("int8")


def _float8():
    d = keras.layers.Dense(2)
    d.build((None, 3))
    d.quantize("float8")


def test_configs_policies_and_serialization():
    cfg = Q.Int8QuantizationConfig(weight_quantizer=Q.AbsMaxQuantizer(axis=0))
    again = Q.deserialize(Q.serialize(cfg))
    assert type(again) is Q.Int8QuantizationConfig and again.mode == "int8"
    assert again.weight_quantizer.get_config() == cfg.weight_quantizer.get_config()
    assert Q.get("abs_max_quantizer").value_range == (-127, 127)
    assert Q.Int4QuantizationConfig.from_config(
        Q.Int4QuantizationConfig(block_size=64).get_config()).block_size == 64
    with pytest.raises(ValueError, match="block_size"):
        Q.Int4QuantizationConfig(block_size=0)
    with pytest.raises(ValueError, match="int8"):
        Q.AbsMaxQuantizer(value_range=(-300, 300))
    D = keras.dtype_policies
    p = D.get("int4/32_from_mixed_bfloat16")
    assert type(p) is D.Int4DTypePolicy and p.block_size == 32
    assert (p.compute_dtype, p.variable_dtype) == ("bfloat16", "float32")
    assert D.deserialize(D.serialize(p)) == p
    f8 = D.QuantizedFloat8DTypePolicy("float8", "float32", amax_history_length=16)
    assert D.get(D.serialize(f8)).amax_history_length == 16
    m = D.DTypePolicyMap("float32", {"dense.*": "int8_from_float32"})
    assert m["dense_2"].quantization_mode == "int8" and m["conv"].name == "float32"
    assert D.deserialize(D.serialize(m)) == m
    with pytest.raises(ValueError, match="not provided"):
        D.QuantizedDTypePolicy("gptq", "float32")
    assert tw.keras.Quantizer is Q.Quantizer


def test_quantized_models_interchange_with_keras_files(tmp_path):
    here = pathlib.Path(__file__).parents[1] / "fixtures" / "keras_quantizers"
    ids = np.array([[0, 3], [6, 2]])
    model = keras.models.load_model(str(here / "quantized.keras"))  # written by Keras 3.15
    assert [layer.quantization_mode for layer in model.layers[1:]] == ["int8"] * 3
    want = np.load(here / "quantized_out.npy")
    np.testing.assert_allclose(model.predict(ids, verbose=0), want, rtol=1e-6)
    model.save(str(tmp_path / "again.keras"))  # and back, in Keras' layout
    again = keras.models.load_model(str(tmp_path / "again.keras"))
    np.testing.assert_allclose(again.predict(ids, verbose=0), want, rtol=1e-6)
    # an int4 layer round-trips through twinflow's files too
    seq = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3)])
    seq.quantize("int4", config=Q.Int4QuantizationConfig(block_size=None))
    seq.save(str(tmp_path / "int4.keras"))
    back = keras.models.load_model(str(tmp_path / "int4.keras"))
    np.testing.assert_allclose(back(X).numpy(), seq(X).numpy())
