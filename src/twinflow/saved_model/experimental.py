"""``tw.saved_model.experimental``: fingerprints, ``TrackableResource``, ``VariablePolicy``."""
from __future__ import annotations

import dataclasses
import os

from ..core import errors
from .options import FINGERPRINT_FILENAME, TrackableResource, VariablePolicy
from .protos import saved_model_message

__all__ = ["Fingerprint", "read_fingerprint", "TrackableResource", "VariablePolicy"]


@dataclasses.dataclass(repr=False, eq=False)
class Fingerprint:
    """A SavedModel's fingerprint (``fingerprint.pb``): hashes of its parts.

    Args:
        saved_model_checksum: hash of saved_model.pb.
        graph_def_program_hash: hash of the GraphDef.
        signature_def_hash: hash of the SignatureDefs.
        saved_object_graph_hash: hash of the SavedObjectGraph.
        checkpoint_hash: hash of the variables' index.
        version: the fingerprint format's version.
    """

    saved_model_checksum: int | None = None
    graph_def_program_hash: int | None = None
    signature_def_hash: int | None = None
    saved_object_graph_hash: int | None = None
    checkpoint_hash: int | None = None
    version: int | None = None

    def singleprint(self) -> str:
        """The hashes joined with ``/`` (TensorFlow's single-string fingerprint).

        Returns:
            The string.
        """
        return "/".join(str(x) for x in (self.graph_def_program_hash, self.signature_def_hash,
                                         self.saved_object_graph_hash, self.checkpoint_hash))

    def __repr__(self) -> str:
        return f"Fingerprint({self.singleprint()})"


def read_fingerprint(export_dir: str) -> Fingerprint:
    """Reads ``fingerprint.pb`` of a SavedModel.

    Args:
        export_dir: the SavedModel directory.

    Returns:
        The Fingerprint.

    Raises:
        FileNotFoundError: the SavedModel has no fingerprint.
        DataLossError: the file is corrupt.
    """
    path = os.path.join(os.fspath(export_dir), FINGERPRINT_FILENAME)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"SavedModel Fingerprint Error: {path} does not exist")
    proto = saved_model_message("FingerprintDef")()
    try:
        with open(path, "rb") as f:
            proto.ParseFromString(f.read())
    except Exception as e:  # noqa: BLE001  (protobuf's DecodeError)
        raise errors.DataLossError(None, None, f"{path} is not a valid fingerprint: "
                                               f"{e}") from None
    return Fingerprint(proto.saved_model_checksum, proto.graph_def_program_hash,
                       proto.signature_def_hash, proto.saved_object_graph_hash,
                       proto.checkpoint_hash, proto.version.producer)
