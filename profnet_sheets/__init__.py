"""Professional-network data in Excel and Jupyter: one cached, budgeted request layer.

>>> from profnet_sheets import Client
>>> client = Client()                       # no key configured: the embedded sandbox
>>> client.get_company_details(domain="https://www.acme.com/about")["company_name"]
'Acme'
"""

from profnet_sheets.client.client import Client, Estimate, PlannedCall
from profnet_sheets.client.jobs import PollSchedule, SearchJob, SearchStatus
from profnet_sheets.config import ApiKey, Settings, save_config
from profnet_sheets.errors import (
    ApiError,
    BudgetExceeded,
    ConfigurationError,
    InsufficientCredits,
    InvalidParameter,
    NotFound,
    OfflineMiss,
    ProfnetError,
    RateLimited,
    SearchError,
    SearchFailed,
    SearchNotReady,
    SearchTimedOut,
    ServiceError,
    TransportError,
    Unauthorized,
)

__all__ = [
    "ApiError",
    "ApiKey",
    "BudgetExceeded",
    "Client",
    "ConfigurationError",
    "Estimate",
    "InsufficientCredits",
    "InvalidParameter",
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
    "Settings",
    "TransportError",
    "Unauthorized",
    "save_config",
]
