"""Registry cases for tf.signal: the FFT ops (complex outputs checked through their real and
imaginary parts, so that gradients are checked too) and the spectral functions.

Names start with ``sig_`` so that ``pytest -k sig_`` selects them.
"""
import numpy as np

import twinflow as tw
from twinflow import signal as S

from .harness import Case

rng = np.random.default_rng(3)
A = rng.normal(size=(2, 8))
B = rng.normal(size=(2, 8))
A3 = rng.normal(size=(2, 3, 4))
B3 = rng.normal(size=(2, 3, 4))
T4 = rng.normal(size=(2, 3, 4, 2))
U4 = rng.normal(size=(2, 3, 4, 2))


def _parts(z):
    return tw.stack([tw.math.real(z), tw.math.imag(z)])


def _np_parts(z):
    return np.stack([z.real, z.imag])


def _c(a, b):
    return tw.complex(a, b)


CASES = [
    Case(lambda a, b: _parts(S.fft(_c(a, b))), [A, B],
         lambda a, b: _np_parts(np.fft.fft(a + 1j * b)), name="sig_fft"),
    Case(lambda a, b: _parts(S.ifft(_c(a, b))), [A, B],
         lambda a, b: _np_parts(np.fft.ifft(a + 1j * b)), name="sig_ifft"),
    Case(lambda a, b: _parts(S.fft2d(_c(a, b))), [A3, B3],
         lambda a, b: _np_parts(np.fft.fft2(a + 1j * b)), name="sig_fft2d"),
    Case(lambda a, b: _parts(S.ifft2d(_c(a, b))), [A3, B3],
         lambda a, b: _np_parts(np.fft.ifft2(a + 1j * b)), name="sig_ifft2d"),
    Case(lambda a, b: _parts(S.fft3d(_c(a, b))), [T4, U4],
         lambda a, b: _np_parts(np.fft.fftn(a + 1j * b, axes=(1, 2, 3))), name="sig_fft3d"),
    Case(lambda a, b: _parts(S.ifft3d(_c(a, b))), [T4, U4],
         lambda a, b: _np_parts(np.fft.ifftn(a + 1j * b, axes=(1, 2, 3))), name="sig_ifft3d"),
    Case(lambda a: _parts(S.rfft(a)), [A], lambda a: _np_parts(np.fft.rfft(a)),
         name="sig_rfft"),
    Case(lambda a: _parts(S.rfft(a, [7])), [A], lambda a: _np_parts(np.fft.rfft(a, 7)),
         name="sig_rfft_odd_crop"),
    Case(lambda a: _parts(S.rfft(a, [11])), [A], lambda a: _np_parts(np.fft.rfft(a, 11)),
         name="sig_rfft_pad"),
    Case(lambda a, b: S.irfft(_c(a, b)), [A[:, :5], B[:, :5]],
         lambda a, b: np.fft.irfft(a + 1j * b), name="sig_irfft"),
    Case(lambda a, b: S.irfft(_c(a, b), [7]), [A[:, :4], B[:, :4]],
         lambda a, b: np.fft.irfft(a + 1j * b, 7), name="sig_irfft_odd"),
    Case(lambda a: _parts(S.rfft2d(a)), [A3], lambda a: _np_parts(np.fft.rfft2(a)),
         name="sig_rfft2d"),
    Case(lambda a, b: S.irfft2d(_c(a, b), [3, 6]), [A3, B3],
         lambda a, b: np.fft.irfft2(a + 1j * b, (3, 6)), name="sig_irfft2d"),
    Case(lambda a: _parts(S.rfft3d(a)), [T4], lambda a: _np_parts(np.fft.rfftn(a, axes=(1, 2, 3))),
         name="sig_rfft3d"),
    Case(lambda a, b: S.irfft3d(_c(a, b), [3, 4, 3]), [T4, U4],
         lambda a, b: np.fft.irfftn(a + 1j * b, (3, 4, 3), axes=(1, 2, 3)),
         name="sig_irfft3d"),
    Case(lambda a: S.fftshift(a, axes=1), [A], lambda a: np.fft.fftshift(a, axes=1),
         name="sig_fftshift"),
    Case(lambda a: S.ifftshift(a), [A3], np.fft.ifftshift, name="sig_ifftshift"),
    Case(lambda a: S.frame(a, 3, 2), [A],
         lambda a: np.stack([a[:, i:i + 3] for i in (0, 2, 4)], 1), name="sig_frame"),
    Case(lambda a: S.overlap_and_add(a, 2), [A3],
         lambda a: sum(np.pad(a[:, f], [(0, 0), (2 * f, 4 - 2 * f)]) for f in range(3)),
         name="sig_overlap_and_add"),
    Case(lambda a: _parts(S.stft(a, 4, 2)), [A], None, name="sig_stft"),
    Case(lambda a: S.dct(a, type=2, norm="ortho"), [A], None, name="sig_dct"),
    Case(lambda a: S.idct(S.dct(a, type=2, norm="ortho"), type=2, norm="ortho"), [A],
         lambda a: a, name="sig_dct_round_trip"),
    Case(S.mfccs_from_log_mel_spectrograms, [A3], None, name="sig_mfcc"),
    Case(lambda a: S.inverse_mdct(S.mdct(a, 4)), [A], None, name="sig_mdct_round_trip"),
]
for _c_ in CASES:
    _c_.unknown_shapes = False  # transform sizes are static (see docs/tf_differences.md)
