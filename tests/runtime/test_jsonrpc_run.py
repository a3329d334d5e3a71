"""`teamtui run` leading JSON-RPC teammates written in Node.js: real processes, real pipes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.tui.conftest import until

from .helpers import lead_with_dashboard, processes_of, run_cmd, tasks_on_disk

AGENT = Path(__file__).with_name("agents") / "jsonrpc_teammate.js"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

GRAPH = [("schema", []), ("models", [1]), ("api", [2]), ("docs", []), ("release", [3, 4])]


def rpc_toml(
    name: str, mates: dict[str, dict[str, str]], tasks: list[tuple[str, list[int]]], settings: str = ""
) -> str:
    defaults = "".join(
        f"{k} = {v}\n" for k, v in (("shutdown_deadline", 3), ("shutdown_grace", 1)) if f"{k} =" not in settings
    )
    out = [f'[team]\nname = "{name}"\n{defaults}{settings}']
    for mate, env in mates.items():
        env = {"JRPC_WORK_MS": "30", **env}
        inline = ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items())
        out.append(
            f'[[teammates]]\nname = "{mate}"\nprotocol = "jsonrpc"\ncommand = {json.dumps(f"exec node {AGENT}")}\nenv = {{ {inline} }}\n'
        )
    for subject, deps in tasks:
        out.append(f"[[tasks]]\nsubject = {json.dumps(subject)}\nblocked_by = {json.dumps(deps)}\n")
    return "\n".join(out)


def log_texts(root: Path, team: str, name: str) -> list[str]:
    path = root / ".teams" / team / "logs" / f"{name}.jsonl"
    return [json.loads(line)["text"] for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("assign", ["self", "lead"])
def test_node_teammates_run_a_task_graph_to_completion(tmp_path, assign):
    tf = tmp_path / "team.toml"
    mates = {"ada": {"JRPC_TELL": "bob:the schema is in db/schema.sql"}, "bob": {"JRPC_NOISE": "1"}}
    tf.write_text(rpc_toml("rpc", mates, GRAPH, f'assign = "{assign}"\n'))
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 0, res.stdout + res.stderr
    assert "all 5 tasks completed" in res.stdout
    tasks = tasks_on_disk(tmp_path)
    assert all(t["status"] == "completed" for t in tasks.values())
    assert all(t["result"] == f"{t['owner']} did {t['subject']}" for t in tasks.values())
    for t in tasks.values():  # assigned only once its blockers completed
        for dep in t["blocked_by"]:
            assert t["claimed_at"] >= tasks[dep]["completed_at"]
    # team.message went through the lead to bob, with `from` set; the inbox traffic shows it.
    assert "message from ada: the schema is in db/schema.sql" in log_texts(tmp_path, "rpc", "bob")
    # bob's stray print and refused lines are in its output log; nothing stopped.
    raw = (tmp_path / ".teams/rpc/logs/bob.log").read_text()
    assert "hello from console.log, not a JSON-RPC message\n" in raw and "[teamtui] unknown method 'team.dance'" in raw
    # It was kept up to date with the board, and acknowledged the shutdown.
    assert any(t.startswith("context: ") for t in log_texts(tmp_path, "rpc", "ada") + log_texts(tmp_path, "rpc", "bob"))
    results = [json.loads(p.read_text()) for p in (tmp_path / ".teams/rpc/shutdown").glob("*.json")]
    assert sorted((r["teammate"], r["outcome"]) for r in results) == [("ada", "clean"), ("bob", "clean")]
    assert processes_of(tmp_path) == []


def test_a_teammate_that_ignores_the_shutdown_is_terminated_after_the_deadline(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(
        rpc_toml("stubborn", {"ada": {"JRPC_IGNORE_SHUTDOWN": "1"}}, [("one", [])], "shutdown_deadline = 1\n")
    )
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ignoring shutdown (phase_complete)" in log_texts(tmp_path, "stubborn", "ada")
    assert "sending SIGTERM to ada" in res.stdout
    assert "ada stopped (exit code -15)" in res.stdout
    [result] = [json.loads(p.read_text()) for p in (tmp_path / ".teams/stubborn/shutdown").glob("*.json")]
    assert result["outcome"] == "timed out"
    assert processes_of(tmp_path) == []


def test_a_message_to_a_non_member_is_refused_and_the_team_goes_on(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(rpc_toml("lonely", {"ada": {"JRPC_TELL": "../x:hello"}}, [("one", [])]))
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ada → '../x': not a member, message not delivered" in res.stdout
    assert (
        not (tmp_path / ".teams/x_inbox.jsonl").exists() and not (tmp_path / ".teams/lonely/../x_inbox.jsonl").exists()
    )


async def test_a_message_from_the_dashboard_reaches_a_jsonrpc_teammate(tmp_path):
    tf = tmp_path / "team.toml"
    mates = {"ada": {"JRPC_WORK_MS": "4000"}, "bob": {"JRPC_WORK_MS": "4000", "JRPC_TELL": "ada:the schema is in db/"}}
    tf.write_text(rpc_toml("dash", mates, [("long", []), ("longer", [])], "restarts = 0\n"))
    with lead_with_dashboard(tf, tmp_path) as (lead, app, _outcome, thread):
        async with app.run_test(size=(140, 42)) as pilot:
            await until(
                pilot,
                lambda: any(t.status.value == "in_progress" for t in app.state.tasks.values()),
                "ada works",
                limit=20,
            )
            await pilot.press("m", *"also check src/legacy", "enter")
            await until(
                pilot,
                lambda: "message from lead: also check src/legacy" in log_texts(tmp_path, "dash", "ada"),
                "ada hears it",
                limit=20,
            )
            # bob's team.message to ada went through the lead; the dashboard shows it though ada's
            # side drained the inbox at once.
            assert "message from bob: the schema is in db/" in log_texts(tmp_path, "dash", "ada")
            await until(
                pilot,
                lambda: any(m.sender == "bob" and m.recipient == "ada" for m in app.state.messages),
                "shown",
                limit=10,
            )
    assert not thread.is_alive()
    assert processes_of(tmp_path) == []


def test_a_crashed_teammate_gives_its_task_back_and_is_restarted(tmp_path):
    tf = tmp_path / "team.toml"
    tf.write_text(
        rpc_toml("crash", {"ada": {"JRPC_CRASH_ONCE": str(tmp_path / "crashed")}}, [("one", []), ("two", [1])])
    )
    res = run_cmd(["run", str(tf), "--headless"])
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ada crashed (exit code 3); its task #1 returned to pending and will be restarted" in res.stdout
    assert "restarted ada (1/1)" in res.stdout
    assert all(t["status"] == "completed" for t in tasks_on_disk(tmp_path).values())
    assert processes_of(tmp_path) == []
