"""ipywidgets stays inside profnet_sheets.widgets, which imports no other front end; the
forms' logic lives in modules without widgets."""

from __future__ import annotations

from tests.unit.test_public_api import PACKAGE, imports_of

# The logic the forms are made of, testable alone.
PURE = ("fields.py", "values.py", "cost.py", "tables.py", "spend.py")


def mentions_ipywidgets(path_glob: str) -> list[str]:
    return [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.glob(path_glob)
        if "ipywidgets" in path.read_text()
    ]


def test_ipywidgets_is_imported_only_by_the_widgets() -> None:
    outside = [name for name in mentions_ipywidgets("**/*.py") if not name.startswith("widgets")]
    assert outside == []


def test_the_logic_of_the_forms_needs_no_widget() -> None:
    assert [name for name in PURE if f"widgets/{name}" in mentions_ipywidgets("widgets/*.py")] == []


def test_the_widgets_import_no_other_front_end() -> None:
    allowed = (
        "profnet_sheets.batch",
        "profnet_sheets.client",
        "profnet_sheets.config",
        "profnet_sheets.errors",
        "profnet_sheets.redact",
        "profnet_sheets.searches",
        "profnet_sheets.setup_check",
        "profnet_sheets.spec",
        "profnet_sheets.words",
        "profnet_sheets.widgets",
    )
    for name in imports_of("widgets"):
        assert name.startswith(allowed), name
