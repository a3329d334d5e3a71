"""Only the person answers: another local user can neither answer a request, nor reach its files,
nor fake a room. Run as a real other user (`runuser -u nobody`), which needs root."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamtui.protocol.hooks.answers import OPEN, answer, list_asks, read_ask
from teamtui.protocol.hooks.room import RoomPresence
from tests.protocol.hooks.helpers import env_for, recorded, spool_of, start_hook, wait_for

# A Python the other user can run (the test venv's may sit under root's home), with teamtui's source.
OTHER_PYTHON = "/usr/bin/python3"
REPO = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("runuser") is None or not os.access(OTHER_PYTHON, os.X_OK),
    reason="needs root, runuser and /usr/bin/python3 to act as another user",
)

ASKS = next(e for e in recorded("in-process") if e["hook_event_name"] == "PermissionRequest")


@pytest.fixture
def base() -> Iterator[Path]:
    # Under /tmp with every parent open to all: the spool's own 0700 folders are the only barrier.
    d = Path(tempfile.mkdtemp(prefix="tt-hooks-other-", dir="/tmp"))
    os.chmod(d, 0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def as_nobody(base: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    home = base / "nobody"
    home.mkdir(exist_ok=True)
    os.chown(home, 65534, 65534)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_STATE_HOME": str(base / "state"),  # the victim's spool, named outright
        "XDG_CONFIG_HOME": str(home / ".config"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(REPO),
    }
    return subprocess.run(["runuser", "-u", "nobody", "--", *argv], env=env, capture_output=True, text=True, timeout=60)


def test_another_user_cannot_answer_reach_the_request_or_fake_a_room(base: Path) -> None:
    spool = spool_of(base)
    with RoomPresence(_spool(base)):
        proc = start_hook(env_for(base), ASKS)
        rid = wait_for(lambda: list_asks(spool), "the hook's request")[0].id
        folder = spool / "requests" / rid

        works = as_nobody(base, OTHER_PYTHON, "-m", "teamtui", "answer", "--help")
        assert works.returncode == 0, works.stderr  # the other user runs teamtui itself
        cli = as_nobody(base, OTHER_PYTHON, "-m", "teamtui", "answer", rid, "allow")
        assert cli.returncode == 1
        assert "belongs to another user" in cli.stderr, cli.stderr

        for target, how in (
            (folder / "wake", "open(p, 'w').write('!')"),
            (folder / "answer.json", "open(p, 'w').write('{}')"),
            (folder / "request.json", "open(p).read()"),
            (spool / "rooms.lock", "import fcntl; fcntl.flock(open(p), fcntl.LOCK_SH)"),
            (spool / "events.jsonl", "open(p).read()"),
        ):
            direct = as_nobody(base, OTHER_PYTHON, "-c", f"p = {str(target)!r}\n{how}")
            assert direct.returncode != 0 and "PermissionError" in direct.stderr, (target, direct.stderr)

        ask = read_ask(spool, rid)
        assert ask is not None and ask.state == OPEN  # still waiting for its person
        answer(spool, rid, "allow", via="cli")
        out, _ = proc.communicate(timeout=20)
        assert '"behavior": "allow"' in out


def _spool(base: Path) -> Path:
    from teamtui.protocol.hooks.place import ensure_spool

    return ensure_spool(env_for(base))
