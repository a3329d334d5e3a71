"""Pane titles on a real tmux server: a teammate named with tmux format syntax (`#[...]` style,
`#(...)` command, `#{...}` variable), escapes, bidi or a newline gets an inert title. tmux expands
the argument of `select-pane -T` as a format, and draws `#[...]` in the border as style; a name must
do neither. A real client attached on a pseudo-terminal shows what the border draws."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tmux_support import TmuxServer, pane_of, wait_for

from teamtui.protocol.text import inert
from teamtui.tmux.api import PaneSpec
from teamtui.tmux.commands import follow_command
from teamtui.tmux.panes import TmuxPanes
from teamtui.tmux.style import MAX_TITLE
from tests.corpus.ptyrun import PtyProcess

pytestmark = pytest.mark.tmux


def _names(marker: Path) -> list[str]:
    return [
        "red#[fg=red,bg=blue]X",
        f"run#(touch {marker})",
        "fmt#{pane_id}#{host}#S",
        "esc\x1b]2;pwn\x07\x1b[31mZ",
        "bidi\u202eevil;kill-server",
        "nl\nfake\t'\"$HOME`id`",
    ]


def _expected(name: str) -> str:
    return inert(name).replace("\t", " ")[:MAX_TITLE]


def test_hostile_names_become_inert_pane_titles(tmux_server: TmuxServer, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    names = _names(marker)
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "t")
    panes.sync([PaneSpec(n, "red", "sleep 600") for n in names])
    assert panes.wait_idle()
    for name in names:
        pane = pane_of(panes, name)
        assert pane is not None, name
        title = tmux_server.run("display-message", "-p", "-t", pane, "#{pane_title}")[0]
        # Stored as the inert text: no '#(...)' ran, no '#{...}' expanded, no escape kept. tmux keeps
        # '##[' as is, for the border to draw as a literal '#['.
        assert title == _expected(name).replace("#[", "##["), name
    # A real client draws the borders: the titles show as literal text, so no '#[...]' became style.
    session = tmux_server.run("display-message", "-p", "-t", tmux_server.dashboard, "#{session_name}")[0]
    # `tmux attach` as a person would, on a 220x60 pseudo-terminal.
    client = PtyProcess(
        ["-u", "-S", tmux_server.socket, "attach", "-t", session],
        cols=220,
        rows=60,
        program=[shutil.which("tmux") or "tmux"],
    )
    try:
        for name in names:
            drawn = _expected(name).encode("utf-8")
            client.read_until(lambda out, d=drawn: d in out, f"the border drawing {name!r} literally")
        out = bytes(client.out)
    finally:
        client.close()
    assert b"\x1b]2;pwn" not in out and "\u202e".encode() not in out
    assert not marker.exists()
    panes.close_all()


def test_escapes_printed_in_a_follow_pane_do_not_retitle_it(
    tmux_server: TmuxServer, native_root: Path, tmp_path: Path
) -> None:
    """A teammate's log line carrying OSC 0/2 title sequences, shown live by `teamtui follow` in its
    pane, leaves the pane's title alone. A control pane that prints the same kind of sequence raw, at
    the same moment, shows that this tmux does honour it."""
    go = tmp_path / "go"
    panes = TmuxPanes(tmux_server.tmux, tmux_server.dashboard, "refactor-auth")
    control_cmd = f"while [ ! -e {go} ]; do sleep 0.05; done; printf 'C \\033]2;pwnedC\\033\\\\'; sleep 600"
    panes.sync(
        [
            PaneSpec("hunter", "blue", follow_command("hunter", native_root, "refactor-auth")),
            PaneSpec("control", "green", control_cmd),
        ]
    )
    assert panes.wait_idle()
    hunter, control = pane_of(panes, "hunter"), pane_of(panes, "control")
    assert hunter and control

    def title(pane: str) -> str:
        return tmux_server.run("display-message", "-p", "-t", pane, "#{pane_title}")[0]

    shown = lambda: "\n".join(tmux_server.run("capture-pane", "-p", "-t", hunter))  # noqa: E731
    wait_for(lambda: "following hunter" in shown(), "follow to start in its pane", timeout=30)
    assert title(hunter) == "hunter" and title(control) == "control"
    # Both panes are titled: now the hostile lines arrive, and the control pane prints its raw one.
    log = native_root / ".teams" / "refactor-auth" / "logs" / "hunter.jsonl"
    with open(log, "a", encoding="utf-8") as fh:
        for text in ("T0 \x1b]0;pwned0\x07", "T2 \x1b]2;pwned2\x1b\\", "TD #[fg=red]#(id)"):
            fh.write(json.dumps({"ts": 1763712100.0, "level": "info", "text": text}) + "\n")
    go.touch()
    wait_for(lambda: title(control) == "pwnedC", "the raw OSC 2 to retitle the control pane", timeout=30)
    wait_for(lambda: "TD #[fg=red]#(id)" in shown(), "follow to print the last log line", timeout=30)
    screen = shown()
    assert "T0 \\x1b]0;pwned0\\x07" in screen and "T2 \\x1b]2;pwned2\\x1b\\" in screen
    assert title(hunter) == "hunter"
    panes.close_all()
