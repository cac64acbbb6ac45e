"""A text file's bytes as text: a BOM, UTF-8, or charset-normalizer's guess; warned when unsure."""

from __future__ import annotations

import codecs
import warnings
from pathlib import Path
from typing import Final

__all__ = ["InputWarning", "decode"]

_BOMS: Final = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_WINDOWS: Final = "cp1252"  # what Excel on Windows writes ("CSV (Comma delimited)")
_NAMES: Final = {
    "cp1252": "Windows Western European",
    "cp1250": "Windows Central European",
    "cp1251": "Windows Cyrillic",
    "cp932": "Japanese Shift-JIS",
    "shift_jis": "Japanese Shift-JIS",
    "latin_1": "Latin-1",
}
_LINES_SHOWN: Final = 5
_ADVICE: Final = "save it as CSV UTF-8 (or give its encoding: encoding=..., --encoding)"
_CLEAN_ENOUGH: Final = 0.2  # charset-normalizer's own limit of "mess" in a right reading
_C1: Final = dict.fromkeys(range(0x80, 0xA0))  # what Latin-1 makes of cp1252's undefined bytes


class InputWarning(UserWarning):
    """Something about an input file to check: an encoding that was guessed, or mixed, or
    characters that could not be read; rows with more fields than the header."""


def _named(encoding: str) -> str:
    name = codecs.lookup(encoding).name.replace("-", "_")
    return f"{encoding} ({_NAMES[name]})" if name in _NAMES else encoding


def _lines_named(lines: list[int]) -> str:
    shown = ", ".join(map(str, lines[:_LINES_SHOWN]))
    more = f" and {len(lines) - _LINES_SHOWN} more" if len(lines) > _LINES_SHOWN else ""
    return f"line{'s' if len(lines) > 1 else ''} {shown}{more}"


def _mixed_utf8(data: bytes) -> tuple[str, list[int]] | None:
    """`data` as UTF-8 with its few lines that are not read as cp1252 (lines pasted from
    another file), and their numbers; None when no line has a character of UTF-8 beyond
    ASCII (then the whole file is in another encoding)."""
    pieces: list[str] = []
    bad: list[int] = []
    utf8_beyond_ascii = False
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            piece = line.decode("utf-8")
            utf8_beyond_ascii = utf8_beyond_ascii or not line.isascii()
        except UnicodeDecodeError:
            piece = line.decode(_WINDOWS, errors="replace")
            bad.append(number)
        pieces.append(piece)
    return ("\n".join(pieces), bad) if utf8_beyond_ascii else None


def _guess(data: bytes, name: str) -> str:
    """charset-normalizer's reading of a file that is not UTF-8; cp1252 when it reads as
    well (Excel's choice on Windows). Warns that the encoding was guessed, naming the other
    readings that were as good."""
    from charset_normalizer import from_bytes
    from charset_normalizer.md import mess_ratio

    found = list(from_bytes(data))
    best_chaos = min((match.chaos for match in found), default=1.0)
    candidates = [match.encoding for match in found if match.chaos <= best_chaos]
    chosen, text = "", ""
    for western in (_WINDOWS, "latin_1"):  # Excel's, then the ISO one, when they read cleanly
        readable = _decoded(data, western)
        if readable is not None and mess_ratio(readable.translate(_C1)) <= _CLEAN_ENOUGH:
            chosen, text = western, readable
            break
    else:
        if not found:
            warnings.warn(
                f"{name}: not UTF-8 and its encoding could not be told: read as Latin-1, some "
                f"characters may be wrong; {_ADVICE}",
                InputWarning,
                stacklevel=4,
            )
            return data.decode("latin-1")
        chosen, text = found[0].encoding, str(found[0])
    others = [
        encoding
        for encoding in dict.fromkeys(candidates)
        if codecs.lookup(encoding).name != codecs.lookup(chosen).name
        and _decoded(data, encoding) not in (None, text)
    ]
    also = f"; it reads as well as {', '.join(others[:3])}" if others else ""
    warnings.warn(
        f"{name}: not UTF-8: read as {_named(chosen)}, a guess{also}. If letters look wrong, "
        f"{_ADVICE}",
        InputWarning,
        stacklevel=4,
    )
    return text


def _decoded(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def decode(data: bytes, source: Path | str, encoding: str | None = None) -> str:
    """The text of a file's bytes, without a BOM.

    With `encoding`, exactly that (ValueError naming the byte that does not fit). Otherwise: a
    BOM's encoding; UTF-8 when the bytes are UTF-8 (never turned into mojibake); UTF-8 with a
    few stray bytes (a line from a cp1252 file pasted in) read as cp1252, warned with their
    lines; else charset-normalizer's guess (cp1252 when it reads as well), warned as a guess.
    Warnings are InputWarning.
    """
    name = Path(source).name
    if encoding is not None:
        codec = codecs.lookup(encoding).name  # LookupError for an unknown one
        return data.decode("utf-8-sig" if codec == "utf-8" else codec).removeprefix("\ufeff")
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data.decode(codec).removeprefix("\ufeff")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    mixed = _mixed_utf8(data)
    if mixed is not None:
        text, bad = mixed
        warnings.warn(
            f"{name}: UTF-8 except {_lines_named(bad)}, read as {_named(_WINDOWS)}: "
            "check those rows",
            InputWarning,
            stacklevel=3,
        )
        return text
    return _guess(data, name)
