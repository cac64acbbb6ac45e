"""Bad input (issue 7): every public normaliser and every PROFNET_ formula is fuzzed.

The fuzzing itself lives beside the code it fuzzes: `tests/unit/test_normalize.py` (the
`NORMALISERS` table: any input raises only NormalizationError, and normalising twice changes
nothing) and `tests/unit/excel/test_formulas_fuzz.py` (the `FORMULAS` table: whatever Excel hands
over, no formula raises). This module proves those tables cover everything public, so a new
normaliser or formula without a fuzz test fails here, and fuzzes what the table missed.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from profnet_sheets.client import cell_values as v
from profnet_sheets.client import identifiers as ids
from profnet_sheets.errors import NormalizationError
from profnet_sheets.excel import formulas, udfs
from tests.unit.excel.test_formulas_fuzz import EXCEL_VALUES, FORMULAS
from tests.unit.test_normalize import INPUTS, NORMALISERS

# Public names of the cell values and the identifier grammar that are not normalisers.
NOT_NORMALISERS = {
    "COMPANY_IDENTIFIERS",
    "EXCEL_ERRORS",
    "FORMULA_ERROR",
    "PLACEHOLDERS",
    "STILL_CALCULATING",
    "is_network_host",
    "is_personal_email_domain",
    "is_placeholder",
}

# Normalisers test_normalize.py's table does not fuzz, fuzzed here with the same properties.
MORE: dict[str, Callable[[Any], Any]] = {
    "school_ids": lambda value: ids.school_ids(value, "school_ids"),
}
FUZZED = {**NORMALISERS, **MORE}

SCHOOLISH = st.builds(
    "{}{}{}".format,
    st.sampled_from(["", "https://www.profnet.com/school/", "profnet.com/school/", "//"]),
    st.one_of(st.text(max_size=12), st.sampled_from(["stanford-university", "1792", "mit"])),
    st.sampled_from(["", "/", ", mit", "; 1792", "\n42", "/?x=1"]),
)


def test_every_public_normaliser_is_fuzzed() -> None:
    names = {name: module for module in (v, ids) for name in module.__all__}
    public = {
        name
        for name, module in names.items()
        if name not in NOT_NORMALISERS and inspect.isfunction(getattr(module, name))
    }
    assert set(names) - NOT_NORMALISERS == public, "only normalisers are public besides"
    assert public == set(FUZZED), (
        f"fuzz these in tests/unit/test_normalize.py NORMALISERS: {sorted(public - set(FUZZED))}"
    )


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(MORE)), value=st.one_of(INPUTS, SCHOOLISH))
def test_the_other_normalisers_raise_only_normalization_errors(name: str, value: object) -> None:
    with contextlib.suppress(NormalizationError):
        MORE[name](value)


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(MORE)), value=st.one_of(INPUTS, SCHOOLISH))
def test_the_other_normalisers_are_idempotent(name: str, value: object) -> None:
    try:
        once = MORE[name](value)
    except NormalizationError:
        return
    assert MORE[name](once) == once


def test_every_formula_is_fuzzed_with_every_argument() -> None:
    """test_formulas_fuzz draws any formula of FORMULAS with up to all its arguments."""
    names = {name for name in vars(udfs) if name.startswith("PROFNET_")}
    assert set(FORMULAS) == names
    for name, function in FORMULAS.items():
        logic = getattr(formulas, name.removeprefix("PROFNET_").lower())
        assert function is logic
        assert list(inspect.signature(function).parameters) == list(
            inspect.signature(getattr(udfs, name)).parameters
        ), f"{name}: the fuzz draws the formula's own arguments"


@settings(max_examples=60, deadline=None)
@given(value=EXCEL_VALUES)
def test_excel_values_reach_every_normaliser_without_a_crash(value: object) -> None:
    """What Excel hands a formula (floats, blanks, error codes, dates, 1-D and 2-D lists)."""
    for normalise in FUZZED.values():
        with contextlib.suppress(NormalizationError):
            normalise(value)
