"""Build pydantic models from values the caller has already checked, without validating again.

The importers check every field of every call by hand (so they can name the file and the
entry when one is wrong) and the evidence builder computes its fields itself: on a 28k-request
recording `BaseModel.model_construct` alone was a third of the import time
(bench/bench_import.py), because it walks every field's aliases and defaults on every call.
This does what it does at the end, once the values are known to be complete.
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__


@cache
def _field_names(cls: type[BaseModel]) -> frozenset[str]:
    return frozenset(cls.model_fields)


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """A `cls` holding exactly `values`: every field present, each already of its field's type.

    A missing or unknown field is a programming error, caught here rather than later when the
    model is dumped (the set comparison costs well under a microsecond)."""
    if values.keys() != _field_names(cls):
        missing = sorted(_field_names(cls) - values.keys())
        unknown = sorted(values.keys() - _field_names(cls))
        raise TypeError(f"{cls.__name__}: missing fields {missing}, unknown fields {unknown}")
    model = cls.__new__(cls)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(values))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model
