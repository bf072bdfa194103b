"""combined_non_max_suppression, non_max_suppression_overlaps, extract_glimpse and WAV coding
against TensorFlow 2.21 (tests/fixtures/image16/); the bounding-box sampler and JPEG quality
by their rules; N-D FFTs against NumPy (TensorFlow has no CPU kernel for them)."""
import pathlib

import numpy as np
import pytest

import twinflow as tw

F = np.load(pathlib.Path(__file__).parents[1] / "fixtures" / "image16" / "image16.npz")


def test_combined_nms_matches_tensorflow():
    for key, kw in (("c", {}), ("p", {"pad_per_class": True, "clip_boxes": False})):
        got = tw.image.combined_non_max_suppression(F["boxes"], F["scores"], 2,
                                                    5 if key == "c" else 10, 0.3, 0.1, **kw)
        for i, g in enumerate(got):
            np.testing.assert_allclose(g.numpy(), F[f"{key}{i}"], rtol=1e-6)
    f = tw.function(lambda b, s: tw.image.combined_non_max_suppression(b, s, 2, 5, 0.3, 0.1))
    np.testing.assert_allclose(f(F["boxes"], F["scores"])[1].numpy(), F["c1"], rtol=1e-6)
    with pytest.raises(tw.errors.InvalidArgumentError, match="4-D"):
        tw.image.combined_non_max_suppression(F["scores"], F["scores"], 2, 5)


def test_nms_overlaps_and_glimpse_match_tensorflow():
    got = tw.image.non_max_suppression_overlaps(F["ov"], F["ov_scores"], 4, 0.5, 0.2)
    np.testing.assert_array_equal(got.numpy(), F["ov_sel"])
    img = np.arange(2 * 6 * 8 * 2, dtype=np.float32).reshape(2, 6, 8, 2)
    cases = [(True, True, [[0.0, 0.0], [0.3, -0.45]]),
             (False, False, [[2.6, 3.4], [-1.2, 5.5]]),
             (False, True, [[0.5, 0.5], [0.9, 0.1]]),
             (True, False, [[1.5, -2.5], [-1.5, -2.7]])]
    for k, (c, n, off) in enumerate(cases):
        got = tw.image.extract_glimpse(img, [3, 4], off, centered=c, normalized=n, noise="zero")
        np.testing.assert_array_equal(got.numpy(), F[f"glimpse{k}"])
    noisy = tw.image.extract_glimpse(img, [3, 4], [[1.0, 1.0], [1.0, 1.0]]).numpy()
    assert noisy.min() >= 0 and noisy.max() <= img.max()     # uniform noise in the range


def test_wav_round_trip_matches_tensorflow():
    wav = tw.audio.encode_wav(F["audio"], 8000)
    assert wav.numpy() == F["wav"].tobytes()
    audio, rate = tw.audio.decode_wav(wav)
    np.testing.assert_array_equal(audio.numpy(), F["wav_decoded"])
    assert int(rate) == 8000
    np.testing.assert_array_equal(tw.audio.decode_wav(wav, 1, 9)[0].numpy(), F["wav_mono9"])
    mono = tw.audio.encode_wav(F["audio"][:, :1], 16000)
    np.testing.assert_array_equal(tw.audio.decode_wav(mono, 3, 4)[0].numpy(), F["wav_tri4"])
    with pytest.raises(tw.errors.InvalidArgumentError, match="RIFF"):
        tw.audio.decode_wav(b"not a wav file")


