"""Circulant operators (1-D, and block-circulant 2-D/3-D) given by their spectrum.

A circulant matrix is diagonalized by the DFT: ``A = F^H diag(spectrum) F``, so ``A x`` is
``ifft(spectrum * fft(x))`` and solving divides instead. The 2-D and 3-D operators act on
vectors of length ``N0 * N1 (* N2)`` reshaped to the spectrum's block shape.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.props import readonly
from ...core.shapes import TensorShape
from ...graph.tensor import Tensor, TensorLike
from ..array_ops import concat, reshape, shape
from ..array_ops import transpose as _transpose
from ..core import convert
from ..debugging.asserts import assert_less
from ..linalg_ops import adjoint as _adjoint
from ..math_ops import abs, cast, conj, divide, imag, log, multiply, real
from ..reduction_ops import reduce_max, reduce_prod, reduce_sum
from ..signal.fft import fft, fft2d, fft3d, ifft, ifft2d, ifft3d
from .base import LinearOperator

_FFT = {1: (fft, ifft), 2: (fft2d, ifft2d), 3: (fft3d, ifft3d)}
_COMPLEX = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128,
            dtypes.float16: dtypes.complex64}


def _swap(x: Tensor) -> Tensor:
    rank = x.shape.rank
    return _transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])


class _BaseCirculant(LinearOperator):
    _depth = 1

    def __init__(self, spectrum: TensorLike, input_output_dtype=dtypes.complex64,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None) -> None:
        spec = convert(spectrum)
        if not spec.dtype.is_complex:
            if not spec.dtype.is_floating:
                raise TypeError(f"spectrum must be float or complex, got {spec.dtype.name}")
            if is_self_adjoint is False:
                raise ValueError("A real spectrum always gives a self-adjoint operator.")
            is_self_adjoint = True
            spec = cast(spec, _COMPLEX[spec.dtype])
        if spec.shape.rank is not None and spec.shape.rank < self._depth:
            raise ValueError(f"spectrum must have rank >= {self._depth}, got shape "
                             f"{spec.shape}")
        if is_square is False:
            raise ValueError("A circulant operator is always square.")
        self._spec = spec
        super().__init__(input_output_dtype, [spec], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name,
                         {"spectrum": spectrum, "input_output_dtype": input_output_dtype})

    spectrum = readonly("_spec", "The (complex) spectrum.")
    block_depth = readonly("_depth", "1, 2 or 3: the number of circulant levels.")

    @property
    def block_shape(self) -> TensorShape:
        """The spectrum's trailing ``block_depth`` dims."""
        return TensorShape(self._spec.shape.as_list()[-self._depth:])

    def block_shape_tensor(self) -> Tensor:
        """The block shape as a tensor.

        Returns:
            int32 vector.
        """
        return shape(self._spec)[-self._depth:]

    def _shape(self):
        s = self._spec.shape.as_list()
        blocks = s[-self._depth:]
        n = None if None in blocks else int(np.prod(blocks))
        return TensorShape(s[:-self._depth] + [n, n])

    def _out(self, y: Tensor) -> Tensor:
        return y if self.dtype.is_complex else cast(real(y), self.dtype)

    def _apply(self, x: Tensor, adjoint: bool, adjoint_arg: bool, inverse: bool) -> Tensor:
        x = _adjoint(x) if adjoint_arg else x
        cdt = self._spec.dtype
        xt = _swap(cast(x, cdt))                                       # [..., R, n]
        blocks = convert(np.array(self.block_shape.as_list(), np.int32))
        xb = reshape(xt, concat([shape(xt)[:-1], blocks], 0))
        forward, backward = _FFT[self._depth]
        spec = conj(self._spec) if adjoint else self._spec
        spec = reshape(spec, concat([shape(spec)[:-self._depth], [1], blocks], 0))
        f = forward(xb)
        y = backward(divide(f, spec) if inverse else multiply(f, spec))
        y = reshape(y, concat([shape(y)[:-self._depth], [-1]], 0))      # [..., R, n]
        return self._out(_swap(y))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._apply(x, adjoint, adjoint_arg, False)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._apply(rhs, adjoint, adjoint_arg, True)

    def _flat_spectrum(self) -> Tensor:
        s = shape(self._spec)
        return reshape(self._spec, concat([s[:-self._depth], [-1]], 0))

    def _determinant(self):
        return self._out(reduce_prod(self._flat_spectrum(), axis=-1))

    def _log_abs_determinant(self):
        return cast(reduce_sum(log(abs(self._flat_spectrum())), axis=-1),
                    self.dtype.real_dtype)

    def _trace(self):
        return self._out(reduce_sum(self._flat_spectrum(), axis=-1))

    def _eigvals(self):
        return self._out(self._flat_spectrum())

    def convolution_kernel(self, name: str = "convolution_kernel") -> Tensor:
        """The first column of the (block) circulant matrix, shaped like the spectrum.

        Args:
            name: unused label.

        Returns:
            ``ifft`` of the spectrum, in the operator's dtype.
        """
        return self._out(_FFT[self._depth][1](self._spec))

    def assert_hermitian_spectrum(self, name: str = "assert_hermitian_spectrum") -> object:
        """Checks the spectrum makes a real operator (its kernel has no imaginary part).

        Args:
            name: unused label.

        Returns:
            The assertion.
        """
        k = _FFT[self._depth][1](self._spec)
        tol = 100 * np.finfo(self._spec.dtype.real_dtype.np).eps
        scale = reduce_max(abs(self._spec)) + 1
        return assert_less(reduce_max(abs(imag(k))), tol * scale,
                           message="Spectrum was not Hermitian")


def _circulant(depth: int, summary: str, spectrum: str) -> type:
    """The public class of ``depth`` circulant levels (its ``name`` default is its own name)."""
    cls_name = "LinearOperatorCirculant" + ("", "2D", "3D")[depth - 1]

    def __init__(self, spectrum: TensorLike, input_output_dtype=dtypes.complex64,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name: str = cls_name) -> None:
        _BaseCirculant.__init__(self, spectrum, input_output_dtype, is_non_singular,
                                is_self_adjoint, is_positive_definite, is_square, name)
    __init__.__qualname__ = f"{cls_name}.__init__"
    doc = f"""{summary}

    Args:
        spectrum: {spectrum}
        input_output_dtype: the dtype of the operator (real: the imaginary part is dropped).
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name.
    """
    return type(cls_name, (_BaseCirculant,), {"__doc__": doc, "__module__": __name__,
                                              "__qualname__": cls_name, "_depth": depth,
                                              "__init__": __init__})


LinearOperatorCirculant = _circulant(
    1, "A circulant ``[N, N]`` operator given by its spectrum ``[..., N]``.",
    "``[..., N]`` float or complex eigenvalues (``fft`` of the first column).")
LinearOperatorCirculant2D = _circulant(
    2, "A block-circulant operator with circulant blocks; spectrum ``[..., N0, N1]``.",
    "``[..., N0, N1]`` (``fft2d`` of the kernel).")
LinearOperatorCirculant3D = _circulant(
    3, "A three-level block-circulant operator; spectrum ``[..., N0, N1, N2]``.",
    "``[..., N0, N1, N2]`` (``fft3d`` of the kernel).")
