"""``Dataset.save``/``load`` and ``snapshot``: elements on disk as NumPy archives.

A saved dataset is a folder holding ``spec.json`` (the element structure, dtypes, shapes and
the number of elements) and ``elements-NNNNN.npz`` shards. Loading never unpickles (strings
are stored as bytes plus lengths). The folder is written under a temporary name and renamed
into place, so a reader sees the old dataset or the new one, never half of one.
"""
from __future__ import annotations

import json
import os
import zipfile

import numpy as np

from ..core import dtypes, errors, files
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..ops.ragged.tensor import RaggedTensorSpec
from ..ops.sparse.tensor import SparseTensorSpec
from .dataset import Dataset
from .registry import register_node
from .structure import component_specs, element_components, is_composite_spec, pack_components
from .transforms import Unary

_SHARD = 1000
# The composite specs a saved spec may name (looked up by name, never evaluated).
_COMPOSITES = {c.__name__: c for c in (RaggedTensorSpec, SparseTensorSpec)}


def _param_to_json(p):
    if isinstance(p, TensorShape):
        return {"shape": p.as_list() if p.rank is not None else None}
    if isinstance(p, dtypes.DType):
        return {"dtype": p.name}
    if p is None or isinstance(p, (bool, int, str)):
        return p
    raise TypeError(f"Dataset.save: a spec parameter {p!r} cannot be saved")


def _param_from_json(j):
    if isinstance(j, dict) and set(j) == {"shape"}:
        return TensorShape(j["shape"])
    if isinstance(j, dict) and set(j) == {"dtype"}:
        return dtypes.as_dtype(j["dtype"])
    if j is None or isinstance(j, (bool, int, str)):
        return j
    raise errors.DataLossError(None, None, f"Dataset.load: bad spec parameter {j!r}")


def _spec_to_json(spec):
    if isinstance(spec, dict):
        return {"t": "dict", "keys": list(spec), "items": [_spec_to_json(v)
                                                           for v in spec.values()]}
    if isinstance(spec, tuple):
        return {"t": "tuple", "items": [_spec_to_json(v) for v in spec]}
    if is_composite_spec(spec) and type(spec).__name__ in _COMPOSITES:
        # (saved as its components; the spec's parameters rebuild it)
        return {"t": "composite", "type": type(spec).__name__,
                "params": [_param_to_json(p) for p in spec._serialize()]}
    if not isinstance(spec, TensorSpec):
        raise TypeError(f"Dataset.save: elements of spec {spec} cannot be saved")
    return {"t": "leaf", "dtype": spec.dtype.name, "shape": spec.shape.as_list()
            if spec.shape.rank is not None else None}


def _spec_from_json(j):
    t = j.get("t") if isinstance(j, dict) else None
    if t == "dict":
        return {str(k): _spec_from_json(v) for k, v in zip(j["keys"], j["items"])}
    if t == "tuple":
        return tuple(_spec_from_json(v) for v in j["items"])
    if t == "leaf":
        return TensorSpec(TensorShape(j["shape"]), dtypes.as_dtype(j["dtype"]))
    if t == "composite" and j.get("type") in _COMPOSITES:
        try:
            return _COMPOSITES[j["type"]](*[_param_from_json(p) for p in j["params"]])
        except (TypeError, ValueError) as e:
            raise errors.DataLossError(None, None, f"Dataset.load: bad spec entry {j!r}: "
                                       f"{e}") from None
    raise errors.DataLossError(None, None, f"Dataset.load: bad spec entry {j!r}")


