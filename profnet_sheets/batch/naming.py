"""The names of the columns enrichment adds: readable, never a word twice (`company_name`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable


def default_prefix(kind: str) -> str:
    """`company_` for the kind `company`."""
    return f"{kind}_"


def column_name(prefix: str, field: str) -> str:
    """The column of `field` under `prefix`: `prefix + field`, but a prefix ending in `_`
    is not repeated by the field's words (`company_` + `company_name` -> `company_name`,
    `headcount_` + `headcount` -> `headcount`, `profile_posts_` + `posts_total` ->
    `profile_posts_total`)."""
    if not prefix.endswith("_"):
        return prefix + field
    head = [word for word in prefix[:-1].split("_") if word]
    words = field.split("_")
    while words and words[0] in head:
        words.pop(0)
    return "_".join([*head, *words]) if head else field


def column_names(prefix: str, fields: Iterable[str], taken: Collection[str] = ()) -> dict[str, str]:
    """Field -> column for every field: `column_name`, or the full `prefix + field` where that
    name is `taken` by a column of the table (a search's own `company_name`) or would be shared
    by two fields."""
    chosen = list(fields)
    names = {field: column_name(prefix, field) for field in chosen}
    if len(set(names.values())) < len(names):
        return {field: prefix + field for field in chosen}
    return {
        field: prefix + field if name in taken and name != prefix + field else name
        for field, name in names.items()
    }


def error_column(prefix: str) -> str:
    """The column that says per row what went wrong: `company_error`."""
    return f"{prefix}error"
