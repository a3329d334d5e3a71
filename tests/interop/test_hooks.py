"""Answering what needs the person, on the real Claude Code (pinned, `make interop`): teamtui's hooks
installed with `teamtui hooks install` into a settings.json that already holds a hook of the
user's, a room that answers (`teamtui requests --follow`, which holds the room lock, with answers
given by `teamtui answer`; and the control room itself, `teamtui` in a terminal, answering with its
own keys) — for the lead's own Bash requests, an in-process teammate's, and a pane teammate's
through the lead's own dialog. Permission prompts show offline with the default
permission mode (FORMATS.md §4)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.interop.fakeapi import Reply, Request
from tests.interop.harness import Session, bash_twice, spawn_alice, wait_until, who
from tests.interop.test_real_claude import claude_installed, start_teamtui, teamtui_env  # noqa: F401 - fixture
from tests.sigint import sigint_default

pytestmark = pytest.mark.interop

TEAMTUI = [str(Path(sys.executable).with_name("teamtui"))]
USER_HOOK = "/bin/sh -c 'cat >> \"$HOME/user-hook.log\"'"


def settings(mode: str) -> dict[str, Any]:
    """The test HOME's settings: ordinary permission prompts offline, and a hook of the user's own."""
    return {
        "teammateMode": mode,
        "skipDangerousModePermissionPrompt": True,
        "permissions": {"defaultMode": "default", "allow": ["Agent", "SendMessage"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": USER_HOOK}]}]},
    }


class HookSession(Session):
    """A session whose settings.json holds the user's hook, then teamtui's (installed by the CLI)."""

    answer_wait: float = 120

    def write_home(self) -> None:
        super().write_home()
        (self.claude_dir / "settings.json").write_text(json.dumps(settings(self.mode), indent=2))
        self.before_install = json.loads((self.claude_dir / "settings.json").read_text())
        config = self.home / ".config" / "teamtui"
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text(f"answer_wait = {self.answer_wait}\n")
        done = self.teamtui("hooks", "install")
        assert done.returncode == 0, done.stderr

    def teamtui_env(self) -> dict[str, str]:
        return teamtui_env(self)

    def teamtui(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*TEAMTUI, *args], cwd=self.cwd, env=self.teamtui_env(), capture_output=True, text=True, timeout=timeout
        )

    def room(self) -> subprocess.Popen[str]:
        """`teamtui requests --follow --json`: holds the room lock and prints each request."""
        proc = subprocess.Popen(
            [*TEAMTUI, "requests", "--follow", "--json"],
            cwd=self.cwd,
            env=self.teamtui_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=sigint_default,  # it is stopped with Ctrl-C
        )
        from teamtui.protocol.hooks.room import room_running

        # The lock held, not its file there: a room that quit before leaves the file behind.
        wait_until(lambda: room_running(self.state_dir / "teamtui" / "hooks"), "the room", 30)
        return proc

    def open_requests(self) -> list[dict[str, Any]]:
        done = self.teamtui("requests", "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["requests"]

    def request(self, match: Callable[[dict[str, Any]], bool], what: str, timeout: float = 60) -> dict[str, Any]:
        return wait_until(lambda: next((r for r in self.open_requests() if match(r)), None), what, timeout, 0.3)

    def spool(self) -> list[dict[str, Any]]:
        path = self.state_dir / "teamtui" / "hooks" / "events.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def results(req: Request) -> str:
    return req.all_text


def ran(s: Session, agent: str, marker: str) -> bool:
    """The command's output reached `agent`'s model (a later request holds it)."""
    return any(marker in results(r) for r in s.requests(agent))


# ------------------------------------------------------------------ the lead's and an in-process teammate's


def hook_script(req: Request) -> Reply:
    """The lead: one Bash allowed, one denied, then alice; alice the same. Each writes a file, so
    Claude Code asks (it lets a plain `echo` run unasked)."""
    agent, done = who(req), req.tool_calls()
    if agent == "team-lead":
        return bash_twice(done, "echo LEAD-RAN-$((40+2)) | tee lead-ran.txt", "touch LEAD-DENIED.txt", "lead") or (
            spawn_alice(done)
        )
    if agent == "alice":
        return bash_twice(done, "echo ALICE-RAN-$((50+5)) | tee alice-ran.txt", "touch ALICE-DENIED.txt", "alice") or (
            Reply(text="ALICEIDLE")
        )
    return Reply(text="ok")


@pytest.fixture
def in_process(claude_installed: None, tmp_path: Path) -> Iterator[HookSession]:
    s = HookSession(
        tmp_path / "hooks-in-process", "in-process", script=hook_script, lead_flags="--permission-mode default"
    )
    try:
        s.start()
        yield s
    finally:
        s.stop()


def _answer(s: HookSession, rid: str, *args: str) -> None:
    done = s.teamtui("answer", rid, *args)
    assert done.returncode == 0, done.stderr


def test_the_leads_and_an_in_process_teammates_requests_answered_through_the_hook(in_process: HookSession) -> None:
    s = in_process
    room = s.room()
    try:
        s.prompt_lead()
        # The lead's first Bash: allowed; it runs and its output reaches the model.
        ask = s.request(lambda r: "LEAD-RAN" in r["text"], "the lead's first request in the room")
        assert (ask["kind"], ask["who"], ask["answers"]) == ("permission", "team-lead", ["allow", "deny", "lead"])
        assert (
            ask["detail"]["what"]["command"] == "echo LEAD-RAN-$((40+2)) | tee lead-ran.txt" and ask["team"] == s.team
        )
        _answer(s, ask["id"], "allow")
        wait_until(lambda: ran(s, "team-lead", "LEAD-RAN-42"), "the lead's command to run and reach the model", 60)
        # Its second: denied with a reason; it does not run, and the model's next request holds the reason.
        ask = s.request(lambda r: "LEAD-DENIED" in r["text"], "the lead's second request")
        _answer(s, ask["id"], "deny", "--message", "DENY-LEAD-REASON: not in this repo")
        wait_until(
            lambda: ran(s, "team-lead", "DENY-LEAD-REASON: not in this repo"), "the reason to reach the model", 60
        )
        assert not (s.cwd / "LEAD-DENIED.txt").exists()
        # In-process alice: the same, through the lead's process.
        ask = s.request(lambda r: "ALICE-RAN" in r["text"], "alice's first request")
        assert ask["who"] == "alice" and ask["team"] == s.team
        _answer(s, ask["id"], "allow")
        wait_until(lambda: ran(s, "alice", "ALICE-RAN-55"), "alice's command to run and reach her model", 60)
        ask = s.request(lambda r: "ALICE-DENIED" in r["text"], "alice's second request")
        _answer(s, ask["id"], "deny", "-m", "DENY-ALICE-REASON")
        wait_until(lambda: ran(s, "alice", "DENY-ALICE-REASON"), "the reason to reach alice's model", 60)
        assert not (s.cwd / "ALICE-DENIED.txt").exists()
        # A second answer to the same request is refused: nothing is answered twice.
        again = s.teamtui("answer", ask["id"], "allow")
        assert again.returncode == 1 and "already denied" in again.stderr
        # The room printed each request as it came, and the journal has every answer from the CLI.
        printed = [json.loads(line) for line in _lines_so_far(room)]
        assert sum(1 for p in printed if p["kind"] == "permission") == 4
        journal = [
            json.loads(line) for line in (s.state_dir / "teamtui" / "hooks" / "journal.jsonl").read_text().splitlines()
        ]
        assert [j["decision"] for j in journal if j["what"] == "answered"] == ["allow", "deny", "allow", "deny"]
    finally:
        room.send_signal(signal.SIGINT)
        room.wait(10)
    # The cheap events reached the spool, and the user's own Stop hook ran beside teamtui's.
    events = {e["event"] for e in s.spool()}
    assert {"SessionStart", "PermissionRequest", "SubagentStart", "Stop"} <= events
    assert (s.home / "user-hook.log").read_text().count('"hook_event_name":"Stop"') >= 1
    # Uninstalled: the settings are the user's again, their hook unchanged.
    assert s.teamtui("hooks", "uninstall").returncode == 0
    assert json.loads((s.claude_dir / "settings.json").read_text()) == s.before_install


def _lines_so_far(proc: subprocess.Popen[str]) -> list[str]:
    """What a running process printed so far (its stdout read without blocking)."""
    import os

    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    data = proc.stdout.read() or ""
    return [line for line in data.splitlines() if line.startswith("{")]


# ------------------------------------------------------------------ no room, a room that quits, the terminal


def one_bash(req: Request) -> Reply:
    agent, done = who(req), req.tool_calls()
    if agent == "team-lead" and done.count("Bash") < 3:
        return Reply(
            tools=[("Bash", {"command": f"echo STEP-{done.count('Bash') + 1} | tee step.txt", "description": "step"})]
        )
    return Reply(text="LEADIDLE")


@pytest.fixture
def short_wait(claude_installed: None, tmp_path: Path) -> Iterator[HookSession]:
    s = HookSession(tmp_path / "hooks-room", "in-process", script=one_bash, lead_flags="--permission-mode default")
    s.answer_wait = 30
    try:
        s.start()
        yield s
    finally:
        s.stop()


def _dialog(s: Session) -> bool:
    return "Do you want to proceed?" in s.capture("lead:0.0")


def test_no_room_a_room_that_quits_and_an_answer_in_the_terminal(short_wait: HookSession) -> None:
    s = short_wait
    # 1. No room running: the hook leaves at once, Claude Code's own dialog is there within 2 s.
    s.prompt_lead()
    wait_until(lambda: any(e["event"] == "PermissionRequest" for e in s.spool()), "the first request's hook", 60)
    asked_at = next(e["at"] for e in s.spool() if e["event"] == "PermissionRequest")
    wait_until(lambda: _dialog(s), "Claude Code's own dialog", 10)
    assert time.time() - asked_at < 2.5  # seen within 2 s of the hook (the screen is read every 0.1 s)
    assert next(e for e in s.spool() if e["event"] == "PermissionRequest")["outcome"] == "no room running"
    assert s.open_requests() == []

    # 2. A room (a process holding the room lock) that quits while a request waits.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nfrom teamtui.protocol.hooks.room import RoomPresence\n"
            "RoomPresence().hold(); print('held', flush=True); time.sleep(600)",
        ],
        env=s.teamtui_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        s.keys("lead:0.0", "1")  # the person answers step 1 in the dialog; step 2 then finds the room
        wait_until(lambda: ran(s, "team-lead", "STEP-1"), "step 1 to run", 30)
        ask = s.request(lambda r: "STEP-2" in r["text"], "step 2 in the room")
        holder.kill()
        holder.wait()
        quit_at = time.time()
        wait_until(lambda: s.open_requests() == [], "the request to leave the room's list", 5, 0.1)
        assert time.time() - quit_at < 2
    finally:
        holder.kill()
    assert _dialog(s)  # Claude Code's own dialog, well within answer_wait + 2 s
    closed = s.teamtui("answer", ask["id"], "allow")
    assert closed.returncode == 1 and "the room quit" in closed.stderr

    # 3. With a room running, the person answers in the lead's terminal: the room's offer ends at once.
    room = s.room()
    try:
        s.keys("lead:0.0", "1")  # step 2, in the dialog; step 3 then finds the room
        wait_until(lambda: ran(s, "team-lead", "STEP-2"), "step 2 to run", 30)
        ask = s.request(lambda r: "STEP-3" in r["text"], "step 3 in the room")
        wait_until(lambda: _dialog(s), "the dialog beside the room's offer", 10)
        time.sleep(0.5)
        s.keys("lead:0.0", "1")
        try:
            wait_until(lambda: s.open_requests() == [], "the answered request to leave the room's list", 10, 0.2)
        except TimeoutError as exc:  # say what the hook and the lead's screen were at
            journal = (s.state_dir / "teamtui" / "hooks" / "journal.jsonl").read_text().splitlines()[-4:]
            raise AssertionError(f"{exc}\njournal: {journal}\nscreen:\n{s.capture('lead:0.0')}") from exc
        late = s.teamtui("answer", ask["id"], "deny")
        assert late.returncode == 1 and "answered in the lead's terminal" in late.stderr
        wait_until(lambda: ran(s, "team-lead", "STEP-3"), "step 3 to run (as the terminal said)", 30)
    finally:
        room.send_signal(signal.SIGINT)
        room.wait(10)


# ------------------------------------------------------------------ a pane teammate: the lead's dialog


def pane_script(req: Request) -> Reply:
    agent, done = who(req), req.tool_calls()
    if agent == "team-lead":
        return spawn_alice(done)
    if agent == "alice":
        return bash_twice(done, "echo PANE-RAN-$((60+6)) | tee pane-ran.txt", "touch PANE-DENIED.txt", "alice") or (
            Reply(text="ALICEIDLE")
        )
    return Reply(text="ok")


@pytest.fixture
def panes(claude_installed: None, tmp_path: Path) -> Iterator[HookSession]:
    s = HookSession(tmp_path / "hooks-tmux", "tmux", script=pane_script, lead_flags="--permission-mode default")
    try:
        s.start()
        yield s
    finally:
        s.stop()


def test_a_pane_teammates_requests_allowed_and_denied_through_the_leads_dialog(panes: HookSession) -> None:
    s = panes
    s.prompt_lead()
    ask = s.request(
        lambda r: r["kind"] == "pane" and "PANE-RAN" in r["text"], "alice's request in the lead's dialog", 90
    )
    assert (ask["who"], ask["team"], ask["answers"]) == ("alice", s.team, ["allow", "deny"])
    time.sleep(1)  # the dialog takes keys a moment after it is drawn
    done = s.teamtui("answer", ask["id"], "allow")
    assert done.returncode == 0, done.stderr
    assert "the lead's signed response reached alice" in done.stdout
    wait_until(lambda: ran(s, "alice", "PANE-RAN-66"), "alice's command to run and reach her model", 60)

    ask = s.request(lambda r: r["kind"] == "pane" and "PANE-DENIED" in r["text"], "alice's second request", 60)
    time.sleep(1)
    done = s.teamtui("answer", ask["id"], "deny", "--message", "PANE-DENY-REASON")
    assert done.returncode == 0, done.stderr
    assert "denied in the lead's dialog" in done.stdout
    wait_until(lambda: ran(s, "alice", "doesn't want to proceed"), "the refusal to reach alice's model", 60)
    wait_until(lambda: ran(s, "alice", "PANE-DENY-REASON"), "the reason, as teamtui's message, to reach alice", 60)
    assert not (s.cwd / "PANE-DENIED.txt").exists()
    # The hook saw the lead wait for a person, exactly: the worker-permission notification.
    assert any(e.get("notification_type") == "worker_permission_prompt" for e in s.spool())


# ------------------------------------------------------------------ the room itself, as a person uses it


def start_room(s: HookSession) -> str:
    """`teamtui` (the control room, with its answers) in a new window of the lead's tmux server."""
    pane = start_teamtui(s)
    from teamtui.protocol.hooks.room import room_running

    wait_until(lambda: room_running(s.state_dir / "teamtui" / "hooks"), "the room to hold its lock", 30)
    return pane


