"""Prefect flows that run on the phone machine, and the device drivers."""
