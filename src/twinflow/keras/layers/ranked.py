"""Layer families whose members differ only by their number of spatial dimensions (Conv1D/2D,
MaxPooling1D/2D, ZeroPadding1D/2D/3D...): the member names its rank, ``class Conv2D(_BaseConv,
rank=2)``, with a one-paragraph docstring, and the family's Args section is written once."""
from __future__ import annotations

import inspect

# How a size argument of a layer of each rank is given.
SIZES = {1: "an int", 2: "an int or a pair", 3: "an int or a triple"}
PAIRS = {1: "a (before, after) pair", 2: "two (before, after) pairs",
         3: "three (before, after) pairs"}


class Ranked:
    """Mixin of a family's base class; ``_args_doc`` is the family's Args section, one
    ``name: text`` entry a line (``{size}``/``{pairs}`` filled in for the member's rank).
    Entries naming an argument the member's ``__init__`` does not take are left out."""

    _rank = 1
    _args_doc = ""

    def __init_subclass__(cls, rank: int | None = None, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if rank is None:
            return
        cls._rank = rank
        params = inspect.signature(cls.__init__).parameters
        fields = {"size": SIZES[rank], "pairs": PAIRS[rank], **cls._doc_fields()}
        entries = [line for line in cls._args_doc.format(**fields).split("\n")
                   if line.split(":")[0].lstrip("*") in params]
        args = "\n    ".join(entries)
        cls.__doc__ = f"{inspect.cleandoc(cls.__doc__)}\n\nArgs:\n    {args}\n"

    @classmethod
    def _doc_fields(cls) -> dict:
        """More fields of ``_args_doc`` (a family may add its own)."""
        return {}
