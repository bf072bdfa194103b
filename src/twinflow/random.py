"""``tw.random``: random number generation (re-exports)."""
