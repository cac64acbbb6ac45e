"""xlwings tab > Run main for profnet_company_search.xlsx (keep this file beside the workbook)."""

from profnet_sheets.excel.macros import company_search


def main() -> None:
    """Run the company search of the Filters sheet; results on the Results sheet."""
    company_search()
