"""`teamtui init [DIR]`: profile a repository and write a commented team.toml to start from."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from teamtui.cli.common import CliError, Context, inert, out

TYPE_CHECKING = False  # not typing's: `teamtui --help` imports this module, and typing costs ~2 ms
if TYPE_CHECKING:
    from teamtui.runtime.profile import Profile

TEAM_FILE = "team.toml"


def register(sub: argparse._SubParsersAction, parents: list[argparse.ArgumentParser], only: str | None = None) -> None:
    p = sub.add_parser(
        "init",
        help="profile a repository and write a team.toml to start from",
        description="Profile DIR (languages, frameworks, docs/tests/CI, TODO markers in tracked files), "
        f"print the profile and write a commented {TEAM_FILE} there; an existing one is never overwritten.",
    )
    p.add_argument("dir", nargs="?", type=Path, default=Path("."), help="the repository (default: the current folder)")
    p.add_argument("--json", action="store_true", help="print the profile as JSON")
    p.set_defaults(handler=cmd_init)


def cmd_init(ctx: Context) -> int:
    from teamtui.protocol.fsio import folder_problem
    from teamtui.runtime.profile import profile_repository

    root: Path = ctx.args.dir
    if problem := folder_problem(root):
        raise CliError(inert(problem))
    profile = profile_repository(root)
    if ctx.args.json:
        out(json.dumps(profile.as_dict(), indent=2, ensure_ascii=False))
    else:
        for line in describe(profile):
            out(line)
    target = profile.root / TEAM_FILE
    text = starter_team_file(profile)
    try:
        # "x": never replace a team file (nor follow a symlink planted where it would go).
        with open(target, "x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        raise CliError(f"{inert(target)} exists: not overwritten (move it away to write a fresh one)") from None
    except OSError as exc:
        raise CliError(f"cannot write {inert(target)}: {exc.strerror or exc}") from None
    if not ctx.args.json:
        out()
        out(f"wrote {inert(target)}: edit it, then `teamtui run {TEAM_FILE}`")
    return 0


def describe(p: Profile) -> list[str]:
    def row(label: str, value: str) -> str:
        return f"  {label:<11} {value}"

    lines = [f"Profile of {inert(p.root)}"]
    lines.append(row("languages", ", ".join(p.languages) or "none found (no known manifest file)"))
    lines.append(row("frameworks", ", ".join(p.frameworks) or "none found"))
    lines.append(row("docs", "docs/" if p.docs else "missing"))
    lines.append(row("tests", ", ".join(f"{d}/" for d in p.test_dirs) or "missing"))
    lines.append(row("CI", ", ".join(p.ci) or "none"))
    if p.git:
        todo = p.todo
        counts = ", ".join(f"{k} {v}" for k, v in p.markers.items() if v)
        if todo is None:
            lines.append(row("markers", f"none in {p.files_scanned} tracked source files"))
        else:
            lines.append(
                row("markers", f"{todo.count} in {p.files_scanned} tracked source files: {counts} ({todo.severity})")
            )
            for loc in todo.locations:
                lines.append(row("", inert(loc)))
    for s in p.signals:
        if s.kind != "todo":
            lines.append(row("signal", f"{s.kind} ({s.severity})"))
    for note in p.notes:
        lines.append(row("note", inert(note)))
    return lines


# ------------------------------------------------------------------ the starter team file
PER_TASK = (
    'claude -p "Task #$TEAMTUI_TASK_ID: $TEAMTUI_TASK_SUBJECT. $TEAMTUI_TASK_DESCRIPTION" --permission-mode acceptEdits'
)
TEST_HINTS = {
    "Python": "pytest, under tests/",
    "TypeScript": "vitest or jest, under tests/",
    "Rust": "cargo test",
    "Go": "go test ./...",
    "Ruby": "rspec or minitest, under test/",
    "Java": "JUnit, under src/test/",
}


def toml_str(s: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, except DEL; lone surrogates cannot be written."""
    s = s.encode("utf-8", "replace").decode("utf-8")
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def team_name_for(root: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", root.name).lstrip("._-")[:64].rstrip(".-")
    return name or "team"


def starter_team_file(p: Profile) -> str:
    tasks: list[tuple[str, str, list[int], list[str]]] = []  # subject, description, blocked_by, files
    todo = p.todo
    if todo is not None:
        where = ", ".join(todo.locations)
        files = sorted({loc.rsplit(":", 1)[0] for loc in todo.locations})
        tasks.append(
            (
                f"Resolve the {todo.count} TODO/FIXME/HACK/XXX markers",
                f"Fix or file each marker, starting with: {where}",
                [],
                files,
            )
        )
    tests_task = 0
    if not p.test_dirs:
        hint = (
            "; ".join(f"{lang}: {TEST_HINTS[lang]}" for lang in p.languages if lang in TEST_HINTS)
            or "pick the usual test runner"
        )
        tasks.append(("Set up a test suite", f"Add tests for the main behaviour ({hint}).", [], []))
        tests_task = len(tasks)
    if not p.docs:
        tasks.append(("Write docs/", "An overview of the project, how to build it, run it and test it.", [], []))
    if not p.ci:
        tasks.append(
            (
                "Add CI that runs the tests",
                "A workflow that installs, builds and runs the tests on each push.",
                [tests_task] if tests_task else [],
                [],
            )
        )
    if not tasks:
        tasks.append(("Describe the first change here", "What to do, where, and how to know it is done.", [], []))
    tasks.append(
        (
            "Review the changes",
            "Read every change the team made, run the tests, list what must be fixed.",
            list(range(1, len(tasks) + 1)),
            [],
        )
    )

    stack = ", ".join(p.languages + p.frameworks) or "no known manifest"
    todo_line = f"{todo.count} TODO-style markers ({todo.severity})" if todo else "no TODO-style markers"
    head = [
        f"# {TEAM_FILE}, written by `teamtui init` from a profile of this repository:",
        f"# {stack}; docs/ {'present' if p.docs else 'missing'}; tests {'present' if p.test_dirs else 'missing'};"
        f" CI {'present' if p.ci else 'missing'}; {todo_line}.",
        "#",
        f"# Run it with `teamtui run {TEAM_FILE}` (--headless: progress lines only). Edit freely:",
        "# the tasks below come from the profile, the teammates are a starting point.",
        "",
        "[team]",
        f"name = {toml_str(team_name_for(p.root))}",
        "max_teammates = 3       # at most this many run at once",
        "shutdown_deadline = 30  # seconds to answer a shutdown request, then SIGTERM",
        "shutdown_grace = 5      # ... then SIGKILL",
    ]
    if p.git:
        head += [
            "# worktree = true       # each teammate in its own git worktree on teamtui/<team>/<name>:",
            "#                       # parallel edits never collide; merge the branches afterwards",
        ]
    body = [
        "",
        '# Each teammate runs `claude -p` once per task (protocol = "per-task"): exit 0 completes the',
        "# task with the last lines of output as its result. The task reaches the command as",
        "# $TEAMTUI_TASK_ID, $TEAMTUI_TASK_SUBJECT and $TEAMTUI_TASK_DESCRIPTION, or as {id}, {subject}",
        "# and {description} written bare (teamtui quotes them). Any one-shot agent works the same:",
        "# `codex exec {description}`, `aider --yes --message {description}`, a script.",
    ]
    mates = [
        ("builder", "implementer", "blue"),
        ("tester", "test-writer", "green"),
        ("reviewer", "code-reviewer", "yellow"),
    ]
    for name, agent_type, color in mates:
        body += [
            "",
            "[[teammates]]",
            f"name = {toml_str(name)}",
            f"agent_type = {toml_str(agent_type)}",
            f"color = {toml_str(color)}",
            'protocol = "per-task"',
            f"command = {toml_str(PER_TASK)}",
        ]
    body += [
        "",
        "# A teammate speaking Autohand's JSON-RPC over stdio (team.ready, team.assignTask, ...):",
        "# [[teammates]]",
        '# name = "autohand"',
        '# protocol = "jsonrpc"',
        '# command = "autohand --mode teammate --team <team> --name autohand"',
        "",
        "# Tasks: ids are 1, 2, ... in file order; blocked_by names the ids a task waits for.",
    ]
    for subject, description, blocked_by, files in tasks:
        body += ["", "[[tasks]]", f"subject = {toml_str(subject)}", f"description = {toml_str(description)}"]
        if blocked_by:
            body.append(f"blocked_by = {json.dumps(blocked_by)}")
        if files:
            body.append(f"files = [{', '.join(toml_str(f) for f in files)}]")
    return "\n".join(head + body) + "\n"


__all__ = ["cmd_init", "describe", "register", "starter_team_file"]
