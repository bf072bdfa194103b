"""``tw.nn.experimental``: dropout with a chosen sampler or a stateless seed (re-exports)."""
from .ops.nn.compose16 import general_dropout, stateless_dropout  # noqa: F401

__all__ = ["general_dropout", "stateless_dropout"]