def test_sample_distorted_bounding_box_rules():
    boxes = [[[0.1, 0.1, 0.5, 0.6]]]
    for seed in range(5):
        begin, size, bbox = tw.image.stateless_sample_distorted_bounding_box(
            [20, 30, 3], boxes, seed=[seed, 1], min_object_covered=0.3,
            area_range=(0.1, 0.8))
        (y, x, z), (h, w, c) = begin.numpy(), size.numpy()
        assert z == 0 and c == -1 and 0 <= y and y + h <= 20 and 0 <= x and x + w <= 30
        assert 0.1 * 600 - 30 <= h * w <= 0.8 * 600 + 30            # the area range (+rounding)
        np.testing.assert_allclose(bbox.numpy()[0, 0], [y / 20, x / 30, (y + h) / 20,
                                                        (x + w) / 30], rtol=1e-6)
        again = tw.image.stateless_sample_distorted_bounding_box(
            [20, 30, 3], boxes, seed=[seed, 1], min_object_covered=0.3, area_range=(0.1, 0.8))
        assert again[0].numpy().tolist() == begin.numpy().tolist()
    b, s, _ = tw.image.sample_distorted_bounding_box([20, 30, 3], boxes, seed=3)
    assert s.numpy()[2] == -1
    with pytest.raises(tw.errors.InvalidArgumentError, match="No bounding boxes"):
        tw.image.sample_distorted_bounding_box([20, 30, 3], np.zeros((1, 0, 4), np.float32))


def test_jpeg_quality():
    pytest.importorskip("PIL")
    yy, xx = np.mgrid[0:16, 0:16]
    img = np.stack([yy / 15, xx / 15, (yy + xx) / 30], -1).astype(np.float32)
    hi = tw.image.adjust_jpeg_quality(img, 95).numpy()
    lo = tw.image.adjust_jpeg_quality(img, 5).numpy()
    assert hi.dtype == np.float32 and hi.shape == img.shape
    assert np.abs(hi - img).mean() < np.abs(lo - img).mean() < 0.2
    a = tw.image.stateless_random_jpeg_quality(img, 40, 90, seed=[1, 2]).numpy()
    np.testing.assert_array_equal(a, tw.image.stateless_random_jpeg_quality(
        img, 40, 90, seed=[1, 2]).numpy())
    with pytest.raises(ValueError, match="jpeg quality"):
        tw.image.random_jpeg_quality(img, 90, 40)


def test_fftnd_against_numpy():
    rng = np.random.default_rng(0)
    x = (rng.normal(size=(2, 3, 4)) + 1j * rng.normal(size=(2, 3, 4))).astype(np.complex128)
    np.testing.assert_allclose(tw.signal.fftnd(x).numpy(), np.fft.fftn(x))
    np.testing.assert_allclose(tw.signal.fftnd(x, fft_length=[5, 3], axes=[0, 2]).numpy(),
                               np.fft.fftn(x, s=[5, 3], axes=[0, 2]))
    np.testing.assert_allclose(tw.signal.ifftnd(x, norm="ortho").numpy(),
                               np.fft.ifftn(x, norm="ortho"))
    r = x.real.copy()
    np.testing.assert_allclose(tw.signal.rfftnd(r, axes=[1, 2], norm="forward").numpy(),
                               np.fft.rfftn(r, axes=[1, 2], norm="forward"))
    h = np.fft.rfftn(r)
    np.testing.assert_allclose(tw.signal.irfftnd(h).numpy(), np.fft.irfftn(h))
    np.testing.assert_allclose(tw.irfftnd(h, [2, 3, 4], [0, 1, 2], Treal=tw.float64).numpy(),
                               np.fft.irfftn(h, s=[2, 3, 4], axes=[0, 1, 2]))
    f = tw.function(lambda t: tw.signal.rfftnd(t, fft_length=[4, 6], axes=[1, 2]))
    np.testing.assert_allclose(f(r).numpy(), np.fft.rfftn(r, s=[4, 6], axes=[1, 2]))
    with pytest.raises(ValueError, match="norm"):
        tw.signal.fftnd(x, norm="bad")


