"""AutoShardPolicy: each worker's part of a pipeline of global batches."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow import errors
from twinflow.data.autoshard import auto_shard

POLICY = tw.data.experimental.AutoShardPolicy


def _with_policy(ds, policy):
    options = tw.data.Options()
    options.experimental_distribute.auto_shard_policy = policy
    return ds.with_options(options)


def _batches(ds) -> list:
    return [b.tolist() for b in ds.as_numpy_iterator()]


def _write_files(tmp_path, n_files: int, per_file: int) -> list:
    names = []
    for f in range(n_files):
        name = str(tmp_path / f"part{f}.txt")
        with open(name, "w") as fh:
            fh.write("".join(f"{f * 100 + i}\n" for i in range(per_file)))
        names.append(name)
    return names


def test_data_policy_gives_each_worker_its_slice_of_every_global_batch():
    ds = _with_policy(tw.data.Dataset.range(10).batch(4), POLICY.DATA)
    parts = [_batches(auto_shard(ds, 2, w)) for w in (0, 1)]
    assert parts[0] == [[0, 1], [4, 5], [8]]
    assert parts[1] == [[2, 3], [6, 7], [9]]
    # three workers, uneven: the first slices take the extra elements
    three = [_batches(auto_shard(ds, 3, w)) for w in range(3)]
    assert [b[0] for b in three] == [[0, 1], [2], [3]]
    assert _batches(ds) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]  # the original is unchanged


def test_auto_without_files_is_data_and_structures_are_sliced_alike():
    x = np.arange(12).reshape(6, 2)
    ds = tw.data.Dataset.from_tensor_slices((x, np.arange(6))).batch(6)
    (xb, yb), = list(auto_shard(ds, 2, 1).as_numpy_iterator())
    np.testing.assert_array_equal(xb, x[3:])
    np.testing.assert_array_equal(yb, [3, 4, 5])


def test_file_policy_deals_out_reader_files_and_rebatches(tmp_path):
    names = _write_files(tmp_path, 4, 3)
    ds = _with_policy(tw.data.TextLineDataset(names).map(tw.strings.to_number).batch(4),
                      POLICY.FILE)
    w0 = [v for b in auto_shard(ds, 2, 0).as_numpy_iterator() for v in b]
    w1 = [v for b in auto_shard(ds, 2, 1).as_numpy_iterator() for v in b]
    assert w0 == [0, 1, 2, 200, 201, 202] and w1 == [100, 101, 102, 300, 301, 302]
    assert [len(b) for b in auto_shard(ds, 2, 0).as_numpy_iterator()] == [2, 2, 2]
    with pytest.raises(errors.InvalidArgumentError, match="4 file\\(s\\) for 5 workers"):
        auto_shard(ds, 5, 0)


def test_auto_shards_list_files_names(tmp_path):
    _write_files(tmp_path, 2, 2)
    files = tw.data.Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False)
    ds = files.interleave(tw.data.TextLineDataset, cycle_length=1).batch(2)
    assert _batches(auto_shard(ds, 2, 1)) == [[b"100"], [b"101"]]


def test_file_policy_without_files_is_an_error():
    ds = _with_policy(tw.data.Dataset.range(8).batch(4), POLICY.FILE)
    with pytest.raises(errors.NotFoundError, match="found no files to shard"):
        auto_shard(ds, 2, 0)


def test_off_and_hint():
    off = _with_policy(tw.data.Dataset.range(8).batch(4), POLICY.OFF)
    assert _batches(auto_shard(off, 2, 1)) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    with pytest.raises(errors.InvalidArgumentError, match="not divisible by the 3 workers"):
        auto_shard(off, 3, 0)
    with pytest.raises(errors.InvalidArgumentError, match="has no batch"):
        auto_shard(_with_policy(tw.data.Dataset.range(8), POLICY.OFF), 2, 0)
    hint = tw.data.experimental.SHARD_HINT
    hinted = _with_policy(tw.data.Dataset.range(8).shard(hint, hint).batch(2), POLICY.HINT)
    assert _batches(auto_shard(hinted, 2, 1)) == [[1, 3], [5, 7]]
    with pytest.raises(errors.InvalidArgumentError, match="placeholder"):
        list(hinted)
    assert auto_shard(hinted, 1, 0) is hinted
    with pytest.raises(ValueError, match="worker index 2"):
        auto_shard(hinted, 2, 2)
