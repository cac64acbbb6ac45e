"""The search workflow sits above the request layer and below the front ends, and the front
ends run a search only through it."""

from __future__ import annotations

import ast

from tests.unit.test_public_api import PACKAGE, imports_of

ABOVE_THE_CLIENT = ("profnet_sheets.searches", "profnet_sheets.setup_check")
FRONT_ENDS = ("profnet_sheets.cli", "profnet_sheets.excel.", "profnet_sheets.widgets.")
# The front-end modules that run a search (the PROFNET_LEADS formula only reads a finished one).
RUN_SEARCHES = ("cli.py", "excel/searches.py", "excel/macros.py", "widgets/search.py")


def test_the_client_imports_nothing_above_it() -> None:
    above = [name for name in imports_of("client") if name.startswith(ABOVE_THE_CLIENT)]
    assert above == []


def test_the_search_workflow_imports_no_front_end() -> None:
    upward = [
        name
        for name in imports_of("searches")
        if name == "profnet_sheets.cli" or name.startswith(FRONT_ENDS[1:])
    ]
    assert upward == []


def test_the_front_ends_start_wait_for_and_read_searches_only_through_the_workflow() -> None:
    """None of them calls the client's search methods or a job's wait and read: the workflow
    (searches.workflow.Search) does, and they show what it gives them."""
    job_calls = {"attach_search", "search_leads", "search_companies", "wait", "results", "frame"}
    found = []
    for module in (*RUN_SEARCHES, "widgets/follow.py"):
        tree = ast.parse((PACKAGE / module).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = node.func.value
                on_search = isinstance(target, ast.Name) and target.id in ("search", "follow")
                if node.func.attr in job_calls and not on_search:
                    found.append(f"{module}:{node.lineno} .{node.func.attr}(")
                is_client_search = node.func.attr == "search" and "client" in ast.unparse(target)
                if is_client_search:
                    found.append(f"{module}:{node.lineno} .search(")
    assert found == [], found
