"""`teamtui run --headless` end to end with real teammate processes."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from .helpers import WORKER, processes_of, run_cmd, start_run, tasks_on_disk, team_toml, wait_until

# 10 tasks: two chains joined at the end, plus independent work.
TEN_TASKS = [
    ("schema", []),
    ("models", [1]),
    ("api", [2]),
    ("survey", []),
    ("ui", [4]),
    ("ui tests", [5]),
    ("api tests", [3]),
    ("docs", []),
    ("integration", [6, 7]),
    ("release", [8, 9]),
]


def check_order(root: Path) -> dict[str, dict]:
    tasks = tasks_on_disk(root)
    assert len(tasks) == 10
    for t in tasks.values():
        assert t["status"] == "completed", t
        for dep in t["blocked_by"]:
            # No task started before its blockers completed.
            assert t["claimed_at"] >= tasks[dep]["completed_at"], (t["id"], dep)
    return tasks


@pytest.mark.parametrize("assign", ["self", "lead"])
def test_three_teammates_ten_tasks_complete_in_order(tmp_path, assign):
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("ten", teammates=["a", "b", "c"], tasks=TEN_TASKS, settings=f'assign = "{assign}"\n'))
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.1")
    assert res.returncode == 0, res.stdout + res.stderr
    tasks = check_order(tmp_path)
    assert {t["owner"] for t in tasks.values()} <= {"a", "b", "c"}
    assert "all 10 tasks completed" in res.stdout
    config = json.loads((tmp_path / ".teams/ten/config.json").read_text())
    assert {m["name"] for m in config["members"]} == {"a", "b", "c"}
    assert all(m["status"] == "shutdown" and "pid" not in m for m in config["members"])
    assert (tmp_path / ".teams/ten/logs/a.log").exists()
    assert processes_of(tmp_path) == []


def test_lead_assigns_with_task_assignment_messages(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("lead-mode", teammates=["a", "b"], tasks=TEN_TASKS[:4], settings='assign = "lead"\n'))
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.05")
    assert res.returncode == 0, res.stdout + res.stderr
    # Every claim was made by the lead: each task's owner was told by a task_assignment in its log.
    logs = "".join((tmp_path / f".teams/lead-mode/logs/{n}.jsonl").read_text() for n in ("a", "b"))
    assert "claimed #" not in logs  # teammates never claimed for themselves
    for tid in ("1", "2", "3", "4"):
        assert f"working on #{tid}" in logs


def test_scaling_starts_only_what_ready_work_needs(tmp_path):
    # One chain: never more than one ready task, so one of the five teammates is enough.
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("chain", teammates=["a", "b", "c", "d", "e"], tasks=[("x", []), ("y", [1]), ("z", [2])]))
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.05")
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.count("started ") == 1


def test_start_all_starts_every_teammate_up_to_the_cap(tmp_path):
    # The same chain: with start_all every teammate starts with the team, max_teammates still caps it.
    tf = tmp_path / "team.toml"
    tf.write_text(
        team_toml(
            "all",
            teammates=["a", "b", "c", "d", "e"],
            tasks=[("x", []), ("y", [1]), ("z", [2])],
            settings="start_all = true\nmax_teammates = 4\n",
        )
    )
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.05")
    assert res.returncode == 0, res.stdout + res.stderr
    assert [line.split(" started ", 1)[1].split()[0] for line in res.stdout.splitlines() if " started " in line] == [
        "a",
        "b",
        "c",
        "d",
    ]
    assert all(t["status"] == "completed" for t in tasks_on_disk(tmp_path).values())


def test_max_teammates_caps_the_team(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(
        team_toml(
            "wide",
            teammates=["a", "b", "c", "d"],
            tasks=[(f"t{i}", []) for i in range(6)],
            settings="max_teammates = 2\n",
        )
    )
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.1")
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.count("started ") == 2
    assert all(t["status"] == "completed" for t in tasks_on_disk(tmp_path).values())


def test_sigkilled_teammate_task_is_released_and_finished_by_another(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(
        team_toml(
            "crash",
            teammates=["a", "b"],
            tasks=[("slow one", []), ("slow two", []), ("after", [1, 2])],
            settings="restarts = 0\n",
        )
    )
    proc = start_run(tf, WORK="1.5")
    try:
        config = tmp_path / ".teams/crash/config.json"

        def someone_working() -> bool:
            return (
                any(t["status"] == "in_progress" for t in tasks_on_disk(tmp_path).values())
                if config.exists()
                else False
            )

        wait_until([tmp_path], someone_working)
        victim_task = next(t for t in tasks_on_disk(tmp_path).values() if t["status"] == "in_progress")
        victim = victim_task["owner"]
        pid = next(m["pid"] for m in json.loads(config.read_text())["members"] if m["name"] == victim)
        os.kill(pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert f"{victim} crashed (killed by SIGKILL)" in out
    assert f"#{victim_task['id']} returned to pending" in out
    final = tasks_on_disk(tmp_path)[victim_task["id"]]
    assert final["status"] == "completed" and final["owner"] != victim
    lead_log = (tmp_path / ".teams/crash/logs/lead.jsonl").read_text()
    assert any(
        json.loads(line)["level"] == "warning" and "crashed" in json.loads(line)["text"]
        for line in lead_log.splitlines()
    )
    assert processes_of(tmp_path) == []


def test_teammate_ignoring_shutdown_is_killed_by_the_ladder(tmp_path):
    stubborn = f'sleep 300 & IGNORE_SHUTDOWN=1 exec "$TEAMTUI_PYTHON" {WORKER}'
    tf = tmp_path / "team.toml"
    tf.write_text(
        team_toml(
            "ladder",
            teammates=["good", "stubborn"],
            tasks=[("one", []), ("two", [])],
            settings="shutdown_deadline = 0.5\nshutdown_grace = 0.5\n",
            commands={"stubborn": stubborn},
        )
    )
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.2")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "sending SIGTERM to stubborn" in res.stdout
    assert "sending SIGKILL to stubborn" in res.stdout
    results = [json.loads(p.read_text()) for p in (tmp_path / ".teams/ladder/shutdown").glob("*.json")]
    outcomes = {r["teammate"]: r["outcome"] for r in results}
    assert outcomes == {"good": "clean", "stubborn": "timed out"}
    stubborn_log = (tmp_path / ".teams/ladder/logs/stubborn.jsonl").read_text()
    pid = int(stubborn_log.split("(pid ", 1)[1].split(")", 1)[0])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert processes_of(tmp_path) == []  # the background `sleep` in its group went too


def test_a_reply_written_just_before_exiting_is_counted(tmp_path):
    """A teammate that answers "in progress" and exits at once: the lead may see the exit before
    the reply, and must still read the reply rather than report an exit "without replying"."""
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("quick", teammates=["a", "b", "c"], tasks=[("one", []), ("two", []), ("three", [])]))
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.1", SHUTDOWN_STATUS="in_progress")
    assert res.returncode == 0, res.stdout + res.stderr
    results = [json.loads(p.read_text()) for p in (tmp_path / ".teams/quick/shutdown").glob("*.json")]
    assert {r["teammate"]: r["outcome"] for r in results} == {
        "a": "in progress",
        "b": "in progress",
        "c": "in progress",
    }
    assert "without replying" not in res.stdout


def test_sigterm_to_run_shuts_the_team_down(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("term", teammates=["a"], tasks=[("long", [])], settings="shutdown_deadline = 0.5\n"))
    proc = start_run(tf, WORK="60")
    try:
        wait_until(
            [tmp_path],
            lambda: (
                any(t["status"] == "in_progress" for t in tasks_on_disk(tmp_path).values())
                if (tmp_path / ".tasks").exists()
                else False
            ),
        )
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM
    assert "terminated (SIGTERM)" in err
    assert "shutting down" in out
    assert tasks_on_disk(tmp_path)["1"]["status"] == "pending"  # released, not lost
    assert processes_of(tmp_path) == []


@pytest.mark.parametrize(
    "tasks, commands, reason",
    [
        ([("a", [2]), ("b", [1])], {}, "dependency cycle"),
        ([("a", []), ("b", [7])], {}, "missing dependency: #2 needs #7"),
        ([("a", [])], {"x": "exit 1"}, "all teammates are gone"),
    ],
)
def test_team_that_cannot_finish_exits_nonzero_with_reason(tmp_path, tasks, commands, reason):
    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("stuck", teammates=["x"], tasks=tasks, commands=commands, settings="restarts = 1\n"))
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 1, res.stdout + res.stderr
    assert reason in res.stderr
    assert processes_of(tmp_path) == []


def test_teammates_stopped_from_outside_are_not_respawned(tmp_path):
    """The dashboard's S sends its own requests: a teammate that agreed is let go, not restarted."""
    from teamtui.protocol.native import NativeTeam

    tf = tmp_path / "team.toml"
    tf.write_text(team_toml("outside", teammates=["a"], tasks=[("long", []), ("next", [1])], settings="restarts = 3\n"))
    proc = start_run(tf, WORK="60")
    try:
        team = NativeTeam(tmp_path, "outside")
        wait_until(
            [tmp_path],
            lambda: (
                (tmp_path / ".tasks").exists()
                and any(t["status"] == "in_progress" for t in tasks_on_disk(tmp_path).values())
            ),
        )
        # What the teammate would answer to the dashboard's request.
        team.send_shutdown_response("a", "dash1234", approve=True)
        lead_log = tmp_path / ".teams/outside/logs/lead.jsonl"
        wait_until([tmp_path], lambda: "agreed to a shutdown request" in lead_log.read_text())
        pid = team.read_config().member("a").pid
        os.kill(pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert "restarted a" not in out
    assert "the teammates were shut down from outside the lead [0/2 tasks completed]" in out
    assert tasks_on_disk(tmp_path)["1"]["status"] == "pending"
    assert processes_of(tmp_path) == []
