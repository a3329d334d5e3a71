"""The dashboard needs a terminal: `teamtui watch ROOT | cat`, a bare `teamtui`, `teamtui demo` and
`teamtui run` with the dashboard, each with a pipe for output, say so in one line (exit 2) and
draw nothing; what prints text (`status`, `--headless`) still works to a pipe. Real processes, on a
pseudo-terminal where the person's terminal would be."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.runtime.helpers import WORKER

REPO = Path(__file__).resolve().parents[1]


def on_a_terminal_piped(argv: list[str], cwd: Path, *, pipe_stdin: bool = False) -> tuple[int, bytes, bytes]:
    """`teamtui ARGV` with stdout a pipe and stdin (unless `pipe_stdin`) and stderr a pty, as in
    `teamtui ARGV | cat`: its exit code, its stdout, and what reached the terminal."""
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEAMTUI_", "TMUX", "TEXTUAL_"))}
    env.update(PYTHONPATH=str(REPO), TERM="xterm-256color", HOME=str(cwd), XDG_STATE_HOME=str(cwd / "state"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "teamtui", *argv],
        stdin=subprocess.PIPE if pipe_stdin else slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
        cwd=cwd,
    )
    os.close(slave)
    shown = bytearray()
    end = time.monotonic() + 30
    try:
        while time.monotonic() < end:  # until the terminal's last user closes it (EIO), or 30 s
            if select.select([master], [], [], 0.1)[0]:
                try:
                    shown += os.read(master, 65536)
                except OSError:
                    break
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running after 30 s; the terminal got {bytes(shown[:300])!r}")
        assert proc.stdout is not None
        return proc.returncode, proc.stdout.read(), bytes(shown)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


@pytest.fixture
def team_file(tmp_path: Path) -> Path:
    path = tmp_path / "team.toml"
    path.write_text(
        '[team]\nname = "piped"\n'
        f'[[teammates]]\nname = "ada"\ncommand = \'exec "$TEAMTUI_PYTHON" {WORKER}\'\n'
        '[[tasks]]\nsubject = "one"\n'
    )
    return path


@pytest.mark.parametrize(
    "argv, instead",
    [
        (["watch", "{root}"], "`teamtui status --all` prints the teams as text"),
        (["{root}"], "`teamtui status --all` prints the teams as text"),
        (["demo", "--dir", "{tmp}/demo"], "--headless prints progress instead"),
        (["run", "{tmp}/team.toml"], "--headless prints progress instead"),
    ],
    ids=["watch", "bare", "demo", "run"],
)
def test_the_dashboard_with_its_output_in_a_pipe_says_it_needs_a_terminal(
    tmp_path: Path, native_root: Path, team_file: Path, argv: list[str], instead: str
) -> None:
    argv = [a.format(root=native_root, tmp=tmp_path) for a in argv]
    code, out, shown = on_a_terminal_piped(argv, tmp_path)
    said = f"teamtui: the dashboard needs a terminal (stdout is not one): {instead}"
    assert (code, out, shown.replace(b"\r\n", b"\n")) == (2, b"", said.encode() + b"\n")
    assert not (tmp_path / "demo").exists() and not (tmp_path / ".teams").exists(), "nothing made"


def test_with_no_terminal_at_all_each_is_named(tmp_path: Path, native_root: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "teamtui", "watch", str(native_root)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL_")}, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert (res.returncode, res.stdout) == (2, b"")
    assert res.stderr == (
        b"teamtui: the dashboard needs a terminal (stdin, stdout, stderr are not): "
        b"`teamtui status --all` prints the teams as text\n"
    )


def test_what_prints_text_still_works_into_a_pipe(tmp_path: Path, native_root: Path, team_file: Path) -> None:
    code, out, shown = on_a_terminal_piped(["status", "--root", str(native_root)], tmp_path)
    assert (code, shown) == (0, b"") and b"refactor-auth" in out
    code, out, shown = on_a_terminal_piped(["run", str(team_file), "--headless"], tmp_path)
    assert (code, shown) == (0, b"") and b"the 1 task completed" in out
