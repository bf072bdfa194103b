"""max_pool_with_argmax, dilation2d/erosion2d, isotonic_regression, approx_max_k,
with_space_to_batch, atrous_conv2d_transpose and safe_embedding_lookup_sparse against
TensorFlow 2.21 (tests/fixtures/nn16/nn16.npz); samplers and dropout by their rules."""
import pathlib

import numpy as np
import pytest

import twinflow as tw

F = np.load(pathlib.Path(__file__).parents[1] / "fixtures" / "nn16" / "nn16.npz")


def test_max_pool_with_argmax_matches_tensorflow():
    out, arg = tw.nn.max_pool_with_argmax(F["x"], [1, 2, 3, 1], [1, 2, 2, 1], "SAME")
    np.testing.assert_array_equal(out.numpy(), F["mp_out"])
    np.testing.assert_array_equal(arg.numpy(), F["mp_arg"])
    out, arg = tw.nn.max_pool_with_argmax(F["x"], 3, 2, "VALID", include_batch_in_index=True)
    np.testing.assert_array_equal(out.numpy(), F["mp2_out"])
    np.testing.assert_array_equal(arg.numpy(), F["mp2_arg"])
    with pytest.raises(ValueError, match="NHWC"):
        tw.nn.max_pool_with_argmax(F["x"], 2, 2, "SAME", data_format="NCHW")


def test_morphology_and_gradients_match_tensorflow():
    xv, fv = tw.constant(F["x"]), tw.constant(F["f"])
    w = np.arange(3.0, dtype=np.float32)
    with tw.GradientTape(persistent=True) as tape:
        tape.watch(xv)
        tape.watch(fv)
        d = tw.nn.dilation2d(xv, fv, [1, 1, 2, 1], "SAME", "NHWC", [1, 2, 1, 1])
        e = tw.nn.erosion2d(xv, fv, [1, 2, 1, 1], "VALID", "NHWC", [1, 1, 2, 1])
        pm, _ = tw.nn.max_pool_with_argmax(xv, [1, 2, 3, 1], [1, 2, 2, 1], "SAME")
        losses = tw.reduce_sum(d * w), tw.reduce_sum(e * w), tw.reduce_sum(pm * pm)
    np.testing.assert_allclose(d.numpy(), F["dil"], rtol=1e-6)
    np.testing.assert_allclose(e.numpy(), F["ero"], rtol=1e-6)
    for key, loss in (("dil", losses[0]), ("ero", losses[1])):
        gx, gf = tape.gradient(loss, [xv, fv])
        np.testing.assert_allclose(gx.numpy(), F[f"{key}_gx"], rtol=1e-6)
        np.testing.assert_allclose(gf.numpy(), F[f"{key}_gf"], rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(losses[2], xv).numpy(), F["mp_gx"], rtol=1e-6)


def test_isotonic_regression_matches_tensorflow():
    out, seg = tw.nn.isotonic_regression(F["iso_in"])
    np.testing.assert_allclose(out.numpy(), F["iso_out"], rtol=1e-12)
    np.testing.assert_array_equal(seg.numpy(), F["iso_seg"])
    out, seg = tw.nn.isotonic_regression(F["iso_in"], decreasing=False, axis=0)
    np.testing.assert_allclose(out.numpy(), F["iso_inc_out"], rtol=1e-12)
    np.testing.assert_array_equal(seg.numpy(), F["iso_inc_seg"])
    iv = tw.constant(F["iso_in"])
    with tw.GradientTape() as tape:
        tape.watch(iv)
        y, _ = tw.nn.isotonic_regression(iv)
        loss = tw.reduce_sum(y * np.arange(7.0))
    np.testing.assert_allclose(tape.gradient(loss, iv).numpy(), F["iso_grad"], rtol=1e-12)


def test_approx_top_k_is_exact():
    v, i = tw.nn.approx_max_k(F["apx_in"], 3)
    np.testing.assert_array_equal(v.numpy(), F["apx_max_v"])
    np.testing.assert_array_equal(i.numpy(), F["apx_max_i"])
    v, i = tw.nn.approx_max_k(F["apx_in"], 6)
    np.testing.assert_array_equal(i.numpy(), F["apx_max2_i"])
    v, i = tw.nn.approx_min_k(F["apx_in"], 2, reduction_dimension=0)
    np.testing.assert_array_equal(v.numpy(), np.sort(F["apx_in"], axis=0)[:2])
    with pytest.raises(tw.errors.InvalidArgumentError, match="larger than"):
        tw.approx_top_k(F["apx_in"], 9)


def test_space_to_batch_compositions_match_tensorflow():
    k = F["k"]
    got = tw.nn.with_space_to_batch(
        F["img"], [2, 3], "SAME", lambda inp, n, pad: tw.nn.convolution(inp, k, padding=pad),
        filter_shape=[3, 3])
    np.testing.assert_allclose(got.numpy(), F["wstb"], rtol=1e-5, atol=1e-5)
    for pad in ("SAME", "VALID"):
        shp = [1, 7, 8, 4] if pad == "SAME" else [1, 11, 12, 4]
        got = tw.nn.atrous_conv2d_transpose(F["img"], F["kt"], shp, 2, pad)
        np.testing.assert_allclose(got.numpy(), F[f"atrous_t_{pad}"], rtol=1e-5, atol=1e-5)


def test_safe_embedding_lookup_sparse_matches_tensorflow():
    ids = tw.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 1], [3, 2]], [1, 3, -1, 4, 2], [4, 3])
    wts = tw.SparseTensor(ids.indices, [2.0, 0.5, 1.0, 3.0, -1.0], ids.dense_shape)
    got = tw.nn.safe_embedding_lookup_sparse(F["params"], ids, wts)
    np.testing.assert_allclose(got.numpy(), F["safe_mean"], rtol=1e-6)
    got = tw.nn.safe_embedding_lookup_sparse(F["params"], ids, None, combiner="sum",
                                             default_id=0)
    np.testing.assert_allclose(got.numpy(), F["safe_default"], rtol=1e-6)


def test_learned_unigram_sampler_learns_and_dropouts():
    tc = np.array([[3], [3]], np.int64)
    for _ in range(20):                         # class 3 becomes by far the most likely
        s, t, _ = tw.random.learned_unigram_candidate_sampler(tc, 1, 4, False, 6, seed=11)
    counts = np.bincount(s.numpy(), minlength=6)
    assert counts[3] >= 2 and t.numpy().shape == (2, 1)
    x = np.ones((4, 50), np.float32)
    a = tw.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2]).numpy()
    b = tw.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2]).numpy()
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) <= {0.0, 2.0} and 0.3 < (a == 0).mean() < 0.7
    g = tw.nn.experimental.general_dropout(x, 0.25, lambda shape, dtype: tw.fill(shape, 0.5))
    np.testing.assert_allclose(g.numpy(), x / 0.75)
    with pytest.raises(ValueError, match="rate"):
        tw.nn.experimental.stateless_dropout(x, 1.5, seed=[1, 2])
    with pytest.raises(NotImplementedError, match="rng_alg"):
        tw.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2], rng_alg="threefry")
