"""What the CLI's hot commands load: each runs in a fresh interpreter on a real team, and the
modules it leaves behind are checked (start-up cost, without timing it; `make bench` has the times).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from teamtui.cli import COMMANDS, build_parser
from teamtui.protocol import NativeTeam
from tests.conftest import reaped

TEAM = "refactor-auth"

# Runs `teamtui ARGS...`, then writes what is imported, and what the interpreter had imported
# before (its own start-up, site and .pth files: not the command's doing).
DRIVER = """
import sys
before = sorted(sys.modules)
import json, os
from teamtui.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
with open(os.environ["IMPORTS_OUT"], "w") as fh:
    json.dump({"code": code, "modules": sorted(sys.modules), "before": before}, fh)
"""

# Never needed by a command that reads or writes team files. The wire models are plain Python
# (teamtui.protocol.wire): pydantic alone cost about 3x a bare interpreter's start-up.
HEAVY = (
    "textual",
    "rich",
    "libtmux",
    "tomllib",
    "pydantic",
    "pydantic_core",
    "genai_prices",  # prices: loaded by what shows a cost (the dashboard's head count, status --all, doctor)
    "teamtui.tui",
    "teamtui.runtime",
    "teamtui.demo",
    "teamtui.tmux.server",
    "teamtui.tmux.panes",
    "teamtui.cli.app_cmds",
    "teamtui.cli.run_cmds",
)
# Only `follow` watches files.
WATCHING = ("watchfiles", "anyio", "asyncio", "teamtui.protocol.watch", "teamtui.cli.tmux_cmds")
# What a command on a native team no longer imports (issue #17: each cost its start-up a few ms):
# dataclasses (and the inspect, ast and dis it pulls in), typing, argparse's shutil for the terminal
# width, datetime and random (only an ISO timestamp or a contended lock needs them), Claude Code's
# layout and its lead process, the patterns' plans.
LIGHT = (
    "dataclasses",
    "inspect",
    "ast",
    "dis",
    "typing",
    "shutil",
    "datetime",
    "random",
    "teamtui.protocol.claude",
    "teamtui.protocol.claude.leadproc",
    "teamtui.protocol.plan",
)
# command -> arguments
HOT = {
    "send": ["send", "hunter", "hello"],
    "log": ["log", "hunter", "a line"],
    "inbox": ["inbox", "hunter"],
    "task claim": ["task", "claim", "--as", "scout"],
    "task complete": ["task", "complete", "3"],
    "tasks": ["tasks"],
    "tasks --json": ["tasks", "--json"],
}


def _env(root: Path, out: Path) -> dict[str, str]:
    return {**os.environ, "TEAMTUI_ROOT": str(root), "TEAMTUI_TEAM": TEAM, "IMPORTS_OUT": str(out)}


def _run(root: Path, tmp_path: Path, argv: list[str]) -> dict:
    out = tmp_path / "imports.json"
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, *argv], env=_env(root, out), capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["code"] == 0, proc.stderr
    return result


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in names)]


def _added(result: dict) -> list[str]:
    """The modules the command imported, beyond the interpreter's own start-up."""
    before = set(result["before"])
    return [m for m in result["modules"] if m not in before]


@pytest.mark.parametrize("command", list(HOT))
def test_a_hot_command_loads_no_ui_tmux_runtime_pydantic_or_watcher(
    command: str, native_root: Path, tmp_path: Path
) -> None:
    result = _run(native_root, tmp_path, HOT[command])
    assert _loaded(result["modules"], HEAVY + WATCHING) == []
    assert "teamtui.protocol.state" not in result["modules"], "only status and follow need the whole TeamState"


@pytest.mark.parametrize("command", [*HOT, "status", "status --json"])
def test_a_hot_command_on_a_native_team_imports_no_dataclasses_typing_or_other_layout(
    command: str, native_root: Path, tmp_path: Path
) -> None:
    argv = {"status": ["status"], "status --json": ["status", "--json"]}.get(command) or HOT[command]
    result = _run(native_root, tmp_path, argv)
    assert _loaded(_added(result), LIGHT) == []


