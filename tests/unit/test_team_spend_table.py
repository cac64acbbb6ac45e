"""The team's spend as `credits` shows it: a row per machine and a total of each day or
period that more than one machine spent in."""

from __future__ import annotations

from profnet_sheets.client.team_ledger import MachineSpend, TeamSpendTable


def test_a_period_of_several_machines_ends_with_the_teams_total() -> None:
    table = TeamSpendTable(
        [
            MachineSpend("2026-11-26", "laptop-ana", 4, 0),
            MachineSpend("2026-11-27", "ci-box", 3, 0),
            MachineSpend("2026-11-27", "laptop-ana", 5, 2),
            MachineSpend("in all", "ci-box", 3, 0),
            MachineSpend("in all", "laptop-ana", 9, 2),
        ]
    )
    assert table.lines() == [
        "period      machine                   credits  possibly",
        "2026-11-26  laptop-ana                      4",
        "2026-11-27  ci-box                          3",
        "2026-11-27  laptop-ana                      5         2",
        "2026-11-27  (every machine)                 8         2",
        "in all      ci-box                          3",
        "in all      laptop-ana                      9         2",
        "in all      (every machine)                12         2",
    ]


def test_one_machine_alone_has_no_total_row() -> None:
    table = TeamSpendTable([MachineSpend("2026-11-27", "ci-box", 3, 0)])
    assert table.lines() == [
        "period      machine                   credits",
        "2026-11-27  ci-box                          3",
    ]
