"""The real Claude Code 2.1.332, its teammates in-process: twenty messages written into a
teammate's inbox from outside (`teamtui send`, another process), each taken by the teammate within
~100 ms (FORMATS.md §4), often before teamtui's dashboard reads the file. Every one is in Messages
once, delivered, and journaled: from the file when the dashboard saw it there, else from the
teammate's transcript. Run with `make interop`."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.interop.harness import Session, wait_until
from tests.interop.test_real_claude import claude_installed, cli, dashboard, seen_by  # noqa: F401 - fixture

pytestmark = pytest.mark.interop
COUNT = 20


@pytest.fixture(scope="module")
def inprocess(claude_installed: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:  # noqa: F811
    s = Session(tmp_path_factory.mktemp("claude-delivered"), "in-process")
    try:
        s.start()
        s.prompt_lead()
        wait_until(lambda: {"alice", "bob"} <= set(s.members()), "the lead to spawn alice and bob", 90)
        wait_until(lambda: len(s.requests("alice")) >= 2, "alice to go idle", 60)
        yield s
    finally:
        s.stop()


def journal(s: Session) -> list[dict]:
    files = list((s.state_dir / "teamtui" / "journal").glob("*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text().splitlines() if line.strip()]


def test_twenty_messages_from_outside_are_shown_once_each_and_delivered(inprocess: Session) -> None:
    s = inprocess
    pane = dashboard(s)
    stamp = int(time.time())
    texts = [f"OUTSIDE-{stamp}-{i:02d}" for i in range(COUNT)]
    for text in texts:  # another process writes each; Claude Code takes it out of the file at once
        sent = cli(s, "send", "alice", text)
        assert sent.returncode == 0, sent.stderr
    for text in texts:
        wait_until(lambda t=text: seen_by(s, "alice", t), f"alice to receive {text}", 90)

    def recorded() -> tuple[dict[str, list[str]], set[str]]:
        recs = journal(s)
        keys: dict[str, list[str]] = {}
        for r in recs:
            if r.get("kind") == "message" and r.get("text") in texts:
                keys.setdefault(r["text"], []).append(r["key"])
        delivered = {r.get("key") for r in recs if r.get("kind") == "delivered"}
        return keys, delivered

    def all_in() -> bool:
        keys, delivered = recorded()
        return len(keys) == COUNT and all(set(k) & delivered for k in keys.values())

    wait_until(all_in, "the journal to hold all twenty, delivered", 30)
    keys, _ = recorded()
    assert {t: len(set(k)) for t, k in keys.items()} == dict.fromkeys(texts, 1), "each message once"

    # On screen too: the newest of them in the Messages panel, delivered.
    def row() -> str:
        """The last message's row in the Messages panel (a log panel shows it too, as "← teamtui: …")."""
        return next((li for li in s.capture(pane).splitlines() if texts[-1] in li and "←" not in li), "")

    wait_until(row, "the last message in Messages", 20)
    wait_until(lambda: "delivered" in row(), "the last message delivered on screen", 10)
    s.tmux("send-keys", "-t", pane, "q")
