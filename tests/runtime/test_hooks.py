"""Hooks fire once per event with their HOOK_* context; a hanging hook is cut off."""

from __future__ import annotations

import json

from teamtui.runtime.hooks import hook_env

from .helpers import processes_of, run_cmd, tasks_on_disk, team_toml


def test_hook_env_names():
    env = hook_env("task-completed", {"team_name": "t", "task_id": "3", "task_result": None})
    assert env == {
        "HOOK_EVENT": "task-completed",
        "HOOK_TEAM_NAME": "t",
        "HOOK_teamName": "t",
        "HOOK_TASK_ID": "3",
        "HOOK_teamTaskId": "3",
        "HOOK_TASK_RESULT": "",
        "HOOK_teamTaskResult": "",
    }


def test_hooks_fire_once_per_event_and_a_hanging_hook_is_cut_off(tmp_path):
    rec = 'echo "$HOOK_EVENT|$HOOK_TEAM_NAME|$HOOK_TEAMMATE_NAME|$HOOK_TEAMMATE_PID|$HOOK_TASK_ID|$HOOK_TASK_OWNER|$HOOK_TASKS_COMPLETED|$HOOK_TASKS_TOTAL" >> events.txt'
    hooks = "\n".join(
        f"{event} = {json.dumps(rec)}"
        for event in ("teammate-spawned", "teammate-idle", "task-assigned", "task-completed", "team-shutdown")
    )
    # team-created: one hook that records, one that hangs past the timeout.
    hooks += "\nteam-created = [" + json.dumps(rec) + ', "sleep 30"]\n'
    tf = tmp_path / "team.toml"
    tf.write_text(
        team_toml(
            "hooked",
            teammates=["a", "b"],
            tasks=[("x", []), ("y", []), ("z", [1, 2])],
            settings="hook_timeout = 1\n",
            hooks=hooks,
        )
    )
    res = run_cmd(["run", str(tf), "--headless"], WORK="0.1")
    assert res.returncode == 0, res.stdout + res.stderr
    lines = [line.split("|") for line in (tmp_path / "events.txt").read_text().splitlines()]
    by_event: dict[str, list[list[str]]] = {}
    for fields in lines:
        by_event.setdefault(fields[0], []).append(fields)
    assert all(f[1] == "hooked" for f in lines)
    assert len(by_event["team-created"]) == 1
    spawned = by_event["teammate-spawned"]
    assert sorted(f[2] for f in spawned) == ["a", "b"] and all(f[3].isdigit() for f in spawned)
    tasks = tasks_on_disk(tmp_path)
    assert sorted((f[4], f[5]) for f in by_event["task-assigned"]) == sorted(
        (t["id"], t["owner"]) for t in tasks.values()
    )
    assert sorted((f[4], f[5]) for f in by_event["task-completed"]) == sorted(
        (t["id"], t["owner"]) for t in tasks.values()
    )
    assert {f[2] for f in by_event["teammate-idle"]} <= {"a", "b"} and by_event["teammate-idle"]
    assert [(f[6], f[7]) for f in by_event["team-shutdown"]] == [("3", "3")]
    # The hanging hook was logged and killed; the team did not wait for it.
    assert "hook team-created: 'sleep 30' did not finish within 1s and was killed" in res.stdout
    assert processes_of(tmp_path) == []


def test_failing_hook_is_logged_and_the_team_goes_on(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(
        team_toml("failing", teammates=["a"], tasks=[("x", [])], hooks='task-completed = "echo boom; exit 4"\n')
    )
    res = run_cmd(["run", str(tf), "--headless"], WORK="0")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "hook task-completed: 'echo boom; exit 4' exited with 4: boom" in res.stdout
