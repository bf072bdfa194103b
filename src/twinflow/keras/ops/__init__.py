"""``tw.keras.ops``: Keras 3's backend-independent ops, running on twinflow.

``keras.ops.numpy`` (NumPy's functions), ``keras.ops.nn`` (activations, convolutions, losses,
attention), ``keras.ops.linalg``, ``keras.ops.image`` and the core functions (control flow,
scatter, FFTs) are all reachable from here, as in Keras. Keras' dtype promotion applies
(``_common.py``): mixed dtypes promote as JAX does, where TensorFlow's own ops refuse them.
"""
from ...graph.tensor import Tensor
from ...ops.linalg_compose import logdet as _logdet
from . import image, linalg, nn, numpy  # noqa: F401  (submodules, in __all__)
from ._common import as_float as _as_float
from ._common import make as _make
from .core import *  # noqa: F403
from .core import __all__ as _core_all
from .linalg import *  # noqa: F403
from .linalg import __all__ as _linalg_all
from .nn import *  # noqa: F403
from .nn import __all__ as _nn_all
from .numpy import *  # noqa: F403
from .numpy import __all__ as _numpy_all
from .operation import KerasOperation, register_functions  # noqa: F401

_CORE_DOCS = {
    "cond": "``true_fn()`` if ``pred`` else ``false_fn()`` (traced as one If in a graph).",
    "map": "``f`` applied to each slice of ``xs`` along axis 0.",
    "scan": "JAX-style scan: ``f(carry, x) -> (carry, y)``; returns (carry, stacked ys).",
    "associative_scan": "Inclusive scan of an associative ``f`` along ``axis``.",
    "fori_loop": "``body_fun(i, val)`` for i in [lower, upper).",
    "while_loop": "Runs ``body`` while ``cond`` holds.",
    "switch": "Calls ``branches[index](*operands)``.",
    "slice": "The block of ``shape`` at ``start_indices``.",
    "slice_update": "``inputs`` with the block at ``start_indices`` replaced by ``updates``.",
    "scatter": "A zero tensor of ``shape`` with ``values`` at ``indices`` (summed).",
    "scatter_update": "``inputs`` with ``updates`` written at ``indices``.",
    "stop_gradient": "The value, with no gradient.",
    "custom_gradient": "Decorates ``f`` returning ``(value, grad_fn)``.",
    "convert_to_tensor": "``x`` as a tensor.", "convert_to_numpy": "``x`` as a NumPy array.",
    "is_tensor": "Whether ``x`` is a tensor.", "dtype": "The dtype name of ``x``.",
    "cast": "``x`` cast to ``dtype``.", "saturate_cast": "``x`` cast, clamping to the range.",
    "vectorized_map": "``function`` mapped over axis 0 of ``elements``.",
    "segment_sum": "Sums of the segments.", "segment_max": "Maxima of the segments.",
    "segment_min": "Minima of the segments.", "segment_prod": "Products of the segments.",
    "top_k": "``(values, indices)`` of the k largest along the last axis.",
    "in_top_k": "Whether each target is in the top k predictions.",
    "extract_sequences": "Overlapping frames of the last axis.",
    "fft": "FFT of the last axis of ``(real, imag)``; returns ``(real, imag)``.",
    "fft2": "2-D FFT of the last two axes of ``(real, imag)``.",
    "ifft2": "Inverse 2-D FFT of ``(real, imag)``.",
    "rfft": "FFT of a real signal; returns ``(real, imag)``.",
    "irfft": "Inverse of ``rfft`` from ``(real, imag)``.",
    "stft": "Short-time Fourier transform; returns ``(real, imag)``.",
    "istft": "Inverse short-time Fourier transform of ``(real, imag)``.",
}
_LINALG_DOCS = {
    "cholesky": "The Cholesky factor (lower, or upper if asked).",
    "cholesky_inverse": "The inverse of ``A`` from its Cholesky factor.",
    "det": "Determinants.", "eig": "Eigenvalues and eigenvectors.",
    "eigh": "Eigenvalues and eigenvectors of Hermitian matrices.", "inv": "Matrix inverses.",
    "jvp": "``(fun(*primals), J @ tangents)``.", "lstsq": "Least-squares solutions.",
    "lu_factor": "``(LU, pivots)`` of square matrices.", "matrix_rank": "Matrix ranks.",
    "norm": "Vector or matrix norms.", "pinv": "Pseudo-inverses.",
    "qr": "``(Q, R)`` of matrices.", "solve": "Solutions of ``a x = b``.",
    "solve_triangular": "Solutions of triangular systems.", "svd": "``(U, S, Vh)``.",
}
for _mod, _docs in ((core, _CORE_DOCS), (linalg, _LINALG_DOCS)):  # noqa: F405
    for _name, _doc in _docs.items():
        _fn = _make(_name, getattr(_mod, _name), _doc, _mod.__name__)
        globals()[_name] = _fn
        setattr(_mod, _name, _fn)
del _mod, _docs, _name, _doc, _fn


def logdet(x) -> Tensor:
    """``log(det(x))`` of Hermitian positive-definite matrices.

    Args:
        x: a batch of matrices.

    Returns:
        The log-determinants.
    """
    return _logdet(_as_float(x))


__all__ = sorted(set(_core_all + _linalg_all + _nn_all + _numpy_all) |
                 {"logdet", "image", "linalg", "nn", "numpy"})
register_functions({name: globals()[name] for name in __all__ if callable(globals()[name])})
