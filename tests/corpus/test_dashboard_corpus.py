"""Every hostile-file case through the real dashboard (TeamTUI under Pilot): at first load, and
planted while the dashboard watches. It must not crash, it must list the spoiled file as unreadable
with its reason, and it must keep showing every other member, task, message and log line.

Each run is a forked process (tests/corpus/harness.py): a crash or a hang is that run's failure, and
the no-read-permission cases run without root's power to read any file (harness.drop_read_override)."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.corpus import dashboard
from tests.corpus.cases import CASES, CLAUDE_TEAM, NATIVE_TEAM, UNREADABLE, Case, plant
from tests.corpus.harness import forked

READABLE_CONFIGS = {"config duplicate member names", "config unsafe member name"}
# The message table shows the newest 200: a flood of 100,000 (or 20,000) messages in one inbox pushes
# the other inboxes' older messages out of it. Their members, tasks and logs must still be shown.
FLOODS = {"inbox 100000 lines", "inbox 20000 entries"}


def _team(layout: str) -> str:
    return NATIVE_TEAM if layout == "native" else CLAUDE_TEAM


def _world() -> Path:
    base = Path(tempfile.mkdtemp(prefix="teamtui-dash-"))
    base.chmod(0o755)
    return base


def _setup(case: Case | None, layout: str) -> tuple[Path, Path, Path, bool]:
    """The team copied into a fresh world; whether the dashboard must run without root's power
    to read any file (the unreadable case)."""
    world = _world()
    root = world / layout
    shutil.copytree(EXAMPLES / layout, root)
    outside = world / "outside"
    outside.mkdir()
    return world, root, outside, case is not None and case.content == UNREADABLE


def _run(fn, unprivileged: bool):
    res = forked(lambda: asyncio.run(fn()), unprivileged=unprivileged)
    assert not res.hung, "the dashboard hung"
    assert res.code == 0, "the dashboard crashed:\n" + res.stderr.decode("utf-8", "replace")[-6000:]
    return res.value


@pytest.fixture(scope="module")
def baselines() -> dict[str, dict]:
    """What the dashboard shows for each clean example team."""
    out = {}
    for layout in ("native", "claude"):
        world, root, _, _ = _setup(None, layout)
        try:
            # In this process, not forked: the forked runs then start with everything imported.
            seen = asyncio.run(dashboard.first_load(root, _team(layout), layout))
        finally:
            shutil.rmtree(world, ignore_errors=True)
        assert seen["errors"] == [] and seen["problems"] == [] and not seen["problems_drawn"]
        assert seen["members"] and seen["tasks"] and seen["messages"] and any(seen["logs"].values())
        out[layout] = seen
    return out


def _words(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def _spoiled_log_member(case: Case) -> str | None:
    return Path(case.target).stem if case.kind == "log" else None


def check(case: Case, seen: dict, path: str, base: dict, *, watching: bool) -> None:
    rel = case.target
    assert seen["team"] == _team(case.layout)
    mine = [e for e in seen["errors"] if e[0] == path]
    listed = [p for p in seen["problems"] if f" {rel}:" in p]
    if case.expect_error:
        assert mine, f"{case.id}: the state has no error for {rel}: {seen['errors']}"
        assert seen["problems_drawn"], "the problems list is not drawn"
        for _, line, reason in mine:
            where = f"{rel}:{line}: " if line is not None else f"{rel}: "
            assert reason and any(where + dashboard.shown_reason(reason) in p for p in seen["problems"]), (
                f"{case.id}: {where}{reason!r} not listed: {seen['problems']}"
            )
        n = len(seen["errors"])
        assert f"{n} unreadable file" in seen["header"], seen["header"]
    else:
        assert not mine and not listed, (mine, listed)
    # Everything the case did not spoil is still on screen. A dashboard that was already watching keeps
    # the last good config; one that starts on a broken config has no members, so no per-member logs.
    members_shown = watching or case.kind != "config" or not case.expect_error or case.name in READABLE_CONFIGS
    if members_shown:
        assert set(base["members"]) <= set(seen["members"]), seen["members"]
    for tid, subject in base["tasks"].items():
        assert seen["tasks"].get(tid) == subject, (tid, seen["tasks"])
    if case.name not in FLOODS:
        # A case that replaces an inbox may take that inbox's messages with it; every other one stays.
        gone = f"→ {Path(case.target).name.split('_inbox')[0].removesuffix('.json')} |"
        replaced = case.kind == "inbox" and not case.append
        missing = [m for m in base["messages"] if m not in seen["messages"] and not (replaced and gone in m)]
        assert not missing, f"{case.id}: messages no longer shown: {missing}"
    if case.append and case.kind == "inbox" and case.name not in FLOODS:
        assert any(m.endswith("| still here") for m in seen["messages"]), "the good line after the bad one"
    for member, lines in base["logs"].items():
        if members_shown and member != _spoiled_log_member(case) and lines != ["no log yet"]:
            # Compared without line breaks: a panel's width (so its wrapping) depends on how many members there are.
            assert _words(lines) in _words(seen["logs"].get(member, [])), (member, seen["logs"].get(member))


# Every case at first load; only the ones of 50 MB or more are left to the stress run while watching,
# where the same cases run planted under a live dashboard.
WATCHED = [c for c in CASES if not c.big]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_dashboard_first_load(case: Case, baselines: dict[str, dict]) -> None:
    world, root, outside, unprivileged = _setup(case, case.layout)
    try:
        path = plant(case, root, outside)
        seen = _run(lambda: dashboard.first_load(root, _team(case.layout), case.layout), unprivileged)
        check(case, seen, str(path), baselines[case.layout], watching=False)
    finally:
        shutil.rmtree(world, ignore_errors=True)


def _watch(case: Case, baselines: dict[str, dict]) -> None:
    world, root, outside, unprivileged = _setup(case, case.layout)
    try:

        async def run():
            return await dashboard.while_watching(
                root, _team(case.layout), case.layout, lambda: plant(case, root, outside), case.expect_error
            )

        seen, path = _run(run, unprivileged)
        check(case, seen, path, baselines[case.layout], watching=True)
    finally:
        shutil.rmtree(world, ignore_errors=True)


@pytest.mark.parametrize("case", WATCHED, ids=[c.id for c in WATCHED])
def test_dashboard_while_watching(case: Case, baselines: dict[str, dict]) -> None:
    _watch(case, baselines)


BIG = [c for c in CASES if c.big]


@pytest.mark.stress
@pytest.mark.parametrize("case", BIG, ids=[c.id for c in BIG])
def test_dashboard_while_watching_big(case: Case, baselines: dict[str, dict]) -> None:
    _watch(case, baselines)
