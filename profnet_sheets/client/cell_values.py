"""Cell values: what a cell, row or form holds (blanks, numbers, flags, lists) as a parameter."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import math
import numbers
import re
import unicodedata
from collections.abc import Callable, Hashable, Iterator
from decimal import Decimal, InvalidOperation
from typing import Concatenate, Final, ParamSpec, TypeVar

from profnet_sheets.client.suffixes import known_suffix
from profnet_sheets.errors import NormalizationError
from profnet_sheets.redact import shown
from profnet_sheets.words import command

__all__ = [
    "EXCEL_ERRORS",
    "FORMULA_ERROR",
    "PLACEHOLDERS",
    "STILL_CALCULATING",
    "flag",
    "free_text",
    "headcount_codes",
    "id_list",
    "int_list",
    "is_placeholder",
    "key_text",
    "limit",
    "numeric_id",
    "place_name",
    "string_list",
    "text",
]


def compiled_later(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A regular expression compiled on its first use, not when the module is imported."""
    return functools.cache(lambda: re.compile(pattern, flags))


# -- blanks, Excel leftovers and the shape of a value ---------------------------------------------

# Excel pastes bring non-breaking and zero-width spaces and byte-order marks along.
# So do text written right to left: its direction marks, embeddings and isolates, and soft
# hyphens; none is part of a name or an address.
_ZERO_WIDTH: Final = (
    "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2066\u2067\u2068\u2069\ufeff"
)
# What str.isspace() calls a space up to U+3000 (the spec's blanks, SPACE_CHARS, among them),
# written out: computing it cost a few milliseconds at every import (a test checks the list).
_UNICODE_SPACES: Final = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
BLANKS: Final = "".join(sorted({*_UNICODE_SPACES, *_ZERO_WIDTH}))
INVISIBLE: Final = {ord(ch): None for ch in _ZERO_WIDTH}
ANY_SPACE: Final = compiled_later(f"[{re.escape(BLANKS)}]+")
_WRAPPERS: Final = BLANKS + "\"'`<>\u201c\u201d\u2018\u2019\u00ab\u00bb"

# What a cell shows instead of a value: a PROFNET_ formula's error, and xlwings' text while a
# formula is still calculating. Never a value: sent, it would be paid as one.
FORMULA_ERROR: Final = "#PROFNET!"
STILL_CALCULATING: Final = "#N/A waiting"

EXCEL_ERRORS: Final = frozenset(
    {
        "#N/A",
        "#VALUE!",
        "#REF!",
        "#DIV/0!",
        "#NUM!",
        "#NAME?",
        "#NULL!",
        "#SPILL!",
        "#CALC!",
        "#GETTING_DATA",
        "#BLOCKED!",
        "#BUSY!",
        "#CONNECT!",
        "#EXTERNAL!",
        "#FIELD!",
        "#PYTHON!",
        "#UNKNOWN!",
    }
)

_MAX_FLOAT_INT: Final = 2**53  # above this a float (an Excel number) no longer holds every integer
_MAX_DIGITS: Final = 100


_R = TypeVar("_R")
_P = ParamSpec("_P")
_REMEMBERED_MAX: Final = 100_000


