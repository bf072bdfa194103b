"""tf.signal: ``fft.py`` (the FFT ops), ``spectral.py`` (windows, framing, STFT, mel, DCT)."""
