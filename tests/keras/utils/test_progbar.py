"""keras.utils.Progbar averages the values not named in stateful_metrics (Keras 3.15 shows
``loss: 3.0000`` for the updates below, ``4.0000`` with stateful_metrics=["loss"])."""
import io

import pytest

import twinflow as tf


def _shown(**kw) -> str:
    stream = io.StringIO()
    bar = tf.keras.utils.Progbar(4, verbose=2, stream=stream, **kw)
    bar.update(1, [("loss", 1.0)])
    bar.update(3, [("loss", 4.0)])   # weighted by the 2 steps it advanced
    bar.update(4, finalize=True)
    return stream.getvalue()


def test_values_are_averaged_unless_stateful():
    assert "loss: 3.0000" in _shown()
    assert "loss: 4.0000" in _shown(stateful_metrics=["loss"])
    assert "loss: 4.0000" in _shown(stateless_metrics=set())
    assert "loss: 3.0000" in _shown(stateless_metrics={"loss"})
    with pytest.raises(ValueError, match="Only one"):
        tf.keras.utils.Progbar(4, stateful_metrics=[], stateless_metrics=[])
