"""tw.io ops: string/bytes in and out (no gradients), checked by the tests of tests/io."""
CASES: list = []

_FILES = "tests/io/test_files_and_codecs.py"
COVERED_ELSEWHERE = {
    "ReadFile": f"{_FILES}::test_read_write_file_eager_and_in_function",
    "WriteFile": f"{_FILES}::test_read_write_file_eager_and_in_function",
    "SerializeTensor": f"{_FILES}::test_serialize_parse_tensor_round_trip",
    "ParseTensor": f"{_FILES}::test_serialize_parse_tensor_round_trip",
    "DecodeRaw": f"{_FILES}::test_decode_csv_raw_compressed_base64",
    "DecodeCSV": f"{_FILES}::test_decode_csv_raw_compressed_base64",
    "DecodeCompressed": f"{_FILES}::test_decode_csv_raw_compressed_base64",
    "EncodeBase64": f"{_FILES}::test_decode_csv_raw_compressed_base64",
    "DecodeBase64": f"{_FILES}::test_decode_csv_raw_compressed_base64",
    "DecodeImage": f"{_FILES}::test_images_png_jpeg_gif_bmp",
    "EncodeImage": f"{_FILES}::test_images_png_jpeg_gif_bmp",
    "SerializeSparse": "tests/io/test_parse_composites.py::test_serialize_sparse_like_tensorflow",
    "DeserializeManySparse": "tests/io/test_parse_composites.py::"
                             "test_serialize_sparse_like_tensorflow",
    "ParseExample": "tests/io/test_tfrecord_fixtures.py::test_reads_tensorflow_examples",
    "ParseSequenceExample": "tests/io/test_tfrecord_fixtures.py::test_sequence_example_and_"
                            "tensors_from_tensorflow",
}
