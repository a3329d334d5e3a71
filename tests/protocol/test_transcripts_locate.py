"""Finding a Claude Code team's transcripts in the real 2.1.328 layout, including ones that appear
while watching, and refusing what is not a transcript."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from teamtui.protocol.claude.transcripts import TranscriptFinder, TranscriptReader, project_slug

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328"


def config_of(root: Path) -> dict:
    return json.loads(next((root / "teams").glob("*/config.json")).read_text())


def owner(path: Path) -> tuple[str, str] | None:
    """Whose session file this is, read the long way: every line decoded."""
    for raw in path.read_bytes().splitlines():
        rec = json.loads(raw)
        if "teamName" in rec:
            return rec["teamName"], rec["agentName"]
    return None


@pytest.fixture
def team(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / request.param, root)
    return root


def test_slug_is_the_cwd_with_every_other_character_a_dash() -> None:
    assert project_slug("/src/app") == "-src-app"
    assert project_slug("/home/me/my app.v2/~x") == "-home-me-my-app-v2--x"
    assert project_slug("/../../etc") == "-------etc"


@pytest.mark.parametrize("team", ["tmux-running"], indirect=True)
def test_pane_teammates_are_found_by_their_team_and_agent_names(team: Path) -> None:
    cfg = config_of(team)
    project = team / "projects" / project_slug(cfg["members"][0]["cwd"])
    expected = {}
    for f in project.glob("*.jsonl"):
        who = owner(f)
        if who and who[0] == cfg["name"]:
            expected[who[1]] = f
    assert set(expected) == {"alice", "bob"}
    found = TranscriptFinder(team, cfg).resolve()
    assert found["team-lead"].path == project / f"{cfg['leadSessionId']}.jsonl"
    assert found["team-lead"].backend == "lead"
    assert {n: s.path for n, s in found.items() if n != "team-lead"} == expected
    assert {s.backend for n, s in found.items() if n != "team-lead"} == {"pane"}


@pytest.mark.parametrize("team", ["inprocess-running"], indirect=True)
def test_in_process_teammates_are_the_lead_sessions_subagents(team: Path) -> None:
    cfg = config_of(team)
    sub = team / "projects" / "-src-app" / cfg["leadSessionId"] / "subagents"
    found = TranscriptFinder(team, cfg).resolve()
    # The folder also holds the earlier tmux team's pane sessions: none of them is this team's.
    assert set(found) == {"team-lead", "alice", "bob"}
    for name in ("alice", "bob"):
        meta = json.loads(next(sub.glob(f"agent-a{name}-*.meta.json")).read_text())
        assert found[name].path == next(sub.glob(f"agent-a{name}-*.jsonl"))
        assert found[name].backend == "in-process" and found[name].model == meta["model"]


@pytest.mark.parametrize("team", ["tmux-running"], indirect=True)
def test_the_newest_session_of_a_restarted_teammate_wins(team: Path) -> None:
    cfg = config_of(team)
    finder = TranscriptFinder(team, cfg)
    old = finder.resolve()["alice"].path
    newer = old.with_name("0aaaaaaa-1111-2222-3333-444444444444.jsonl")
    shutil.copy(old, newer)
    later = time.time() + 5
    os.utime(newer, (later, later))
    assert finder.resolve()["alice"].path == newer


@pytest.mark.parametrize("team", ["tmux-running"], indirect=True)
def test_a_transcript_that_appears_while_watching_is_picked_up(team: Path) -> None:
    cfg = config_of(team)
    project = team / "projects" / "-src-app"
    bob_file = next(f for f in project.glob("*.jsonl") if owner(f) == (cfg["name"], "bob"))
    content = bob_file.read_bytes()
    bob_file.unlink()
    finder = TranscriptFinder(team, cfg)
    assert project in finder.watch_dirs
    assert "bob" not in finder.resolve()

    # Claude Code starts the file with a few lines that name nobody, then the first prompt.
    lines = content.splitlines(keepends=True)
    bob_file.write_bytes(b"".join(lines[:3]))
    assert finder.concerns(bob_file)
    assert "bob" not in finder.resolve()
    with bob_file.open("ab") as fh:
        fh.write(b"".join(lines[3:]))
    found = finder.resolve()
    assert found["bob"].path == bob_file
    reader = TranscriptReader(found["bob"].path)
    reader.read()
    assert [e.text for e in reader.entries][0] == "← team-lead: TMBOB: you are bob. Reply briefly."


@pytest.mark.parametrize("team", ["inprocess-running"], indirect=True)
def test_an_in_process_teammate_spawned_later_is_picked_up(team: Path) -> None:
    cfg = config_of(team)
    sub = team / "projects" / "-src-app" / cfg["leadSessionId"] / "subagents"
    shutil.rmtree(sub.parent)
    finder = TranscriptFinder(team, cfg)
    assert set(finder.resolve()) == {"team-lead"}
    # The lead's session folder is created when the first teammate spawns: still under a watched dir.
    sub.mkdir(parents=True)
    src = FIXTURES / "inprocess-running" / "projects" / "-src-app" / cfg["leadSessionId"] / "subagents"
    for f in src.glob("agent-aalice-*"):
        shutil.copy(f, sub / f.name)
        assert finder.concerns(sub / f.name)
        assert any(d in (sub / f.name).parents for d in finder.watch_dirs)
    assert set(finder.resolve()) == {"team-lead", "alice"}


@pytest.mark.parametrize("team", ["tmux-running"], indirect=True)
def test_unrelated_paths_do_not_concern_the_team(team: Path) -> None:
    finder = TranscriptFinder(team, config_of(team))
    assert not finder.concerns(team / "projects" / "-other-project" / "x.jsonl")
    assert not finder.concerns(team / "projects" / "-src-app" / "memory" / "notes.md")
    assert not finder.concerns(team / "teams" / "session-421dba11" / "config.json")


@pytest.mark.parametrize("team", ["tmux-running"], indirect=True)
def test_hostile_config_values_never_leave_the_projects_folder(team: Path, tmp_path: Path) -> None:
    cfg = config_of(team)
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(b'{"type":"assistant"}\n')
    cfg["leadSessionId"] = "../../../" + str(outside.with_suffix(""))
    for m in cfg["members"]:
        m["cwd"] = "/../../" + str(tmp_path)
    finder = TranscriptFinder(team, cfg)
    found = finder.resolve()
    assert "team-lead" not in found
    for d in finder.watch_dirs:
        assert d.parent == team / "projects"
    assert all(team / "projects" in s.path.parents for s in found.values())


@pytest.mark.parametrize("team", ["tmux-running"], indirect=True)
def test_what_is_not_a_regular_file_is_not_a_transcript(team: Path) -> None:
    cfg = config_of(team)
    project = team / "projects" / "-src-app"
    os.mkfifo(project / "fifo-session.jsonl")
    (project / "dir-session.jsonl").mkdir()
    (project / "zero-session.jsonl").symlink_to("/dev/zero")
    found = TranscriptFinder(team, cfg).resolve()  # returns: a FIFO or /dev/zero is never opened for reading
    assert set(found) == {"team-lead", "alice", "bob"}
    assert all(s.path.name.count("-session") == 0 for s in found.values())


@pytest.mark.parametrize("team", ["inprocess-running"], indirect=True)
def test_a_subagent_file_named_otherwise_is_known_by_its_meta(team: Path) -> None:
    cfg = config_of(team)
    sub = team / "projects" / "-src-app" / cfg["leadSessionId"] / "subagents"
    for f in sub.glob("agent-abob-*"):
        f.rename(sub / f.name.replace("agent-abob-566b633b5c84e2f8", "agent-1234"))
    # Another team's teammate of the same name, in the same folder, is not ours.
    meta = json.loads((sub / "agent-1234.meta.json").read_text())
    (sub / "agent-zzz.jsonl").write_bytes((sub / "agent-1234.jsonl").read_bytes())
    (sub / "agent-zzz.meta.json").write_text(json.dumps(meta | {"teamName": "session-other"}))
    later = time.time() + 5
    os.utime(sub / "agent-zzz.jsonl", (later, later))
    found = TranscriptFinder(team, cfg).resolve()
    assert found["bob"].path == sub / "agent-1234.jsonl"


@pytest.mark.parametrize("team", ["tmux-running"], indirect=True)
def test_another_sessions_growing_file_stops_concerning_the_team_once_known(team: Path) -> None:
    cfg = config_of(team)
    project = team / "projects" / "-src-app"
    other = project / "99999999-0000-0000-0000-000000000000.jsonl"
    first = {
        "type": "user",
        "teamName": "session-other",
        "agentName": "zed",
        "message": {"role": "user", "content": "hi"},
    }
    other.write_bytes(json.dumps(first).encode() + b"\n" + b'{"type":"attachment","pad":"' + b"x" * 70_000 + b'"}\n')
    finder = TranscriptFinder(team, cfg)
    assert finder.concerns(other)  # not read yet: it might be a teammate's
    assert "zed" not in finder.resolve()
    assert not finder.concerns(other)  # its head is final and names another team
