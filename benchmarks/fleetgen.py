"""A fleet on disk for the control-room benchmarks: N teams of M teammates, mixed layouts.

- Native teams, a project root each (`<base>/native/NNN/.teams/native-NNN/`, `.tasks/`), shaped
  as teamgen's: tasks in every state, two inbox lines and `log_bytes` of log per teammate.
- Claude Code 2.1.328 teams in one config folder (`<base>/claude`), each made from a fixture of
  tests/fixtures/examples/claude-2.1.328, in turn `tmux-running` (pane teammates) and
  `inprocess-running` (in-process teammates): the team folder, its task list, its lead's
  transcript and its teammates' transcripts copied with the team renamed (`cc-NNN`), fresh session
  ids and a cwd of its own (`/src/appNNN`, so `projects/-src-appNNN/`); the fixture's teammates
  keep their names and more are added (`mate02`…) by copying them, transcripts included, under the
  new name. The lead's `leadProcess` names the benchmark process, so the lead reads as alive.

`python benchmarks/fleetgen.py write` is the other process that changes the files: one JSON
object a line on stdin, {"path": ..., "data": ...}, written atomically (temp file + rename); it
answers each with {"t": time.time() just before the write}. Plain os calls, no teamtui import.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from teamgen import member_name, task_dict  # noqa: E402
from writer import rewrite_atomic  # noqa: E402

FIXTURES = HERE.parent / "tests" / "fixtures" / "examples" / "claude-2.1.328"
CLAUDE_FIXTURES = ("tmux-running", "inprocess-running")
NATIVE_TASKS = 20


# ------------------------------------------------------------------ native
def native_name(i: int) -> str:
    return f"native-{i:03d}"


def make_native(base: Path, i: int, members: int, log_bytes: int) -> Path:
    """One native team in a root of its own; returns the root."""
    root = base / "native" / f"{i:03d}"
    name = native_name(i)
    td = root / ".teams" / name
    (td / "logs").mkdir(parents=True, exist_ok=True)
    (root / ".tasks").mkdir(parents=True, exist_ok=True)
    now = time.time() - 30
    config = {
        "name": name,
        "created_at": now,
        "members": [
            {"name": member_name(k), "agent_id": f"{member_name(k)}@{name}", "status": "active"} for k in range(members)
        ],
    }
    (td / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    for t in range(1, NATIVE_TASKS + 1):
        (root / ".tasks" / f"task_{t}.json").write_text(json.dumps(task_dict(t, members), indent=2) + "\n")
    line = (json.dumps({"ts": now, "level": "info", "text": "x" * 150}) + "\n").encode()
    for k in range(members):
        m = member_name(k)
        with open(td / f"{m}_inbox.jsonl", "w") as fh:
            for j in range(2):
                fh.write(
                    json.dumps(
                        {"type": "message", "sender": "lead", "content": f"hello {m} #{j}", "timestamp": now + j}
                    )
                    + "\n"
                )
        with open(td / "logs" / f"{m}.jsonl", "wb") as fh:
            fh.write(line * max(1, log_bytes // len(line)))
            fh.write((json.dumps({"ts": now, "level": "info", "text": f"END-{m}"}) + "\n").encode())
    return root


def native_task(task_id: int, members: int, status: str) -> dict:
    d = task_dict(task_id, members, subject=f"Task {task_id}: fleet benchmark change")
    d["status"] = status
    if status == "pending":
        d["owner"] = ""
    return d


# ------------------------------------------------------------------ Claude Code
def claude_name(i: int) -> str:
    return f"cc-{i:03d}"


def _owner(path: Path) -> tuple[str, str] | None:
    """(teamName, agentName) of a session file, from its first line that names both."""
    with open(path, "rb") as fh:
        for raw in fh:
            try:
                d = json.loads(raw)
            except ValueError:
                continue
            if isinstance(d, dict) and isinstance(d.get("teamName"), str) and isinstance(d.get("agentName"), str):
                return d["teamName"], d["agentName"]
    return None


def _copy(src: Path, dst: Path, swaps: list[tuple[str, str]]) -> None:
    data = src.read_text(encoding="utf-8")
    for old, new in swaps:
        data = data.replace(old, new)
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(data, encoding="utf-8")


def _pid_identity() -> dict:
    from teamtui.protocol import processes

    pid = os.getpid()
    return {
        "pid": pid,
        "pidSpace": processes.pid_space(),
        "claimedAt": int(time.time() * 1000),
        "procStart": processes.start_of(pid),
    }


def make_claude(claude: Path, i: int, members: int, rnd: random.Random) -> str:
    """One Claude Code team in `claude` from a fixture (in turn pane and in-process teammates),
    grown to `members` teammates; returns its name."""
    fixture = FIXTURES / CLAUDE_FIXTURES[(i // 2) % len(CLAUDE_FIXTURES)]  # the odd teams are Claude Code's
    (old_team,) = [p.name for p in (fixture / "teams").iterdir()]
    config = json.loads((fixture / "teams" / old_team / "config.json").read_text())
    team, cwd = claude_name(i), f"/src/app{i:03d}"
    old_cwd = config["members"][0]["cwd"]
    old_slug, slug = old_cwd.replace("/", "-"), cwd.replace("/", "-")
    old_lead = config["leadSessionId"]
    lead = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
    base = [(old_team, team), (old_lead, lead), (f'"cwd":"{old_cwd}"', f'"cwd":"{cwd}"')]
    src_project, project = fixture / "projects" / old_slug, claude / "projects" / slug

    # The lead's transcript, and each teammate's (pane: a session file of its own; in-process: under the lead's session).
    _copy(src_project / f"{old_lead}.jsonl", project / f"{lead}.jsonl", base)
    templates = [m for m in config["members"] if m["name"] != "team-lead"]
    panes = {who[1]: p for p in src_project.glob("*.jsonl") if (who := _owner(p)) and who[0] == old_team}
    subagents = src_project / old_lead / "subagents"
    in_process = {p.name.split("-")[1][1:]: p for p in subagents.glob("agent-*.jsonl")} if subagents.is_dir() else {}
    new_members = [m for m in config["members"] if m["name"] == "team-lead"]
    for k in range(members):
        tpl = templates[k % len(templates)]
        name = tpl["name"] if k < len(templates) else f"mate{k:02d}"
        swaps = [*base, (f'"agentName":"{tpl["name"]}"', f'"agentName":"{name}"')]
        if tpl["name"] in panes:
            src = panes[tpl["name"]]
            session = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
            _copy(src, project / f"{session}.jsonl", [*swaps, (src.stem, session)])
        else:
            src = in_process[tpl["name"]]
            old_id = src.stem.removeprefix("agent-")
            new_id = f"a{name}-{rnd.getrandbits(64):016x}"
            dst = project / lead / "subagents" / f"agent-{new_id}.jsonl"
            _copy(src, dst, [*swaps, (old_id, new_id)])
            meta = json.loads(src.with_suffix(".meta.json").read_text())
            meta.update(name=name, agentType=name, teamName=team)
            dst.with_suffix(".meta.json").write_text(json.dumps(meta))
        entry = {**tpl, "name": name, "agentId": f"{name}@{team}", "cwd": cwd}
        new_members.append(entry)
    new_members[0] = {**new_members[0], "agentId": f"team-lead@{team}", "cwd": cwd}

    td = claude / "teams" / team
    (td / "inboxes").mkdir(parents=True)
    config.update(
        name=team,
        leadAgentId=f"team-lead@{team}",
        leadSessionId=lead,
        members=new_members,
        createdAt=int((time.time() - 3600) * 1000),
        leadProcess=_pid_identity(),
    )
    (td / "config.json").write_text(json.dumps(config, indent=2))
    for m in new_members:
        src = fixture / "teams" / old_team / "inboxes" / f"{m['name']}.json"
        (td / "inboxes" / f"{m['name']}.json").write_text(src.read_text() if src.exists() else "[]")
    # The fixture's task list; `tmux-running` has none yet (its board is the lead's assignments, which a
    # first task file would replace): it gets `inprocess-running`'s, whose owners (alice, bob) it has too.
    lists = [
        d for f in (fixture, *(FIXTURES / n for n in CLAUDE_FIXTURES)) for d in (f / "tasks").glob("*") if d.is_dir()
    ]
    shutil.copytree(lists[0], claude / "tasks" / team)
    return team


def claude_task(task_id: int, status: str, owner: str = "") -> dict:
    return {
        "id": str(task_id),
        "subject": f"fleet benchmark task {task_id}",
        "description": "benchmark",
        "activeForm": "benchmarking",
        "status": status,
        "blocks": [],
        "blockedBy": [],
        "owner": owner,
    }


# ------------------------------------------------------------------ the fleet
def make_fleet(base: Path, teams: int, members: int, log_bytes: int = 50 * 1024, seed: int = 11) -> dict:
    """Half the teams native, half Claude Code (in turn pane and in-process teammates)."""
    rnd = random.Random(seed)
    claude = base / "claude"
    (claude / "teams").mkdir(parents=True, exist_ok=True)
    roots, names = [], []
    for i in range(teams):
        if i % 2 == 0:
            roots.append(make_native(base, i, members, log_bytes))
            names.append(native_name(i))
        else:
            names.append(make_claude(claude, i, members, rnd))
    return {"claude": claude, "roots": roots, "names": names}


# ------------------------------------------------------------------ the writer process
def serve() -> None:
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd.get("op") == "quit":
            return
        t = time.time()
        rewrite_atomic(Path(cmd["path"]), cmd["data"].encode())
        sys.stdout.write(json.dumps({"t": t}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["write"]:
        serve()
    else:
        raise SystemExit(__doc__)
