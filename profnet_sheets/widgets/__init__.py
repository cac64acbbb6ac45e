"""Notebook forms (ipywidgets 8): lead and company searches, enrichment of a table, lookups,
the free setup check.

>>> from profnet_sheets.widgets import LeadSearchForm
>>> LeadSearchForm()            # in a notebook cell: the form
"""

from profnet_sheets.widgets.check import SetupCheck
from profnet_sheets.widgets.enrich import EnrichForm
from profnet_sheets.widgets.lookup import LookupForm
from profnet_sheets.widgets.search import CompanySearchForm, LeadSearchForm

__all__ = ["CompanySearchForm", "EnrichForm", "LeadSearchForm", "LookupForm", "SetupCheck"]
