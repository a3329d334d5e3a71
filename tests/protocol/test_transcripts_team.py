"""A team's transcripts kept current by the real watcher: lines appended to a teammate's
transcript, and a teammate spawned while watching, reach `TeamTranscripts.apply`."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from teamtui.protocol.claude.transcripts import EntryKind, TeamTranscripts
from teamtui.protocol.watch import watch_dirs
from tests.costgen import bash_use

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"


def tool_line(tid: str, command: str) -> bytes:
    return bash_use(tid, command, {"input_tokens": 7, "output_tokens": 11}, "2026-11-23T08:00:00.000Z")


def test_new_lines_and_a_teammate_spawned_while_watching_arrive(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "inprocess-running", root)
    cfg = json.loads((root / "teams/session-8dd2dc96/config.json").read_text())
    sub = root / "projects/-src-app" / cfg["leadSessionId"] / "subagents"
    parked = tmp_path / "parked"
    parked.mkdir()
    for f in sub.glob("agent-abob-*"):
        shutil.move(f, parked / f.name)

    team = TeamTranscripts(root, cfg, window=100)
    first = team.load()
    assert set(first) == {"team-lead", "alice"}
    assert first["alice"].entries and not first["alice"].reset

    async def run() -> dict[str, list]:
        seen: dict[str, list] = {}
        stop = asyncio.Event()

        async def act() -> None:
            with team.sources["alice"].path.open("ab") as fh:
                fh.write(tool_line("toolu_a1", "pytest -q"))
            await asyncio.sleep(0.3)
            for f in sorted(parked.iterdir(), key=lambda p: p.suffix == ".jsonl"):  # meta first, as Claude Code
                shutil.copy(f, sub / f.name)

        async def watch() -> None:
            async for batch in watch_dirs(team.watch_dirs, stop):
                if batch.ready:
                    asyncio.get_running_loop().create_task(act())
                    continue
                for member, update in team.apply(batch.paths, rescan=batch.rescan).items():
                    seen.setdefault(member, []).extend(update.entries)
                if "bob" in seen and "alice" in seen:
                    stop.set()

        await asyncio.wait_for(watch(), timeout=20)
        return seen

    seen = asyncio.run(run())
    assert [(e.kind, e.text) for e in seen["alice"]] == [(EntryKind.TOOL, "Bash: pytest -q")]
    assert team.readers["alice"].stats.activity.label() == "Bash: pytest -q"
    assert any(e.text == "← team-lead: TMBOB: you are bob. Reply briefly." for e in seen["bob"])
    assert team.sources["bob"].backend == "in-process"


def test_an_in_process_teammate_is_working_or_idle_as_its_transcript_says(tmp_path: Path) -> None:
    # Claude Code gives in-process teammates no isActive: `status` takes it from their transcripts.
    import subprocess
    import sys

    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "inprocess-running", root)
    config = json.loads(next(root.glob("teams/*/config.json")).read_text())
    assert all("isActive" not in m for m in config["members"])
    argv = [sys.executable, "-m", "teamtui", "status", "--json", "--root", str(root), "--layout", "claude"]
    before = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)
    assert {m["name"]: m["status"] for m in before["members"]} == {"alice": "idle", "bob": "idle"}
    # alice is sent a message: her transcript's last record is a new turn, so she is working.
    alice = next(root.glob("projects/*/*/subagents/agent-aalice-*.jsonl"))
    turn = {
        "type": "user",
        "message": {"role": "user", "content": "next step"},
        "timestamp": "2026-11-23T08:00:00.000Z",
    }
    with alice.open("a") as fh:
        fh.write(json.dumps(turn) + "\n")
    after = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)
    assert {m["name"]: m["status"] for m in after["members"]} == {"alice": "working", "bob": "idle"}
