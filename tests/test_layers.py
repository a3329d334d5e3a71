"""The layer rule of DESIGN.md: protocol, runtime and tmux work without the UI."""

import subprocess
import sys


def test_core_layers_import_no_textual() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        "import teamtui.protocol, teamtui.runtime, teamtui.tmux, teamtui.cli.protocol_cmds\n"
        "for pkg in (teamtui.protocol, teamtui.runtime, teamtui.tmux):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"textual imported by a core layer: {out.stdout.strip()}"
