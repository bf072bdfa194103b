"""Which ops take bfloat16 follows TensorFlow 2.21's op definitions: an op attr admits
bfloat16 exactly when TensorFlow's does, for every float op (an attr that admits half or float)
twinflow registers. ``tests/fixtures/dtypes/tf_bfloat16_ops.txt`` is the extract
(``make_fixtures.py --ops`` beside it)."""
from __future__ import annotations

import pathlib

from twinflow.core import dtypes
from twinflow.graph import registry

FIXTURE = pathlib.Path(__file__).parents[1] / "fixtures" / "dtypes" / "tf_bfloat16_ops.txt"


def test_bfloat16_where_tensorflow_has_it():
    registry.load_all_op_families()
    tf_allows = {tuple(line.split()) for line in FIXTURE.read_text().splitlines()
                 if line and not line.startswith("#")}
    known = {op for op, _ in tf_allows} | {line.split()[0] for line in (
        pathlib.Path(__file__).parents[1] / "fixtures" / "graph" / "tf_op_signatures.txt"
    ).read_text().splitlines() if line and not line.startswith("#")}
    extra, missing = [], []
    for name, opdef in sorted(registry.REGISTRY.items()):
        schema = opdef.schema
        if schema is None or name not in known:
            continue
        for spec in schema.attrs.values():
            if spec.kind != "type" or spec.allowed is None:
                continue
            has = dtypes.bfloat16 in spec.allowed
            tf_has = (name, spec.tf_name) in tf_allows
            if has and not tf_has:
                extra.append(f"{name}.{spec.tf_name}")
            if tf_has and not has and spec.allowed & {dtypes.float16, dtypes.float32}:
                missing.append(f"{name}.{spec.tf_name}")
    assert not extra, f"bfloat16 allowed where TensorFlow does not: {extra}"
    assert not missing, f"bfloat16 refused where TensorFlow allows it: {missing}"
