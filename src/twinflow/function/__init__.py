"""``tw.function``: tracing, ConcreteFunction, retracing diagnostics."""
from . import function as _function_module
from .function import ConcreteFunction, Function, function

__all__ = ["ConcreteFunction", "Function", "function", "_function_module"]
