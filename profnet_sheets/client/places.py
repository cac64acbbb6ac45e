"""Places by name: the geo ids that location filters take, found from place names."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from profnet_sheets.redact import shown
from profnet_sheets.spec import Param


class FindsPlaces(Protocol):
    def find_geocode_by_location(self, *, location: str) -> list[dict[str, Any]]: ...


def takes_places(param: Param) -> bool:
    """Whether a parameter is a list of places: the spec sends geo ids, and only them, as
    numbers (section 4.10: geo_codes, headquarters_location...)."""
    return param.type == "array" and not param.enum and param.items == "integer"


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
        elif str(place).strip().isdigit():
            chosen.append((str(place).strip(), str(place).strip()))
        else:
            found = client.find_geocode_by_location(location=str(place))
            if not found:
                raise ValueError(f"No place called {shown(place)} was found.")
            chosen.append((place_label(found[0]), str(found[0]["geo_id"])))
    return chosen
