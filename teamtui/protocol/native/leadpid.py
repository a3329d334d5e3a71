"""Whether a teamtui lead (`teamtui run`) is leading a native team right now: `.teams/<team>/lead.json`
holds its pid and start time, so a reused pid is not taken for it.

The CLI asks this before acting as the lead: while a lead runs, `teamtui shutdown` asks the lead
(its inbox) instead of writing requests in its name, and the lead's drain cannot eat the replies.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from teamtui.protocol import processes
from teamtui.protocol.fsio import ensure_inside, load_json_file, write_json_atomic
from teamtui.protocol.store import TeamStore


def lead_file(store: TeamStore) -> Path:
    return store.team_dir / "lead.json"


def mark_lead(store: TeamStore, pid: int | None = None) -> None:
    pid = os.getpid() if pid is None else pid
    write_json_atomic(ensure_inside(lead_file(store), store.root), {"pid": pid, "started": processes.start_of(pid)})


def claim_lead(store: TeamStore) -> int | None:
    """Mark this process as the team's lead unless another live lead holds it: that lead's pid, or
    None once marked. Under a lock of its own, so two runs started at once never both lead."""
    from teamtui.protocol.fsio import ensure_dir
    from teamtui.protocol.locks import FileLock

    store.root.mkdir(parents=True, exist_ok=True)  # leading a team may make its root, as creating it does
    ensure_dir(store.team_dir, store.root)
    with FileLock(lead_file(store).with_suffix(".lock")):
        other = running_lead(store)
        if other is not None and other != os.getpid():
            return other
        mark_lead(store)
    return None


def unmark_lead(store: TeamStore, pid: int | None = None) -> None:
    """Remove the mark if it is this process's (a newer lead's mark stays)."""
    pid = os.getpid() if pid is None else pid
    data = load_json_file(lead_file(store))
    if isinstance(data, dict) and data.get("pid") == pid:
        try:
            lead_file(store).unlink()
        except FileNotFoundError:
            pass


def running_lead(store: TeamStore) -> int | None:
    """The pid of the lead running this team, or None (no mark, a dead or reused pid, a bad file)."""
    try:
        data = json.loads(lead_file(store).read_bytes()[:4096])
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    pid, started = data.get("pid"), data.get("started")
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0 or not isinstance(started, str):
        return None
    # One that cannot be read (another user's) may still lead: deferred to, not taken for ended.
    return None if processes.state(pid, start=started) == "ended" else pid


def speaks_for_lead(store: TeamStore) -> bool:
    """Whether this process may write as the team's lead: no teamtui lead runs the team (the person
    at the terminal is its lead), or the running lead is this process or one it started (a hook)."""
    pid = running_lead(store)
    if pid is None or pid == os.getpid():
        return True
    return pid in processes.ancestors(os.getpid(), 4)


def ask_lead_to_shut_down(store: TeamStore, sender: str, reason: str, deadline: float, teammates: list[str]) -> str:
    """Ask the running lead, in its inbox under `sender`'s own name, to shut `teammates` down (all
    of them when empty): it sends the requests and climbs its ladder, and writes the summary to
    shutdown/<request id>.json. Returns the request id."""
    import secrets

    request_id = secrets.token_hex(4)
    store.send(
        store.lead_name,
        f"shutdown requested: {reason}",
        sender,
        type="shutdown_request",
        extra={"request_id": request_id, "reason": reason, "deadline_seconds": deadline, "teammates": list(teammates)},
    )
    return request_id
