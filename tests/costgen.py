"""Transcript lines that cost something, and what genai-prices itself says they cost.

`priced_turns` writes assistant lines as Claude Code 2.1.328 writes them (one line per content
block, each repeating the message's usage) across models genai-prices knows and one it does not
(claude-fable-9), fast mode, 1-hour cache writes, a long-context tier (over 200k input tokens),
a price that changed on a date (claude-sonnet-4-6 on 2026-03-13), a message whose usage was
written again changed (the last one counts), and two local days.

`library_cost` reads the same files as a person would with the library alone: each message id
once (its last usage), `extract_usage` + `calc_price` at the message's time and speed.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

UNKNOWN_MODEL = "claude-fable-9"


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _usage(inp: int, out: int, write_5m: int = 0, write_1h: int = 0, read: int = 0, speed: str = "standard") -> dict:
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": write_5m + write_1h,
        "cache_read_input_tokens": read,
        "output_tokens": out,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": write_1h, "ephemeral_5m_input_tokens": write_5m},
        "speed": speed,
    }


def assistant_lines(mid: str, model: str, usage: dict, ts: float, blocks: int = 2, agent: str = "") -> bytes:
    """One message as Claude Code writes it: a line per content block, the usage on each."""
    out = b""
    for i in range(blocks):
        block = (
            {"type": "text", "text": f"step {mid}"}
            if i < blocks - 1
            else {"type": "tool_use", "id": f"toolu_{mid}_{i}", "name": "Bash", "input": {"command": f"echo {mid}"}}
        )
        msg = {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [block],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": usage,
        }
        rec = {"parentUuid": None, "isSidechain": False, "type": "assistant", "message": msg}
        if agent:
            rec["agentName"] = agent
        rec.update(uuid=f"u-{mid}-{i}", timestamp=iso(ts + i * 0.01))
        out += json.dumps(rec, separators=(",", ":")).encode() + b"\n"
    return out


def priced_turns(tag: str, start: float, *, scale: int = 1) -> bytes:
    """A teammate's worth of messages from `start` on (epoch seconds); `scale` multiplies the tokens."""
    day = 86400.0
    s = scale
    out = b""
    out += assistant_lines(f"msg_{tag}_1", "claude-opus-5-5", _usage(6, 800 * s, 10000 * s, 2000 * s, 50000 * s), start)
    out += assistant_lines(f"msg_{tag}_2", "claude-opus-5-5", _usage(4, 1200 * s, 0, 0, 61000 * s, "fast"), start + 60)
    # Over 200k input tokens: the long-context price for every token of the message.
    out += assistant_lines(f"msg_{tag}_3", "claude-sonnet-4-5", _usage(5, 900 * s, 3000, 0, 230000), start + 120)
    out += assistant_lines(f"msg_{tag}_4", "claude-haiku-4-5-20251001", _usage(300, 150 * s, 0, 0, 8000), start + 180)
    out += assistant_lines(f"msg_{tag}_5", UNKNOWN_MODEL, _usage(10, 500 * s, 0, 0, 9000), start + 240)
    # The same message written again with more output: its last usage counts, once.
    out += assistant_lines(f"msg_{tag}_6", "claude-opus-5-5", _usage(7, 100, 0, 0, 70000), start + 300, blocks=1)
    out += assistant_lines(f"msg_{tag}_6", "claude-opus-5-5", _usage(7, 2100 * s, 0, 0, 70000), start + 301, blocks=1)
    # The next day.
    out += assistant_lines(f"msg_{tag}_7", "claude-opus-5-5", _usage(9, 700 * s, 4000, 0, 80000 * s), start + day)
    return out


def dated_turns(tag: str) -> bytes:
    """claude-sonnet-4-6 over 200k input tokens the day before and the day after its long-context
    price went (2026-03-13)."""
    before = datetime(2026, 3, 12, 12, tzinfo=UTC).timestamp()
    after = datetime(2026, 3, 14, 12, tzinfo=UTC).timestamp()
    usage = _usage(1000, 4000, 20000, 0, 210000)
    return assistant_lines(f"msg_{tag}_d1", "claude-sonnet-4-6", usage, before) + assistant_lines(
        f"msg_{tag}_d2", "claude-sonnet-4-6", usage, after
    )


@dataclass
class LibraryCost:
    usd: Decimal = Decimal(0)
    days: dict[str, Decimal] = field(default_factory=dict)
    unknown: dict[str, int] = field(default_factory=dict)  # model -> tokens genai-prices has no price for


_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def assistant_messages(path: Path):
    """Each JSON line of transcript `path` with its assistant message (None for any other line)."""
    for raw in path.read_bytes().splitlines():
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        yield rec, rec.get("message") if isinstance(rec, dict) and rec.get("type") == "assistant" else None


def bash_use(tid: str, command: str, usage: dict, timestamp: str) -> bytes:
    """One transcript line: the assistant calling Bash to run `command` (tool use id `tid`)."""
    msg = {
        "id": f"msg_{tid}",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-5-5",
        "content": [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": command}}],
        "stop_reason": "tool_use",
        "usage": usage,
    }
    return (
        json.dumps({"type": "assistant", "message": msg, "timestamp": timestamp}, separators=(",", ":")).encode()
        + b"\n"
    )


def library_cost(*paths: Path) -> LibraryCost:
    """genai-prices' own result for the messages of `paths`: each id's last usage, priced alone."""
    from genai_prices import extract_usage

    out = LibraryCost()
    for path in paths:
        messages: dict[str, tuple[str, dict, str]] = {}
        for rec, msg in assistant_messages(path):
            if not isinstance(msg, dict) or not isinstance(msg.get("usage"), dict):
                continue
            if not any(isinstance(msg["usage"].get(k), int) for k in _KEYS):
                continue
            key = msg.get("id") if isinstance(msg.get("id"), str) else f"anon-{len(messages)}"
            messages[key] = (msg.get("model"), msg["usage"], rec.get("timestamp"))
        for model, usage, stamp in messages.values():
            at = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            speed = usage.get("speed")
            try:
                found = extract_usage({"model": model, "usage": usage}, provider_id="anthropic")
                usd = found.calc_price(
                    genai_request_timestamp=at, price_context={"speed": speed} if isinstance(speed, str) else None
                ).total_price
            except LookupError:
                tokens = sum(usage.get(k) or 0 for k in _KEYS)
                if tokens:
                    out.unknown[model] = out.unknown.get(model, 0) + tokens
                continue
            out.usd += usd
            day = time.strftime("%Y-%m-%d", time.localtime(at.timestamp()))
            out.days[day] = out.days.get(day, Decimal(0)) + usd
    return out
