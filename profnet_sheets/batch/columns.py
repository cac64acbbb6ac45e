"""Which columns feed a kind: by their header (in a few languages), else by values whose shape
leaves no doubt (URLs, domains, URNs); never a guess at bare words, dates or numbers."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import polars as pl

from profnet_sheets.batch.kinds import Kind, kind_named
from profnet_sheets.batch.naming import error_column
from profnet_sheets.batch.plan import make_plan
from profnet_sheets.client.prepare import prepare
from profnet_sheets.errors import ProfnetError
from profnet_sheets.redact import listed
from profnet_sheets.spec import DEFAULT_PROFILE, ServiceProfile, endpoint

__all__ = ["choose_column", "choose_columns", "key_candidates"]

SAMPLE_ROWS: Final = 200
_VALID_ENOUGH: Final = 0.5  # a column whose sampled keys validate at least this often fits

# Header words per parameter, strongest first (English, German, French, Spanish, Italian,
# Dutch, Portuguese), compared without case or accents, as whole words. A header names a key
# only when it says what the key is (`Company ID`, `Website`, `Job URL`): a kind's own word
# (`Company`, `Job`, `Post`) or a CRM's (`Account`) alone never does (decisions.md #227).
_NETWORK: Final = ("profnet", "linkedin")
_COMPANY_PAGE = ("company page", "company url", *_NETWORK)
_PROFILE = ("profile url", "profile", "profil", "perfil", "profilo", "profnet url", "linkedin url")
_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "company": (
        *_COMPANY_PAGE,  # exact when they validate (a page on the network's own host)
        *("website", "web site", "domain", "homepage", "url", "site", "web"),
        *("webseite", "internetseite", "internetadresse", "domane", "site web", "site internet"),
        *("sitio web", "pagina web", "dominio", "sito web", "sito"),
        *("email", "e mail", "mail", "company id"),
    ),
    "profnet_url": (*_PROFILE, *_COMPANY_PAGE, "school url", "url", "link", "page"),
    "job_id": ("job id", "job url", "job link", "posting url", "stellen url", "offre url"),
    "urn": ("post urn", "post url", "post id", "post link", "urn", "beitrag url"),
    "location": (
        *("location", "place", "city", "town", "region", "country", "address"),
        *("ort", "stadt", "standort", "ville", "lieu", "ciudad", "ubicacion", "citta", "localita"),
    ),
    "name": ("full name", "name", "contact", "person", "nom", "nombre", "nome", "naam"),
    "company_name": (
        *("company name", "company", "employer", "organisation", "organization", "account"),
        *("firma", "unternehmen", "arbeitgeber", "entreprise", "societe", "empresa", "azienda"),
    ),
    "job_title": (
        *("job title", "title", "position", "role", "jobtitel", "titel", "poste", "fonction"),
        *("cargo", "puesto", "ruolo", "functie"),
    ),
    "school_name": (
        *("school name", "school", "university", "college", "institution"),
        *("schule", "hochschule", "universitat", "ecole", "universite", "universidad"),
        *("escuela", "universita", "scuola"),
    ),
    "keywords": ("keywords", "keyword", "schlagworter", "mots cles", "palabras clave"),
    "keyword": ("keyword", "keywords"),
}
# Words that name a key only as the whole header (the network's name aside): `Account Name` is
# a company's, `Website URL` no profile's, `HubSpot Company ID` another system's id.
_WHOLE_HEADER_ONLY: Final = frozenset(
    {"name", "nom", "nombre", "nome", "naam", "url", "link", "page", "company id", "job id"}
    | {"post id", "urn"}
)
# Words that make a header name something about the thing, not its key: `Job Level`,
# `Post Count`, `Account ID`, `Company Size`, `Email Address` (no place).
_NOT_A_KEY: Final = frozenset(
    {"id", "ids", "number", "numbers", "nummer", "numero", "nr", "no", "code", "count", "level"}
    | {"size", "type", "status", "date", "score", "total", "rank", "stage", "category", "owner"}
    | {"source", "year", "email", "mail"}
)
# Headers that say a column of numbers holds ids (a number is never a domain or URL otherwise).
_ID_WORDS: Final = ("id", "ids", "number", "nummer", "numero")
_ID_PARAMETERS: Final = frozenset({"job_id", "urn"})  # keys that are numbers by nature
# Parameters whose keys can be told by their shape alone (decisions.md #166): a domain, an
# e-mail, a URL or a URN. Bare words, dates, zip codes and numbers never are: they feed a kind
# only from a column the user named (by its header, or --column).
_HOST: Final = r"[0-9a-z-]\.[a-z]{2,}(?![0-9a-z])"  # `acme.com`, `www.profnet.com/in/...`
_SHAPED: Final[dict[str, re.Pattern[str]]] = {
    "company": re.compile(_HOST, re.IGNORECASE),
    "profnet_url": re.compile(_HOST, re.IGNORECASE),
    "job_id": re.compile(_HOST, re.IGNORECASE),
    "urn": re.compile(rf"^\s*urn:|{_HOST}", re.IGNORECASE),
}


def _words(header: str) -> str:
    """A header as plain lowercase words: `Web-Site (URL)` -> `web site url`."""
    plain = unicodedata.normalize("NFKD", header)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch)).casefold()
    return " ".join(re.split(r"[^0-9a-z]+", plain)).strip()


def _header_rank(parameter: str, header: str) -> int | None:
    """How strongly `header` names `parameter` (0 is strongest), None when it does not: one of
    its words as the whole header, or inside it with no word that makes it name something else
    (`_NOT_A_KEY`)."""
    words = _words(header).split()
    given = "".join(words)
    for rank, word in enumerate(_WORDS.get(parameter, (parameter.replace("_", " "),))):
        if given == word.replace(" ", ""):
            return rank
        phrase = word.split()
        at = _find(words, phrase)
        if at is None:
            continue
        rest = set(words[:at] + words[at + len(phrase) :])
        if word in _WHOLE_HEADER_ONLY:
            if rest <= set(_NETWORK):
                return rank
        elif not rest & _NOT_A_KEY:
            return rank
    return None


def _find(words: list[str], phrase: list[str]) -> int | None:
    """Where `phrase` starts among `words`, None when it is not there."""
    for at in range(len(words) - len(phrase) + 1):
        if words[at : at + len(phrase)] == phrase:
            return at
    return None


def _says_ids(header: str) -> bool:
    return any(word in _words(header).split() for word in _ID_WORDS)


def key_candidates(frame: pl.DataFrame | pl.Schema) -> list[str]:
    """The columns that may hold keys: text or integers (not lists, records, floats...)."""
    schema = frame.schema if isinstance(frame, pl.DataFrame) else frame
    return [
        name
        for name, dtype in schema.items()
        if dtype.is_integer() or dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum)
    ]


def input_candidates(frame: pl.DataFrame | pl.Schema) -> tuple[list[str], list[str]]:
    """`key_candidates` split: the table's own columns, then those an earlier enrichment
    wrote (`company_profnet_url` beside its `company_error`), read only when none of the
    first will do, so that a file enriched again is read from the keys it was enriched by
    (paid for already)."""
    candidates = key_candidates(frame)
    ending = error_column("")
    prefixes = tuple(
        name.removesuffix(ending) for name in candidates if name.endswith(ending) and name != ending
    )
    if not prefixes:
        return candidates, []
    written = [name for name in candidates if name.startswith(prefixes)]
    return [name for name in candidates if name not in written], written


@dataclass(frozen=True)
class _Fit:
    column: str
    rank: int | None  # of its header for the parameter
    valid: float  # share of its sampled distinct non-blank values that validate
    shaped: float  # share of them that validate and are URLs, domains or URNs by their shape
    numbers: bool  # all its sampled values are numbers


def _fit(
    kind: Kind, parameter: str, column: str, head: pl.DataFrame, profile: ServiceProfile
) -> _Fit:
    distinct = head.select(column).unique(maintain_order=True)
    plan = make_plan(kind, {parameter: column}, distinct, head.height, {}, profile=profile)
    keys = len(plan.call_of) + len(plan.invalid)
    shape = _SHAPED.get(parameter)
    shaped = sum(1 for (raw, *_) in plan.call_of if shape and shape.search(str(raw)))
    values = head.get_column(column).drop_nulls()
    numbers = values.dtype.is_integer() or (
        values.len() > 0 and bool(values.cast(pl.String).str.contains(r"^\s*[0-9]+\s*$").all())
    )
    keys = keys or 1  # no key at all: nothing validates
    rank = _header_rank(parameter, column)
    return _Fit(column, rank, len(plan.call_of) / keys, shaped / keys, numbers)


def _best(
    kind: Kind, parameter: str, columns: list[str], head: pl.DataFrame, profile: ServiceProfile
) -> _Fit | None:
    """The column that fits `parameter` best: a named one that validates; else one whose
    values are keys by their shape (URLs, domains, URNs: `_SHAPED`); else a
    named one; else none. Numbers never feed a domain, URL or name unless the header says ids."""
    fits = []
    for column in columns:
        fit = _fit(kind, parameter, column, head, profile)
        if fit.numbers and parameter not in _ID_PARAMETERS and not _says_ids(column):
            continue
        fits.append(fit)
    named = sorted((fit for fit in fits if fit.rank is not None), key=lambda f: (f.rank, -f.valid))
    for fit in named:
        if fit.valid >= _VALID_ENOUGH:
            return fit
    shaped = [fit for fit in fits if fit.shaped >= _VALID_ENOUGH]
    if shaped:
        return max(shaped, key=lambda fit: fit.shaped)
    return named[0] if named else None


def choose_column(
    frame: pl.DataFrame, kind: str | Kind, profile: ServiceProfile = DEFAULT_PROFILE
) -> str | None:
    """The column most likely to hold the keys of `kind` (its main input): by its header
    (`Website`, `Domain`, `URL`, `Profile`, `Webseite`, `Site web`, ... as whole words), else
    by its first values when most are keys of the kind by their shape (URLs, domains, URNs);
    never a column of numbers for a domain, URL or name unless its header says ids. None when
    no header names the kind's keys and no column's values leave no doubt: bare words, dates,
    zip codes and numbers are read only from a column the user named. Values validate as the
    service of `profile` (a client's) reads them: page URLs on its network's hosts."""
    spec = kind if isinstance(kind, Kind) else kind_named(kind)
    head = frame.head(SAMPLE_ROWS)
    own, written = input_candidates(frame)
    fit = _best(spec, spec.inputs[0], own, head, profile) or _best(
        spec, spec.inputs[0], written, head, profile
    )
    return None if fit is None else fit.column


def choose_columns(
    frame: pl.DataFrame, kind: str | Kind, profile: ServiceProfile = DEFAULT_PROFILE
) -> dict[str, str]:
    """Parameter -> column for every input of `kind` the table seems to hold: the main one by
    `choose_column`, the others (a profile search's company, title and location; headcount
    filters) only when a header names them. Each column feeds one parameter."""
    spec = kind if isinstance(kind, Kind) else kind_named(kind)
    main = choose_column(frame, spec, profile)
    if main is None:
        return {}
    chosen = {spec.inputs[0]: main}
    own, _ = input_candidates(frame)  # what narrows the keys down: never a run's output
    free = [name for name in own if name != main]
    named = sorted(
        (rank, parameter, column)
        for parameter in spec.inputs[1:]
        for column in free
        if (rank := _header_rank(parameter, column)) is not None
    )
    for _, parameter, column in named:
        if parameter not in chosen and column not in chosen.values():
            chosen[parameter] = column
    return {parameter: chosen[parameter] for parameter in spec.inputs if parameter in chosen}


def _reads_as_a_key(kind: Kind, header: str, profile: ServiceProfile) -> bool:
    """Whether a column's header is itself a key of `kind` by its shape (`acme.com`, a page
    URL, a URN): a file without a header row, its first value taken for the header."""
    parameter = kind.inputs[0]
    shape = _SHAPED.get(parameter)
    if shape is None or not shape.search(header):
        return False
    try:
        prepare(endpoint(kind.endpoint), kind.call({parameter: header}, {}), profile=profile)
    except (ProfnetError, ValueError):
        return False
    return True


def mapping_from_options(kind: str | Kind, given: list[str]) -> str | dict[str, str]:
    """`--column` values as enrich() takes them: one plain name for the main input, or
    `parameter=column` pairs (`name=Full Name`, `company=Employer`, `title=Role`)."""
    spec = kind if isinstance(kind, Kind) else kind_named(kind)
    if len(given) == 1 and "=" not in given[0]:
        return given[0]
    mapping: dict[str, str] = {}
    for item in given:
        parameter, equals, column = item.partition("=")
        if not equals:
            parameter, column = spec.inputs[0], item
        raw = parameter.strip().lower()
        name = raw if raw in spec.inputs else _ALIASES.get(raw, raw)
        if name not in spec.inputs and len(spec.inputs) == 1:
            raise ValueError(
                f"{spec.name} reads one column, named alone: give --column {column.strip()!r}, "
                f"not {item.strip()!r}"
            )
        if name not in spec.inputs:
            raise ValueError(
                f"{spec.name} takes columns for {', '.join(spec.inputs)}, not {parameter!r}: "
                f"give --column PARAMETER=COLUMN, such as {spec.inputs[0]}={column.strip()!r}"
            )
        mapping[name] = column.strip()
    return mapping


_ALIASES: Final[Mapping[str, str]] = {
    "company": "company_name",
    "title": "job_title",
    "school": "school_name",
    "url": "profnet_url",
    "job": "job_id",
    "post": "urn",
}


def resolve_columns(
    table: pl.DataFrame | pl.LazyFrame,
    kind: str | Kind,
    given: list[str],
    profile: ServiceProfile = DEFAULT_PROFILE,
) -> tuple[str | dict[str, str], str | None]:
    """The columns to enrich from: as `given` (`--column` values, see `mapping_from_options`),
    or when none is given chosen by `choose_columns` from the first rows (as `profile`'s
    service reads them), with a note that says which. ValueError when nothing can be chosen."""
    spec = kind if isinstance(kind, Kind) else kind_named(kind)
    if given:
        return mapping_from_options(spec, given), None
    head = table.head(SAMPLE_ROWS)
    sample = head.collect() if isinstance(head, pl.LazyFrame) else head
    chosen = choose_columns(sample, spec, profile)
    if not chosen:
        raise ValueError(
            f"no column is named for {spec.name} keys ({spec.description}) and none holds them "
            f"for certain; the columns are {listed(sample.columns)}: give the one to read "
            "with --column NAME"
        )
    shown = ", ".join(f"{column!r}" for column in chosen.values())
    note = f"Reading {spec.name} keys from {shown} (give --column to choose another)."
    main = chosen[spec.inputs[0]]
    if _reads_as_a_key(spec, main, profile):
        note += (
            f"\nWarning: its header {main!r} reads as a {spec.name} key itself: if the file "
            "has no header row, its first row is taken for one and is not enriched (add a "
            "header row above the values)."
        )
    return (chosen[spec.inputs[0]] if len(chosen) == 1 else chosen), note
