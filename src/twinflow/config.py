"""``tw.config``: run-time switches and device listing (re-exports)."""