# `teamtui --help` and every `teamtui COMMAND --help` register the commands' modules (all of them for
# the first) and print: none may load what only running a command needs.
HELP = [["--help"], *([name, "--help"] for name in COMMANDS)]
HELP_HEAVY = (
    *(n for n in HEAVY + WATCHING if not n.startswith("teamtui.cli.")),
    "teamtui.session",
    "teamtui.serve",
    "aiohttp",
    "textual_serve",
)


@pytest.mark.parametrize("argv", HELP, ids=" ".join)
def test_help_starts_like_a_hot_command(argv: list[str], native_root: Path, tmp_path: Path) -> None:
    result = _run(native_root, tmp_path, argv)
    assert _loaded(result["modules"], HELP_HEAVY) == []
    assert _loaded(_added(result), LIGHT) == []


def test_a_command_builds_only_its_own_parser(native_root: Path, tmp_path: Path) -> None:
    sub = build_parser(["send", "x", "y"])._subparsers._group_actions[0]  # type: ignore[union-attr]
    assert list(sub.choices) == ["send"]
    assert set(build_parser(["-h"])._subparsers._group_actions[0].choices) == set(COMMANDS)  # type: ignore[union-attr]


def test_the_command_did_its_work_in_the_guarded_run(native_root: Path, tmp_path: Path) -> None:
    _run(native_root, tmp_path, HOT["send"])
    _run(native_root, tmp_path, HOT["task claim"])
    store = NativeTeam(native_root, TEAM)
    assert [m.content for m in store.peek("hunter").messages][-1] == "hello"
    task = store.get_task("3")
    assert task.owner == "scout"


def test_status_loads_the_team_state_but_no_ui_tmux_pydantic_or_watcher(native_root: Path, tmp_path: Path) -> None:
    result = _run(native_root, tmp_path, ["status"])
    assert _loaded(result["modules"], HEAVY + WATCHING) == []
    assert "teamtui.protocol.state" in result["modules"]
    # The inboxes it read hold protocol messages: they were decoded without pydantic.
    store = NativeTeam(native_root, TEAM)
    assert any(m.payload for name in store.inbox_owners() for m in store.peek(name).messages)


def test_changes_loads_no_ui_tmux_or_watcher(native_root: Path, tmp_path: Path) -> None:
    result = _run(native_root, tmp_path, ["changes", "--json"])
    assert _loaded(result["modules"], ("textual", "rich", "libtmux", "teamtui.tui", *WATCHING)) == []


@pytest.mark.parametrize("argv", [["search", "deploy"], ["search", "deploy", "--json"], ["history"]])
def test_search_and_history_load_no_ui_tmux_pydantic_watcher_or_team_state(
    argv: list[str], native_root: Path, tmp_path: Path
) -> None:
    result = _run(native_root, tmp_path, argv)
    assert _loaded(result["modules"], HEAVY + WATCHING) == []
    assert (
        _loaded(_added(result), ("teamtui.protocol.state", "teamtui.session", "teamtui.protocol.history.writer")) == []
    )
    assert "sqlite3" in result["modules"], "it read the history database"


def test_follows_first_screen_imports_no_dataclasses_typing_or_other_layout(native_root: Path, tmp_path: Path) -> None:
    # A teammate that has shut down: follow prints its first screen and ends, before any watcher.
    NativeTeam(native_root, TEAM).update_member("hunter", status="shutdown")
    result = _run(native_root, tmp_path, ["follow", "hunter"])
    assert _loaded(_added(result), HEAVY + WATCHING[:-1] + LIGHT) == []


def test_follow_watches_without_ui_or_tmux(native_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "imports.json"
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, "follow", "hunter"],
        env=_env(native_root, out),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with reaped(proc):
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("following hunter")
        # Before or after its watcher is in place, the teammate shutting down ends it.
        NativeTeam(native_root, TEAM).update_member("hunter", status="shutdown")
        rest, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "hunter shut down; following ends." in rest
    result = json.loads(out.read_text())
    assert _loaded(result["modules"], HEAVY) == []
    assert "watchfiles" in result["modules"], "follow watched the files (it is the one command that does)"


