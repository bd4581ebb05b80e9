"""Builders of the example recordings, one module per recording family."""
