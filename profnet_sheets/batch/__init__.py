"""Whole columns: enrichment of tables with polars, each unique key fetched once."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from profnet_sheets.batch.engine import EnrichmentInterrupted, enrich, plan_enrichment
    from profnet_sheets.batch.kinds import KINDS, Kind, kind_named
    from profnet_sheets.batch.plan import Plan

# Imported on first use: the kinds (the command line's help) do not need polars loaded.
_HOMES = {
    **dict.fromkeys(("EnrichmentInterrupted", "enrich", "plan_enrichment"), "engine"),
    **dict.fromkeys(("KINDS", "Kind", "kind_named"), "kinds"),
    "Plan": "plan",
}


def __getattr__(name: str) -> Any:
    import importlib

    if name not in _HOMES:
        raise AttributeError(f"module 'profnet_sheets.batch' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"profnet_sheets.batch.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "KINDS",
    "EnrichmentInterrupted",
    "Kind",
    "Plan",
    "enrich",
    "kind_named",
    "plan_enrichment",
]