def test_every_command_is_registered_by_the_module_the_cli_imports_for_it() -> None:
    registered: dict[str, str] = {}
    for module in dict.fromkeys(COMMANDS.values()):
        sub = argparse.ArgumentParser().add_subparsers(dest="command")
        importlib.import_module(module).register(sub, [])
        registered.update(dict.fromkeys(sub.choices, module))
    assert registered == COMMANDS


@pytest.mark.parametrize(
    ("argv", "picked"),
    [
        (["tasks"], "tasks"),
        (["--root", "send", "send", "a", "b"], "send"),
        (["--team=log", "log", "x"], "log"),
        (["--layout", "native", "task", "claim"], "task"),
        (["--teammate-mode", "tmux", "status", "--json"], "status"),
        (["follow", "x"], "follow"),
        (["watch", "/some/root"], "watch"),
        (["-h"], None),
        (["--help", "tasks"], None),
        (["--he", "tasks"], None),
        (["--version", "send"], None),
        (["nosuch"], None),
        ([], None),
        (["--root"], None),
        (["--layout", "bad", "tasks"], None),
    ],
)
def test_the_command_the_cli_picks_is_the_one_argparse_reads(argv: list[str], picked: str | None) -> None:
    from teamtui.cli import _command_in

    assert _command_in(argv) == picked
    if picked is not None:
        full = build_parser().parse_known_args(argv)[0].command
        alone = build_parser(argv).parse_known_args(argv)[0].command
        assert picked == full == alone


# ----------------------------------------------------------------------------- the dashboard, lazily

CLI = Path(__file__).resolve().parents[1] / "teamtui" / "cli"
WORKER = Path(__file__).resolve().parent / "runtime" / "worker.py"
# The only functions of the CLI that import the dashboard: each opens it (or hands it a running lead).
DASHBOARD_OPENERS = {"app_cmds.py:open_dashboard", "run_cmds.py:run_with_dashboard", "run_cmds.py:connect_dashboard"}
# What a command that shows no dashboard must not load.
UI = ("teamtui.tui", "textual", "rich", "teamtui.cli.app_cmds")


