"""teamtui.notify is a non-UI layer: importing every module of it loads no Textual (the app hands
it a `write`), as tests/test_layers.py asks of protocol, runtime and tmux."""

from __future__ import annotations

import subprocess
import sys


def test_notify_imports_no_textual() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        "import teamtui.notify\n"
        "for m in pkgutil.walk_packages(teamtui.notify.__path__, 'teamtui.notify.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith(('textual', 'rich', 'teamtui.tui', 'libtmux')))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"teamtui.notify loads {out.stdout.strip()}"
