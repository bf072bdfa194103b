"""The former one-file debugging module, kept so ``twinflow.ops.debugging_ops`` imports keep
working.

The ops live by family in ``twinflow.ops.debugging`` (listed in ``ops/__init__.py``); this
module only re-exports them (``__all__`` is the public list).
"""
from __future__ import annotations

from .core import reexport
from .debugging import asserts as _asserts
from .debugging import numerics as _numerics
from .debugging import printing as _printing

reexport(globals(), _printing, _numerics, _asserts)

__all__ = ["print_v2", "format_tensor", "check_numerics", "enable_check_numerics",
           "disable_check_numerics", "Assert", "assert_equal", "assert_none_equal",
           "assert_less", "assert_less_equal", "assert_greater", "assert_greater_equal",
           "assert_near", "assert_integer", "assert_rank", "assert_rank_at_least",
           "assert_type", "assert_shapes",
           "assert_all_finite", "assert_scalar", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_proper_iterable",
           "is_numeric_tensor", "set_log_device_placement"]
