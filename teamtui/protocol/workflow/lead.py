"""The lead of a workflow run: the Claude Code session that runs its script.

An interactive session keeps `sessions/<pid>.json` (`{pid, sessionId, procStart, status, …}`)
in the config dir while it runs, and removes it on `/exit`; `claude -p` writes none (docs/formats.md,
"Where the files are"). So the lead is alive or ended when its session file is there and names
its process, and unknown otherwise. The process itself is told apart from a later one with its
pid as for a session team's lead (protocol/claude/leadproc.py).
"""

from __future__ import annotations

import os
from pathlib import Path

from teamtui.protocol.claude.leadproc import LeadProcess, lead_state, parse_lead_process
from teamtui.protocol.errors import ReadError
from teamtui.protocol.fsio import load_json_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from teamtui.protocol.claude.leadproc import LeadState

_SESSION_FILE_BYTES = 64 * 1024
# Live sessions only are listed there (a crash may leave a few more): read no more than this many.
_MAX_SESSION_FILES = 500


def session_lead(root: Path, session_id: str) -> LeadProcess | None:
    """The process of session `session_id`, from the config dir's `sessions/<pid>.json`; None
    when no session file names it."""
    try:
        with os.scandir(Path(root) / "sessions") as it:
            entries = [e for _, e in zip(range(_MAX_SESSION_FILES), it, strict=False)]
    except OSError:
        return None
    for entry in entries:
        stem, _, ext = entry.name.rpartition(".")
        if ext != "json" or not stem.isascii() or not stem.isdigit():
            continue
        data = load_json_file(Path(entry.path), _SESSION_FILE_BYTES)
        if isinstance(data, ReadError) or not isinstance(data, dict) or data.get("sessionId") != session_id:
            continue
        pid = data.get("pid")
        return parse_lead_process(
            {
                "pid": pid if isinstance(pid, int) else int(stem[:10]),
                "procStart": data.get("procStart"),
                "pidSpace": data.get("pidSpace"),
                "claimedAt": data.get("startedAt"),
            }
        )
    return None


def session_lead_state(root: Path, session_id: str) -> LeadState:
    """ "alive" or "ended" as the session's file says; "unknown" without one (`claude -p`, or a
    session that exited: the file goes with it)."""
    return lead_state(session_lead(root, session_id))