def on_screen(s: HookSession, pane: str, check: Callable[[str], bool], what: str, timeout: float) -> None:
    """Wait until the pane's screen passes `check`; a timeout shows the screen it ended on."""
    try:
        wait_until(lambda: check(s.capture(pane)), what, timeout)
    except TimeoutError as exc:
        raise TimeoutError(f"{exc}; the screen:\n{s.capture(pane)}") from None


def _answer_in_room(s: HookSession, pane: str, marker: str, keys: list[str], reason: str = "") -> None:
    """The person, at the room: the request is in its list, `a` shows it whole, then `keys`."""
    s.request(lambda r: marker in r["text"], f"{marker} waiting")
    # This request in the needs (an earlier one's "asks permission" may still be on the screen) ...
    on_screen(s, pane, lambda c: "asks permission" in c and marker in c, f"{marker} in the room's needs", 30)
    s.keys(pane, "a")
    # ... and its dialog open (its key line) before the answer's key: else the key is the dashboard's.
    on_screen(s, pane, lambda c: marker in c and "esc cancel" in c, f"{marker} shown whole in the room", 15)
    for key in keys:
        s.keys(pane, key)
        time.sleep(0.3)
    if reason:
        on_screen(s, pane, lambda c: "enter give it" in c, "the room to ask why", 10)
        s.keys(pane, reason, literal=True)
        time.sleep(0.3)
        s.keys(pane, "Enter")


