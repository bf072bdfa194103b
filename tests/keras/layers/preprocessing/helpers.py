"""Checks shared by the preprocessing layer tests."""
import numpy as np

import twinflow as tw


def agree(layer, x, **kwargs) -> np.ndarray:
    """The eager output, after checking tw.function and Dataset.map give the same."""
    eager = layer(x, **kwargs).numpy()
    fn = tw.function(lambda t: layer(t, **kwargs))
    np.testing.assert_array_equal(fn(tw.constant(x)).numpy(), eager)
    ds = tw.data.Dataset.from_tensors(tw.constant(x)).map(lambda t: layer(t, **kwargs))
    np.testing.assert_array_equal(next(iter(ds)).numpy(), eager)
    return eager


def round_trip(layer, x=None) -> None:
    """``from_config(get_config())`` makes a layer with the same config (and outputs)."""
    cfg = layer.get_config()
    again = type(layer).from_config(cfg)
    assert again.get_config() == cfg
    if x is not None:
        np.testing.assert_array_equal(again(x).numpy(), layer(x).numpy())
