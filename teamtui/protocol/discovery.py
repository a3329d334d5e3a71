"""Finding teams: which roots hold which teams, and where a dashboard looked."""

from __future__ import annotations

from pathlib import Path

from teamtui.protocol.layout import team_names


def find_teams(roots: list[Path], layout: str | None = None, team: str | None = None) -> list[tuple[Path, str]]:
    found = []
    for root in roots:
        for name in team_names(root, layout):  # type: ignore[arg-type]
            if team is None or name == team:
                found.append((root, name))
    return found


def looked_at(roots: list[Path]) -> list[Path]:
    return [p for r in roots for p in (r / ".teams", r / "teams")]
