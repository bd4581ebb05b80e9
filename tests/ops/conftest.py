"""The operations tests use the shared servers (tests/fixtures: moto behind relays, the counting,
fault-injecting `relay`, the fake model server; tests/conftest.py: the Prefect server)."""
