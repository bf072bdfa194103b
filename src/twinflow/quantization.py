"""``tw.quantization``: fake quantization for quantization-aware training, and integer
quantization (``quantize``/``dequantize``/``quantized_concat``) with TensorFlow's modes
(re-exports; docs/dtypes.md)."""
from .ops.quantization import (  # noqa: F401
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
)
from .ops.quantize_ops import (  # noqa: F401
    dequantize,
    quantize,
    quantize_and_dequantize,
    quantize_and_dequantize_v2,
    quantized_concat,
)
