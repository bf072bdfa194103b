"""MelSpectrogram and STFTSpectrogram against Keras 3.15 (tests/fixtures/keras_audio, made by
make_fixtures.py there) and a NumPy STFT."""
import pathlib

import numpy as np
import pytest

import twinflow as tw

L = tw.keras.layers
FIX = np.load(pathlib.Path(__file__).parents[3] / "fixtures" / "keras_audio" / "expected.npz")
X = FIX["x"]


def test_mel_spectrogram_matches_keras():
    mel = L.MelSpectrogram(fft_length=64, sequence_stride=16, num_mel_bins=10,
                           sampling_rate=8000)
    np.testing.assert_allclose(mel(X).numpy(), FIX["mel"], atol=1e-3)
    power = L.MelSpectrogram(fft_length=64, sequence_stride=32, sequence_length=48,
                             num_mel_bins=6, sampling_rate=8000, power_to_db=False,
                             mag_exp=1.0)
    np.testing.assert_allclose(power(X).numpy(), FIX["mel_power"], rtol=1e-4, atol=1e-5)
    again = L.MelSpectrogram.from_config(mel.get_config())
    assert again.get_config()["max_freq"] == 4000
    graph = tw.function(lambda v: mel(v))(tw.constant(X)).numpy()
    np.testing.assert_allclose(graph, mel(X).numpy(), atol=1e-4)
    assert mel.compute_output_shape((2, 200)) == (2, 10, 13)
    with pytest.raises(ValueError, match="fft_length"):
        L.MelSpectrogram(fft_length=16, sequence_length=32)


@pytest.mark.parametrize("mode", ["log", "magnitude", "psd", "angle", "stft"])
def test_stft_spectrogram_matches_keras(mode):
    pytest.importorskip("scipy")
    layer = L.STFTSpectrogram(mode=mode, frame_length=32, frame_step=8)
    out = layer(X[..., None]).numpy()
    np.testing.assert_allclose(out, FIX["stft_" + mode], atol=1e-4)
    assert L.STFTSpectrogram.from_config(layer.get_config()).get_config() == \
        layer.get_config()


def test_stft_spectrogram_is_a_numpy_stft():
    layer = L.STFTSpectrogram(mode="magnitude", frame_length=16, frame_step=4, window=None,
                              scaling=None, expand_dims=True)
    sig = X[:1, :64, None]
    out = layer(sig).numpy()[0, :, :, 0]
    frames = np.stack([sig[0, i:i + 16, 0] for i in range(0, 64 - 16 + 1, 4)])
    np.testing.assert_allclose(out, np.abs(np.fft.rfft(frames, 16)), atol=1e-4)
    with pytest.raises(ValueError, match="frame_step"):
        L.STFTSpectrogram(frame_length=8, frame_step=9)
    with pytest.raises(TypeError, match="float"):
        layer(np.zeros((1, 64, 1), np.int32))
