"""Prefect task wrappers around rlauto_core plus storage I/O."""
