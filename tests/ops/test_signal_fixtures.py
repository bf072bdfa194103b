"""tf.signal against outputs TensorFlow 2.21 produced (tests/fixtures/signal/make_fixtures.py),
and its bad calls."""
import pathlib

import numpy as np
import pytest

import twinflow as tw
from twinflow import signal as S

F = np.load(pathlib.Path(__file__).parents[1] / "fixtures" / "signal" / "signal.npz")
SIG = F["sig"]


def _same(got, key, atol=3e-6):
    got = np.asarray(got)
    assert got.dtype == F[key].dtype, f"{key}: dtype {got.dtype}, TensorFlow {F[key].dtype}"
    assert got.shape == F[key].shape, f"{key}: shape {got.shape}, TensorFlow {F[key].shape}"
    np.testing.assert_allclose(got, F[key], atol=atol, rtol=1e-5, err_msg=key)


def test_spectral_functions_match_tensorflow():
    _same(S.linear_to_mel_weight_matrix(8, 9, 8000, 100.0, 3000.0), "mel")
    _same(S.stft(SIG, 16, 6), "stft")
    _same(S.stft(SIG, 10, 4, fft_length=12, pad_end=True), "stft_pad")
    st = S.stft(SIG, 16, 4)
    _same(S.inverse_stft(st, 16, 4, window_fn=S.inverse_stft_window_fn(4)), "istft")
    _same(S.mfccs_from_log_mel_spectrograms(F["logmel"]), "mfcc")
    _same(S.frame(SIG[:, :11], 4, 3, pad_end=True, pad_value=-1.0), "frame")
    _same(S.overlap_and_add(SIG[:, :12].reshape(2, 3, 4), 3), "ola")


@pytest.mark.parametrize("kind", [1, 2, 3, 4])
def test_dct_matches_tensorflow(kind):
    x = SIG[:, :9]
    _same(S.dct(x, type=kind), f"dct{kind}")
    _same(S.idct(x, type=kind), f"idct{kind}")
    if kind != 1:
        _same(S.dct(x, type=kind, norm="ortho"), f"dct{kind}_ortho")
    _same(S.dct(x, n=6), "dct2_n")


def test_windows_match_tensorflow():
    _same(S.hann_window(7), "hann")
    _same(S.hann_window(7, periodic=False), "hann_sym")
    _same(S.hamming_window(6), "hamming")
    _same(S.kaiser_window(7, beta=5.0), "kaiser")
    _same(S.vorbis_window(6), "vorbis")


def test_mdct_matches_tensorflow():
    _same(S.kaiser_bessel_derived_window(8, beta=4.0), "kbd")
    _same(S.mdct(SIG, 8), "mdct")
    _same(S.mdct(SIG, 8, window_fn=S.kaiser_bessel_derived_window, norm="ortho"),
          "mdct_ortho_kbd")
    _same(S.inverse_mdct(F["mdct"]), "imdct")
    _same(S.inverse_mdct(F["mdct"], window_fn=None), "imdct_none")


def test_inverse_stft_reconstructs_in_a_function():
    f = tw.function(lambda x: S.inverse_stft(S.stft(x, 16, 4), 16, 4,
                                             window_fn=S.inverse_stft_window_fn(4)))
    out = f(tw.constant(SIG)).numpy()
    np.testing.assert_allclose(out[:, 12:-12], SIG[:, 12:-12], atol=1e-5)


def test_bad_calls():
    with pytest.raises(ValueError, match="type"):
        S.dct(SIG, type=5)
    with pytest.raises(ValueError, match="type-I"):
        S.dct(SIG, type=1, norm="ortho")
    with pytest.raises(TypeError, match="float32 or float64"):
        S.rfft(np.arange(4))
    with pytest.raises(TypeError, match="complex64"):
        S.fft(SIG)
    with pytest.raises(ValueError, match="frame_step"):
        S.overlap_and_add(SIG.reshape(2, 4, 10), 11)
    with pytest.raises(ValueError, match="upper_edge_hertz"):
        S.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)
