"""Professional-network data in Excel and Jupyter: one cached, budgeted request layer.

>>> from profnet_sheets import Client
>>> client = Client()                       # no key configured: the embedded sandbox
>>> client.get_company_details(domain="https://www.acme.com/about")["company_name"]
'Acme'
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from profnet_sheets.client.client import Client
    from profnet_sheets.client.jobs import PollSchedule, SearchJob, SearchStatus
    from profnet_sheets.client.spend import Estimate, PlannedCall
    from profnet_sheets.config import ApiKey, Settings, save_config
    from profnet_sheets.errors import (
        ApiError,
        ArgumentError,
        BudgetExceeded,
        ConfigurationError,
        InsufficientCredits,
        InvalidParameter,
        NormalizationError,
        NotAKeyError,
        NotFound,
        OfflineMiss,
        ProfnetError,
        RateLimited,
        SearchError,
        SearchFailed,
        SearchNotReady,
        SearchTimedOut,
        ServiceError,
        ServiceUnreachable,
        StoppedBuying,
        StoreError,
        TeamCacheUnreachable,
        TransportError,
        Unauthorized,
    )

# Where each public name lives: imported on first use, so that `import profnet_sheets` costs
# next to nothing (Excel imports it at every start; requests-cache alone takes ~0.6 s).
_HOMES = {
    "Client": "profnet_sheets.client.client",
    **dict.fromkeys(("Estimate", "PlannedCall"), "profnet_sheets.client.spend"),
    **dict.fromkeys(("PollSchedule", "SearchJob", "SearchStatus"), "profnet_sheets.client.jobs"),
    **dict.fromkeys(("ApiKey", "Settings", "save_config"), "profnet_sheets.config"),
}


def __getattr__(name: str) -> Any:
    import importlib

    home = _HOMES.get(name) or ("profnet_sheets.errors" if name in __all__ else None)
    if home is None:
        raise AttributeError(f"module 'profnet_sheets' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "ApiError",
    "ApiKey",
    "ArgumentError",
    "BudgetExceeded",
    "Client",
    "ConfigurationError",
    "Estimate",
    "InsufficientCredits",
    "InvalidParameter",
    "NormalizationError",
    "NotAKeyError",
    "NotFound",
    "OfflineMiss",
    "PlannedCall",
    "PollSchedule",
    "ProfnetError",
    "RateLimited",
    "SearchError",
    "SearchFailed",
    "SearchJob",
    "SearchNotReady",
    "SearchStatus",
    "SearchTimedOut",
    "ServiceError",
    "ServiceUnreachable",
    "Settings",
    "StoppedBuying",
    "StoreError",
    "TeamCacheUnreachable",
    "TransportError",
    "Unauthorized",
    "save_config",
]
