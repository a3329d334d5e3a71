"""An unreadable, vanished, replaced or hostile root or team folder never stops the control room
from starting or updating: it is a row or a problem line that says what is wrong, retried when it
changes, and every other team keeps updating. Run as the real user nobody (tests/nobody.py):
root reads every folder whatever its mode."""

from __future__ import annotations

import asyncio
import functools
import json
import shutil
from pathlib import Path

import pytest

from teamtui.protocol.native import NativeTeam
from teamtui.protocol.settings import load_settings
from teamtui.session.fleet import Fleet
from teamtui.session.local import LocalSource
from teamtui.session.source import FleetBatch
from tests.conftest import EXAMPLES
from tests.nobody import as_nobody, give_to_nobody, nobodys_folder

TEAM = "refactor-auth"


def native_root(top: Path, name: str, team: str) -> Path:
    root = top / name
    shutil.copytree(EXAMPLES / "native", root)
    (root / ".teams" / TEAM).rename(root / ".teams" / team)
    config = root / ".teams" / team / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "name": team}))
    return root


@pytest.fixture
def top():
    with nobodys_folder() as top:
        yield top


def fleet_on(top: Path, roots: list[Path]) -> LocalSource:
    home = top / "home"
    return LocalSource(
        load_settings(home / "none.toml"),
        roots=roots,
        cwd=home,
        claude_root=home / ".claude",
        registry=home / "running",
        journal=home / "journal",
    )


def test_an_unreadable_root_and_a_file_root_never_stop_the_room_from_starting(top: Path) -> None:
    """The issue's roots = [R1, FILE, R3, R2] with R3 mode 000: the other teams are shown, and
    every bad root is said."""
    r1, r2, r3 = native_root(top, "r1", "alpha"), native_root(top, "r2", "beta"), native_root(top, "r3", "gamma")
    file_root = top / "file"
    file_root.write_text("not a folder\n")
    give_to_nobody(top)
    r3.chmod(0)

    def start() -> tuple[list[str], list[str]]:
        fleet = fleet_on(top, [r1, file_root, r3, r2])
        fleet.discover()
        return sorted(t.name for t in fleet.teams.values()), fleet.problems

    done = as_nobody(start, top / "home")
    assert done.code == 0, done.stderr.decode()
    teams, problems = done.value
    assert teams == ["alpha", "beta"]
    assert any(str(file_root) in p and "not a folder" in p for p in problems), problems
    assert any(str(r3) in p and "Permission denied" in p for p in problems), problems


def test_an_unreadable_teams_folder_is_said(top: Path) -> None:
    r1, r2 = native_root(top, "r1", "alpha"), native_root(top, "r2", "beta")
    give_to_nobody(top)
    (r2 / ".teams").chmod(0)

    def start() -> tuple[list[str], list[str]]:
        fleet = fleet_on(top, [r1, r2])
        fleet.discover()
        return sorted(t.name for t in fleet.teams.values()), fleet.problems

    done = as_nobody(start, top / "home")
    assert done.code == 0, done.stderr.decode()
    teams, problems = done.value
    assert teams == ["alpha"]
    assert any(str(r2 / ".teams") in p and "Permission denied" in p for p in problems), problems


