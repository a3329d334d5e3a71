"""Every hostile-file case through TeamState.load_all/apply and every CLI read command, each run
as a real forked process: nothing crashes or hangs, the bad item is reported with a reason, and
every good member, task and message next to it is still shown."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import tracemalloc
from pathlib import Path

import pytest

from teamtui.protocol.layout import open_team
from teamtui.protocol.state import TeamState
from tests.conftest import EXAMPLES
from tests.corpus.cases import CASES, CLAUDE_TEAM, NATIVE_TEAM, UNREADABLE, Case, plant
from tests.corpus.harness import cli, forked

# Configs that parse but hold something wrong: the members are shown and the problem reported.
READABLE_CONFIGS = {"config duplicate member names", "config unsafe member name"}
TERMINAL_UNSAFE = [b"\x1b", b"\x07", b"\x9b", "\u202e".encode(), "\u2066".encode()]


def _team(layout: str) -> str:
    return NATIVE_TEAM if layout == "native" else CLAUDE_TEAM


def _snapshot_state(root: Path, layout: str, apply_paths: list[Path]) -> dict:
    """What a monitor shows: errors, members, tasks, messages per inbox (after load_all, then apply)."""
    store = open_team(root, _team(layout), layout)  # type: ignore[arg-type]
    state = TeamState(store)
    state.load_all()
    for p in apply_paths:
        state.apply(p)
    state.member_views()
    state.board.views()
    inboxes = {}
    for owner in store.inbox_owners():
        inboxes[owner] = [m.content[:200] for m in state.inbox_messages(owner)]
    return {
        "errors": [(str(e.path), e.reason, e.line) for e in state.all_errors()],
        "members": sorted(v.name for v in state.member_views()),
        "tasks": {t.id: t.subject for t in state.tasks.values()},
        "inboxes": inboxes,
    }


def _walk(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            out.append(Path(dirpath) / n)
    return sorted(out)


@pytest.fixture(scope="module")
def baselines() -> dict[str, dict]:
    tmp = Path(tempfile.mkdtemp())
    try:
        out = {}
        for layout in ("native", "claude"):
            root = tmp / layout
            shutil.copytree(EXAMPLES / layout, root)
            out[layout] = _snapshot_state(root, layout, [])
            assert out[layout]["errors"] == []
        return out
    finally:
        shutil.rmtree(tmp)


@pytest.fixture
def world(tmp_path: Path):
    """A root other users can traverse (for the no-read-permission cases under root), and a dir outside it."""
    base = Path(tempfile.mkdtemp(prefix="teamtui-corpus-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def _inbox_owner(case: Case) -> str:
    if case.kind == "inbox":
        name = Path(case.target).name
        return name[: -len("_inbox.jsonl")] if case.layout == "native" else name[: -len(".json")]
    return "hunter" if case.layout == "native" else "writer"


def _check_cli(res, argv: list[str]) -> str:
    assert not res.hung, f"{argv} hung"
    err = res.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, f"{argv} crashed:\n{err}"
    assert res.code in (0, 1), (argv, res.code, err)
    if res.code == 1:
        assert err.count("\n") == 1 and err.startswith("teamtui: "), err
    else:
        assert err == "", err
    for bad in TERMINAL_UNSAFE:
        assert bad not in res.stdout, (argv, bad)
    return res.stdout.decode("utf-8")  # strict: the output is valid UTF-8


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_file(case: Case, world: Path, baselines: dict[str, dict]) -> None:
    # Root reads any file: for the unreadable case the readers run without that power.
    unprivileged = case.content == UNREADABLE
    root = world / case.layout
    shutil.copytree(EXAMPLES / case.layout, root)
    outside = world / "outside"
    outside.mkdir()
    path = plant(case, root, outside)
    r = str(root)
    base = baselines[case.layout]
    try:
        # ---- the library: load_all, then apply() on every path under the root and the bad one
        lib = forked(lambda: _snapshot_state(root, case.layout, [*_walk(root), path]), unprivileged=unprivileged)
        assert not lib.hung, "the readers hung"
        assert lib.code == 0, lib.stderr.decode("utf-8", "replace")
        seen = lib.value
        mine = [e for e in seen["errors"] if e[0] == str(path)]
        if case.expect_error:
            assert mine and all(reason for _, reason, _ in mine), f"{case.id}: not reported: {seen['errors']}"
        else:
            assert not mine, mine
        # Everything else is still shown.
        config_readable = case.kind != "config" or not case.expect_error or case.name in READABLE_CONFIGS
        if config_readable:
            assert set(base["members"]) <= set(seen["members"]), seen["members"]
        for tid, subject in base["tasks"].items():
            assert seen["tasks"].get(tid) == subject, (tid, seen["tasks"])
        for owner, msgs in base["inboxes"].items():
            if case.kind == "inbox" and owner == _inbox_owner(case) and not case.append:
                continue  # that inbox is the spoiled file
            assert seen["inboxes"].get(owner, [])[: len(msgs)] == msgs, owner
        if case.append and case.kind == "inbox":
            assert seen["inboxes"][_inbox_owner(case)][-1] == "still here"

        # ---- the CLI, each command a real process
        owner = _inbox_owner(case)
        texts = {}
        for argv in (["status"], ["tasks"], ["inbox", owner], ["status", "--json"], ["tasks", "--json"]):
            full = [*argv, "--root", r, "--team", _team(case.layout), "--layout", case.layout]
            texts[" ".join(argv)] = _check_cli(cli(full, unprivileged=unprivileged), full)
        status = json.loads(texts["status --json"])
        if case.expect_error:
            assert any(e["path"] == str(path) and e["reason"] for e in status["errors"]), status["errors"]
            assert "Unreadable" in texts["status"] and path.name in texts["status"]
            if case.kind == "task":
                assert path.name in texts["tasks"]
            if case.kind == "inbox":
                assert "Unreadable" in texts[f"inbox {owner}"]
        tasks = json.loads(texts["tasks --json"])
        assert {t["id"] for t in tasks["tasks"]} >= set(base["tasks"])
        for tid in base["tasks"]:
            assert f"#{tid} " in texts["tasks"]
        if case.append and case.kind == "inbox":
            assert "still here" in texts[f"inbox {owner}"]
    finally:
        if case.big:
            shutil.rmtree(root, ignore_errors=True)


BIG = [c for c in CASES if c.big]


@pytest.mark.parametrize("case", BIG, ids=[c.id for c in BIG])
def test_a_50mb_line_is_read_in_bounded_memory(case: Case, tmp_path: Path) -> None:
    root = tmp_path / case.layout
    shutil.copytree(EXAMPLES / case.layout, root)
    path = plant(case, root, tmp_path)
    assert path.stat().st_size >= 50 * 1024 * 1024
    store = open_team(root, _team(case.layout), case.layout)  # type: ignore[arg-type]
    tracemalloc.start()
    try:
        state = TeamState(store)
        state.load_all()
        state.apply(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        path.unlink()
    assert any(e.path == path for e in state.all_errors())
    # Holding the file would take 50 MB; the readers cap a line at 1 MB and a JSON file at 16 MB.
    assert peak < 24 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB"


def test_the_corpus_is_large_and_covers_every_format() -> None:
    assert len(CASES) >= 60
    kinds = {(c.layout, c.kind) for c in CASES}
    assert kinds >= {
        ("native", "config"),
        ("native", "task"),
        ("native", "sidecar"),
        ("native", "inbox"),
        ("native", "log"),
        ("claude", "config"),
        ("claude", "inbox"),
        ("claude", "task"),
        ("claude", "highwatermark"),
    }


CHURN = r"""
import os, sys, json, time
root, stop = sys.argv[1], sys.argv[2]
task = os.path.join(root, ".tasks", "task_3.json")
cfg = os.path.join(root, ".teams", "refactor-auth", "config.json")
inbox = os.path.join(root, ".teams", "refactor-auth", "hunter_inbox.jsonl")
good_task = open(task, "rb").read()
good_cfg = open(cfg, "rb").read()
line = b'{"type": "message", "sender": "lead", "content": "churn", "timestamp": 1.0}\n'
n = 0
while not os.path.exists(stop):
    n += 1
    os.unlink(task)                                    # deleted ...
    with open(task, "wb") as fh:                        # ... recreated, written in two halves
        fh.write(good_task[: n % len(good_task)]); fh.flush(); fh.write(good_task[n % len(good_task):])
    with open(cfg, "wb") as fh:                         # a peer's unlocked, non-atomic rewrite
        fh.write(good_cfg[: n % len(good_cfg)]); fh.flush(); fh.write(good_cfg[n % len(good_cfg):])
    tmp = cfg + ".x"; open(tmp, "wb").write(good_cfg); os.replace(tmp, cfg)
    with open(inbox, "ab") as fh:                       # an append, then a drain (truncate) or a delete
        fh.write(line[:20]); fh.flush(); fh.write(line[20:])
    if n % 3 == 0:
        open(inbox, "wb").close()
    elif n % 3 == 1:
        os.unlink(inbox)
