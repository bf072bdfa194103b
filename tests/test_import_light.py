"""``import twinflow`` stays light (issue 10: at most 0.2 s): heavy areas, optional libraries and
module-level work (schema parsing, logging) wait for their first use."""
import subprocess
import sys

# Loaded on first use, never by ``import twinflow``.
HEAVY = ["keras", "tensorflow", "google.protobuf", "ml_dtypes", "scipy", "h5py", "PIL", "onnx",
         "twinflow.keras", "twinflow.data", "twinflow.numpy_api", "twinflow.saved_model",
         "twinflow.onnx", "twinflow.summary", "twinflow.distribute", "twinflow.bench",
         "twinflow.autograph",
         "logging", "concurrent.futures"]


def _run(code: str) -> list:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split()


def test_import_twinflow_leaves_heavy_modules_unloaded():
    code = (f"import sys, twinflow; print(*[m for m in {HEAVY!r} if m in sys.modules] or ['-'])")
    assert _run(code) == ["-"]


def test_op_schemas_are_parsed_on_first_use():
    code = ("from twinflow.graph.registry import REGISTRY as R; import twinflow as tw; "
            "n = sum(op._schema_text is not None for op in R.values()); "
            "print(n > 300, R['AddV2']._schema_text is not None); "
            "assert (tw.constant([1]) + tw.constant([2])).numpy()[0] == 3; "
            "print(R['AddV2']._schema_text is None, R['AddV2'].schema.inputs[0].name)")
    assert _run(code) == ["True", "True", "True", "x"]
