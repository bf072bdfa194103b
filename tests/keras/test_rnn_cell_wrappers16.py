"""tw.nn.RNNCellDropoutWrapper / ResidualWrapper / DeviceWrapper around Keras cells."""
import numpy as np
import pytest

import twinflow as tw


def test_wrappers_forward_state_and_weights():
    cell = tw.keras.layers.SimpleRNNCell(3)
    res = tw.nn.RNNCellResidualWrapper(cell)
    x = np.ones((2, 3), np.float32)
    states = res.get_initial_state(batch_size=2)
    out, new = res(x, states)
    ref, ref_states = cell(x, states)
    np.testing.assert_allclose(out.numpy(), x + ref.numpy(), rtol=1e-6)
    assert res.state_size == 3 and res.output_size == 3
    assert len(res.trainable_weights) == len(cell.trainable_weights) == 3
    custom = tw.nn.RNNCellResidualWrapper(cell, residual_fn=lambda i, o: o * 0 + 7)
    assert float(custom(x, states)[0][0, 0]) == 7.0


def test_dropout_wrapper_rates_and_errors():
    cell = tw.keras.layers.SimpleRNNCell(200, kernel_initializer="ones",
                                         recurrent_initializer="zeros", activation=None)
    wrap = tw.nn.RNNCellDropoutWrapper(cell, output_keep_prob=0.5, seed=3)
    out, _ = wrap(np.ones((1, 1), np.float32), wrap.get_initial_state(batch_size=1))
    vals = out.numpy()
    assert set(np.unique(vals)) <= {0.0, 2.0} and 0.3 < (vals == 0).mean() < 0.7
    keep_all = tw.nn.RNNCellDropoutWrapper(cell)
    np.testing.assert_allclose(keep_all(np.ones((1, 1), np.float32),
                                        [np.zeros((1, 200), np.float32)])[0].numpy(), 1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        tw.nn.RNNCellDropoutWrapper(cell, input_keep_prob=0.0)
    with pytest.raises(NotImplementedError, match="variational"):
        tw.nn.RNNCellDropoutWrapper(cell, variational_recurrent=True)
    with pytest.raises(TypeError, match="not an RNN cell"):
        tw.nn.RNNCellResidualWrapper(object())


def test_device_wrapper_in_an_rnn_and_config_round_trip():
    wrap = tw.nn.RNNCellDeviceWrapper(tw.keras.layers.GRUCell(4), "/cpu:0")
    y = tw.keras.layers.RNN(wrap)(np.ones((2, 5, 3), np.float32))
    assert y.shape == (2, 4)
    nested = tw.nn.RNNCellResidualWrapper(tw.nn.RNNCellDropoutWrapper(
        tw.keras.layers.LSTMCell(3), state_keep_prob=0.9))
    again = tw.nn.RNNCellResidualWrapper.from_config(nested.get_config())
    assert type(again.cell).__name__ == "RNNCellDropoutWrapper"
    assert again.cell.state_keep_prob == 0.9
    assert type(tw.nn.RNNCellDeviceWrapper.from_config(wrap.get_config()).cell).__name__ == \
        "GRUCell"
