"""Compares a twinflow application model with what Keras 3 built for the same arguments
(tests/fixtures/applications/models.json, made by its make_fixtures.py)."""
import hashlib
import json
from pathlib import Path

import numpy as np

import twinflow as tw

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "applications"
MODELS = json.loads((FIXTURES / "models.json").read_text())


def _digest(items) -> str:
    return hashlib.sha1(json.dumps(items).encode()).hexdigest()


def build(key: str):
    """The twinflow model for fixture ``key`` (fresh layer names, as Keras' were)."""
    spec = MODELS[key]
    tw.keras.backend.clear_session()
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in spec["kwargs"].items()}
    return getattr(tw.keras.applications, spec["constructor"])(weights=None, **kwargs)


def describe(model) -> dict:
    layers = model.layers
    names = [layer.name for layer in layers[1:]]
    shapes = [[layer.name, [list(w.shape) for w in layer.weights]] for layer in layers[1:]]
    return {
        "name": model.name,
        "total_params": int(model.count_params()),
        "trainable_params": int(sum(np.prod(w.shape) for w in model.trainable_weights)),
        "layers": len(layers),
        "first": names[:4],
        "last": names[-4:],
        "names_sha1": _digest(names),
        "weights_sha1": _digest(shapes),
        "output_shape": list(model.output_shape),
    }


def check(key: str):
    """Builds fixture ``key`` and asserts it matches Keras; returns the model."""
    model = build(key)
    want = {k: v for k, v in MODELS[key].items() if k not in ("constructor", "kwargs")}
    got = describe(model)
    assert got == want, {k: (got[k], want[k]) for k in want if got[k] != want[k]}
    return model
