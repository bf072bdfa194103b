"""``tw.signal``: signal processing (re-exports of ``twinflow.ops.signal``)."""
from .ops.signal.fft import (  # noqa: F401
                             fft,
                             fft2d,
                             fft3d,
                             ifft,
                             ifft2d,
                             ifft3d,
                             irfft,
                             irfft2d,
                             irfft3d,
                             rfft,
                             rfft2d,
                             rfft3d,
)
from .ops.signal.fftnd import signal_fftnd as fftnd  # noqa: E402,F401
from .ops.signal.fftnd import signal_ifftnd as ifftnd  # noqa: E402,F401
from .ops.signal.fftnd import signal_irfftnd as irfftnd  # noqa: E402,F401
from .ops.signal.fftnd import signal_rfftnd as rfftnd  # noqa: E402,F401
from .ops.signal.mdct import inverse_mdct, kaiser_bessel_derived_window, mdct  # noqa: F401
from .ops.signal.spectral import (  # noqa: F401
                             dct,
                             fftshift,
                             frame,
                             hamming_window,
                             hann_window,
                             idct,
                             ifftshift,
                             inverse_stft,
                             inverse_stft_window_fn,
                             kaiser_window,
                             linear_to_mel_weight_matrix,
                             mfccs_from_log_mel_spectrograms,
                             overlap_and_add,
                             stft,
                             vorbis_window,
)
