"""Places by name: the geo ids that location filters take, found from place names."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from profnet_sheets.redact import shown
from profnet_sheets.spec import Endpoint, Param

if TYPE_CHECKING:
    from profnet_sheets.client.client import Client


class FindsPlaces(Protocol):
    def find_geocode_by_location(self, *, location: str) -> list[dict[str, Any]]: ...


def takes_places(param: Param) -> bool:
    """Whether a parameter is a list of places: the spec sends geo ids, and only them, as
    numbers (section 4.10: geo_codes, headquarters_location...)."""
    return param.type == "array" and not param.enum and param.items == "integer"


def as_geo_id(place: object) -> str | None:
    """The geo id `place` is, read as every numeric id is (`numeric_id`: digits, or a number
    such as `605862502.0` from a spreadsheet's number cell), or None: a place's name."""
    from profnet_sheets.client.cell_values import numeric_id
    from profnet_sheets.errors import NormalizationError

    try:
        return numeric_id(place, "geo_codes")
    except NormalizationError:
        return None


def place_label(item: dict[str, Any]) -> str:
    """`Berlin (city)` for a geocode item."""
    kind = str(item.get("type") or "").replace("_", " ").lower()
    return f"{item.get('name')} ({kind})" if kind else str(item.get("name"))


def places(client: FindsPlaces, given: Iterable[Any]) -> list[tuple[str, str]]:
    """(label, geo id) of each place given as a geo id, a (label, geo id) pair, or a name
    (looked up once: find-geocode-by-location, 1 credit, cached for 90 days; its first match
    taken). ValueError names a place nobody found."""
    chosen: list[tuple[str, str]] = []
    for place in given:
        if isinstance(place, tuple):
            chosen.append((str(place[0]), str(place[1])))
        elif (geo_id := as_geo_id(place)) is not None:
            chosen.append((geo_id, geo_id))
        else:
            found = client.find_geocode_by_location(location=str(place))
            if not found:
                raise ValueError(f"No place called {shown(place)} was found.")
            chosen.append((place_label(found[0]), str(found[0]["geo_id"])))
    return chosen


class PlaceNotFoundError(ValueError):
    """A place name given for the filter `param` that nobody found."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param


Chosen = Callable[[str, list[tuple[str, str]]], None]  # (filter, [(label, geo id)]) as chosen


def named_places(ep: Endpoint, filters: dict[str, Any]) -> list[str]:
    """The filters of `ep` given places by name (not all geo ids)."""
    return [
        name
        for name, value in filters.items()
        if takes_places(ep.param(name))
        and isinstance(value, list)
        and not all(as_geo_id(item) is not None for item in value)
    ]


def places_unknown(
    client: Client, ep: Endpoint, filters: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """`filters` with the place names the cache knows as their geo ids, and the names it does
    not know (each standing in as geo id 1): nothing is sent. A name the cache says nobody
    found raises PlaceNotFoundError, as the search would (it would not start)."""
    from profnet_sheets.errors import OfflineMiss

    cached = client.with_options(offline=True)
    found, unknown = dict(filters), []
    for name in named_places(ep, filters):
        ids: list[str] = []
        for place in filters[name]:
            try:
                ids.extend(geo_id for _, geo_id in places(cached, [place]))
            except OfflineMiss:
                unknown.append(str(place))
                ids.append("1")
            except ValueError as error:
                said = str(error).rstrip(".")
                raise PlaceNotFoundError(name, f"{said} (an earlier lookup, cached).") from None
        found[name] = ids
    return found, unknown


def places_by_name(
    client: Client, ep: Endpoint, filters: dict[str, Any], chosen: Chosen | None = None
) -> dict[str, Any]:
    """`filters` with the places given by name (`geo_codes=["Berlin"]`) as the geo ids the
    service takes: each name looked up once (1 credit, cached), each choice told to `chosen`.
    Every other filter is checked first (a place stands in as geo id 1): nothing is paid for a
    search the service would refuse. PlaceNotFoundError names a place nobody found."""
    named = named_places(ep, filters)
    if not named:
        return filters
    client.prepare(ep.name, {**filters, **{name: ["1"] for name in named}})
    found = dict(filters)
    for name in named:
        try:
            picked = places(client, filters[name])
        except ValueError as error:
            raise PlaceNotFoundError(name, str(error)) from None
        if chosen is not None:
            chosen(name, picked)
        found[name] = [geo_id for _, geo_id in picked]
    return found
