"""``tw.debugging``: assertions and numeric checks (re-exports)."""
import types as _types

from .function.parity import ParityDifference, ParityReport, check_parity
from .ops.debugging.asserts_more import (
    assert_rank_in,
    assert_same_float_dtype,
    disable_traceback_filtering,
    enable_traceback_filtering,
    get_log_device_placement,
    is_traceback_filtering_enabled,
)
from .ops.debugging_ops import (
    Assert,
    assert_all_finite,
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_scalar,
    assert_shapes,
    assert_type,
    check_numerics,
    disable_check_numerics,
    enable_check_numerics,
    is_numeric_tensor,
    set_log_device_placement,
)

__all__ = ["Assert", "assert_all_finite", "assert_equal", "assert_greater", "assert_greater_equal",
           "assert_integer", "assert_less", "assert_less_equal", "assert_near", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_none_equal", "assert_positive",
           "assert_proper_iterable", "assert_rank", "assert_rank_at_least", "assert_scalar",
           "assert_shapes", "assert_type", "check_numerics", "disable_check_numerics",
           "enable_check_numerics", "is_numeric_tensor", "set_log_device_placement",
           "assert_rank_in", "assert_same_float_dtype", "disable_traceback_filtering",
           "enable_traceback_filtering", "get_log_device_placement",
           "is_traceback_filtering_enabled"]

# tw.debugging.experimental: twinflow's eager/graph parity checker (not in TensorFlow).
experimental = _types.ModuleType("twinflow.debugging.experimental",
                                 "Experimental debugging tools (check_parity).")
experimental.check_parity = check_parity
experimental.ParityReport = ParityReport
experimental.ParityDifference = ParityDifference


def _experimental_getattr(name: str):
    # The tfdbg2 dumper (io/debug_events.py) loads on first use: ``import twinflow`` stays fast.
    if name in ("enable_dump_debug_info", "disable_dump_debug_info"):
        from .io import debug_events  # noqa: PLC0415  (loaded on first use)
        return getattr(debug_events, name)
    raise AttributeError(f"module 'twinflow.debugging.experimental' has no attribute {name!r}")


experimental.__getattr__ = _experimental_getattr
