"""The stream's ops are declared once, in session/ops/: every op module is in the registry, and
every op the registry lists is one a real `teamtui stream` answers (never `unknown op`)."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from teamtui.session import ops
from teamtui.session.ops import OPS

from .conftest import EXAMPLES, copy_tree
from .test_stream_cmd import stream_env, streaming


def test_every_op_module_is_in_the_registry() -> None:
    names = [m.name for m in pkgutil.iter_modules(ops.__path__) if m.name != "base"]
    declared = [op for name in names for op in importlib.import_module(f"teamtui.session.ops.{name}").OPS]
    assert sorted(op.name for op in declared) == sorted(OPS), "an op module missing from the registry line"
    assert all(OPS[op.name] is op for op in declared)


def test_every_registered_op_is_answered_by_the_stream(tmp_path: Path) -> None:
    copy_tree(EXAMPLES / "native", tmp_path / "proj")
    nowhere = ["native", "/nowhere", "x"]
    with streaming(stream_env(tmp_path), tmp_path, str(tmp_path / "proj")) as stream:
        stream.until(lambda o: o["type"] == "ready", "ready")
        for n, name in enumerate(OPS):
            stream.ask({"id": n, "op": name, "team": nowhere})
        said = {
            name: stream.until(lambda o, n=n: o["type"] == "result" and o["id"] == n, name)
            for n, name in enumerate(OPS)
        }
    assert not [name for name, r in said.items() if "unknown op" in r.get("error", "")]
    assert said["ping"]["ok"] is True and "no such team" in said["send"]["error"]
