"""Searches as every front end runs them: the cost first, start or reuse, wait, read every page
once, re-attach, the run's own spend; places by name."""
