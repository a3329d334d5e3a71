"""The demo team as a TeamFile: about 15 tasks with dependencies and file conflicts, 4 to 6 teammates."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from teamtui.runtime.teamfile import TaskSpec, TeamFile, TeammateSpec, TeamSection

# name, agent type, color, role flags
_TEAMMATES = [
    # The first two always start: ada finishes its notes first and reports pending work at shutdown;
    # otto crashes once mid-task so recovery shows.
    ("ada", "backend-dev", "green", "pending"),
    ("otto", "db-engineer", "purple", "crash"),
    ("hunter", "code-reviewer", "blue", ""),
    ("scribe", "docs-writer", "cyan", ""),
    ("mira", "tester", "yellow", ""),
    ("rex", "security", "red", ""),
]

# subject, blocked_by, files. Three tasks are ready at once, so three teammates are busy from the start;
# the rest still shows dependencies and a file conflict (#3, #4 and #13 all edit the middleware).
_TASKS: list[tuple[str, list[int], list[str]]] = [
    ("Survey the auth module", [], ["docs/auth-notes.md"]),
    ("Design the session token schema", [1], ["docs/design.md"]),
    ("Extract auth middleware", [2], ["src/auth/middleware.py"]),
    ("Add rate limiting to login", [2], ["src/auth/middleware.py"]),
    ("Write the password reset flow", [2], ["src/auth/reset.py"]),
    ("Migrate the users table", [], ["db/migrations/0042_users.sql"]),
    ("Update the ORM models", [6], ["src/models/user.py"]),
    ("Unit tests for the middleware", [3], ["tests/test_middleware.py"]),
    ("Unit tests for the reset flow", [5], ["tests/test_reset.py"]),
    ("Integration tests for login", [3, 4, 7], ["tests/test_login.py"]),
    ("Refresh the API docs", [3, 5], ["docs/api.md"]),
    ("Security review of the login flow", [], []),
    ("Fix the review findings", [12, 4], ["src/auth/middleware.py"]),
    ("Update the changelog", [11], ["CHANGELOG.md"]),
    ("Release checklist", [8, 9, 10, 13, 14], ["CHANGELOG.md"]),
]


def demo_team(root: Path, *, teammates: int = 5, speed: float = 1.0) -> TeamFile:
    python = shlex.quote(sys.executable)
    mates = []
    for name, agent_type, color, role in _TEAMMATES[:teammates]:
        mates.append(
            TeammateSpec(
                name=name,
                agent_type=agent_type,
                color=color,
                command=f"exec {python} -m teamtui.demo.teammate",
                env={"DEMO_SPEED": f"{speed:g}", "DEMO_ROLE": role},
            )
        )
    tasks = [TaskSpec(subject=s, blocked_by=b, files=f, description=f"Demo task: {s.lower()}.") for s, b, f in _TASKS]
    return TeamFile(
        team=TeamSection(
            name="demo",
            description="teamtui's built-in demo team",
            assign="self",
            max_teammates=teammates,
            start_all=True,  # `--teammates N` shows N, not as many as the board has work for at once
            shutdown_deadline=max(1.0, 15.0 / speed),
            shutdown_grace=max(0.5, 3.0 / speed),
            restarts=1,
            poll_interval=max(0.05, 1.0 / speed),
        ),
        teammates=mates,
        tasks=tasks,
        base_dir=Path(root),
    )
