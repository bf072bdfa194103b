"""``tw.linalg.LinearOperator`` and its subclasses: matrices known by their structure
(``base``: the shared API; ``structured``: operators of a tensor; ``circulant``: FFT-diagonal
operators; ``composed``: operators of operators)."""
from .base import LinearOperator
from .circulant import (
    LinearOperatorCirculant,
    LinearOperatorCirculant2D,
    LinearOperatorCirculant3D,
)
from .composed import (
    LinearOperatorAdjoint,
    LinearOperatorBlockDiag,
    LinearOperatorBlockLowerTriangular,
    LinearOperatorComposition,
    LinearOperatorInversion,
    LinearOperatorKronecker,
    LinearOperatorLowRankUpdate,
)
from .structured import (
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorHouseholder,
    LinearOperatorIdentity,
    LinearOperatorLowerTriangular,
    LinearOperatorPermutation,
    LinearOperatorScaledIdentity,
    LinearOperatorToeplitz,
    LinearOperatorTridiag,
    LinearOperatorZeros,
)

__all__ = ["LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag",
           "LinearOperatorBlockLowerTriangular", "LinearOperatorCirculant",
           "LinearOperatorCirculant2D", "LinearOperatorCirculant3D",
           "LinearOperatorComposition", "LinearOperatorDiag", "LinearOperatorFullMatrix",
           "LinearOperatorHouseholder", "LinearOperatorIdentity", "LinearOperatorInversion",
           "LinearOperatorKronecker", "LinearOperatorLowRankUpdate",
           "LinearOperatorLowerTriangular", "LinearOperatorPermutation",
           "LinearOperatorScaledIdentity", "LinearOperatorToeplitz", "LinearOperatorTridiag",
           "LinearOperatorZeros"]
