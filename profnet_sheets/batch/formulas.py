"""Which sheets of an XLSX workbook hold formulas: read from the workbook's own XML parts."""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path
from typing import Final
from xml.etree import ElementTree

__all__ = ["formulas_without_values", "sheets_with_formulas"]

_MAIN: Final = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_RELATION: Final = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_PACKAGE: Final = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def sheets_with_formulas(source: Path) -> list[str]:
    """The names of the sheets of `source` with at least one formula cell (`<f>`), in the
    workbook's order; none when its parts cannot be read (its values are read all the same)."""
    try:
        with zipfile.ZipFile(source) as archive:
            parts = _sheet_parts(archive)
            return [name for name, part in parts if _has_formula(archive, part)]
    except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError):
        return []


def _sheet_parts(archive: zipfile.ZipFile) -> list[tuple[str, str]]:
    """Each sheet's name and the path of its part in the archive."""
    workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    relations = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {
        relation.get("Id"): relation.get("Target", "")
        for relation in relations.iter(f"{_PACKAGE}Relationship")
    }
    parts = []
    for sheet in workbook.iter(f"{_MAIN}sheet"):
        target = targets.get(sheet.get(_RELATION), "")
        part = target.lstrip("/") if target.startswith("/") else posixpath.join("xl", target)
        parts.append((sheet.get("name", ""), posixpath.normpath(part)))
    return parts


def _has_formula(archive: zipfile.ZipFile, part: str) -> bool:
    with archive.open(part) as stream:
        for _, element in ElementTree.iterparse(stream):
            if element.tag == f"{_MAIN}f":
                return True
            element.clear()
    return False


def formulas_without_values(source: Path) -> dict[str, int]:
    """For each sheet of `source` with formula cells that hold no value saved (a workbook a
    program wrote and nothing calculated since: every reader sees them blank), how many; none
    when its parts cannot be read."""
    try:
        with zipfile.ZipFile(source) as archive:
            counts = {name: _unvalued(archive, part) for name, part in _sheet_parts(archive)}
    except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError):
        return {}
    return {name: count for name, count in counts.items() if count}


def _unvalued(archive: zipfile.ZipFile, part: str) -> int:
    """The formula cells (`<c>` with an `<f>`) of a sheet part with no value (`<v>`) saved:
    none at all, or an empty one on a cell not of text (a formula giving "" is saved as an
    empty `<v>` of type `str`)."""
    count = 0
    with archive.open(part) as stream:
        for _, element in ElementTree.iterparse(stream):
            if element.tag == f"{_MAIN}c":
                if element.find(f"{_MAIN}f") is not None:
                    value = element.find(f"{_MAIN}v")
                    text = element.get("t") == "str"
                    count += value is None or (not (value.text or "") and not text)
                element.clear()
    return count
