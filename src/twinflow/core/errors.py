"""TensorFlow's error classes (``tw.errors``)."""
from __future__ import annotations

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


class OpError(Exception):
    """An error raised while building or running an op; carries the op name when known."""

    error_code = UNKNOWN

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


def _error(name: str, code: int, doc: str, *bases: type) -> type:
    """The OpError subclass for one of TensorFlow's error codes."""
    return type(name, (OpError, *bases), {"error_code": code, "__doc__": doc,
                                          "__module__": __name__, "__qualname__": name})


CancelledError = _error("CancelledError", CANCELLED, "The operation was cancelled.")
UnknownError = _error("UnknownError", UNKNOWN, "An error of no other kind.")
InvalidArgumentError = _error("InvalidArgumentError", INVALID_ARGUMENT,
                              "An argument was invalid (a bad value or shape).", ValueError)
DeadlineExceededError = _error("DeadlineExceededError", DEADLINE_EXCEEDED,
                               "A deadline expired before the operation completed.")
NotFoundError = _error("NotFoundError", NOT_FOUND, "A file or other entity was not found.")
AlreadyExistsError = _error("AlreadyExistsError", ALREADY_EXISTS,
                            "The entity to create already exists.")
PermissionDeniedError = _error("PermissionDeniedError", PERMISSION_DENIED,
                               "The caller may not run the operation.")
ResourceExhaustedError = _error("ResourceExhaustedError", RESOURCE_EXHAUSTED,
                                "A resource (memory, a quota) ran out.")
FailedPreconditionError = _error("FailedPreconditionError", FAILED_PRECONDITION,
                                 "The system is not in a state the operation needs "
                                 "(e.g. an uninitialized variable).")
AbortedError = _error("AbortedError", ABORTED, "The operation was aborted (e.g. a conflict).")
OutOfRangeError = _error("OutOfRangeError", OUT_OF_RANGE,
                         "The operation went past the valid range (e.g. the end of input).",
                         IndexError)
UnimplementedError = _error("UnimplementedError", UNIMPLEMENTED,
                            "The operation is not implemented or not supported.",
                            NotImplementedError)
InternalError = _error("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _error("UnavailableError", UNAVAILABLE,
                          "The service is unavailable for now (retrying may help).")
DataLossError = _error("DataLossError", DATA_LOSS, "Data was lost or corrupted.")
UnauthenticatedError = _error("UnauthenticatedError", UNAUTHENTICATED,
                              "The request has no valid credentials.")


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (bool(), iteration...) on a symbolic tensor while tracing."""


class InaccessibleTensorError(ValueError):
    """A tensor from one graph was used in another (e.g. leaked out of a tw.function)."""
