"""Compares a twinflow application model with what Keras 3 built for the same arguments
(tests/fixtures/applications/models.json, made by its make_fixtures.py)."""
import json
from pathlib import Path

import twinflow as tw
from tests.fixtures.applications.describe import describe

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "applications"
MODELS = json.loads((FIXTURES / "models.json").read_text())


def build(key: str):
    """The twinflow model for fixture ``key`` (fresh layer names, as Keras' were)."""
    spec = MODELS[key]
    tw.keras.backend.clear_session()
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in spec["kwargs"].items()}
    return getattr(tw.keras.applications, spec["constructor"])(weights=None, **kwargs)


def check(key: str):
    """Builds fixture ``key`` and asserts it matches Keras; returns the model."""
    model = build(key)
    want = {k: v for k, v in MODELS[key].items() if k not in ("constructor", "kwargs")}
    got = describe(model)
    assert got == want, {k: (got[k], want[k]) for k in want if got[k] != want[k]}
    return model
