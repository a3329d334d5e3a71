"""Nothing lands outside the root: symlinked team, task, log, inbox, sidecar, lock and shutdown
paths pointing out of it, and hostile names, through every CLI write command (real processes)
and every library writer. A sentinel directory outside must be unchanged byte for byte, mtime and
mode included."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from teamtui.protocol import ClaudeTeam, NativeTeam
from tests.conftest import EXAMPLES
from tests.corpus.harness import cli, forked

TEAM = "refactor-auth"
PASSWD = b"root:x:0:0:root:/root:/bin/bash\n"


def sentinel_snapshot(d: Path) -> dict[str, tuple]:
    snap = {}
    for dirpath, dirnames, filenames in os.walk(d):
        for n in [".", *dirnames, *filenames]:
            p = Path(dirpath) / n
            st = os.lstat(p)
            data = p.read_bytes() if p.is_file() and not p.is_symlink() else None
            snap[str(p.relative_to(d))] = (st.st_mode, st.st_size, st.st_mtime_ns, data)
    return snap


def _move_out(root: Path, rel: str, outside: Path, name: str) -> None:
    src = root / rel
    dst = outside / name
    shutil.move(str(src), str(dst))
    src.symlink_to(dst, target_is_directory=dst.is_dir())


def _link_file(root: Path, rel: str, target: Path, content: bytes) -> None:
    target.write_bytes(content)
    p = root / rel
    if p.exists() or p.is_symlink():
        p.unlink()
    p.symlink_to(target)


def _aged_lock_link(root: Path, rel: str, target: Path) -> None:
    target.write_bytes(b"precious lock target\n")
    p = root / rel
    p.symlink_to(target)
    old = time.time() - 60
    os.utime(p, (old, old), follow_symlinks=False)  # a stale lock: a writer will break it


T = ".teams/" + TEAM
NATIVE_SETUPS: dict[str, Callable[[Path, Path], None]] = {
    "hostile names, no symlink": lambda r, o: None,
    "team dir symlinked out": lambda r, o: _move_out(r, T, o, "team"),
    ".teams symlinked out": lambda r, o: _move_out(r, ".teams", o, "teams"),
    ".tasks symlinked out": lambda r, o: _move_out(r, ".tasks", o, "tasks"),
    "sidecar dir symlinked out": lambda r, o: _move_out(r, ".tasks/.teamtui", o, "side"),
    "logs dir symlinked out": lambda r, o: _move_out(r, T + "/logs", o, "logs"),
    "inbox symlinked out": lambda r, o: _move_out(r, T + "/hunter_inbox.jsonl", o, "inbox.jsonl"),
    "config symlinked out": lambda r, o: _move_out(r, T + "/config.json", o, "config.json"),
    "task file symlinked to a passwd file": lambda r, o: _link_file(r, ".tasks/task_3.json", o / "passwd", PASSWD),
    "task file symlinked to a valid task out": lambda r, o: _move_out(r, ".tasks/task_3.json", o, "task_3.json"),
    "sidecar file symlinked out": lambda r, o: _move_out(r, ".tasks/.teamtui/2.json", o, "2.json"),
    "rejected dir symlinked out": lambda r, o: (
        (o / "rej").mkdir(),
        (r / T / ".rejected").symlink_to(o / "rej"),
        open(r / T / "hunter_inbox.jsonl", "ab").write(b"not json\n"),
    ),
    "shutdown dir symlinked out": lambda r, o: ((o / "sd").mkdir(), (r / T / "shutdown").symlink_to(o / "sd")),
    "stale lock files symlinked out": lambda r, o: (
        _aged_lock_link(r, T + "/hunter_inbox.lock", o / "l1"),
        _aged_lock_link(r, ".tasks/.lock", o / "l2"),
        _aged_lock_link(r, T + "/config.lock", o / "l3"),
    ),
}

HOSTILE = ["../x", "../../outside/x", "/tmp/abs", "..", ".", ".teams", "a/../../b", "x\\..\\y", "~root"]


def native_cli_writes(r: str) -> list[list[str]]:
    cmds = [
        ["team", "add", "newbie"],
        ["send", "hunter", "hi"],
        ["send", "scout", "hi", "--from", "hunter"],
        ["broadcast", "hi all"],
        ["inbox", "hunter", "--drain"],
        ["log", "hunter", "a line"],
        ["task", "create", "x", "--files", "../../outside/f", "/etc/passwd"],
        ["task", "claim", "--as", "scout"],
        ["task", "claim", "3", "--as", "scout"],
        ["task", "complete", "3"],
        ["task", "release", "3"],
        ["task", "create", "y", "--blocked-by", "3"],
        ["team", "create", "other"],
    ]
    return [[*c, "--root", r] for c in cmds]


def hostile_name_writes(r: str) -> list[list[str]]:
    cmds = []
    for h in HOSTILE:
        cmds += [
            ["team", "add", h],
            ["team", "create", h],
            ["send", h, "hi"],
            ["send", "hunter", "hi", "--from", h],
            ["inbox", h, "--drain"],
            ["log", h, "x"],
            ["task", "claim", "--as", h],
            ["task", "complete", h],
            ["task", "release", h],
            ["task", "claim", h, "--as", "scout"],
            ["task", "create", "z", "--blocked-by", h],
            ["status", "--team", h],
            ["send", "hunter", "hi", "--team", h],
        ]
    return [[*c, "--root", r] for c in cmds]


def native_library_writes(store: NativeTeam) -> list[Callable[[], object]]:
    return [
        lambda: store.update_member("hunter", status="idle"),
        lambda: store.add_member("lib-newbie"),
        lambda: store.send("hunter", "x", "lead"),
        lambda: store.drain("hunter"),
        lambda: store.log("hunter", "x"),
        lambda: store.send_shutdown_request("hunter", "lead", "done", 30),
        lambda: store.send_shutdown_response("hunter", "r1", approve=True),
        lambda: store.write_shutdown_result("r1", {"ok": True}),
        lambda: store.release_owner("hunter"),
        lambda: store.update_task("2", subject="changed", files=["a"]),
        lambda: store.create_task("lib task"),
        lambda: store.claim_task(None, "scout"),
        lambda: store.complete_task("2", result="r"),
        lambda: store.release_task("1"),
        lambda: store.broadcast("b", "lead"),
    ]


def _run_library(calls: list[Callable[[], object]]) -> list[str]:
    outcomes = []
    for call in calls:
        try:
            call()
            outcomes.append("ok")
        except Exception as exc:  # a refusal is fine; we only look at what landed outside
            outcomes.append(type(exc).__name__)
    return outcomes


def _check_cli(res, argv) -> None:
    assert not res.hung, argv
    err = res.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, (argv, err)
    assert res.code in (0, 1, 2, 3), (argv, res.code, err)


@pytest.mark.parametrize("setup", sorted(NATIVE_SETUPS))
def test_native_writes_never_land_outside(tmp_path: Path, setup: str) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    shutil.copytree(EXAMPLES / "native", root)
    outside.mkdir()
    (outside / "keep.txt").write_bytes(b"sentinel\n")
    NATIVE_SETUPS[setup](root, outside)
    before = sentinel_snapshot(outside)
    time.sleep(0.01)  # so that any write would show in an mtime
    argv_list = native_cli_writes(str(root))
    if setup.startswith("hostile names"):
        argv_list += hostile_name_writes(str(root))
    for argv in argv_list:
        _check_cli(cli(argv), argv)
    lib = forked(lambda: _run_library(native_library_writes(NativeTeam(root, TEAM))))
    assert lib.code == 0, lib.stderr
    assert sentinel_snapshot(outside) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "root"]
    assert not (Path("/tmp/abs")).exists()


CLAUDE_SETUPS: dict[str, Callable[[Path, Path], None]] = {
    "team dir symlinked out": lambda r, o: _move_out(r, "teams/work-team", o, "team"),
    "inboxes dir symlinked out": lambda r, o: _move_out(r, "teams/work-team/inboxes", o, "inboxes"),
    "inbox symlinked out": lambda r, o: _move_out(r, "teams/work-team/inboxes/writer.json", o, "writer.json"),
    "new inbox symlinked out (dangling)": lambda r, o: (r / "teams/work-team/inboxes/newbie.json").symlink_to(
        o / "newbie.json"
    ),
    "stale lock dir symlinked out": lambda r, o: (
        (o / "lockdir").mkdir(),
        (r / "teams/work-team/inboxes/writer.json.lock").symlink_to(o / "lockdir"),
        os.utime(r / "teams/work-team/inboxes/writer.json.lock", (1, 1), follow_symlinks=False),
    ),
}


@pytest.mark.parametrize("setup", sorted(CLAUDE_SETUPS))
def test_claude_writes_never_land_outside(tmp_path: Path, setup: str) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    shutil.copytree(EXAMPLES / "claude", root)
    outside.mkdir()
    (outside / "keep.txt").write_bytes(b"sentinel\n")
    CLAUDE_SETUPS[setup](root, outside)
    before = sentinel_snapshot(outside)
    time.sleep(0.01)
    r = str(root)
    cmds = [
        ["send", "writer", "hi"],
        ["send", "newbie", "hi"],
        ["broadcast", "hi"],
        ["send", "writer", "x", "--from", "researcher"],
    ]
    for h in HOSTILE:
        cmds += [["send", h, "hi"], ["send", "writer", "hi", "--from", h], ["status", "--team", h]]
    for c in cmds:
        argv = [*c, "--root", r, "--layout", "claude"]
        _check_cli(cli(argv), argv)
    store = ClaudeTeam(root, "work-team")
    lib = forked(
        lambda: _run_library(
            [
                lambda: store.send("writer", "x", "team-lead"),
                lambda: store.send("newbie", "x", "team-lead"),
                lambda: store.send_shutdown_request("writer", "team-lead", "done", 30),
                lambda: store.send_shutdown_response("writer", "r", approve=False),
                lambda: store.broadcast("b", "team-lead"),
            ]
        )
    )
    assert lib.code == 0, lib.stderr
    assert sentinel_snapshot(outside) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "root"]
