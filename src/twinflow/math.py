"""``tw.math``: elementwise math and reductions (re-exports)."""
from . import math_special as special  # noqa: F401,E402  (tf.math.special)
from .ops.array_ops import top_k  # noqa: F401
from .ops.math.sequence import (  # noqa: F401,E402
    angle,
    confusion_matrix,
    cumulative_logsumexp,
    invert_permutation,
    is_non_decreasing,
    is_strictly_increasing,
    lbeta,
)
from .ops.math.special import (  # noqa: F401,E402
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    digamma,
    erfcinv,
    erfinv,
    igamma,
    igammac,
    lgamma,
    ndtri,
    nextafter,
    polygamma,
    xlog1py,
    zeta,
)
from .ops.math_ops import *  # noqa: F401,F403
from .ops.misc16 import betainc, sobol_sample  # noqa: F401,E402
from .ops.nn.isotonic_approx import approx_max_k, approx_min_k  # noqa: F401,E402
from .ops.nn.normalization import in_top_k, zero_fraction  # noqa: F401,E402
from .ops.nn_ops import (  # noqa: F401  (TensorFlow lists these under tf.math too)
    l2_normalize,
    log_softmax,
    softmax,
    softplus,
    softsign,
)
from .ops.reduction_ops import *  # noqa: F401,F403
from .ops.segment_ops import *  # noqa: F401,F403,E402  (segment reductions, bincount)
