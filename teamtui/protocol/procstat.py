"""/proc/<pid>/stat, read one way for the protocol layer: whether a lead (teamtui's own, or Claude
Code's) still runs, when it started, and whose child a process is."""

from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")


def stat_fields(pid: int, proc: Path = PROC) -> list[str] | None:
    """/proc/<pid>/stat from field 3 (state) on, or None when the process is gone."""
    try:
        text = (proc / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    _, _, rest = text.rpartition(")")
    return rest.split()
