"""xlwings tab > Run main for profnet_company_enrichment.xlsx: Enrich selection (keep it beside)."""

from profnet_sheets.excel.macros import enrich_selection


def main() -> None:
    """Enrich the selected column with the kind on the Enrich sheet, as values beside it."""
    enrich_selection()
