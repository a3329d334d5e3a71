"""`S` and `x` on a Claude Code 2.1.328 team: teamtui asks the lead, then follows the files.

The lead's side is played by writing what the real Claude Code writes (see FORMATS.md §3): its
shutdown_request in a teammate's inbox, the teammate's shutdown_approved in team-lead.json, the
member removed from config.json; the panes are real panes of a private tmux server.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from teamtui.protocol.shutdown import Outcome
from tests.tui.conftest import SIZE, make_in as make, until

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "claude-2.1.328" / "tmux-running"
TEAM = "session-421dba11"


def start_of(pid: int) -> str:
    """Field 22 of /proc/<pid>/stat: what `leadProcess.procStart` records."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19]


def set_lead(root: Path, pid: int) -> None:
    """config.json's `leadProcess`: process `pid` of this machine."""
    edit_config(
        root,
        lambda cfg: cfg["leadProcess"].update(
            pid=pid, procStart=start_of(pid), pidSpace=os.readlink("/proc/self/ns/pid")
        ),
    )


@pytest.fixture
def claude_home(tmp_path: Path):
    """The tmux team's files with a live lead: a real process of this machine (its own environment,
    without $TMUX), so the dashboard asks it rather than saying it has ended."""
    root = tmp_path / "claude"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("projects"))
    if not Path("/proc/self/stat").exists():  # no /proc: whether the lead lives is unknown, so it is asked
        yield root
        return
    lead = subprocess.Popen(["sleep", "3600"], env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    try:
        set_lead(root, lead.pid)
        yield root
    finally:
        lead.kill()
        lead.wait()


def entries(root: Path, who: str) -> list[dict]:
    return json.loads((root / "teams" / TEAM / "inboxes" / f"{who}.json").read_text())


def write_entry(root: Path, who: str, entry: dict) -> None:
    """Append as Claude Code does: the whole array rewritten, then renamed into place."""
    path = root / "teams" / TEAM / "inboxes" / f"{who}.json"
    data = json.loads(path.read_text()) if path.exists() else []
    data.append(
        {"timestamp": "2026-11-23T07:04:10.953Z", "read": False, "msgV": 1, "msg_id": uuid.uuid4().hex, **entry}
    )
    tmp = path.with_name(path.name + ".tmp." + uuid.uuid4().hex[:8])
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def edit_config(root: Path, change) -> None:
    path = root / "teams" / TEAM / "config.json"
    cfg = json.loads(path.read_text())
    change(cfg)
    tmp = path.with_name("config.json.tmp." + uuid.uuid4().hex[:8])
    tmp.write_text(json.dumps(cfg))
    os.replace(tmp, path)


def in_tmux(root: Path, socket: str, monkeypatch, alice: str | None = None, bob: str | None = None) -> None:
    """alice's and bob's panes (those given) named in the team's config, and this process inside the
    team's tmux server (as a dashboard started there)."""
    panes = {1: alice, 2: bob}
    edit_config(root, lambda cfg: [cfg["members"][i].__setitem__("tmuxPaneId", p) for i, p in panes.items() if p])
    monkeypatch.setenv("TMUX", f"{socket},1,0")


def drop_member(name: str):
    return lambda cfg: cfg.__setitem__("members", [m for m in cfg["members"] if m["name"] != name])


async def confirm(pilot, deadline: str) -> None:
    await pilot.press("tab")
    deadline_input = pilot.app.screen.query_one("#deadline")
    deadline_input.value = deadline
    await pilot.press("enter")


def view_text(app) -> str:
    from tests.tui.conftest import cells

    screen = app.screen
    return (
        "\n".join(cells(screen.query_one("#shutdown-table")))
        + "\n"
        + str(screen.query_one("#shutdown-summary").render())
    )


@pytest.fixture
def tmux_socket():
    """A private tmux server; yields (socket, run)."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    tmpdir = tempfile.mkdtemp(prefix="tt-")
    socket = str(Path(tmpdir) / "s")

    def run(*args: str) -> str:
        return subprocess.run(["tmux", "-S", socket, *args], capture_output=True, text=True, check=True).stdout

    run("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "sleep 3600")
    try:
        yield socket, run
    finally:
        subprocess.run(["tmux", "-S", socket, "kill-server"], capture_output=True, check=False)
        shutil.rmtree(tmpdir, ignore_errors=True)


async def test_S_asks_the_lead_and_follows_the_teammates_leaving(claude_home, tmp_path, tmux_socket, monkeypatch):
    socket, tmux = tmux_socket
    # bob's pane is a real pane of the team's tmux server; the dashboard runs inside that server.
    bob_pane = tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "sleep 3600").strip()
    in_tmux(claude_home, socket, monkeypatch, bob=bob_pane)
    app = make(claude_home, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")
        await pilot.press("S")
        assert "teamtui asks team-lead to send a shutdown_request to alice, bob" in str(
            app.screen.query_one(".dialog-sub").render()
        )
        await confirm(pilot, "3")
        # One plain message to the lead, under teamtui's own name: never a forged shutdown_request.
        ask = entries(claude_home, "team-lead")[-1]
        assert ask["from"] == "teamtui" and not ask["text"].startswith("{")
        assert "shut down the team gracefully within 3s" in ask["text"] and "Teammates: alice, bob" in ask["text"]
        assert entries(claude_home, "alice") == [] and entries(claude_home, "bob") == []
        await until(pilot, lambda: app.screen.__class__.__name__ == "ShutdownView", "the shutdown view")
        assert "asked team-lead" in view_text(app)
        assert any("asked team-lead" in str(n.message) for n in app._notifications)

        # The lead asks alice; she approves and leaves.
        write_entry(
            claude_home,
            "alice",
            {
                "from": "team-lead",
                "text": json.dumps(
                    {"type": "shutdown_request", "requestId": "shutdown-1@alice", "from": "team-lead", "reason": "done"}
                ),
            },
        )
        await until(pilot, lambda: "shutdown_request sent" in view_text(app), "the lead's request shown")
        write_entry(
            claude_home,
            "team-lead",
            {
                "from": "alice",
                "text": json.dumps({"type": "shutdown_approved", "requestId": "shutdown-1@alice", "from": "alice"}),
            },
        )
        await until(pilot, lambda: "approved" in view_text(app), "alice's approval shown")
        edit_config(claude_home, drop_member("alice"))
        await until(pilot, lambda: app.shutdown_run.teammates["alice"].outcome is Outcome.CLEAN, "alice left")
        assert "left the team" in view_text(app)

        # bob never answers: at the deadline teamtui offers to close his pane, and closes it on `y`.
        await until(pilot, lambda: app.screen.__class__.__name__ == "ClosePanesConfirm", "the offer to close panes", 10)
        assert f"bob ({bob_pane})" in str(app.screen.query_one(".dialog-sub").render())
        await pilot.press("y")
        await until(pilot, lambda: "closed by teamtui" in app.shutdown_run.teammates["bob"].detail, "bob's pane closed")
        panes = tmux("list-panes", "-a", "-F", "#{pane_id}").split()
        assert bob_pane not in panes and len(panes) == 1
        run = app.shutdown_run
        assert run.done and run.teammates["bob"].outcome is Outcome.TIMED_OUT
        await until(pilot, lambda: app.screen.__class__.__name__ == "ShutdownView", "back on the view")
        assert "bob: timed out" in view_text(app) and "alice: clean" in view_text(app)


async def test_x_asks_the_lead_for_one_teammate_and_keeps_panes_on_no(claude_home, tmp_path, tmux_socket, monkeypatch):
    socket, tmux = tmux_socket
    pane = tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "sleep 3600").strip()
    in_tmux(claude_home, socket, monkeypatch, alice=pane)
    app = make(claude_home, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")
        assert app.selected == "alice"
        await pilot.press("x")
        await confirm(pilot, "1")
        ask = entries(claude_home, "team-lead")[-1]
        assert "shut down teammate alice gracefully" in ask["text"] and "Teammates: alice" in ask["text"]
        assert list(app.shutdown_run.teammates) == ["alice"]
        await until(pilot, lambda: app.screen.__class__.__name__ == "ClosePanesConfirm", "the offer to close panes", 10)
        await pilot.press("n")
        assert pane in tmux("list-panes", "-a", "-F", "#{pane_id}").split()
        assert app.shutdown_run.teammates["alice"].outcome is Outcome.TIMED_OUT


async def test_teammate_terminated_from_system_ends_a_teammate(claude_home, tmp_path):
    app = make(claude_home, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")
        await pilot.press("S")
        await confirm(pilot, "30")
        for name in ("alice", "bob"):
            write_entry(
                claude_home,
                "team-lead",
                {
                    "from": "system",
                    "text": json.dumps({"type": "teammate_terminated", "message": f"{name} has shut down."}),
                },
            )
        await until(pilot, lambda: app.shutdown_run.done, "both terminated")
        assert all("terminated" in t.detail for t in app.shutdown_run.teammates.values())
        assert all(t.outcome is Outcome.CLEAN for t in app.shutdown_run.teammates.values())


def notice_line(sender: str, payload: dict) -> str:
    """A transcript's user record delivering a signed protocol message, as Claude Code writes it."""
    text = (
        f'<teammate-message teammate_id="{sender}">\n{json.dumps(payload, separators=(",", ":"))}\n</teammate-message>'
    )
    rec = {"type": "user", "message": {"role": "user", "content": text}, "timestamp": payload["timestamp"]}
    return json.dumps(rec, separators=(",", ":")) + "\n"


@pytest.fixture
def transcripts_home(tmp_path: Path):
    """The tmux team's files with their transcripts this time, and a live lead."""
    root = tmp_path / "claude"
    shutil.copytree(FIXTURE, root)
    lead = subprocess.Popen(["sleep", "3600"], env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    try:
        set_lead(root, lead.pid)
        yield root
    finally:
        lead.kill()
        lead.wait()


async def x_on_alice(app, pilot) -> None:
    """Once the transcripts are read, `x` on the selected teammate (alice): the shutdown view."""
    await until(
        pilot,
        lambda: app.state is not None and app.state.transcripts is not None and app.state.transcripts.ready,
        "the transcripts read",
    )
    await pilot.press("x")
    await confirm(pilot, "30")
    await until(pilot, lambda: app.screen.__class__.__name__ == "ShutdownView", "the shutdown view")


async def test_steps_the_inbox_lost_are_taken_from_the_transcripts(transcripts_home, tmp_path):
    """Claude Code prunes an inbox entry within a second; on a busy machine teamtui may read the
    inbox too late. The receiver's transcript still has the message: the view follows it."""
    from teamtui.protocol.claude import iso_now

    root = transcripts_home
    app = make(root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await x_on_alice(app, pilot)
        sources = app.state.transcripts.team.sources
        # The lead's signed request reached alice, and her approval the lead: only their transcripts say so.
        with sources["alice"].path.open("a") as fh:
            fh.write(
                notice_line(
                    "team-lead",
                    {
                        "type": "shutdown_request",
                        "requestId": "shutdown-9@alice",
                        "from": "team-lead",
                        "reason": "teamtui asked",
                        "timestamp": iso_now(),
                    },
                )
            )
        await until(pilot, lambda: "asked team-lead · shutdown_request sent" in view_text(app), "the request seen")
        with sources["team-lead"].path.open("a") as fh:
            fh.write(
                notice_line(
                    "alice",
                    {
                        "type": "shutdown_approved",
                        "requestId": "shutdown-9@alice",
                        "from": "alice",
                        "timestamp": iso_now(),
                    },
                )
            )
        await until(pilot, lambda: "shutdown_request sent · approved" in view_text(app), "the approval seen")
        assert entries(root, "alice") == []  # nothing in the inbox: the transcripts told it
        assert "bob" not in view_text(app)


async def test_steps_read_out_of_order_are_shown_in_the_order_they_happened(transcripts_home, tmp_path):
    """A reply can be read before its request (the request only from a transcript read later):
    the steps still read request, then approval."""
    from teamtui.protocol.claude import iso_now

    root = transcripts_home
    app = make(root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await x_on_alice(app, pilot)
        write_entry(
            root,
            "team-lead",
            {
                "from": "alice",
                "text": json.dumps(
                    {
                        "type": "shutdown_approved",
                        "requestId": "shutdown-7@alice",
                        "from": "alice",
                        "timestamp": iso_now(),
                    }
                ),
            },
        )
        await until(pilot, lambda: "asked team-lead · approved" in view_text(app), "the approval seen")
        with app.state.transcripts.team.sources["alice"].path.open("a") as fh:
            fh.write(
                notice_line(
                    "team-lead",
                    {
                        "type": "shutdown_request",
                        "requestId": "shutdown-7@alice",
                        "from": "team-lead",
                        "reason": "teamtui asked",
                        "timestamp": iso_now(),
                    },
                )
            )
        await until(
            pilot,
            lambda: "asked team-lead · shutdown_request sent · approved" in view_text(app),
            "the request placed before the approval",
        )


async def test_the_view_says_whether_a_teammate_s_pane_closed_after_it_left(
    claude_home, tmp_path, tmux_socket, monkeypatch
):
    """Claude Code closes a teammate's pane after it leaves, but not always: the view says which
    panes closed and which outlived their teammate (as tmux says, not as assumed)."""
    from teamtui.protocol.claude import shutdown as model
    from teamtui.session import lead_asked

    monkeypatch.setattr(model, "PANE_GRACE", 1.0)
    monkeypatch.setattr(lead_asked, "PANE_CHECK_EVERY", 0.2)
    socket, tmux = tmux_socket
    panes = {
        name: tmux("split-window", "-d", "-P", "-F", "#{pane_id}", "sleep 3600").strip() for name in ("alice", "bob")
    }
    edit_config(
        claude_home,
        lambda cfg: [m.__setitem__("tmuxPaneId", panes[m["name"]]) for m in cfg["members"] if m["name"] in panes],
    )
    monkeypatch.setenv("TMUX", f"{socket},1,0")
    app = make(claude_home, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.state is not None and app.state.config is not None, "the team loaded")
        await pilot.press("S")
        await confirm(pilot, "30")
        await until(pilot, lambda: app.screen.__class__.__name__ == "ShutdownView", "the shutdown view")
        for name in ("alice", "bob"):
            write_entry(
                claude_home,
                "team-lead",
                {
                    "from": name,
                    "text": json.dumps({"type": "shutdown_approved", "requestId": f"shutdown-1@{name}", "from": name}),
                },
            )
        tmux("kill-pane", "-t", panes["alice"])  # Claude Code closed alice's pane, not bob's
        edit_config(claude_home, lambda cfg: cfg.__setitem__("members", cfg["members"][:1]))
        await until(
            pilot,
            lambda: "alice: clean · asked team-lead → approved → left the team → pane closed" in view_text(app),
            "alice's pane seen closed",
        )
        # bob's pane outlives him: the view says so, and teamtui offers to close it.
        await until(
            pilot, lambda: app.screen.__class__.__name__ == "ClosePanesConfirm", "the offer to close bob's pane", 10
        )
        await pilot.pause()
        assert "their panes did not" in str(app.screen.query_one(".dialog-title").render())
        assert f"bob ({panes['bob']})" in str(app.screen.query_one(".dialog-sub").render())
        assert "alice" not in str(app.screen.query_one(".dialog-sub").render())
        await pilot.press("y")
        await until(pilot, lambda: app.screen.__class__.__name__ == "ShutdownView", "back on the view")
        await until(
            pilot,
            lambda: (
                f"bob: clean · asked team-lead → approved → left the team → pane {panes['bob']} closed by teamtui"
                in view_text(app)
            ),
            "bob's pane closed by teamtui",
            10,
        )
        assert panes["bob"] not in tmux("list-panes", "-a", "-F", "#{pane_id}").split()
        await pilot.pause(0.6)  # later looks at the panes add nothing
        assert "pane still open" not in view_text(app) and "→ pane closed" not in view_text(app).split("bob:")[1]
