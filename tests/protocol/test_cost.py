"""What a transcript cost, checked against genai-prices itself: for the same messages (each id once,
its last usage), teamtui's figure is the library's own sum, to the last digit, however the file
was read (whole, from the end then its head, before or after genai-prices was loaded). A model the
library does not know is never priced: its tokens are said apart. Nothing is fetched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest

from teamtui.protocol import cost as cost_module
from teamtui.protocol.claude.transcripts import stats as stats_module
from teamtui.protocol.claude.transcripts.reader import TranscriptReader
from teamtui.protocol.cost import Cost, Prices, cost_json, cost_text, money, read_cost, total
from tests.costgen import UNKNOWN_MODEL, dated_turns, library_cost, priced_turns

START = time.mktime((2026, 11, 20, 23, 0, 0, 0, 0, -1))  # 23:00 local: the last message is the next day


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "alice.jsonl"
    path.write_bytes(priced_turns("a", START) + dated_turns("a"))
    return path


def _read_whole(path: Path) -> Cost | None:
    reader = TranscriptReader(path)
    reader.read()
    return reader.stats.cost


def test_a_transcripts_cost_is_genai_prices_own_sum(transcript: Path) -> None:
    cost_module.PRICES.load()
    cost = _read_whole(transcript)
    want = library_cost(transcript)
    assert cost is not None
    assert cost.usd == want.usd and cost.usd > Decimal(1)  # exactly: the same Decimals, summed
    assert cost.days == want.days and len(cost.days) == 4  # two days in November, two in March
    assert cost.unknown == (UNKNOWN_MODEL,) and cost.unpriced_tokens == want.unknown[UNKNOWN_MODEL]


def test_the_price_follows_the_messages_date_speed_and_tier(tmp_path: Path) -> None:
    # Not one flat rate: the library's date, fast mode and long-context prices are in the figure.
    from tests.costgen import _usage, assistant_lines

    cost_module.PRICES.load()
    base = time.mktime((2026, 11, 20, 12, 0, 0, 0, 0, -1))
    figures = {}
    for name, lines in {
        "standard": assistant_lines("m1", "claude-opus-5-5", _usage(10, 1000, 0, 0, 1000), base),
        "fast": assistant_lines("m1", "claude-opus-5-5", _usage(10, 1000, 0, 0, 1000, "fast"), base),
        "short": assistant_lines("m1", "claude-sonnet-4-5", _usage(10, 1000, 0, 0, 190000), base),
        "long": assistant_lines("m1", "claude-sonnet-4-5", _usage(10, 1000, 0, 0, 210000), base),
    }.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(lines)
        figures[name] = _read_whole(path).usd  # type: ignore[union-attr]
        assert figures[name] == library_cost(path).usd
    assert figures["fast"] > figures["standard"]
    assert figures["long"] / 210010 > figures["short"] / 190010  # per token: the tier above 200k
    march = tmp_path / "march.jsonl"
    march.write_bytes(dated_turns("m"))
    by_day = _read_whole(march).days  # type: ignore[union-attr]
    assert len(by_day) == 2 and len(set(by_day.values())) == 2, "the same usage, priced differently after 2026-03-13"


def test_read_from_the_end_then_the_head_is_the_same_figure(transcript: Path) -> None:
    cost_module.PRICES.load()
    # A window of 3 lines: the cut falls inside the file, with messages on both sides of it.
    reader = TranscriptReader(transcript, window=3)
    reader.read_tail()
    assert reader.head_pending and reader.stats.cost is None, "a part of the bill is no figure"
    head = reader.count_head()
    assert head is not None and reader.take_head(head)
    assert reader.stats.cost == _read_whole(transcript)


def test_messages_counted_before_genai_prices_loads_wait_and_are_priced_after(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = Prices()
    monkeypatch.setattr(stats_module, "PRICES", fresh)
    reader = TranscriptReader(transcript)
    reader.read()
    assert reader.stats.spend.pending and reader.stats.cost is None
    fresh.load()
    reader.stats.spend.price_pending(fresh)  # a thread's part: the charges only
    assert reader.stats.cost is None
    assert reader.stats.spend.settle(fresh)  # the loop's: into the sums
    assert reader.stats.cost is not None and reader.stats.cost.usd == library_cost(transcript).usd


def test_a_message_added_later_is_priced_as_it_is_read(transcript: Path) -> None:
    cost_module.PRICES.load()
    reader = TranscriptReader(transcript)
    reader.read()
    before = reader.stats.cost
    with transcript.open("ab") as fh:
        fh.write(priced_turns("b", START + 3600, scale=2))
    reader.read()
    after = reader.stats.cost
    assert before is not None and after is not None and after.usd > before.usd
    assert after.usd == library_cost(transcript).usd


def test_a_model_genai_prices_does_not_know_is_said_never_guessed(tmp_path: Path) -> None:
    from tests.costgen import _usage, assistant_lines

    cost_module.PRICES.load()
    path = tmp_path / "x.jsonl"
    path.write_bytes(assistant_lines("m1", UNKNOWN_MODEL, _usage(10, 500, 0, 0, 9000), START))
    cost = _read_whole(path)
    assert cost == Cost(Decimal(0), (UNKNOWN_MODEL,), 9510, {})
    assert cost_text(cost) == f"price unknown (model {UNKNOWN_MODEL})"
    mixed = total([cost, Cost(Decimal("2.5"))])
    assert cost_text(mixed) == f"$2.50 + price unknown (model {UNKNOWN_MODEL})"
    assert total([cost, None]) is None, "a part of a team's bill is no figure"


def test_money_and_the_wire() -> None:
    assert [money(Decimal(v)) for v in ("0", "0.004", "0.005", "12.345", "1234.5")] == [
        "$0.00",
        "<$0.01",
        "$0.01",
        "$12.35",
        "$1,234.50",
    ]
    c = Cost(Decimal("12.3456789012"), ("m",), 7, {"2026-11-27": Decimal("1.5")})
    assert read_cost(json.loads(json.dumps(cost_json(c)))) == c
    for hostile in (None, 3, {"usd": "NaN"}, {"usd": "-1"}, {"usd": 5}, {"usd": "1e999999"}, {"usd": "x" * 100}):
        assert read_cost(hostile) is None, hostile
    odd = read_cost({"usd": "1", "unknown_models": ["\x1b]0;x", 3], "unpriced_tokens": -4, "days": {"bad": "1"}})
    assert odd == Cost(Decimal(1), ("\x1b]0;x",), 0, {})  # shown through the safe-text path, like any name


def test_prices_come_from_the_bundled_data_with_no_network(tmp_path: Path) -> None:
    """In a process where any connection fails loudly, the prices load and a message is priced."""
    code = r"""
import socket, sys
def refuse(*a, **k):
    raise AssertionError("teamtui tried the network")
socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from teamtui.protocol.cost import PRICES, price_data
PRICES.load()
assert PRICES.error is None, PRICES.error
usd = PRICES.price("claude-opus-5-5", {"input_tokens": 10, "output_tokens": 10}, 1.79e9)
data = price_data()
import threading
assert [t.name for t in threading.enumerate()] == ["MainThread"], "no update thread"
print(usd, data.version, data.bundled, data.newest)
"""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    usd, version, bundled, newest = proc.stdout.split()
    assert Decimal(usd) > 0 and version.startswith("0.2.") and bundled == "True" and newest[:2] == "20"
