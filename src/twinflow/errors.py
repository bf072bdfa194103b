"""``tw.errors``: TensorFlow's error classes (re-exports)."""
from .core.errors import (
                          AbortedError,
                          AlreadyExistsError,
                          CancelledError,
                          DataLossError,
                          DeadlineExceededError,
                          FailedPreconditionError,
                          InaccessibleTensorError,
                          InternalError,
                          InvalidArgumentError,
                          NotFoundError,
                          OperatorNotAllowedInGraphError,
                          OpError,
                          OutOfRangeError,
                          PermissionDeniedError,
                          ResourceExhaustedError,
                          UnauthenticatedError,
                          UnavailableError,
                          UnimplementedError,
                          UnknownError,
)

__all__ = ["AbortedError", "AlreadyExistsError", "CancelledError", "DataLossError",
           "DeadlineExceededError", "FailedPreconditionError", "InaccessibleTensorError",
           "InternalError", "InvalidArgumentError", "NotFoundError",
           "OperatorNotAllowedInGraphError", "OpError", "OutOfRangeError",
           "PermissionDeniedError", "ResourceExhaustedError", "UnauthenticatedError",
           "UnavailableError", "UnimplementedError", "UnknownError"]
