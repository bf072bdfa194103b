"""``tw.nest``: nested structure utilities (re-exports)."""
from .core.nest import (
                        assert_same_structure,
                        flatten,
                        is_nested,
                        map_structure,
                        map_structure_up_to,
                        pack_sequence_as,
)

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure",
           "map_structure_up_to", "pack_sequence_as"]
