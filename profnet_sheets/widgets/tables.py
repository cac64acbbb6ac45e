"""HTML for the forms: result tables, messages and download links (pure, escaped)."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from profnet_sheets.batch.io import CSV_SUFFIXES, PARQUET_SUFFIXES, XLSX_SUFFIXES
from profnet_sheets.words import counted

MAX_ROWS_SHOWN = 200
MAX_CELL_CHARS = 120
MAX_DOWNLOAD_BYTES = 25 * 1024 * 1024  # larger files: open the saved file instead
MIME_TYPES = {
    ".csv": "text/csv",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".parquet": "application/vnd.apache.parquet",
}
TABLE_STYLE = (
    "<style>"
    ".profnet-table{max-height:26em;overflow:auto;border:1px solid #ddd}"
    ".profnet-table table{border-collapse:collapse;font-size:12px}"
    ".profnet-table th{position:sticky;top:0;background:#f4f4f4}"
    ".profnet-table th,.profnet-table td{padding:2px 6px;border-bottom:1px solid #eee;"
    "text-align:left;white-space:nowrap}"
    "</style>"
)
Tone = Literal["info", "error", "success"]
_COLOURS: dict[Tone, str] = {"info": "#333", "error": "#b00020", "success": "#1b5e20"}


def cell_text(value: Any) -> str:
    """A value as a table shows it: nested values as compact JSON, long ones cut."""
    if value is None:
        return ""
    if isinstance(value, list | tuple | dict):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    else:
        text = str(value)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def html_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    *,
    total: int | None = None,
    noun: tuple[str, str] = ("row", "rows"),
    max_rows: int = MAX_ROWS_SHOWN,
) -> str:
    """An HTML table of `rows` (at most `max_rows`), every value escaped, with a caption
    counting them (`noun`: the singular and the plural)."""
    total = len(rows) if total is None else total
    shown = rows[:max_rows]
    caption = counted(total, *noun)
    if len(shown) < total:
        caption += f" (the first {len(shown):,} shown; export them all)"
    head = "".join(f"<th>{html.escape(name)}</th>" for name in columns)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(cell_text(row.get(name)))}</td>" for name in columns)
        + "</tr>"
        for row in shown
    )
    return (
        f'{TABLE_STYLE}<div class="profnet-caption">{html.escape(caption)}</div>'
        f'<div class="profnet-table"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def answer_html(answer: Any) -> str:
    """An answer as a reader wants it: a record as a table of its fields (lists of text joined
    `a; b`, as in the exports), a list of records as a table of rows; escaped."""
    if isinstance(answer, dict):
        rows = [{"field": name, "value": _shown(value)} for name, value in answer.items()]
        return html_table(rows, ["field", "value"], noun=("field", "fields"))
    if isinstance(answer, list) and all(isinstance(item, dict) for item in answer):
        columns = list(dict.fromkeys(name for item in answer for name in item))
        rows = [{name: _shown(item.get(name)) for name in columns} for item in answer]
        return html_table(rows, columns)
    return message(cell_text(answer))


def _shown(value: Any) -> Any:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return "; ".join(value)
    return value


def message(text: str, tone: Tone = "info") -> str:
    """One line of text for a form (escaped); empty text gives nothing."""
    if not text:
        return ""
    return f'<div class="profnet-{tone}" style="color:{_COLOURS[tone]}">{html.escape(text)}</div>'


def download_link(data: bytes, filename: str, label: str | None = None) -> str:
    """A link that downloads `data` as `filename` in the browser (a data: URI: it needs no
    file server, so it works in Jupyter and in Voila alike)."""
    name = Path(filename).name
    if len(data) > MAX_DOWNLOAD_BYTES:
        return html.escape(f"{name} is too large to download here: open the saved file.")
    mime = MIME_TYPES.get(Path(name).suffix.lower(), "application/octet-stream")
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f'<a class="profnet-download" download="{html.escape(name)}" '
        f'href="data:{mime};base64,{encoded}">{html.escape(label or "Download " + name)}</a>'
    )


def export_path(text: str, suffix: str) -> Path:
    """Where an export goes: the name typed, with the table suffix asked for (`leads` ->
    `leads.csv`; `out/leads.xlsx` -> `out/leads.csv` for CSV; `acme.inc` -> `acme.inc.csv`)."""
    path = Path(text.strip() or "export").expanduser()
    known = CSV_SUFFIXES | XLSX_SUFFIXES | PARQUET_SUFFIXES
    if path.suffix.lower() in known:
        path = path.with_suffix("")
    return path.with_name(path.name + suffix)
