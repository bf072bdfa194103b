"""Reusable test harnesses (not tests themselves)."""
