"""Adagrad follows Keras 3: epsilon is added to the accumulator under the square root."""
import numpy as np

import twinflow as tw


def test_adagrad_matches_keras3_numbers():
    v = tw.Variable(np.array([1.0, -2.0, 3.0], np.float32))
    opt = tw.keras.optimizers.Adagrad(0.5, epsilon=0.3)
    for g in ([0.1, 0.2, -0.3], [1.0, -1.0, 0.5]):
        opt.apply([np.array(g, np.float32)], [v])
    # Keras 3.15: keras.optimizers.Adagrad(0.5, epsilon=0.3).apply(...) twice on the same values.
    np.testing.assert_allclose(v.numpy(), [0.5008372068405151, -1.7340890169143677,
                                           2.9236667156219482], rtol=1e-6)
