"""Run part of a test as the real unprivileged user `nobody` (uid 65534), so that a folder's mode
binds as it binds anyone: `chmod 000` really makes Path.is_dir() raise PermissionError (root
reads everything).

The test forks, and the child drops to nobody with a HOME of its own. One catch: the interpreter's
standard library may live where nobody cannot go (a pyenv Python under /root, mode 0700), and a
module imported after the drop would fail. So, before dropping, the child opens the library's
folder and reaches it from then on through /proc/self/fd/N (a path that does not cross /root)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.corpus.harness import Result, forked

NOBODY = 65534


def _reroute_stdlib() -> None:
    prefix = os.path.dirname(os.__file__)
    fd = os.open(prefix, os.O_RDONLY | os.O_DIRECTORY)
    via = f"/proc/self/fd/{fd}"

    def moved(paths: list[Any]) -> list[Any]:
        return [via + p[len(prefix) :] if isinstance(p, str) and p.startswith(prefix) else p for p in paths]

    sys.path[:] = moved(sys.path)
    for module in list(sys.modules.values()):
        path = getattr(module, "__path__", None)
        if isinstance(path, list):
            path[:] = moved(path)
    sys.path_importer_cache.clear()


def as_nobody(fn: Callable[[], Any], home: Path) -> Result:
    """fn() in a forked child running as nobody, with HOME (and the XDG folders) under `home`."""

    def child() -> Any:
        _reroute_stdlib()
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        assert os.geteuid() == NOBODY
        os.environ.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_STATE_HOME=str(home / ".local" / "state"),
            CLAUDE_CONFIG_DIR=str(home / ".claude"),
        )
        os.chdir(home)
        return fn()

    return forked(child)


@contextmanager
def nobodys_folder() -> Iterator[Path]:
    """A folder nobody owns, outside root's private temp folders (which nobody cannot enter)."""
    top = Path(tempfile.mkdtemp(prefix="teamtui-nobody-", dir="/tmp"))
    try:
        os.chmod(top, 0o755)
        (top / "home").mkdir()
        yield top
    finally:
        for p in [top, *top.rglob("*")]:
            try:
                if p.is_dir() and not p.is_symlink():
                    p.chmod(0o755)
            except OSError:
                pass
        shutil.rmtree(top, ignore_errors=True)


def give_to_nobody(top: Path) -> None:
    """Everything under `top` owned by nobody (made by the test as root)."""
    for p in [top, *top.rglob("*")]:
        os.lchown(p, NOBODY, NOBODY)
