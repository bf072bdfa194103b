"""TensorFlow's error classes (``tw.errors``)."""
from __future__ import annotations


class OpError(Exception):
    """An error raised while building or running an op; carries the op name when known."""

    error_code = 2

    def __init__(self, node_def=None, op=None, message: str = "", *args) -> None:
        # Accept TensorFlow's (node_def, op, message) signature and the plain (message) form.
        if message == "" and op is None and isinstance(node_def, str):
            message, node_def = node_def, None
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self) -> str:
        return self.message


class CancelledError(OpError):
    error_code = 1


class UnknownError(OpError):
    error_code = 2


class InvalidArgumentError(OpError, ValueError):
    error_code = 3


class DeadlineExceededError(OpError):
    error_code = 4


class NotFoundError(OpError):
    error_code = 5


class AlreadyExistsError(OpError):
    error_code = 6


class PermissionDeniedError(OpError):
    error_code = 7


class ResourceExhaustedError(OpError):
    error_code = 8


class FailedPreconditionError(OpError):
    error_code = 9


class AbortedError(OpError):
    error_code = 10


class OutOfRangeError(OpError, IndexError):
    error_code = 11


class UnimplementedError(OpError, NotImplementedError):
    error_code = 12


class InternalError(OpError):
    error_code = 13


class UnavailableError(OpError):
    error_code = 14


class DataLossError(OpError):
    error_code = 15


class UnauthenticatedError(OpError):
    error_code = 16


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (bool(), iteration...) on a symbolic tensor while tracing."""


class InaccessibleTensorError(ValueError):
    """A tensor from one graph was used in another (e.g. leaked out of a tw.function)."""


# TensorFlow's error codes (``tf.errors.INVALID_ARGUMENT``...), the values of ``error_code``.
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16