def test_a_root_made_unreadable_while_the_room_runs_stops_nothing_else_and_comes_back(top: Path) -> None:
    """The room follows R1 and R2; R2 goes mode 000: R1 keeps updating and a problem says why; R2
    made readable again is followed again (a change to its team reaches its row)."""
    r1, r2 = native_root(top, "r1", "alpha"), native_root(top, "r2", "beta")
    give_to_nobody(top)

    async def run() -> dict[str, object]:
        fleet = fleet_on(top, [r1, r2])
        fleet.discover()
        keys = {t.name: k for k, t in fleet.teams.items()}
        stop = asyncio.Event()
        batches: list[FleetBatch] = []
        seen = asyncio.Event()

        async def follow() -> None:
            async for batch in fleet.follow(stop):
                batches.append(batch)
                seen.set()

        until = functools.partial(until_batch, seen)

        def logged(team: str, text: str) -> bool:
            session = fleet.sessions.get(keys[team])
            buf = session.state.logs.get("hunter") if session is not None else None
            return buf is not None and any(buf.entry(i).text == text for i in range(buf.first, buf.total))

        task = asyncio.create_task(follow())
        out: dict[str, object] = {}
        NativeTeam(r1, "alpha").log("hunter", "probe")
        out["watching"] = await until(lambda: logged("alpha", "probe"))
        r2.chmod(0)
        out["problem said"] = await until(lambda: any(str(r2) in p for p in fleet.problems))
        NativeTeam(r1, "alpha").log("hunter", "alpha still updates")
        out["alpha updates"] = await until(lambda: logged("alpha", "alpha still updates"))
        out["worker alive"] = not task.done()
        r2.chmod(0o755)
        NativeTeam(r2, "beta").log("hunter", "beta is back")
        out["beta back"] = await until(lambda: logged("beta", "beta is back"))
        out["problem gone"] = not any(str(r2) in p for p in fleet.problems)
        stop.set()
        await asyncio.wait_for(task, 10)
        return out

    done = as_nobody(lambda: asyncio.run(run()), top / "home")
    assert done.code == 0, done.stderr.decode()
    assert done.value == {
        "watching": True,
        "problem said": True,
        "alpha updates": True,
        "worker alive": True,
        "beta back": True,
        "problem gone": True,
    }


async def until_batch(seen: asyncio.Event, what, limit: float = 15.0) -> bool:
    """Whether `what()` came to hold within `limit` s, checked after each batch the follower sets `seen` for."""
    try:
        async with asyncio.timeout(limit):
            while not what():
                seen.clear()
                await seen.wait()
        return True
    except TimeoutError:
        return False


def follow_in_child(fleet: LocalSource, scenario) -> dict[str, object]:
    """Run `scenario(until, logged)` while `fleet.follow` runs; what it found, and whether the
    follower was still alive at the end."""

    async def run() -> dict[str, object]:
        keys = {t.name: k for k, t in fleet.teams.items()}
        stop = asyncio.Event()
        seen = asyncio.Event()

        async def follow() -> None:
            async for _batch in fleet.follow(stop):
                seen.set()

        until = functools.partial(until_batch, seen)

        def logged(team: str, text: str) -> bool:
            key = keys.get(team) or next((k for k, t in fleet.teams.items() if t.name == team), None)
            session = fleet.sessions.get(key) if key is not None else None
            buf = session.state.logs.get("hunter") if session is not None else None
            return buf is not None and any(buf.entry(i).text == text for i in range(buf.first, buf.total))

        task = asyncio.create_task(follow())
        out = await scenario(until, logged)
        out["follower alive"] = not task.done()
        stop.set()
        await asyncio.wait_for(task, 10)
        return out

    return asyncio.run(run())


def test_an_unreadable_team_folder_is_its_rows_problem_and_comes_back(top: Path) -> None:
    r1 = native_root(top, "r1", "alpha")
    NativeTeam.create_team(r1, "gamma").add_member("hunter")
    give_to_nobody(top)
    gamma = r1 / ".teams" / "gamma"

    def problem(fleet: LocalSource) -> str | None:
        return next((r.problem for r in fleet.rows() if r.team.name == "gamma"), "no row")

    def run() -> dict[str, object]:
        fleet = fleet_on(top, [r1])
        fleet.discover()

        async def scenario(until, logged) -> dict[str, object]:
            out: dict[str, object] = {}
            NativeTeam(r1, "alpha").log("hunter", "probe")
            out["watching"] = await until(lambda: logged("alpha", "probe"))
            gamma.chmod(0)
            out["row says"] = await until(lambda: "permission denied" in (problem(fleet) or "").lower())
            NativeTeam(r1, "alpha").log("hunter", "alpha still updates")
            out["alpha updates"] = await until(lambda: logged("alpha", "alpha still updates"))
            gamma.chmod(0o755)
            out["row clear"] = await until(lambda: problem(fleet) is None)
            NativeTeam(r1, "gamma").log("hunter", "gamma is back")
            out["gamma back"] = await until(lambda: logged("gamma", "gamma is back"))
            return out

        return follow_in_child(fleet, scenario)

    done = as_nobody(run, top / "home")
    assert done.code == 0, done.stderr.decode()
    assert done.value == {
        k: True for k in ("watching", "row says", "alpha updates", "row clear", "gamma back", "follower alive")
    }


