"""`teamtui status --json` on Claude Code teams: tokens, context and activity per member from
the transcripts (the real 2.1.328 files); a native team's status reads no transcript."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from teamtui.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "examples" / "claude-2.1.328"


def status(root: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["status", "--json", "--root", str(root)]) == 0
    return json.loads(capsys.readouterr().out)


def sums(path: Path) -> tuple[dict[str, int], int | None]:
    """Usage summed by hand (each message id once) and the last request's context."""
    by_id: dict[str, dict] = {}
    context = None
    for raw in path.read_bytes().splitlines():
        rec = json.loads(raw)
        msg = rec.get("message") if rec.get("type") == "assistant" else None
        if isinstance(msg, dict) and isinstance(msg.get("usage"), dict):
            by_id[msg["id"]] = msg["usage"]
            u = msg["usage"]
            context = (
                u.get("input_tokens", 0) + u.get("cache_creation_input_tokens", 0) + u.get("cache_read_input_tokens", 0)
            )
    keys = {
        "input": "input_tokens",
        "output": "output_tokens",
        "cache_creation": "cache_creation_input_tokens",
        "cache_read": "cache_read_input_tokens",
    }
    out = {k: sum(u.get(v, 0) for u in by_id.values()) for k, v in keys.items()}
    out["total"] = sum(out.values())
    return out, context


@pytest.mark.parametrize("case", ["tmux-running", "inprocess-running"])
def test_status_json_gives_tokens_and_context_per_member(case: str, tmp_path: Path, capsys) -> None:
    root = tmp_path / case
    shutil.copytree(FIXTURES / case, root)
    data = status(root, capsys)
    cfg = json.loads(next(root.glob("teams/*/config.json")).read_text())
    project = root / "projects" / "-src-app"
    lead_file = project / f"{cfg['leadSessionId']}.jsonl"
    tokens, context = sums(lead_file)
    assert data["lead_usage"]["tokens"] == tokens
    assert data["lead_usage"]["context"] == {"tokens": context}  # no window known for this model: no share
    total = tokens["total"]
    for member in data["members"]:
        assert member["tokens"]["total"] > 0 and member["context"]["tokens"] > 0
        assert member["activity"]["kind"] == "idle"
        total += member["tokens"]["total"]
    assert data["tokens_total"] == total


def test_native_status_has_no_transcript_fields(native_root: Path, capsys) -> None:
    data = status(native_root, capsys)
    assert "tokens_total" not in data and all("tokens" not in m for m in data["members"])
