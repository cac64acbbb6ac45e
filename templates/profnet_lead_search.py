"""xlwings tab > Run main for profnet_lead_search.xlsx (keep this file beside the workbook)."""

from profnet_sheets.excel.macros import lead_search


def main() -> None:
    """Run the lead search of the Filters sheet; results on the Results sheet."""
    lead_search()
