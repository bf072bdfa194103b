"""``tw.nn``: neural-network ops (re-exports)."""
