"""``keras.utils.get_file``: a file in Keras' cache (``~/.keras/<cache_subdir>``, or
``$KERAS_HOME``), downloaded from ``origin`` when it is missing (and the network allows),
checked against a hash and optionally extracted. Downloads are written to a temporary file
and renamed; archive members that would land outside the extraction folder are refused."""
from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile

from ..core.files import temp_path

__all__ = ["get_file", "hash_file", "validate_file"]


def keras_home() -> str:
    """Keras' cache root: ``$KERAS_HOME`` or ``~/.keras``.

    Returns:
        The folder path.
    """
    return os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")


def hash_file(fpath: str, algorithm: str = "sha256", chunk_size: int = 65535) -> str:
    """The hex digest of a file.

    Args:
        fpath: the file.
        algorithm: "sha256", "md5" or "auto" (sha256).
        chunk_size: bytes read at a time.

    Returns:
        The hex digest.
    """
    h = hashlib.md5() if algorithm == "md5" else hashlib.sha256()
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            h.update(chunk)
    return h.hexdigest()


def validate_file(fpath: str, file_hash: str, algorithm: str = "auto",
                  chunk_size: int = 65535) -> bool:
    """Whether a file's hash is ``file_hash`` ("auto": sha256 for 64 hex digits, else md5).

    Args:
        fpath: the file.
        file_hash: the expected hex digest.
        algorithm: "auto", "sha256" or "md5".
        chunk_size: bytes read at a time.

    Returns:
        True when it matches.
    """
    if algorithm == "auto":
        algorithm = "sha256" if len(file_hash) == 64 else "md5"
    return hash_file(fpath, algorithm, chunk_size) == str(file_hash)


def _inside(root: str, name: str) -> bool:
    root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(root, name))
    return target == root or target.startswith(root + os.sep)


def extract_archive(file_path: str, path: str = ".", archive_format="auto") -> bool:
    """Extracts a tar or zip archive into ``path``, refusing members that would land outside
    it (absolute names, ``..``, links pointing out).

    Args:
        file_path: the archive.
        path: the destination folder.
        archive_format: "auto", "tar", "zip", a list of those, or None (nothing).

    Returns:
        True when an archive was extracted.
    """
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else \
        [archive_format] if isinstance(archive_format, str) else list(archive_format)
    for fmt in formats:
        if fmt == "tar" and tarfile.is_tarfile(file_path):
            with tarfile.open(file_path) as archive:
                members = archive.getmembers()
                for m in members:
                    if not _inside(path, m.name) or (
                            (m.issym() or m.islnk()) and
                            not _inside(path, os.path.join(os.path.dirname(m.name),
                                                           m.linkname))):
                        raise ValueError(f"get_file: archive member {m.name!r} would be "
                                         f"extracted outside {path}")
                safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                _extract_all(path, lambda d, a=archive, ms=members, kw=safe: a.extractall(
                    d, members=ms, **kw))
            return True
        if fmt == "zip" and zipfile.is_zipfile(file_path):
            with zipfile.ZipFile(file_path) as archive:
                for name in archive.namelist():
                    if not _inside(path, name):
                        raise ValueError(f"get_file: archive member {name!r} would be "
                                         f"extracted outside {path}")
                _extract_all(path, archive.extractall)
            return True
    return False


def _extract_all(path: str, extract) -> None:
    """Extracts into a temporary sibling folder, then renames it into place."""
    parent = os.path.dirname(os.path.abspath(path)) or "."
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=".extract-")
    try:
        extract(tmp)
        if os.path.isdir(path):
            shutil.rmtree(path)
        os.replace(tmp, path)
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp)


def _download(origin: str, target: str) -> None:
    tmp = temp_path(target, "tmp")
    try:
        with urllib.request.urlopen(origin, timeout=60) as response, open(tmp, "wb") as out:
            shutil.copyfileobj(response, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise OSError(f"URL fetch failure on {origin}: {e}. The file is not in the local "
                      f"cache ({target}); place a copy there to work offline.") from e
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def get_file(fname=None, origin: str | None = None, untar: bool = False, md5_hash=None,
             file_hash=None, cache_subdir: str = "datasets", hash_algorithm: str = "auto",
             extract: bool = False, archive_format="auto", cache_dir=None,
             force_download: bool = False) -> str:
    """A file from Keras' cache, downloading it from ``origin`` if it is not there.

    Args:
        fname: the file name in the cache (default: the last part of ``origin``'s path).
        origin: the URL.
        untar: extract a tar archive (Keras' older spelling of ``extract``).
        md5_hash: an expected MD5 digest (older spelling of ``file_hash``).
        file_hash: the expected sha256 or md5 hex digest.
        cache_subdir: the sub-folder of the cache.
        hash_algorithm: "auto", "sha256" or "md5".
        extract: extract the archive (tar or zip).
        archive_format: "auto", "tar", "zip" or None.
        cache_dir: the cache root (default ``$KERAS_HOME`` or ``~/.keras``).
        force_download: download even when the file is cached.

    Returns:
        The path of the file, or of the extraction folder.
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    base = os.path.expanduser(os.fspath(cache_dir) if cache_dir is not None else keras_home())
    if os.path.isdir(base) and not os.access(base, os.W_OK):
        base = os.path.join(tempfile.gettempdir(), ".keras")
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    given = fname
    fname = os.fspath(fname) if fname is not None else ""
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(f"Can't parse the file name from the origin provided: "
                             f"'{origin}'.Please specify the `fname` argument.")
    elif os.sep in fname or fname in (".", ".."):
        raise ValueError(f"Paths are no longer accepted as the `fname` argument. To specify "
                         f"the file's parent directory, use the `cache_dir` argument. "
                         f"Received: fname={fname}")
    if extract or untar:
        if given and "." in fname:
            target = os.path.join(datadir, fname)
            extraction_dir = os.path.join(datadir, f"{fname[:fname.find('.')]}_extracted")
        else:
            extraction_dir = os.path.join(datadir, fname)
            target = os.path.join(datadir, f"{fname}_archive")
    else:
        target = os.path.join(datadir, fname)
    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and \
            not validate_file(target, file_hash, hash_algorithm):
        print(f"A local file was found, but it seems to be incomplete or outdated because the "
              f"{hash_algorithm} file hash does not match the original value of {file_hash} "
              "so we will re-download the data.")
        download = True
    if download:
        print(f"Downloading data from {origin}")
        _download(origin, target)
        if file_hash is not None and not validate_file(target, file_hash, hash_algorithm):
            raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} "
                             f"file hash does not match the provided value of {file_hash}.")
    if extract or untar:
        if not extract_archive(target, extraction_dir, "tar" if untar else archive_format):
            raise ValueError(f"get_file: could not extract {target} (not a "
                             f"{'tar' if untar else archive_format} archive)")
        return extraction_dir
    return target