def test_a_root_deleted_replaced_by_a_file_and_made_again_is_said_and_followed_again(top: Path) -> None:
    """Vanished, then replaced by a file, then a folder again: said each time, the other root's
    team updating throughout, and the team is followed again once its root is back."""
    r1, r2 = native_root(top, "r1", "alpha"), native_root(top, "r2", "beta")
    give_to_nobody(top)

    def run() -> dict[str, object]:
        fleet = fleet_on(top, [r1, r2])
        fleet.discover()

        async def scenario(until, logged) -> dict[str, object]:
            out: dict[str, object] = {}
            said = lambda: any(str(r2) in p and "not a folder" in p for p in fleet.problems)  # noqa: E731
            NativeTeam(r1, "alpha").log("hunter", "probe")
            out["watching"] = await until(lambda: logged("alpha", "probe"))
            shutil.rmtree(r2)
            out["vanished said"] = await until(said)
            r2.write_text("a file now\n")
            NativeTeam(r1, "alpha").log("hunter", "alpha still updates")
            out["alpha updates"] = await until(lambda: logged("alpha", "alpha still updates"))
            out["file said"] = said()
            r2.unlink()
            native_root(top, "r2", "beta")
            NativeTeam(r2, "beta").log("hunter", "beta is back")
            out["beta back"] = await until(lambda: logged("beta", "beta is back"))
            out["problem gone"] = not any(str(r2) in p for p in fleet.problems)
            return out

        return follow_in_child(fleet, scenario)

    done = as_nobody(run, top / "home")
    assert done.code == 0, done.stderr.decode()
    assert done.value == {
        k: True
        for k in (
            "watching",
            "vanished said",
            "alpha updates",
            "file said",
            "beta back",
            "problem gone",
            "follower alive",
        )
    }


def test_the_room_starts_with_an_unreadable_root_and_says_each_bad_one(top: Path) -> None:
    """The real room (Pilot) as nobody on the issue's roots: the two teams are rows, and the
    header counts both bad roots and the lines under it name them."""
    r1, r2, r3 = native_root(top, "r1", "alpha"), native_root(top, "r2", "beta"), native_root(top, "r3", "gamma")
    file_root = top / "file"
    file_root.write_text("not a folder\n")
    give_to_nobody(top)
    r3.chmod(0)

    def run() -> dict[str, object]:
        from teamtui.tui.app import TeamTUI
        from teamtui.tui.widgets.fleet import FleetTable
        from teamtui.tui.widgets.problems import ProblemList

        fleet = fleet_on(top, [r1, file_root, r3, r2])
        fleet.discover()
        app = TeamTUI(Fleet([fleet]), config_path=top / "home" / "none.toml", cursor_blink=False, sync_panes=False)

        async def scenario() -> dict[str, object]:
            async with app.run_test(size=(160, 40)) as pilot:
                await pilot.pause(0.2)
                table = app.screen.query_one(FleetTable)
                return {
                    "rows": sorted(str(table.get_row(r.key)[0].plain).split()[0] for r in table.ordered_rows),
                    "header": str(app.screen.query_one("#fleet-header").render()),
                    "lines": str(app.screen.query_one(ProblemList).render()),
                }

        return asyncio.run(scenario())

    done = as_nobody(run, top / "home")
    assert done.code == 0, done.stderr.decode()
    assert done.value["rows"] == ["alpha", "beta"]
    assert "2 problems" in done.value["header"]
    assert f"{file_root}: not a folder" in done.value["lines"]
    assert f"{r3}: cannot read the folder: Permission denied" in done.value["lines"]
