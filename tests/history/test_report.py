"""`teamtui history TEAM --html FILE`: one self-contained page a real browser renders. Opened in
headless Chromium (over the DevTools protocol, as tests/test_serve.py drives it): the timeline is
drawn (a lane per teammate, task bars, message ticks, a needs-you mark), the tables list what
happened, nothing is fetched, and hostile text from the team is shown, never run."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from teamtui.protocol.history import db_path
from teamtui.protocol.history.db import connect
from teamtui.protocol.history.ops import TeamIdent, Txn
from tests.conftest import headless_chromium
from tests.history.conftest import apply_ops

REPO = Path(__file__).resolve().parents[2]
HOSTILE = "<script>window.__pwned=1</script>\x1b[31m"
NOW = time.time()


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[int]:
    rules = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
    with headless_chromium(tmp_path / "chromium-profile", rules, "--window-size=1400,900") as port:
        yield port


class Browser:
    """The least of the DevTools protocol: commands, and the events seen meanwhile."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws, self.next_id, self.events = ws, 0, []

    async def send(self, method: str, **params) -> dict:
        self.next_id += 1
        await self.ws.send_json({"id": self.next_id, "method": method, "params": params})
        while True:
            msg = await self.ws.receive_json()
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise AssertionError(f"{method}: {msg['error']}")
                return msg["result"]
            self.events.append(msg)

    async def value(self, expression: str):
        return (await self.send("Runtime.evaluate", expression=expression, returnByValue=True))["result"].get("value")


def a_recorded_team(tmp_path: Path) -> None:
    team = TeamIdent("", "native", str(tmp_path / "proj"), HOSTILE)
    t0 = NOW - 8 * 3600
    ops = [
        (
            "header",
            team,
            t0,
            (
                "lead",
                "a <b>bold</b> team",
                None,
                [(n, "worker", "", "", "", t0) for n in ("ada", '"><img src=x onerror=alert(1)>')],
                {},
                True,
            ),
        )
    ]
    ops += [("entries", team, t0, ("log", [("ada", t0 + s, "info", f"line {s}", s) for s in range(0, 4 * 3600, 60)]))]
    ops += [("task", team, t0 + 60, ("task", "1", "Build the </svg> parser", "", "in_progress", "ada", []))]
    ops += [("task", team, t0 + 3 * 3600, ("task", "1", "Build the </svg> parser", "", "completed", "ada", []))]
    ops += [
        (
            "message",
            team,
            t0 + 600 * i,
            ("lead", "ada", "message", f"MSG{i} </td><script>window.__pwned=2</script>", "", t0 + 600 * i, None, False),
        )
        for i in range(10)
    ]
    ops += [("need_open", team, t0 + 3600, ("p:1", "permission", "ada", "ada asks to run rm -rf /", None))]
    ops += [("need_closed", team, t0 + 4000, ("p:1", "answered"))]
    ops += [("change", team, t0 + 5000, ("ada", "src/<parser>.py", "modified", "1", 10, 2, None))]
    ops += [("cost", team, t0 + 5000, ("ada", "claude-x", 1000, 500, 0, 0, 0.42, None))]
    apply_ops(db_path(), ops)