def test_the_leads_and_an_in_process_teammates_requests_answered_in_the_room(in_process: HookSession) -> None:
    """The room (`teamtui`, a real terminal) answers with its own keys what the hooks offer it."""
    s = in_process
    pane = start_room(s)
    s.prompt_lead()
    _answer_in_room(s, pane, "LEAD-RAN", ["a"])
    wait_until(lambda: ran(s, "team-lead", "LEAD-RAN-42"), "the lead's command, allowed in the room", 60)
    _answer_in_room(s, pane, "LEAD-DENIED", ["d"], "ROOM-DENY-LEAD")
    wait_until(lambda: ran(s, "team-lead", "ROOM-DENY-LEAD"), "the room's reason to reach the lead's model", 60)
    _answer_in_room(s, pane, "ALICE-RAN", ["a"])
    wait_until(lambda: ran(s, "alice", "ALICE-RAN-55"), "alice's command, allowed in the room", 60)
    _answer_in_room(s, pane, "ALICE-DENIED", ["d"], "ROOM-DENY-ALICE")
    wait_until(lambda: ran(s, "alice", "ROOM-DENY-ALICE"), "the room's reason to reach alice's model", 60)
    assert not (s.cwd / "LEAD-DENIED.txt").exists() and not (s.cwd / "ALICE-DENIED.txt").exists()
    journal = [
        json.loads(line) for line in (s.state_dir / "teamtui" / "hooks" / "journal.jsonl").read_text().splitlines()
    ]
    answered = [(j["decision"], j["via"]) for j in journal if j["what"] == "answered"]
    assert answered == [("allow", "room"), ("deny", "room"), ("allow", "room"), ("deny", "room")]
