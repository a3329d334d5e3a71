"""Finding teams: which roots hold which teams, and where a dashboard looked."""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.layout import run_names, team_names


def find_teams(roots: list[Path], layout: str | None = None, team: str | None = None) -> list[tuple[Path, str]]:
    """(root, name) of each team under `roots`: its session teams, then its recent workflow runs."""
    found = []
    for root in roots:
        for name in [*team_names(root, layout), *run_names(root, layout, team)]:  # type: ignore[arg-type]
            if team is None or name == team:
                found.append((root, name))
    return found


def looked_at(roots: list[Path]) -> list[Path]:
    return [p for r in roots for p in (r / ".teams", r / "teams")]
