"""xlwings tab > Run main for profnet_lead_list_enrichment.xlsx: Enrich selection."""

from profnet_sheets.excel.macros import enrich_selection


def main() -> None:
    """Enrich the selected column with the kind on the Enrich sheet, as values beside it."""
    enrich_selection()
