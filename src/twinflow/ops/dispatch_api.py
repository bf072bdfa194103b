"""``tw.experimental.dispatch_for_api`` and friends: let twinflow's APIs accept your types.

A dispatchable API that cannot convert an argument looks for a target registered for the
argument types before raising: every elementwise function of ``tw.math``, the reductions
(``reduce_sum/mean/max/min/prod/all/any``) and the binary assertions (``assert_equal``...),
for any Python type (``tw.experimental.ExtensionType`` values included). Registration
is cheap and never slows calls with tensors (the registry is read only on that failure path).
"""
from __future__ import annotations

import inspect
import typing
from collections.abc import Callable

from .dispatch import register_api_target, register_elementwise, unregister

_NAMED = frozenset({"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
                    "reduce_all", "reduce_any"})


def _check_api(api) -> None:
    if getattr(api, "_tw_elementwise", None) is None and \
            getattr(api, "__name__", None) not in _NAMED:
        raise ValueError(f"Got {api!r}, which is not a twinflow API that supports dispatch "
                         "(the elementwise math functions and the reductions do)")


def dispatch_for_api(api, *signatures) -> Callable:
    """Decorator: the decorated function runs instead of ``api`` for arguments of the given
    types.

    Args:
        api: a dispatchable twinflow API (``tw.math.add``...).
        *signatures: dicts parameter name -> type (a class, ``typing.Union`` of classes, or
            ``list[cls]``); none: the target's own annotations.

    Returns:
        A decorator registering its function (which it returns unchanged).

    Raises:
        ValueError: ``api`` does not support dispatch, or the target's parameters differ from
            the API's.
    """
    _check_api(api)

    def decorator(target: Callable) -> Callable:
        api_params = list(inspect.signature(api).parameters)
        target_params = list(inspect.signature(target).parameters)
        if api_params != target_params:
            raise ValueError(f"Dispatch function's signature {target_params} does not match "
                             f"API's signature {api_params}.")
        sigs = signatures
        if not sigs:
            hints = typing.get_type_hints(target)
            sigs = ({p: hints[p] for p in target_params if p in hints},)
            if not sigs[0]:
                raise ValueError("dispatch_for_api needs signatures or a target with type "
                                 "annotations")
        for sig in sigs:
            unknown = set(sig) - set(api_params)
            if unknown:
                raise ValueError(f"Dispatch signature names parameters {sorted(unknown)} that "
                                 f"{api.__name__} does not have")
            register_api_target(api, dict(sig), target)
        return target
    return decorator


def _elementwise(kind, types: tuple) -> Callable:
    def decorator(handler: Callable) -> Callable:
        register_elementwise(kind, types, handler)
        return handler
    return decorator


def dispatch_for_unary_elementwise_apis(x_type) -> Callable:
    """Decorator: ``handler(api_func, x)`` runs for every unary elementwise API called with an
    ``x`` of ``x_type``.

    Args:
        x_type: a type (or tuple of types).

    Returns:
        A decorator registering the handler.
    """
    return _elementwise(1, (x_type,))


def dispatch_for_binary_elementwise_apis(x_type, y_type) -> Callable:
    """Decorator: ``handler(api_func, x, y)`` runs for every binary elementwise API called with
    ``x`` of ``x_type`` and ``y`` of ``y_type``.

    Args:
        x_type: the first argument's type.
        y_type: the second argument's type.

    Returns:
        A decorator registering the handler.
    """
    return _elementwise(2, (x_type, y_type))


def dispatch_for_binary_elementwise_assert_apis(x_type, y_type) -> Callable:
    """Decorator: ``handler(assert_func, x, y, ...)`` runs for the binary assertions
    (``assert_equal``, ``assert_less``...) called with ``x`` of ``x_type`` and ``y`` of
    ``y_type``.

    Args:
        x_type: the first argument's type.
        y_type: the second argument's type.

    Returns:
        A decorator registering the handler.
    """
    return _elementwise("assert", (x_type, y_type))


def unregister_dispatch_for(dispatch_target: Callable) -> None:
    """Removes every registration of ``dispatch_target``.

    Args:
        dispatch_target: a function registered by one of the ``dispatch_for_*`` decorators.

    Raises:
        ValueError: it was not registered.
    """
    if not unregister(dispatch_target):
        raise ValueError(f"Function {dispatch_target} was not registered using a "
                         "`dispatch_for_*` decorator.")
