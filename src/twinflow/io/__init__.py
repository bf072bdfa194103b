"""``tw.io``: files (``gfile``, read_file/write_file), TFRecord files, ``tf.train.Example``
parsing, tensor serialization and decoders (CSV, raw bytes, compressed data, images)."""
from . import gfile
from .tfrecord import TFRecordOptions, TFRecordWriter, tf_record_iterator

__all__ = ["TFRecordOptions", "TFRecordWriter", "gfile", "tf_record_iterator"]