@pytest.mark.browser
async def test_the_report_renders_in_a_real_browser_fetching_nothing_and_running_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chromium: int
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    a_recorded_team(tmp_path)
    page = tmp_path / "report.html"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    made = subprocess.run(
        [sys.executable, "-m", "teamtui", "history", HOSTILE, "--html", str(page)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    assert "<script>" not in page.read_text()
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://127.0.0.1:{chromium}/json/list") as resp:
            target = next(t for t in await resp.json() if t["type"] == "page")
        async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            b = Browser(ws)
            await b.send("Network.enable")
            await b.send("Page.enable")
            await b.send("Page.navigate", url=page.as_uri())
            async with asyncio.timeout(30):
                while await b.value("document.readyState") != "complete":
                    await asyncio.sleep(0.1)
            shown = json.loads(
                await b.value(
                    """JSON.stringify({
                title: document.title,
                team: document.querySelector('#team').textContent,
                pwned: typeof window.__pwned,
                scripts: document.querySelectorAll('script').length,
                svgWidth: document.querySelector('#timeline').getBoundingClientRect().width,
                lanes: [...document.querySelectorAll('#timeline g.lane')].map(g => g.getAttribute('data-name')),
                working: [...document.querySelectorAll('#timeline rect.span.working')].map(r => r.getBoundingClientRect().width),
                waiting: document.querySelectorAll('#timeline rect.span.waiting').length,
                needs: document.querySelectorAll('#timeline path.need').length,
                ticks: document.querySelectorAll('#timeline line.tick').length,
                tasks: [...document.querySelectorAll('#timeline g.task')].map(g => g.querySelector('text').textContent),
                members: [...document.querySelectorAll('#members tbody tr td:first-child')].map(td => td.textContent),
                messages: document.querySelectorAll('#messages tbody tr').length,
                firstMessage: document.querySelector('#messages tbody tr td.text').textContent,
                change: document.querySelector('#changes tbody td.text').textContent,
                cost: document.querySelector('#cost tbody tr').textContent,
                imgs: document.querySelectorAll('img').length,
            })"""
                )
            )
    requests = [e["params"]["request"]["url"] for e in b.events if e.get("method") == "Network.requestWillBeSent"]
    assert requests == [page.as_uri()], "the page fetched nothing but itself"
    assert shown["pwned"] == "undefined" and shown["scripts"] == 0 and shown["imgs"] == 0
    assert shown["team"] == "<script>window.__pwned=1</script>\\x1b[31m", "shown as text, its escape made visible"
    assert shown["title"] == f"teamtui history: {shown['team']}"
    assert shown["svgWidth"] > 1000
    assert sorted(shown["lanes"]) == ['"><img src=x onerror=alert(1)>', "ada"]
    assert shown["working"] and max(shown["working"]) > 300, "ada's four working hours are a long bar"
    assert shown["waiting"] == 1 and shown["needs"] == 1 and shown["ticks"] == 10
    assert shown["tasks"] == ["#1 Build the </svg…"]  # cut to fit, as text
    assert sorted(shown["members"]) == sorted(['"><img src=x onerror=alert(1)>', "ada"])
    assert shown["messages"] == 10 and shown["firstMessage"] == "MSG0 </td><script>window.__pwned=2</script>"
    assert shown["change"] == "src/<parser>.py" and "$0.42" in shown["cost"] and "1,500" in shown["cost"]


def test_the_report_says_a_cost_as_the_command_line_does(tmp_path: Path) -> None:
    """Under a cent: `<$0.01` in `teamtui history` and in the page (its summary and its table),
    never `$0.00`; a model without a price is said as `+ price unknown` in both."""
    con = connect(db_path())
    team, day = TeamIdent("", "native", str(tmp_path / "proj"), "cheap"), time.strftime("%Y-%m-%d")
    con.execute("BEGIN")
    txn = Txn(con)
    txn.apply(("header", team, NOW - 60, ("lead", "", None, [("ada", "", "", "", "", NOW - 60)], {}, True)))
    txn.apply(("cost_day", team, NOW, ("ada", day, "0.0012", (100, 80, 0, 0), "claude-haiku-4-5", [])))
    txn.apply(("cost_day", team, NOW, ("bob", day, None, (5, 5, 0, 0), "mystery-1", ["mystery-1"])))
    txn.finish()
    con.execute("COMMIT")
    con.close()
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def cli(*argv: str) -> str:
        done = subprocess.run([sys.executable, "-m", "teamtui", *argv], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "  <$0.01 + price unknown  " in cli("history")
    page = tmp_path / "report.html"
    cli("history", "cheap", "--html", str(page))
    html = page.read_text()
    assert "· &lt;$0.01 + price unknown (190 tokens)</p>" in html and "$0.00" not in html
    assert "<td>ada</td><td>180</td><td>&lt;$0.01</td>" in html
    assert "<td>bob</td><td>10</td><td>price unknown</td>" in html
