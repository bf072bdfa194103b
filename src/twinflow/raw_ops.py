"""``tw.raw_ops``: each registered op by its TensorFlow name, called with keyword arguments
(``eager/raw_ops.py``)."""
from .eager.raw_ops import op_names as _op_names
from .eager.raw_ops import raw_op as _raw_op


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    fn = _raw_op(name)
    globals()[name] = fn
    return fn


def __dir__() -> list:
    return _op_names()