def _imports_tui(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(a.name == "teamtui.tui" or a.name.startswith("teamtui.tui.") for a in node.names)
    if isinstance(node, ast.ImportFrom) and node.module:
        return (
            node.module == "teamtui.tui"
            or node.module.startswith("teamtui.tui.")
            or (node.module == "teamtui" and any(a.name == "tui" for a in node.names))
        )
    return False


def test_the_cli_imports_the_dashboard_only_inside_the_functions_that_open_it() -> None:
    importers: set[str] = set()
    for path in sorted(CLI.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        # An import under `if TYPE_CHECKING:` names a type for mypy only: it never runs.
        typing_only = [n for n in ast.walk(tree) if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
        inside = {id(imp) for f in functions + typing_only for imp in ast.walk(f) if _imports_tui(imp)}
        at_top = [n.lineno for n in ast.walk(tree) if _imports_tui(n) and id(n) not in inside]
        assert at_top == [], f"teamtui/cli/{path.name} imports the dashboard outside a function (lines {at_top})"
        importers.update(f"{path.name}:{f.name}" for f in functions if any(_imports_tui(n) for n in ast.walk(f)))
    assert importers == DASHBOARD_OPENERS


def test_importing_the_run_command_loads_no_dashboard() -> None:
    code = (
        "import sys\n"
        "import teamtui.cli.run_cmds\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith(('teamtui.tui', 'textual', 'rich', 'teamtui.cli.app_cmds')))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == ""


def test_run_headless_runs_its_team_without_loading_the_dashboard(tmp_path: Path) -> None:
    team = tmp_path / "team.toml"
    team.write_text(
        '[team]\nname = "headless"\npoll_interval = 0.05\nshutdown_deadline = 3\nshutdown_grace = 1\n'
        f'[[teammates]]\nname = "ada"\ncommand = \'WORK=0.05 exec "$TEAMTUI_PYTHON" {WORKER}\'\n'
        '[[tasks]]\nsubject = "one"\n[[tasks]]\nsubject = "two"\n'
    )
    out = tmp_path / "imports.json"
    env = {**os.environ, "IMPORTS_OUT": str(out), "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, "run", str(team), "--headless"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["code"] == 0, proc.stdout + proc.stderr
    assert "all 2 tasks completed" in proc.stdout
    assert "teamtui.runtime.lead" in result["modules"], "the lead ran in this process"
    assert _loaded(result["modules"], UI) == []
    # Outside tmux (the tests run without $TMUX) auto is in-process: no panes, no libtmux.
    assert _loaded(result["modules"], ("libtmux", "teamtui.tmux.panes")) == []


def test_the_hook_for_a_cheap_event_loads_no_parser_module_and_nothing_heavy(tmp_path: Path) -> None:
    """`teamtui hook` runs inside Claude Code's loop: main() hands it to protocol/hooks/hook.py
    before any command module or parser, and a Notification needs nothing more than the spool."""
    out = tmp_path / "imports.json"
    event = {
        "session_id": "b9e3bc5a-7d09-4680-be7d-02bd057fedfe",
        "cwd": "/src/app",
        "hook_event_name": "Notification",
        "message": "alice needs permission for Bash",
        "notification_type": "worker_permission_prompt",
    }
    env = {**os.environ, "IMPORTS_OUT": str(out), "XDG_STATE_HOME": str(tmp_path / "state")}
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, "hook"], input=json.dumps(event), env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    added = _added(json.loads(out.read_text()))
    heavy = HEAVY + WATCHING + LIGHT + ("teamtui.protocol.models", "teamtui.protocol.settings", "teamtui.session")
    assert _loaded(added, heavy) == []
    assert not [m for m in added if m.startswith("teamtui.cli.") and m != "teamtui.cli.common"]
    assert (tmp_path / "state" / "teamtui" / "hooks" / "events.jsonl").read_text().count("\n") == 1


def test_send_on_a_claude_code_team_reads_its_sender_without_the_settings_model(
    claude_root: Path, tmp_path: Path
) -> None:
    # Outside the team, a message carries config.toml's `sender`: read alone, so pydantic stays off the path.
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "teamtui" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('sender = "ops"\nnotify_command = ["x"]\n')
    env = {**os.environ, "TEAMTUI_ROOT": str(claude_root), "TEAMTUI_TEAM": "work-team"}
    out = tmp_path / "imports.json"
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, "send", "writer", "hello"],
        env={**env, "IMPORTS_OUT": str(out)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["code"] == 0, proc.stderr
    assert _loaded(result["modules"], ("pydantic", "pydantic_core", "teamtui.protocol.settings")) == []
    inbox = json.loads((claude_root / "teams" / "work-team" / "inboxes" / "writer.json").read_text())
    assert (inbox[-1]["from"], inbox[-1]["text"]) == ("ops", "hello")
    # A sender that is not allowed is said on stderr; teamtui's own name is used.
    config.write_text('sender = "team-lead"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "teamtui", "send", "writer", "again"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"teamtui: warning: {config}: sender must be a name of your own" in proc.stderr
    inbox = json.loads((claude_root / "teams" / "work-team" / "inboxes" / "writer.json").read_text())
    assert (inbox[-1]["from"], inbox[-1]["text"]) == ("teamtui", "again")


@pytest.mark.parametrize("json_too", [False, True], ids=["status", "status --json"])
def test_status_of_a_claude_code_team_prices_its_transcripts_only_for_json(
    claude_root: Path, tmp_path: Path, json_too: bool
) -> None:
    # Its transcripts are read (tokens); genai-prices (and the pydantic it brings) only where a cost
    # is shown: --json's members have theirs, the plain status has none.
    out = tmp_path / "imports.json"
    env = {**os.environ, "TEAMTUI_ROOT": str(claude_root), "TEAMTUI_TEAM": "work-team", "IMPORTS_OUT": str(out)}
    argv = ["status", "--json"] if json_too else ["status"]
    proc = subprocess.run([sys.executable, "-c", DRIVER, *argv], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["code"] == 0, proc.stderr
    assert "teamtui.protocol.claude.transcripts.feed" in result["modules"]
    assert ("genai_prices" in result["modules"]) is json_too
    if not json_too:
        assert _loaded(result["modules"], ("genai_prices", "pydantic", "pydantic_core", "httpx2")) == []
