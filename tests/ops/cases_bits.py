"""Cases for tw.bitcast and tw.fingerprint (fingerprints are TensorFlow 2.21's own outputs for
the same data, recorded when this was written)."""
import numpy as np

import twinflow as tw

from .harness import Case

F = np.array([[1.0, -2.5], [3.0, 0.0]], np.float32)
U8 = np.arange(8, dtype=np.uint8).reshape(2, 4)
TF_FINGERPRINTS = np.array([[76, 18, 253, 133, 168, 204, 240, 10],
                            [254, 162, 60, 240, 103, 244, 53, 255]], np.uint8)

CASES = [
    Case(lambda x: tw.bitcast(x, tw.uint8), [F], lambda x: x.view(np.uint8).reshape(2, 2, 4),
         grad=(), name="bitcast_to_smaller"),
    Case(lambda x: tw.bitcast(x, tw.int32), [U8], lambda x: x.view("<i4").reshape(2),
         name="bitcast_to_larger"),
    Case(lambda x: tw.bitcast(x, tw.int32), [F], lambda x: x.view(np.int32), grad=(),
         name="bitcast_same_size"),
    Case(lambda x: tw.fingerprint(x), [np.array([[1, 2], [3, 4]], np.int32)],
         lambda x: TF_FINGERPRINTS, name="fingerprint_rows"),
]
