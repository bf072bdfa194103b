"""``tw.quantization``: fake quantization for quantization-aware training (re-exports)."""
from .ops.quantization import (  # noqa: F401
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
)
