"""QuietCollector: CPython's full collections wait for a pause in the user's typing, and still run."""

from __future__ import annotations

import asyncio
import gc

import pytest

from teamtui.tui.collector import DUE_AFTER, FORCE_AFTER, QUIET_AFTER, QuietCollector


async def _young_collections(n: int) -> None:
    for _ in range(n):
        gc.collect(1)
    await asyncio.sleep(0)  # the collector hears of them through the loop


@pytest.fixture
async def collector():
    running = QuietCollector(asyncio.get_running_loop())
    running.start()
    yield running
    running.stop()


async def test_takes_the_full_collections_and_gives_them_back():
    before = gc.get_threshold()
    collector = QuietCollector(asyncio.get_running_loop())
    collector.start()
    try:
        assert gc.get_threshold()[2] > 10_000, "the allocator no longer starts full collections"
        assert gc.get_threshold()[0] >= before[0]
    finally:
        collector.stop()
    assert gc.get_threshold() == before and collector._on_gc not in gc.callbacks


async def test_a_due_collection_waits_for_a_pause_in_typing(collector):
    collector.user_input()
    await _young_collections(DUE_AFTER)
    await asyncio.sleep(QUIET_AFTER / 4)
    assert collector.full_collections == 0, "not while the user is typing"
    await asyncio.sleep(QUIET_AFTER)
    assert collector.full_collections == 1, "once the user paused"


async def test_nobody_typing_collects_at_once_and_nothing_before_it_is_due(collector):
    await _young_collections(DUE_AFTER - 1)
    await asyncio.sleep(0.05)
    assert collector.full_collections == 0
    await _young_collections(1)
    await asyncio.sleep(0.05)
    assert collector.full_collections == 1


async def test_typing_without_a_pause_cannot_put_it_off_for_ever(collector):
    for _ in range(FORCE_AFTER + 5):
        collector.user_input()
        await _young_collections(1)
        await asyncio.sleep(0.01)
        if collector.full_collections:
            break
    assert collector.full_collections == 1
