"""``tw.io``: files (``gfile``, read_file/write_file), TFRecord files, ``tf.train.Example``
parsing, tensor serialization and decoders (CSV, raw bytes, compressed data, images)."""
from . import gfile
from .codecs import (
                     decode_base64,
                     decode_compressed,
                     decode_csv,
                     decode_raw,
                     encode_base64,
                     matching_files,
                     parse_tensor,
                     read_file,
                     serialize_tensor,
                     write_file,
)
from .graph_io import write_graph
from .image import (
                     decode_bmp,
                     decode_gif,
                     decode_image,
                     decode_jpeg,
                     decode_png,
                     encode_jpeg,
                     encode_png,
                     is_jpeg,
)
from .misc import (
                     decode_and_crop_jpeg,
                     decode_json_example,
                     decode_webp,
                     extract_jpeg_shape,
                     match_filenames_once,
)
from .parsing import (
                     FixedLenFeature,
                     FixedLenSequenceFeature,
                     RaggedFeature,
                     SparseFeature,
                     VarLenFeature,
                     parse_example,
                     parse_sequence_example,
                     parse_single_example,
                     parse_single_sequence_example,
)
from .sparse_codecs import deserialize_many_sparse, serialize_many_sparse, serialize_sparse
from .tfrecord import TFRecordOptions, TFRecordWriter, tf_record_iterator

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "RaggedFeature", "SparseFeature",
           "TFRecordOptions", "TFRecordWriter", "VarLenFeature", "decode_base64", "decode_bmp",
           "decode_compressed", "decode_csv", "decode_gif", "decode_image", "decode_jpeg",
           "decode_png", "decode_raw", "encode_base64", "encode_jpeg", "encode_png", "gfile",
           "is_jpeg", "matching_files", "parse_example", "parse_sequence_example",
           "parse_single_example", "parse_single_sequence_example", "parse_tensor",
           "read_file", "serialize_tensor", "tf_record_iterator", "write_file",
           "decode_and_crop_jpeg", "decode_json_example", "decode_webp", "extract_jpeg_shape",
           "match_filenames_once", "write_graph", "deserialize_many_sparse",
           "serialize_many_sparse", "serialize_sparse"]
