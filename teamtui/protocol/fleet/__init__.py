"""The fleet: every team of this machine the control room shows, and one overview row per team.

registry: the runs (`teamtui run` / `teamtui demo`) that register the team they lead;
scan: the team folders under a root, each with its problem; discover: which teams, from where,
and which folders to watch; overview: a row per team, from TeamState. No UI here.
"""

from teamtui.protocol.fleet.discover import Discovery, FleetTeam, discover_fleet, fleet_watch_dirs
from teamtui.protocol.fleet.overview import FleetRow, fleet_rows, order_rows, row_json, summarize_team
from teamtui.protocol.fleet.registry import (
    RunEntry,
    live_runs,
    register_run,
    registered_run,
    registry_dir,
    unregister_run,
)

__all__ = [
    "Discovery",
    "FleetRow",
    "FleetTeam",
    "RunEntry",
    "discover_fleet",
    "fleet_rows",
    "fleet_watch_dirs",
    "live_runs",
    "order_rows",
    "register_run",
    "registered_run",
    "registry_dir",
    "row_json",
    "summarize_team",
    "unregister_run",
]
