"""``tw.function``: tracing, ConcreteFunction, retracing diagnostics."""
from .function import ConcreteFunction, Function, function

__all__ = ["ConcreteFunction", "Function", "function"]
