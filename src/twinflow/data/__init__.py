"""``tw.data``: input pipelines (``Dataset``)."""
from types import SimpleNamespace

from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset


class Options:
    """Dataset options (accepted for compatibility; twinflow's pipelines have none)."""

    def __init__(self) -> None:
        self.experimental_deterministic = True
        self.deterministic = True


experimental = SimpleNamespace(AUTOTUNE=AUTOTUNE, INFINITE_CARDINALITY=INFINITE_CARDINALITY,
                               UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY,
                               cardinality=lambda ds: ds.cardinality())

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "Options",
           "experimental"]
