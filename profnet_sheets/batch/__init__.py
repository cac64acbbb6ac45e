"""Whole columns: enrichment of tables with polars, each unique key fetched once."""

from profnet_sheets.batch.engine import EnrichmentInterrupted, enrich, plan_enrichment
from profnet_sheets.batch.kinds import KINDS, Kind, kind_named
from profnet_sheets.batch.plan import Plan

__all__ = [
    "KINDS",
    "EnrichmentInterrupted",
    "Kind",
    "Plan",
    "enrich",
    "kind_named",
    "plan_enrichment",
]
