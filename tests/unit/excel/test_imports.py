"""The Excel front end never imports the widgets (the reverse of tests/unit/widgets)."""

from __future__ import annotations

from tests.unit.test_public_api import imports_of


def test_the_excel_front_end_never_imports_the_widgets() -> None:
    found = imports_of("excel")
    assert "profnet_sheets.excel.cells" in found, "the excel modules were read"
    assert sorted(name for name in found if name.startswith("profnet_sheets.widgets")) == []