def _write_shard(folder: str, index: int, items: list) -> None:
    arrays = {}
    for i, e in enumerate(items):
        for k, a in enumerate(element_components(e)):
            a = np.asarray(a)
            if a.dtype == object:
                flat = [bytes(x) for x in a.reshape(-1)]
                arrays[f"{i}_{k}_s"] = np.frombuffer(b"".join(flat), np.uint8)
                arrays[f"{i}_{k}_n"] = np.asarray([len(x) for x in flat], np.int64)
                arrays[f"{i}_{k}_shape"] = np.asarray(a.shape, np.int64)
            else:
                arrays[f"{i}_{k}"] = a
    with open(os.path.join(folder, f"elements-{index:05d}.npz"), "wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())


def _read_shard(path: str, spec, count: int) -> list:
    n_leaves = len(component_specs(spec))
    out = []
    with np.load(path, allow_pickle=False) as z:
        for i in range(count):
            vals = []
            for k in range(n_leaves):
                if f"{i}_{k}" in z:
                    vals.append(z[f"{i}_{k}"])
                    continue
                data, lens = z[f"{i}_{k}_s"].tobytes(), z[f"{i}_{k}_n"]
                ends = np.cumsum(lens)
                parts = [data[e - n:e] for e, n in zip(ends.tolist(), lens.tolist())]
                vals.append(np.asarray(parts + [None], dtype=object)[:-1]
                            .reshape(tuple(z[f"{i}_{k}_shape"])))
            _check_element(vals, component_specs(spec))
            out.append(pack_components(spec, vals))
    return out


def _check_element(vals: list, specs: list) -> None:
    """Each value has its spec's dtype and a compatible shape (a file that does not match its
    own spec is corrupt: the elements would break what the spec promises)."""
    for v, spec in zip(vals, specs):
        dt = spec.dtype
        same = v.dtype.kind in "OSU" if dt == dtypes.string else v.dtype == dt.np
        if not same or not spec.shape.is_compatible_with(TensorShape(v.shape)):
            raise ValueError(f"an element of dtype {v.dtype} and shape {v.shape} does not "
                             f"match the saved spec {spec}")


def _write_folder(ds: Dataset, path: str, elements) -> None:
    """Streams the shards into ``core.files.atomic_dir`` (not all held in memory), which swaps
    the folder in as a whole."""
    with files.atomic_dir(path) as tmp:
        buf: list = []
        shard = total = 0
        for e in elements:
            buf.append(e)
            if len(buf) == _SHARD:
                _write_shard(tmp, shard, buf)
                shard, total, buf = shard + 1, total + len(buf), []
        if buf:
            _write_shard(tmp, shard, buf)
            total += len(buf)
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump({"spec": _spec_to_json(ds.element_spec), "count": total,
                       "shard": _SHARD}, f)
            f.flush()
            os.fsync(f.fileno())


def _check(compression, *unsupported) -> None:
    if compression not in (None, ""):
        raise NotImplementedError("Dataset.save/load/snapshot: compression is not supported "
                                  "(shards are NumPy archives)")
    if any(u is not None for u in unsupported):
        raise NotImplementedError("Dataset.save/load: shard_func, reader_func and "
                                  "checkpoint_args are not supported")


@register_node
def save(ds: Dataset, path: str, compression, shard_func, checkpoint_args) -> None:
    """Writes the elements of ``ds`` under ``path`` (see the module docstring).

    Args:
        ds: the dataset.
        path: the folder.
        compression: must be None.
        shard_func: must be None.
        checkpoint_args: must be None.
    """
    _check(compression, shard_func, checkpoint_args)
    _write_folder(ds, path, ds._gen())


@register_node
def load(path: str, element_spec, compression, reader_func) -> Dataset:
    """A dataset read from a folder ``save`` wrote.

    Args:
        path: the folder.
        element_spec: if given, must equal the saved spec.
        compression: must be None.
        reader_func: must be None.

    Returns:
        The dataset.
    """
    _check(compression, reader_func)
    return _Saved(os.fspath(path), element_spec)


class _Saved(Dataset):
    def __init__(self, path: str, element_spec) -> None:
        files.recover(path)  # (a save killed mid-swap left the previous version aside)
        meta_path = os.path.join(path, "spec.json")
        try:
            with open(meta_path) as f:
                meta = json.load(f)
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"Dataset.load: {meta_path} not found (no "
                                       "dataset saved there)") from None
        except (ValueError, UnicodeDecodeError, RecursionError) as e:
            raise errors.DataLossError(None, None, f"Dataset.load: {meta_path}: {e}") from None
        if not isinstance(meta, dict) or not isinstance(meta.get("count"), int) or \
                not isinstance(meta.get("shard"), int) or meta["shard"] <= 0:
            raise errors.DataLossError(None, None, f"Dataset.load: {meta_path} is malformed")
        shards = sum(1 for name in os.listdir(path)
                     if name.startswith("elements-") and name.endswith(".npz"))
        if not 0 <= meta["count"] <= shards * meta["shard"]:
            raise errors.DataLossError(None, None, f"Dataset.load: {meta_path} declares "
                                       f"{meta['count']} elements, but {shards} shard files "
                                       f"hold at most {shards * meta['shard']}")
        self._path, self._meta = path, meta
        try:
            self._spec_value = _spec_from_json(meta.get("spec"))
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as e:
            raise errors.DataLossError(None, None, f"Dataset.load: {meta_path}: bad element "
                                       f"spec ({e})") from None
        if element_spec is not None and element_spec != self._spec_value:
            raise ValueError(f"Dataset.load: element_spec {element_spec} does not match the "
                             f"saved {self._spec_value}")

    def _gen(self):
        n, shard = self._meta["count"], self._meta["shard"]
        for s in range(-(-n // shard)):
            count = min(shard, n - s * shard)
            shard_path = os.path.join(self._path, f"elements-{s:05d}.npz")
            try:
                items = _read_shard(shard_path, self._spec_value, count)
            except (OSError, KeyError, ValueError, TypeError, MemoryError,
                    zipfile.BadZipFile, EOFError) as e:
                raise errors.DataLossError(None, None, f"Dataset.load: {shard_path}: {e}") \
                    from None
            yield from items

    def _cardinality(self) -> int:
        return self._meta["count"]

    def _spec(self):
        return self._spec_value


@register_node
class Snapshot(Unary):
    """Reads ``path`` if a snapshot is there; else passes the input through, writing the
    snapshot when a pass completes."""

    def __init__(self, input_dataset: Dataset, path: str, compression) -> None:
        super().__init__(input_dataset)
        _check(compression)
        self._path = os.fspath(path)

    def _gen(self):
        if os.path.exists(os.path.join(self._path, "spec.json")):
            yield from _Saved(self._path, None)._gen()
            return
        items = []
        for e in self._input._gen():
            items.append(e)
            yield e
        _write_folder(self, self._path, items)


__all__ = ["save", "load", "Snapshot"]
