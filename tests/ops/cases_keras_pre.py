"""Cases for the ops behind the Keras preprocessing layers (bucketize, string hashing, table
lookup, category encoding). Names start with ``kpre_``."""
import numpy as np

from twinflow.keras.layers.preprocessing import affine, kernels

from .harness import Case

WORDS = np.array([[b"a", b"hello world"], [b"", b"x" * 70]], dtype=object)
IPT = np.load(__file__.rsplit("/", 2)[0] + "/fixtures/keras_pre/ipt.npz")
TABLE = kernels.Table([b"a", b"", b"zz"], [5, 6, 7])


def _fast(x):
    return np.array([[939, 11], [263, 745]], np.int64)  # TensorFlow's to_hash_bucket_fast


def _strong(x):
    return np.array([[496, 749], [481, 432]], np.int64)  # to_hash_bucket_strong, key [3, 7]


CASES = [
    Case(lambda x: kernels.hash_bucket(x, 1000), [WORDS], _fast, name="kpre_hash_fast"),
    Case(lambda x: kernels.hash_bucket(x, 1000, (3, 7)), [WORDS], _strong,
         name="kpre_hash_strong"),
    Case(lambda x: kernels.bucketize(x, [0.0, 1.0, 2.5]),
         [np.array([[-1.0, 0.0, 0.5], [1.0, 2.5, 9.0]])],
         lambda x: np.digitize(x, [0.0, 1.0, 2.5]).astype(np.int32), name="kpre_bucketize"),
    Case(lambda x: kernels.table_lookup(x, TABLE, -1, "int64"), [WORDS],
         lambda x: np.array([[5, -1], [6, -1]], np.int64), name="kpre_lookup"),
    Case(lambda x: kernels.category_encode(x, 4, "count", "float32"),
         [np.array([[0, 1, 1], [3, 3, 2]], np.int64)],
         lambda x: np.array([[1, 2, 0, 0], [0, 0, 1, 2]], np.float32), name="kpre_count"),
    Case(lambda x: kernels.category_encode(x, 4, "one_hot", "float32"),
         [np.array([[0], [3]], np.int32)],
         lambda x: np.eye(4, dtype=np.float32)[[0, 3]], name="kpre_one_hot"),
    Case(lambda x: kernels.category_encode(x, 3, "multi_hot", "float32"),
         [np.array([0, 2, 2], np.int32)],
         lambda x: np.array([1, 0, 1], np.float32), name="kpre_multi_hot"),
    Case(lambda x, t: affine.affine_transform(x, t, "wrap", "bilinear", -1.0),
         [IPT["images"], IPT["transforms"]], lambda x, t: IPT["wrap_bilinear"], grad=(),
         rtol=1e-5, atol=1e-4, name="kpre_projective_transform"),
]
