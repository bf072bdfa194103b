"""``tw.debugging``: assertions and numeric checks (re-exports)."""
