"""The lead's side of a JSON-RPC teammate, on a real team folder with real Node.js teammates.

A small driver stands in for the lead's loop: it feeds the adapters the watcher's batches
(inbox changes, board changes), as the lead does, and assigns on idle in `assign = "lead"` mode."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from teamtui.protocol.board import Board
from teamtui.protocol.native import NativeTeam
from teamtui.protocol.watch import watch_dirs
from teamtui.runtime.jsonrpc import Say, spawn_jsonrpc
from teamtui.runtime.jsonrpc_teammate import JsonRpcTeammate

AGENT = Path(__file__).with_name("agents") / "jsonrpc_teammate.js"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


class MiniLead:
    def __init__(
        self, root: Path, names: list[str], tasks: list[tuple[str, list[str]]], *, assign: str = "self", **env: str
    ):
        self.store = NativeTeam(root, "rpc")
        self.store.create()
        for n in names:
            self.store.add_member(n, agent_type="node")
        for subject, deps in tasks:
            self.store.create_task(subject, blocked_by=deps)
        self.assign = assign
        self.env = env
        self.names = names
        self.mates = {n: JsonRpcTeammate(root, "rpc", n, assign=assign) for n in names}
        self.procs = {}
        self.lead_inbox: list = []

    def start(self, name: str, **env: str) -> None:
        full = {**os.environ, "TEAMTUI_NAME": name, "JRPC_WORK_MS": "30", **self.env, **env}
        proc = spawn_jsonrpc(
            name, f"exec node {AGENT}", cwd=self.store.root, env=full, log_path=self.store.logs_dir / f"{name}.log"
        )
        self.procs[name] = proc
        self.mates[name].attach(proc)

    def step(self, paths: set[Path]) -> None:
        for n, mate in self.mates.items():
            if self.store.inbox_path(n) in paths:
                mate.inbox_changed()
        if self.store.inbox_path("lead") in paths:
            self.lead_inbox += self.store.drain("lead").messages
        tasks, _ = self.store.list_tasks()
        if self.assign == "lead":
            for m in self.lead_inbox:
                if m.type == "idle_notification" and self.mates[m.sender].idle:
                    task = self.store.claim_task(None, m.sender)
                    if task is not None:
                        self.mates[m.sender].assign(task)
            tasks, _ = self.store.list_tasks()
        for mate in self.mates.values():
            mate.board(tasks)

    async def run_until(self, done, timeout: float = 20) -> None:
        stop = asyncio.Event()

        async def loop() -> None:
            async for batch in watch_dirs(self.store.watch_dirs(), stop):
                # As the lead does: once the watches are in place, look at everything once.
                every = {self.store.inbox_path(n) for n in [*self.names, "lead"]}
                self.step(batch.paths | every if batch.ready or batch.rescan else batch.paths)
                if done():
                    stop.set()

        await asyncio.wait_for(loop(), timeout)

    def all_done(self) -> bool:
        tasks, _ = self.store.list_tasks()
        return Board(tasks).all_completed()

    def log_texts(self, name: str) -> list[str]:
        path = self.store.logs_dir / f"{name}.jsonl"
        return [json.loads(line)["text"] for line in path.read_text().splitlines()] if path.exists() else []

    async def exit_code(self, name: str) -> int | None:
        await asyncio.get_running_loop().run_in_executor(None, self.procs[name].popen.wait)
        return self.procs[name].poll()


GRAPH = [("schema", []), ("models", ["1"]), ("api", ["2"]), ("docs", []), ("release", ["3", "4"])]


@pytest.mark.parametrize("assign", ["self", "lead"])
async def test_node_teammates_run_a_task_graph_to_completion(tmp_path, assign):
    lead = MiniLead(tmp_path, ["ada", "bob"], GRAPH, assign=assign)
    lead.start("ada")
    lead.start("bob", JRPC_NOISE="1")
    await lead.run_until(lead.all_done)
    tasks = {t.id: t for t in lead.store.list_tasks()[0]}
    assert all(t.status.value == "completed" for t in tasks.values())
    assert {t.owner for t in tasks.values()} <= {"ada", "bob"}
    assert all(t.result == f"{t.owner} did {t.subject}" for t in tasks.values())
    for t in tasks.values():  # nothing was assigned before its blockers completed
        for dep in t.blocked_by:
            assert t.claimed_at >= tasks[dep].completed_at
    # bob's stray print and refused lines are in its output log; its team.log lines in its .jsonl.
    raw = (tmp_path / ".teams/rpc/logs/bob.log").read_text()
    assert "hello from console.log, not a JSON-RPC message\n" in raw
    assert "[teamtui] unknown method 'team.dance'" in raw
    assert any(t.startswith("working on #") for t in lead.log_texts("bob") + lead.log_texts("ada"))
    assert any(m.type == "idle_notification" for m in lead.lead_inbox)
    for n in ("ada", "bob"):
        lead.mates[n].channel._close_write()  # end of file on its stdin
        assert await lead.exit_code(n) == 0  # stdin closed: the teammate ends
        lead.mates[n].detach()


async def test_messages_between_teammates_and_from_the_dashboard_arrive_as_team_message(tmp_path):
    lead = MiniLead(tmp_path, ["ada", "bob"], [("one", [])])
    lead.start("ada", JRPC_TELL="bob:the schema is in db/schema.sql")
    lead.start("bob")
    # What the dashboard's `m` writes: a message in bob's inbox, from someone who is not a teammate.
    lead.store.send("bob", "please also check [b]src/legacy[/b]", "user")

    def heard() -> bool:
        texts = lead.log_texts("bob")
        return (
            "message from ada: the schema is in db/schema.sql" in texts
            and "message from user: please also check [b]src/legacy[/b]" in texts
        )

    await lead.run_until(heard)
    # A message to a non-member goes nowhere and says so.
    lead.mates["ada"]._incoming(Say("../x", "hi"))
    assert not (tmp_path / ".teams/rpc/../x_inbox.jsonl").exists()
    assert "team.message to '../x' not delivered: not a member of the team (members: bob, lead)" in lead.log_texts(
        "ada"
    )
    for n in ("ada", "bob"):
        lead.mates[n].detach()


async def test_shutdown_is_acknowledged_or_ends_in_sigterm(tmp_path):
    lead = MiniLead(tmp_path, ["ada", "bob"], [])
    lead.start("ada")
    lead.start("bob", JRPC_IGNORE_SHUTDOWN="1")
    await lead.run_until(lambda: all(m.ready for m in lead.mates.values()))
    ids = {n: lead.store.send_shutdown_request(n, "lead", "phase_complete", 2) for n in ("ada", "bob")}

    def answered() -> bool:
        return any(
            m.type == "shutdown_response" for m in lead.lead_inbox
        ) and "ignoring shutdown (phase_complete)" in lead.log_texts("bob")

    await lead.run_until(answered)
    reply = next(m for m in lead.lead_inbox if m.type == "shutdown_response")
    assert (
        reply.sender == "ada"
        and reply.payload.request_id == ids["ada"]
        and reply.payload.approve
        and reply.payload.status == "clean"
    )
    assert await lead.exit_code("ada") == 0
    assert lead.procs["bob"].poll() is None
    lead.procs["bob"].terminate()  # the ladder's next rung
    assert await lead.exit_code("bob") == -signal.SIGTERM
    for n in ("ada", "bob"):
        lead.mates[n].detach()
