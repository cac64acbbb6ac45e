"""The request layer: one cached, budgeted Client over the service."""
