"""Notebook forms (ipywidgets 8): lead and company searches, enrichment of a table, lookups.

>>> from profnet_sheets.widgets import LeadSearchForm
>>> LeadSearchForm()            # in a notebook cell: the form
"""

from profnet_sheets.widgets.enrich import EnrichForm
from profnet_sheets.widgets.lookup import LookupForm
from profnet_sheets.widgets.search import CompanySearchForm, LeadSearchForm

__all__ = ["CompanySearchForm", "EnrichForm", "LeadSearchForm", "LookupForm"]