def remembered(
    normalise: Callable[Concatenate[object, _P], _R],
) -> Callable[Concatenate[object, _P], _R]:
    """The same normaliser, remembering what it made of each text with the same other
    arguments (the network's hosts): only text (1, 1.0 and True are equal keys). They are
    pure, and a batch or a recalculating workbook hands the same cell text over many times."""
    known: dict[Hashable, _R] = {}

    @functools.wraps(normalise)
    def remembered(value: object, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if type(value) is not str:
            return normalise(value, *args, **kwargs)
        key: Hashable = (value, *args, *kwargs.items()) if args or kwargs else value
        with contextlib.suppress(KeyError, TypeError):  # TypeError: hosts given as a list
            return known[key]
        result = normalise(value, *args, **kwargs)
        if len(known) >= _REMEMBERED_MAX:
            known.clear()
        with contextlib.suppress(TypeError):
            known[key] = result
        return result

    return remembered


def shown_in_cell(value: object) -> str:
    """A value as a row's or a cell's error shows it: as every message does (redact.shown),
    cut shorter (it is repeated down a column, and an Excel cell is narrow)."""
    return shown(value, limit=80)


def refused(value: object, parameter: str, said: str) -> NormalizationError:
    """The refusal of `value` for `parameter`: the value as messages show it, then `said`."""
    return NormalizationError(f"{shown_in_cell(value)} {said}", parameter, value)


def strip_blanks(value: str) -> str:
    return value.strip(BLANKS)


def is_bool(value: object) -> bool:
    kind = type(value)
    return isinstance(value, bool) or (
        kind.__module__ == "numpy" and kind.__name__ in {"bool_", "bool"}
    )


def is_missing(value: object) -> bool:
    """None, NaN, pandas.NA / NaT and friends: a value that is not equal to itself."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, str | bytes | list | tuple | dict | set | frozenset):
        return False
    try:
        return bool(value != value)  # noqa: PLR0124 - NaN-likes are unequal to themselves
    except TypeError:  # pandas.NA: comparing gives NA, whose truth value is ambiguous
        return True
    except Exception:  # an array or another container: not one missing value
        return False


def _int_text(number: int, parameter: str, value: object) -> str:
    try:
        return str(number)
    except ValueError:  # more digits than Python converts
        raise refused(
            value, parameter, f"is too long to be {parameter}: give a shorter value"
        ) from None


def text(value: object, parameter: str) -> str | None:
    """A cell's text, stripped; None when the cell is blank.

    Blank means None, NaN, pandas.NA / NaT, or a string of whitespace (including non-breaking and
    zero-width spaces). Numbers become their text (`12345.0` -> `"12345"`, `1.5` -> `"1.5"`).
    Excel error values (`#N/A`, `#VALUE!`, ...), booleans, lists and other objects raise.
    """
    if is_missing(value):
        return None
    if is_bool(value):
        raise refused(
            value, parameter, f"is a true/false value, not text: give {parameter} as text"
        )
    if isinstance(value, str):
        stripped = strip_blanks(value)
        if not stripped:
            return None
        if stripped.upper() in EXCEL_ERRORS:
            raise NormalizationError(
                f"{parameter} comes from a cell holding the Excel error {shown_in_cell(value)}: "
                "fix the formula or clear the cell",
                parameter,
                value,
            )
        if stripped.startswith(FORMULA_ERROR):
            raise NormalizationError(
                f"{parameter} comes from a cell showing its formula's error "
                f"({shown_in_cell(value)}): fix that cell first, or type the value itself",
                parameter,
                value,
            )
        if stripped.startswith(STILL_CALCULATING):
            raise NormalizationError(
                f"{parameter} comes from a formula still calculating ({shown_in_cell(value)}): "
                "give it a moment; this formula is calculated again with its answer",
                parameter,
                value,
            )
        return stripped
    if isinstance(value, numbers.Integral):
        return _int_text(int(value), parameter, value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isinf(number):
            raise refused(
                value, parameter, f"is not a finite number: give {parameter} as text or a number"
            )
        return _int_text(int(number), parameter, value) if number.is_integer() else repr(number)
    if isinstance(value, Decimal):
        if value.is_finite() and value == value.to_integral_value() and value.adjusted() < 1000:
            return _int_text(int(value), parameter, value)
        return str(value)
    if isinstance(value, list | tuple | set | frozenset):
        raise refused(value, parameter, f"is a list, not a single value: give one {parameter}")
    if isinstance(value, dt.date | dt.time | dt.timedelta):  # a spreadsheet made it of text
        raise NormalizationError(
            f"{parameter} holds a date or time ({value}), not text: give {parameter} as text",
            parameter,
            value,
        )
    raise refused(
        value,
        parameter,
        f"is a {type(value).__name__}, not text or a number: give {parameter} as text",
    )


def required(value: object, parameter: str, wanted: str, *, words: bool = False) -> str:
    got = text(value, parameter)  # first: an Excel error (#N/A too) says it comes from a formula
    if is_placeholder(got, words=words):
        raise refused(
            value, parameter, f"stands for no value: give {wanted} (or leave the cell empty)"
        )
    if got is None:
        raise NormalizationError(
            f"{parameter} is empty (got {shown_in_cell(value)}): give {wanted}", parameter, value
        )
    return got


def unwrapped(value: str) -> str:
    """Zero-width characters out, surrounding quotes and angle brackets off."""
    return value.translate(INVISIBLE).strip(_WRAPPERS)


# What people and exports put in a cell to say "no value" (compared case-insensitively).
PLACEHOLDERS: Final = frozenset(
    {
        *("n/a", "n.a.", "n.a", "na", "#n/a", "#na", "n/v", "k.a.", "n.d.", "n/d"),
        *("-", "--", "---", "\u2013", "\u2014", "\u2012", "\u2015", "\u2212", "_", "."),
        *("?", "??", "???", "none", "null", "nil", "nan", "nat", "<na>", "undefined"),
        *("tbd", "tba", "tbc", "unknown", "(blank)", "(empty)", "(none)"),
    }
)


# Placeholders that are names and words too (Na and Nan are surnames, Nat and Nil given
# names; NIL and NAT are topics): placeholders only where a key is asked for.
NAME_WORDS: Final = frozenset({"na", "nan", "nat", "nil"})


def is_placeholder(value: object, *, words: bool = False) -> bool:
    """Text that stands for "no value" (`N/A`, `-`, `—`, `none`, `null`, `TBD`, `#N/A`, `?`,
    ...): a blank for every kind of key, never sent. `words`: where a name or a keyword is
    asked for, `NAME_WORDS` are words."""
    if not isinstance(value, str):
        return False
    folded = unwrapped(strip_blanks(value)).casefold()
    return folded in PLACEHOLDERS and not (words and folded in NAME_WORDS)


def free_text(value: object, parameter: str) -> str | None:
    """`text()` of a filter's free text (a keyword, a title, a company's name), refused
    when it stands for no value (`N/A`, `-`, `TBD`...): sent, it would be searched for as
    a word (a batch's cells are blanks first, as for keys)."""
    got = text(value, parameter)
    if got is not None and is_placeholder(got, words=True):
        raise refused(
            value, parameter, f"stands for no value: give {parameter} a value, or leave it out"
        )
    return got


def key_text(value: object, parameter: str) -> str | None:
    """`text()` of a lookup key: also None for a placeholder (`N/A`, `-`, `TBD`, ...)."""
    return None if is_placeholder(value) else text(value, parameter)


# -- numbers ----------------------------------------------------------------------------------

_NUMBER: Final = compiled_later(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_EXPONENT: Final = compiled_later(r"[0-9.][eE][+-]?[0-9]")
NUMBERISH: Final = compiled_later(r"[+-]?[0-9][0-9\s]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")


def _integer(value: object, parameter: str, wanted: str) -> int:
    """A whole number from an int, an integral float, or its text (`"1035.0"`, `"1.03E+03"`)."""
    if is_bool(value):
        raise refused(value, parameter, f"is a true/false value, not a number: give {wanted}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and not is_missing(value):
        number = float(value)
        if math.isinf(number) or not number.is_integer():
            raise refused(value, parameter, f"is not a whole number: give {wanted}")
        if abs(number) >= _MAX_FLOAT_INT:  # 2**53 itself may be 2**53 + 1 rounded
            raise refused(
                value,
                parameter,
                f"is too large for an Excel number to hold exactly: "
                f"give {wanted} in a cell formatted as Text",
            )
        return int(number)
    got = required(value, parameter, wanted)
    compact = ANY_SPACE().sub("", got.translate(INVISIBLE))
    if not _NUMBER().fullmatch(compact):
        raise refused(value, parameter, f"is not a number: give {wanted}")
    try:
        number_text = Decimal(compact)
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid literals
        raise refused(value, parameter, f"is not a number: give {wanted}") from None
    if number_text.adjusted() >= _MAX_DIGITS:
        raise refused(value, parameter, f"is too large: give {wanted}")
    if number_text != number_text.to_integral_value():
        raise refused(value, parameter, f"is not a whole number: give {wanted}")
    return int(number_text)


# The parameters that take a place's geo id (find-geocode-by-location's `geo_id`).
GEO_ID_PARAMETERS: Final = frozenset(
    {"geo_codes", "geo_id", "where_they_live", "headquarters_location"}
    | {"headquarters_location_exclude"}
)


def numeric_id(value: object, parameter: str) -> str:
    """A numeric id as the digits the service expects.

    Accepts ints, integral floats (what Excel hands over: `1035.0`), and text with spaces or a
    trailing `.0`. Leading zeros are dropped. Raises on negative, fractional or non-numeric
    values, on text in scientific notation (`"1.23457E+11"`: Excel's display of a long number
    it shortened, never sent as an id), and on floats of 2**53 and above, which Excel has already
    rounded (store such ids as Text).
    """
    wanted = f"{parameter} as digits, such as 1035"
    if parameter in GEO_ID_PARAMETERS:  # a place's name given where its id goes
        wanted = (
            f"{parameter} as a geo id, digits such as 105015875: a place's id comes from "
            f"PROFNET_GEOCODE (or `{command('lookup geocode NAME')}`)"
        )
    if isinstance(value, str) and _EXPONENT().search(value):
        advice = (
            "(its digits are gone from the number: type the id again in a cell formatted as Text)"
            if _beyond_exact(value)
            else "(format the column as Text, or as a Number with 0 decimals, before saving it)"
        )
        raise refused(
            value,
            parameter,
            f"is in scientific notation, as Excel shows a long number it has shortened (its "
            f"last digits may be gone): give {wanted} {advice}",
        )
    number = _integer(value, parameter, wanted)
    if number < 0:
        raise refused(value, parameter, f"is negative: give {parameter} as digits, such as 1035")
    if number == 0:  # what an export writes for an id it does not have; never sent, never paid
        raise refused(value, parameter, f"is no id (nothing has the id 0): give {wanted}")
    return _int_text(number, parameter, value)


def _beyond_exact(text: str) -> bool:
    """Whether a number written in scientific notation is 2**53 or more: a number Excel could
    no longer hold exactly, its digits gone whatever the cell's format."""
    try:
        return abs(Decimal(ANY_SPACE().sub("", text.translate(INVISIBLE)))) >= _MAX_FLOAT_INT
    except (InvalidOperation, ValueError):
        return False


def limit(value: object, parameter: str, minimum: int, maximum: int) -> int:
    """A whole number in [minimum, maximum] from `100`, `100.0` or `"100"`."""
    wanted = f"a whole number from {minimum} to {maximum}"
    try:
        number = _integer(value, parameter, f"{parameter} as {wanted}")
    except NormalizationError:
        if not (isinstance(value, float) and math.isfinite(value) and value.is_integer()):
            raise
        number = maximum + 1  # a whole number too large for a float to hold: out of range
    if not minimum <= number <= maximum:
        raise refused(value, parameter, f"is outside the range of {parameter}: give {wanted}")
    return number


_TRUE: Final = frozenset({"true", "yes", "y", "on", "1", "1.0"})
_FALSE: Final = frozenset({"false", "no", "n", "off", "0", "0.0"})


def flag(value: object, parameter: str) -> str:
    """`"true"` or `"false"`, the strings the service takes for flags.

    From booleans, 1/0 (int or float) and the words true/false, yes/no, y/n, on/off, 1/0 in any
    case. A blank raises: leave an optional flag out instead.
    """
    wanted = "true or false"
    if is_bool(value):
        return "true" if value else "false"
    if isinstance(value, numbers.Real) and not is_missing(value):
        if value == 1:
            return "true"
        if value == 0:
            return "false"
        raise refused(value, parameter, f"is not a true/false value: give {wanted} (or 1/0)")
    word = required(value, parameter, wanted).translate(INVISIBLE).lower()
    if word in _TRUE:
        return "true"
    if word in _FALSE:
        return "false"
    raise refused(value, parameter, f"is not a true/false value: give {wanted} (or yes/no, 1/0)")


def _name_text(got: str) -> str:
    """A name as typed, as it is searched for: invisible characters dropped, full-width and
    compatibility forms as their plain letters (NFKC: full-width `Berlin` is `Berlin`), spaces
    collapsed."""
    plain = unicodedata.normalize("NFKC", got.translate(INVISIBLE))
    return " ".join(ANY_SPACE().sub(" ", plain).split())


@remembered
def place_name(value: object) -> str:
    """A place name as find-geocode-by-location is asked: spaces collapsed, lowercase, so that
    `Berlin`, `berlin` and ` BERLIN ` are one lookup (place names are not case-sensitive);
    not a spreadsheet's leftover that names no place (`leftover`; digits alone stay: a postal
    code)."""
    parameter = "location"
    wanted = "a place name such as Berlin"
    got = required(value, parameter, wanted, words=True)
    name = _name_text(got)
    postal = _POSTAL_CODE().fullmatch(name) is not None  # digits alone: a postal code
    if (what := leftover(name)) is not None and not (postal and what == "a number"):
        raise refused(value, parameter, f"is {what}, not a place: give {wanted}")
    if not postal and not any(character.isalpha() for character in name):
        raise refused(value, parameter, f"has no letter (nor is it a postal code): give {wanted}")
    return name.lower()


@remembered
def school_name(value: object) -> str:
    """A school's name as google-schools is asked: spaces collapsed, lowercase, so that `MIT`
    and `mit` are one search (a search by name is not case-sensitive, as `place_name`); not
    a spreadsheet's leftover that names no school (`leftover`)."""
    parameter = "school_name"
    wanted = "a school's name such as Stanford University"
    got = required(value, parameter, wanted, words=True)
    name = _name_text(got)
    if (what := leftover(name)) == "a number":
        raise refused(
            value,
            parameter,
            f"is a number, not a school's name: give {wanted} (a school known by a number "
            "alone, such as 42: its whole name, École 42)",
        )
    if what is not None:
        raise refused(value, parameter, f"is {what}, not a school's name: give {wanted}")
    if not any(character.isalpha() for character in name):
        raise refused(value, parameter, f"has no letter: give {wanted}")
    return name.lower()


def person_name(value: object) -> str:
    """A person's name as google-full-profiles is asked: spaces collapsed, lowercase (`Anna
    Schmidt` and `ANNA SCHMIDT` are one search, as `school_name`); not a spreadsheet's
    leftover that names nobody (`leftover`)."""
    parameter = "name"
    wanted = "a person's name such as Anna Schmidt"
    got = required(value, parameter, wanted, words=True)
    name = _name_text(got)
    if (what := leftover(name)) is not None:
        raise refused(value, parameter, f"is {what}, not a person's name: give {wanted}")
    if not any(character.isalpha() for character in name):
        raise refused(value, parameter, f"has no letter: give {wanted}")
    return name.lower()


def leftover(name: str) -> str | None:
    """What a cell that names nothing is, as a name was asked for (a place, a school, a
    person): `a URL or an e-mail address`, `a true/false value`, `a date`, `a number`; None
    for a name. `name`: its spaces collapsed."""
    if _URL_OR_MAIL().fullmatch(name):
        return "a URL or an e-mail address"
    # `stripe.com` as data writes it, in lower case; `J.Kim`, `TU.Berlin` are names (.kim and
    # .berlin exist), `St.Gallen` a place (.gallen does not).
    folded = name.lower()
    if name == folded and _DOMAIN_LIKE().fullmatch(name) and known_suffix(name) not in (None, name):
        return "a domain"
    if folded in _TRUE_FALSE_WORDS:
        return "a true/false value"
    if _DATE_TEXT().fullmatch(name) or _DATE_WORDS().fullmatch(name):
        return "a date"
    if _TIME_TEXT().fullmatch(name):
        return "a time"
    if NUMBERISH().fullmatch(name) or _LOCAL_NUMBER().fullmatch(name) or folded in _NOT_NUMBERS:
        return "a number"
    return None


_TRUE_FALSE_WORDS: Final = frozenset(
    {"true", "false", "wahr", "falsch", "vrai", "faux", "yes", "no", "ja", "nein", "oui", "non"}
)
_NOT_NUMBERS: Final = frozenset({"inf", "-inf", "+inf", "infinity", "-infinity", "nan"})
# Digits alone, three at least (the shortest postal codes: Iceland's, the Faroes'); `0` is
# what a formula gives for an empty cell.
_POSTAL_CODE: Final = compiled_later(r"(?=(?:[ -]*[0-9]){3})[0-9][0-9 -]*[0-9]")
# A date in words, as spreadsheets and CRMs write it: 3 Mar 2023, Mar 2023, March 3, 2023,
# Oct-24, Q3 2024 (a month's name or its first three letters, English).
_MONTH: Final = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_WORDS: Final = compiled_later(
    rf"(?:\d{{1,2}}(?:st|nd|rd|th)?[ -])?{_MONTH}[ ,-]*(?:\d{{1,2}}(?:st|nd|rd|th)?,? )?"
    r"(?:\d{4}|\d{2})"
    r"|q[1-4][ -]?(?:\d{4}|\d{2})|(?:\d{4}|\d{2})[ -]?q[1-4]",
    re.IGNORECASE,
)
# A time of day, alone or after a date: 12:30, 12:30:00, 9:05 pm, 9/8/2023 14:05.
_TIME_TEXT: Final = compiled_later(
    r"(?:\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4} )?\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?: ?[ap]\.?m\.?)?",
    re.IGNORECASE,
)
# A number as a spreadsheet in another language writes it: 1,5; 1.234,5; 1'234.
_LOCAL_NUMBER: Final = compiled_later(r"[+-]?[0-9][0-9.,' ]*")
# A date as a spreadsheet writes it as text: 2024-01-31, 2024/01/31, 2024-01-31 00:00:00,
# 31/01/2024, 1.31.24.
_DATE_TEXT: Final = compiled_later(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
    r"|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}"
)


_DOMAIN_LIKE: Final = compiled_later(r"(?:[^\W_][\w-]*\.)+[^\W\d_]{2,63}\.?")
# Text that names no place whatever the service knows: a URL (with a scheme, or www.) or an
# e-mail address.
_URL_OR_MAIL: Final = compiled_later(
    r"[a-z][a-z0-9+.-]*://\S*|www\.\S+|[^@\s]+@[^@\s]+\.[^@\s]+", re.IGNORECASE
)


# -- lists ------------------------------------------------------------------------------------

_T = TypeVar("_T")
_LINES: Final = compiled_later(r"[;\n\r\v\f\x85\u2028\u2029]+")
_ID_SEPARATORS: Final = compiled_later(f"[,;{re.escape(BLANKS)}]+")


def _flatten(value: object, parameter: str) -> list[object]:
    """The items of a scalar, a list or tuple (nested, as Excel ranges come), or an array."""
    if is_missing(value):
        return []
    if isinstance(value, list | tuple):
        items: list[object] = []
        for item in value:
            items.extend(_flatten(item, parameter))
        return items
    if isinstance(value, set | frozenset):
        return _flatten(sorted(value, key=repr), parameter)
    if isinstance(value, dict):
        raise refused(
            value, parameter, f"is a mapping, not a list: give {parameter} as a list of values"
        )
    if not isinstance(value, str | bytes):
        tolist = getattr(value, "tolist", None)  # numpy arrays, pandas Series and Index
        if callable(tolist):
            converted: object = tolist()
            return _flatten(converted, parameter) if isinstance(converted, list) else [converted]
    elif isinstance(value, str) and value.lstrip(BLANKS).startswith(_SHOWN_NOT_VALUES):
        text(value, parameter)  # raises, naming it whole (its words are no list)
    return [value]


_SHOWN_NOT_VALUES: Final = (FORMULA_ERROR, STILL_CALCULATING)


def unique(items: list[_T]) -> list[_T]:
    return list(dict.fromkeys(items))


def string_list(value: object, parameter: str) -> list[str]:
    """A list of strings from a scalar, a list or a range; text splits on newlines and `;`.

    Commas do not split (`"Acme, Inc."` is one name). Blanks are dropped, and duplicates after the
    first.
    """
    found: list[str] = []
    for item in _flatten(value, parameter):
        pieces: list[object] = list(_LINES().split(item)) if isinstance(item, str) else [item]
        for piece in pieces:
            got = free_text(piece, parameter)
            if got is not None:
                found.append(got)
    return unique(found)


def id_pieces(value: object, parameter: str) -> Iterator[object]:
    """The items of a scalar, list or range, text split on commas, semicolons and whitespace;
    blanks dropped."""
    for item in _flatten(value, parameter):
        pieces: list[object] = (
            list(_ID_SEPARATORS().split(item)) if isinstance(item, str) else [item]
        )
        for piece in pieces:
            if not (isinstance(piece, str) and not strip_blanks(piece.translate(INVISIBLE))):
                yield piece


def id_list(value: object, parameter: str) -> list[str]:
    """A list of numeric ids (digits, by `numeric_id`'s rules) from a scalar, list or range.

    Text splits on commas, semicolons and whitespace. Blanks are dropped, and duplicates.
    """
    return unique([numeric_id(piece, parameter) for piece in id_pieces(value, parameter)])


def int_list(value: object, parameter: str) -> list[int]:
    """`id_list` as integers, for the ids the spec sends as numbers (geo_codes, locations)."""
    return [int(number) for number in id_list(value, parameter)]


_CODE_RANGE: Final = compiled_later(r"([A-H])-([A-H])")
_DASH: Final = compiled_later(
    rf"[{re.escape(BLANKS)}]*[-\u2010-\u2015\u2212][{re.escape(BLANKS)}]*"
)
_PLUS: Final = compiled_later(rf"[{re.escape(BLANKS)}]*\+")


def headcount_codes(value: object) -> list[str]:
    """Headcount codes A-H (search-companies `company_headcounts`), in A-H order, once each.

    From a list or text such as `"B, C"`, `"b;c"`, ranges `"B-D"` (B, C, D), and the employee
    ranges `company_size` shows (`"51-200"` -> C, `"10001+"` -> H).
    """
    from profnet_sheets.spec.resources import (  # the spec: when a headcount is asked for
        HEADCOUNT_CODES,
        company_size_label,
        headcount_codes_told,
    )

    labels = {company_size_label(code): code for code in HEADCOUNT_CODES}
    parameter = "company_headcounts"
    found: set[str] = set()
    for item in _flatten(value, parameter):
        got = text(item, parameter)
        if got is None:
            continue
        joined = _PLUS().sub("+", _DASH().sub("-", got.translate(INVISIBLE)))
        for token in _ID_SEPARATORS().split(joined):
            if not token:
                continue
            upper = token.upper()
            if upper in HEADCOUNT_CODES:
                found.add(upper)
            elif span := _CODE_RANGE().fullmatch(upper):
                low, high = sorted(span.groups())
                found.update(code for code in HEADCOUNT_CODES if low <= code <= high)
            elif token in labels:
                found.add(labels[token])
            else:
                raise NormalizationError(
                    f"{shown_in_cell(token)} is not a headcount code: "
                    f"give codes {headcount_codes_told()}",
                    parameter,
                    item,
                )
    return [code for code in HEADCOUNT_CODES if code in found]
