"""An Arrow schema derived from a pydantic model: the index's tables are declared once, as the
models whose rows they hold, never typed again as a column list."""

from __future__ import annotations

import types
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pyarrow as pa
from pydantic import BaseModel


@dataclass(frozen=True)
class Arrow:
    """`Annotated[int, Arrow(pa.int16())]`: the column's Arrow type when the default (int64,
    float64, string...) is wider than the stored format says."""

    type: pa.DataType


_PLAIN: dict[Any, pa.DataType] = {
    str: pa.string(),
    int: pa.int64(),
    float: pa.float64(),
    bool: pa.bool_(),
    datetime: pa.timestamp("ms", tz="UTC"),
}


def _arrow_type(annotation: Any, name: str) -> pa.DataType:
    origin = get_origin(annotation)
    if origin is Annotated:  # `Small | None`: the marker sits inside the union
        marked = [m for m in annotation.__metadata__ if isinstance(m, Arrow)]
        return marked[0].type if marked else _arrow_type(get_args(annotation)[0], name)
    if origin in (Union, types.UnionType):  # `X | None`: a nullable X
        [inner] = [a for a in get_args(annotation) if a is not type(None)]
        return _arrow_type(inner, name)
    if origin is Literal:
        return pa.string()
    if origin is list:
        return pa.list_(_arrow_type(get_args(annotation)[0], name))
    if annotation in _PLAIN:
        return _PLAIN[annotation]
    raise TypeError(f"column {name}: no Arrow type for {annotation!r}; annotate it with Arrow(...)")


def arrow_schema(model: type[BaseModel]) -> pa.Schema:
    """One column per field, in declaration order (a base model's fields first)."""
    fields = []
    for name, info in model.model_fields.items():
        marked = [m for m in info.metadata if isinstance(m, Arrow)]
        fields.append((name, marked[0].type if marked else _arrow_type(info.annotation, name)))
    return pa.schema(fields)
