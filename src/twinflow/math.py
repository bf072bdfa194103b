"""``tw.math``: elementwise math and reductions (re-exports)."""
from .ops.array_ops import top_k  # noqa: F401
from .ops.math_ops import *  # noqa: F401,F403
from .ops.nn_ops import (  # noqa: F401  (TensorFlow lists these under tf.math too)
    l2_normalize,
    log_softmax,
    softmax,
    softplus,
    softsign,
)
from .ops.reduction_ops import *  # noqa: F401,F403
from .ops.segment_ops import *  # noqa: F401,F403,E402  (segment reductions, bincount)