print(n)
"""


def test_files_deleted_and_recreated_while_being_read(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = tmp_path / "native"
    shutil.copytree(EXAMPLES / "native", root)
    stop = tmp_path / "stop"
    churner = subprocess.Popen([sys.executable, "-c", CHURN, str(root), str(stop)], stdout=subprocess.PIPE)
    store = open_team(root, NATIVE_TEAM, "native")
    live = TeamState(store)
    live.load_all()
    errors_seen = 0
    try:
        for i in range(300):
            fresh = TeamState(store)
            fresh.load_all()
            for rel in (
                ".tasks/task_3.json",
                f".teams/{NATIVE_TEAM}/config.json",
                f".teams/{NATIVE_TEAM}/hunter_inbox.jsonl",
            ):
                live.apply(root / rel)
            for state in (fresh, live):
                assert all(e.reason for e in state.all_errors())
                assert {"1", "2", "4", "5"} <= set(state.tasks)  # the untouched tasks never flicker
                errors_seen += len(state.all_errors())
            if live.config is not None:
                assert [m.name for m in live.config.members] == ["hunter", "scout", "tracer"]  # last good kept
    finally:
        stop.touch()
        rounds = int(churner.communicate(timeout=60)[0])
    assert rounds > 0
    print(f"churn: {rounds} delete/recreate rounds by the writer, 300 reads, {errors_seen} transient errors reported")
