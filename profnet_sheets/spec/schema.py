"""A tiny vocabulary of JSON shapes in which the spec's resources and envelopes are written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ScalarKind = Literal["string", "integer", "number", "boolean"]


@dataclass(frozen=True)
class Scalar:
    """A JSON scalar; `format` is a hint such as `date-time` or `uri`."""

    kind: ScalarKind
    format: str | None = None


@dataclass(frozen=True)
class ArrayOf:
    """A JSON array whose elements all have one shape."""

    items: Shape


@dataclass(frozen=True)
class Field:
    """One named member of an object shape."""

    name: str
    shape: Shape
    required: bool = True
    nullable: bool = False
    description: str = ""


@dataclass(frozen=True)
class ObjectOf:
    """A JSON object with known fields; `name` makes it a reusable component."""

    name: str | None
    fields: tuple[Field, ...]
    open: bool = False  # members beyond `fields` may appear (e.g. an echo of the request)

    def field(self, name: str) -> Field:
        for field in self.fields:
            if field.name == name:
                return field
        raise KeyError(name)

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(field.name for field in self.fields)


Shape = Scalar | ArrayOf | ObjectOf

STRING = Scalar("string")
INTEGER = Scalar("integer")
NUMBER = Scalar("number")
TIMESTAMP = Scalar("string", "date-time")
URL = Scalar("string", "uri")


def obj(name: str | None, *fields: Field, open: bool = False) -> ObjectOf:
    """Shorthand for an object shape."""
    return ObjectOf(name, tuple(fields), open)


def strings(*names: str, nullable: tuple[str, ...] = ()) -> tuple[Field, ...]:
    """Fields that are all plain strings, some of them nullable."""
    return tuple(Field(name, STRING, nullable=name in nullable) for name in names)
