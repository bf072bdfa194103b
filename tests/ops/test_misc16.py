"""tw.conv, conv2d_backprop_*_v2, extract_volume_patches and betainc against TensorFlow 2.21
(tests/fixtures/misc16/); ragged_fill_empty_rows, the parameterized truncated normal and
random_index_shuffle by their rules."""
import pathlib

import numpy as np
import pytest

import twinflow as tw

F = np.load(pathlib.Path(__file__).parents[1] / "fixtures" / "misc16" / "misc16.npz")


def test_conv_matches_tensorflow():
    x, w = F["x"], F["w"]
    got = tw.conv(x, w, [1, 2, 1, 1], "SAME", batch_dims=2)
    np.testing.assert_allclose(got.numpy(), F["conv_batch2"], rtol=1e-4, atol=1e-4)
    x1 = x[0]
    got = tw.conv(x1, w, [1, 1, 2, 1], "VALID", dilations=[1, 2, 1, 1])
    np.testing.assert_allclose(got.numpy(), F["conv_dilated"], rtol=1e-4, atol=1e-4)
    first = tw.conv(np.transpose(x1, [0, 3, 1, 2]), w, [1, 1, 1, 2], "VALID",
                    data_format="CHANNELS_FIRST", dilations=[1, 1, 2, 1])
    np.testing.assert_allclose(np.transpose(first.numpy(), [0, 2, 3, 1]), F["conv_dilated"],
                               rtol=1e-4, atol=1e-4)
    got = tw.conv(x1, w, [1, 1, 1, 1], "EXPLICIT", explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0])
    np.testing.assert_allclose(got.numpy(), F["conv_explicit"], rtol=1e-4, atol=1e-4)
    # groups: each half of the channels with its half of the filters
    g = tw.conv(x1, w[:, :, :2], [1, 1, 1, 1], "SAME", groups=2).numpy()
    halves = [tw.nn.conv2d(x1[..., 2 * i:2 * i + 2], w[:, :, :2, 3 * i:3 * i + 3], 1,
                           "SAME").numpy() for i in range(2)]
    np.testing.assert_allclose(g, np.concatenate(halves, -1), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="strides must have 4"):
        tw.conv(x1, w, [1, 1, 1], "SAME")


def test_conv2d_backprops_v2_match_tensorflow():
    x1, f, dy = F["x"][0], F["f"], F["dy"]
    got = tw.conv2d_backprop_filter_v2(x1, f, dy, [1, 2, 2, 1], "SAME")
    np.testing.assert_allclose(got.numpy(), F["bp_filter"], rtol=1e-4, atol=1e-4)
    got = tw.conv2d_backprop_input_v2(x1, f, dy, [1, 2, 2, 1], "SAME")
    np.testing.assert_allclose(got.numpy(), F["bp_input"], rtol=1e-4, atol=1e-4)
    nchw = tw.conv2d_backprop_input_v2(np.transpose(x1, [0, 3, 1, 2]), f,
                                       np.transpose(dy, [0, 3, 1, 2]), [1, 1, 2, 2], "SAME",
                                       data_format="NCHW")
    np.testing.assert_allclose(np.transpose(nchw.numpy(), [0, 2, 3, 1]), F["bp_input"],
                               rtol=1e-4, atol=1e-4)


def test_volume_patches_and_betainc_match_tensorflow():
    v = F["vol"]
    got = tw.extract_volume_patches(v, [1, 2, 3, 2, 1], [1, 2, 2, 3, 1], "SAME")
    np.testing.assert_array_equal(got.numpy(), F["vol_same"])
    got = tw.extract_volume_patches(v, [1, 3, 2, 2, 1], [1, 1, 2, 2, 1], "VALID")
    np.testing.assert_array_equal(got.numpy(), F["vol_valid"])
    a, b, x = F["beta_abx"]
    np.testing.assert_allclose(tw.math.betainc(a, b, x).numpy(), F["betainc"], rtol=1e-10)
    assert np.isnan(tw.math.betainc(-1.0, 2.0, 0.5).numpy())


def test_ragged_fill_random_rules():
    ids, vals, empty, rev = tw.ragged_fill_empty_rows([0, 0, 2, 2, 4], [1., 2., 3., 4., 5.], 6,
                                                      -1.)
    assert ids.numpy().tolist() == [0, 0, 1, 2, 2, 3, 4, 5]
    assert vals.numpy().tolist() == [1, 2, -1, 3, 4, -1, 5, -1]
    assert empty.numpy().tolist() == [False, True, False, True, False, True]
    dv, dd = tw.ragged_fill_empty_rows_grad(rev, np.arange(8.0))
    assert dv.numpy().tolist() == [0, 1, 3, 4, 6] and float(dd) == 2 + 5 + 7
    with pytest.raises(tw.errors.InvalidArgumentError, match="sorted"):
        tw.ragged_fill_empty_rows([2, 0], [1., 2.], 3, 0.)
    s = tw.random.stateless_parameterized_truncated_normal(
        [500, 2], [3, 4], means=[0.0, 5.0], stddevs=[1.0, 2.0], minvals=[-0.5, 9.0],
        maxvals=[0.5, 30.0]).numpy()
    assert (s[:, 0] >= -0.5).all() and (s[:, 0] <= 0.5).all() and (s[:, 1] >= 9.0).all()
    again = tw.random.stateless_parameterized_truncated_normal(
        [500, 2], [3, 4], means=[0.0, 5.0], stddevs=[1.0, 2.0], minvals=[-0.5, 9.0],
        maxvals=[0.5, 30.0]).numpy()
    np.testing.assert_array_equal(s, again)
    perm = tw.random_index_shuffle(np.arange(20), [1, 2, 3], 19).numpy()
    assert sorted(perm.tolist()) == list(range(20))
    other = tw.random_index_shuffle(np.arange(20), [1, 2, 3], 19, rounds=6).numpy()
    assert other.tolist() != perm.tolist()


def test_sobol_sample_matches_tensorflow():
    np.testing.assert_array_equal(tw.math.sobol_sample(5, 40, skip=7, dtype=tw.float64).numpy(),
                                  F["sobol64"])
    np.testing.assert_array_equal(tw.math.sobol_sample(128, 3, skip=1000).numpy(), F["sobol32"])
    with pytest.raises(tw.errors.InvalidArgumentError, match="128 dimensions"):
        tw.math.sobol_sample(129, 2)


def test_ragged_fill_in_a_function():
    f = tw.function(lambda v: tw.ragged_fill_empty_rows([0, 0, 2], v, 4, 9.0))
    ids, vals, empty, rev = f(tw.constant([1.0, 2.0, 3.0]))
    assert vals.numpy().tolist() == [1.0, 2.0, 9.0, 3.0, 9.0]
    assert rev.numpy().tolist() == [0, 1, 3]
    v = tw.constant([1.0, 2.0, 3.0])
    with tw.GradientTape() as tape:
        tape.watch(v)
        out = tw.ragged_fill_empty_rows([0, 0, 2], v, 4, 9.0)[1]
        loss = tw.reduce_sum(out * tw.range(5.0))
    assert tape.gradient(loss, v).numpy().tolist() == [0.0, 1.0, 3.0]
