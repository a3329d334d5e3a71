"""`teamtui task import PLAN.jsonl`: the Teammate API patterns' plan-to-task mapping onto a real
native board, and task files in the patterns' own status words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from teamtui.protocol.board import Board, TaskState
from teamtui.protocol.native import NativeTeam


@pytest.fixture
def team(tmp_path: Path) -> NativeTeam:
    store = NativeTeam(tmp_path, "yolo-backend")
    store.create()
    store.add_member("dev-1")
    return store


def _plan(path: Path, header: dict, tasks: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(x) for x in [header, *tasks]) + "\n")
    return path


def test_import_maps_td_and_d_to_blocked_by_and_keeps_the_plan_keys_visible(cli, team, tmp_path):
    phase = tmp_path / ".yolo-planning" / "phases" / "03-teams"
    a = _plan(
        phase / "03-01.plan.jsonl",
        {"p": "03", "n": "01", "t": "Team abstraction"},
        [
            {"id": "T1", "a": "Add the team module", "f": ["src/team.py"]},
            {"id": "T2", "a": "Add the registry", "f": ["src/registry.py"]},
            {
                "id": "T3",
                "a": "Add ## Task-Level Blocking section",
                "f": ["references/teammate-api-patterns.md"],
                "td": ["T1", "T2"],
            },
        ],
    )
    b = _plan(
        phase / "03-02.plan.jsonl",
        {"p": "03", "n": "02", "d": ["03-01"]},
        [{"id": "T1", "a": "Wire it up", "f": ["src/team.py"]}],
    )
    r = str(tmp_path)
    code, out, err = cli("task", "import", str(a), str(b), "--root", r)
    assert code == 0, err
    assert out.splitlines() == ["1 03-01/T1", "2 03-01/T2", "3 03-01/T3", "4 03-02/T1"]
    tasks, errors = team.list_tasks()
    assert errors == []
    by = {t.id: t for t in tasks}
    assert by["3"].blocked_by == ["1", "2"]
    assert by["4"].blocked_by == ["1", "2", "3"]  # plan-level d: every task of 03-01
    assert (
        by["1"].files == ["src/team.py"]
        and by["1"].metadata["plan_id"] == "03-01"
        and by["1"].metadata["task_id"] == "T1"
    )
    assert by["1"].blocks == ["3", "4"]
    board = Board(tasks)
    assert [t.id for t in board.ready()] == ["1", "2"]
    code, out, _ = cli("tasks", "--root", r)
    assert "#3 03-01/T3 Add ## Task-Level Blocking section (blocked by #1, #2)" in out
    # A plan imported later that depends on one already on the board.
    c = _plan(phase / "03-03.plan.jsonl", {"p": "03", "n": "03", "d": ["03-02"]}, [{"id": "T1", "a": "Docs"}])
    code, out, err = cli("task", "import", str(c), "--root", r)
    assert code == 0, err
    assert team.get_task("5").blocked_by == ["4"]
    # The same plan twice is refused.
    code, _, err = cli("task", "import", str(c), "--root", r)
    assert code == 1 and "already on the board" in err
    assert len(team.list_tasks()[0]) == 5


def test_xd_is_checked_against_the_summaries_and_reported(cli, team, tmp_path):
    phases = tmp_path / "phases"
    (phases / "02-api").mkdir(parents=True)
    (phases / "02-api" / "02-01.summary.jsonl").write_text(json.dumps({"p": "02", "n": "01", "s": "partial"}) + "\n")
    plan = _plan(
        phases / "03-ui" / "03-01.plan.jsonl",
        {"p": "03", "n": "01", "xd": [{"p": "02", "n": "01", "a": "api.md", "r": "needs the API"}]},
        [{"id": "T1", "a": "UI"}],
    )
    code, out, err = cli("task", "import", str(plan), "--root", str(tmp_path))
    assert code == 1 and "cross-phase" in err
    assert "xd: 03-01 needs 02-01 api.md: partial" in out
    assert team.list_tasks()[0] == []
    (phases / "02-api" / "02-01.summary.jsonl").write_text(json.dumps({"p": "02", "n": "01", "s": "complete"}) + "\n")
    code, out, err = cli("task", "import", str(plan), "--root", str(tmp_path))
    assert code == 0, err
    assert "xd: 03-01 needs 02-01 api.md: complete" in out
    assert [t.metadata["plan_task"] for t in team.list_tasks()[0]] == ["03-01/T1"]


def test_a_malformed_plan_names_every_bad_line_and_writes_nothing(cli, team, tmp_path):
    bad = tmp_path / "bad.plan.jsonl"
    bad.write_text('{"p": "03", "n": "01"}\n{"id": "T1", "a": ""}\nnot json\n')
    code, _, err = cli("task", "import", str(bad), "--root", str(tmp_path))
    assert code == 1
    assert "bad.plan.jsonl:3:" in err and "nothing imported" in err
    assert team.list_tasks()[0] == [] and not any(team.tasks_dir.glob("task_*.json"))


def test_task_files_in_the_patterns_status_words_are_read_and_keep_their_words(team):
    for tid, word in (("1", "complete"), ("2", "claimed"), ("3", "available")):
        raw = {
            "id": tid,
            "subject": f"T{tid}",
            "status": word,
            "owner": "dev-1" if word == "claimed" else "",
            "blocks": [],
            "blocked_by": [],
        }
        team.task_path(tid).write_text(json.dumps(raw))
    tasks, errors = team.list_tasks()
    assert errors == []
    assert [t.status.value for t in tasks] == ["completed", "in_progress", "pending"]
    board = Board(tasks)
    assert board.view(board.tasks["3"]).state is TaskState.READY
    team.claim_task("3", "dev-1")
    assert json.loads(team.task_path("3").read_text())["status"] == "claimed"
    team.complete_task("3")
    assert json.loads(team.task_path("3").read_text())["status"] == "complete"