def test_fractional_pools_follow_their_sequences():
    x = np.random.default_rng(0).normal(size=(2, 7, 9, 3))
    for overlapping in (False, True):
        out, rows, cols = tw.nn.fractional_max_pool(x, [1, 1.44, 1.73, 1], pseudo_random=True,
                                                    overlapping=overlapping, seed=5)
        r, c = rows.numpy(), cols.numpy()
        assert out.shape == (2, 4, 5, 3) and r[0] == 0 and r[-1] == 7 and c[-1] == 9
        assert set(np.diff(r)) <= {1, 2} and set(np.diff(c)) <= {1, 2}
        e = 1 if overlapping else 0
        ref = np.stack([np.stack([x[:, r[i]:min(r[i + 1] + e, 7), c[j]:min(c[j + 1] + e, 9)]
                                  .max(axis=(1, 2)) for j in range(5)], 1)
                        for i in range(4)], 1)
        np.testing.assert_array_equal(out.numpy(), ref)
        again = tw.nn.fractional_max_pool(x, [1, 1.44, 1.73, 1], pseudo_random=True,
                                          overlapping=overlapping, seed=5)
        np.testing.assert_array_equal(again[1].numpy(), r)   # a seed fixes the regions
    avg, rows, cols = tw.nn.fractional_avg_pool(x, 2.0, seed=1)
    r, c = rows.numpy(), cols.numpy()
    np.testing.assert_allclose(avg.numpy()[0, 1, 2],
                               x[0, r[1]:r[2], c[2]:c[3]].mean(axis=(0, 1)))
    with pytest.raises(tw.errors.InvalidArgumentError, match="batch and depth"):
        tw.nn.fractional_max_pool(x, [2.0, 1.5, 1.5, 1.0])


def test_graph_mode_extras():
    @tw.function
    def f(ov, sc, audio):
        sel = tw.image.non_max_suppression_overlaps(ov, sc, 4, 0.5, 0.2)
        decoded, rate = tw.audio.decode_wav(tw.audio.encode_wav(audio, 8000))
        return sel, decoded, rate

    sel, decoded, rate = f(F["ov"], F["ov_scores"], F["audio"])
    np.testing.assert_array_equal(sel.numpy(), F["ov_sel"])
    np.testing.assert_array_equal(decoded.numpy(), F["wav_decoded"])
    assert int(rate) == 8000
    pytest.importorskip("PIL")
    img = np.full((8, 8, 3), 0.5, np.float32)
    g = tw.function(lambda x, q: tw.image.adjust_jpeg_quality(x, q))
    np.testing.assert_allclose(g(img, tw.constant(80)).numpy(),
                               tw.image.adjust_jpeg_quality(img, 80).numpy())


def test_generate_bounding_box_proposals_rules():
    rng = np.random.default_rng(0)
    h, w, a = 3, 4, 2
    scores = rng.uniform(size=(2, h, w, a)).astype(np.float32)
    deltas = (rng.normal(size=(2, h, w, 4 * a)) * 0.1).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w]
    anchors = np.zeros((h, w, a, 4), np.float32)
    for k, s in enumerate([8, 16]):
        anchors[:, :, k] = np.stack([yy * 8 - s / 2, xx * 8 - s / 2, yy * 8 + s / 2,
                                     xx * 8 + s / 2], -1)
    info = np.array([[24, 32, 1, 0, 0], [20, 20, 1, 0, 0]], np.float32)
    rois, probs = tw.image.generate_bounding_box_proposals(
        scores, deltas, info, anchors.reshape(h, w, 4 * a), 0.5, 10, 4, post_nms_topn=6)
    rois, probs = rois.numpy(), probs.numpy()
    assert rois.shape == (2, 6, 4) and probs.shape == (2, 6)
    for i in range(2):
        p = probs[i][probs[i] > 0]
        assert (np.diff(p) <= 0).all()                           # by decreasing score
        r = rois[i][:len(p)]
        assert (r[:, 0] >= 0).all() and (r[:, 2] <= info[i, 0]).all()
        assert (r[:, 3] <= info[i, 1]).all()
        assert (np.minimum(r[:, 2] - r[:, 0], r[:, 3] - r[:, 1]) >= 4).all()
    # zero deltas: the best anchor itself, clipped to the image
    one = np.zeros((1, 1, 1, 1), np.float32) + 0.9
    box = tw.image.generate_bounding_box_proposals(
        one, np.zeros((1, 1, 1, 4), np.float32), np.array([[10, 10, 1, 0, 0]], np.float32),
        np.array([[[-2.0, 1.0, 6.0, 12.0]]], np.float32), min_size=1, post_nms_topn=2)[0]
    np.testing.assert_allclose(box.numpy()[0], [[0, 1, 6, 10], [0, 0, 0, 0]])
