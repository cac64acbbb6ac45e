"""The sandbox's defaults that callers name without starting (or importing) a server."""

DEFAULT_KEY = "sandbox-key"
