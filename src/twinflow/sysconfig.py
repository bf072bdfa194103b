"""``tw.sysconfig``: how twinflow was built. It is pure Python on NumPy: no C++ library to
compile or link custom ops against (custom ops are Python declarations, ``register_op``)."""
from __future__ import annotations

import os

__all__ = ["CXX11_ABI_FLAG", "CXX_VERSION", "MONOLITHIC_BUILD", "get_build_info",
           "get_compile_flags", "get_include", "get_lib", "get_link_flags"]

CXX11_ABI_FLAG = 0  # no C++ library
CXX_VERSION = 0
MONOLITHIC_BUILD = 0


def get_build_info() -> dict:
    """What the build supports.

    Returns:
        ``{"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False}``.
    """
    return {"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False}


def get_lib() -> str:
    """The folder of the installed twinflow package.

    Returns:
        Its path.
    """
    return os.path.dirname(os.path.abspath(__file__))


def _no_cxx(what: str):
    raise NotImplementedError(f"tw.sysconfig.{what}: twinflow has no C++ library; write custom "
                              "ops in Python with twinflow.graph.registry.register_op")


def get_include() -> str:
    """TensorFlow's C++ header folder: twinflow has none.

    Returns:
        Never: raises NotImplementedError.
    """
    _no_cxx("get_include")


def get_compile_flags() -> list:
    """Flags to compile a C++ custom op: twinflow has no C++ library.

    Returns:
        Never: raises NotImplementedError.
    """
    _no_cxx("get_compile_flags")


def get_link_flags() -> list:
    """Flags to link a C++ custom op: twinflow has no C++ library.

    Returns:
        Never: raises NotImplementedError.
    """
    _no_cxx("get_link_flags")
