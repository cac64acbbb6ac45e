"""A faithful local implementation of the service: deterministic data, credits, jobs, faults."""

from profnet_sheets.sandbox.server import (
    DEFAULT_KEY,
    RunningSandbox,
    SandboxConfig,
    serve_forever,
    start_sandbox,
)

__all__ = ["DEFAULT_KEY", "RunningSandbox", "SandboxConfig", "serve_forever", "start_sandbox"]
