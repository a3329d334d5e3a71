"""Fixtures for the history database: a private database and writer per test."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamtui.protocol.history.db import connect
from teamtui.protocol.history.ops import Txn
from teamtui.protocol.history.writer import HistoryWriter


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state" / "teamtui" / "history.sqlite3"


@pytest.fixture
def writer(db: Path) -> Iterator[HistoryWriter]:
    w = HistoryWriter(db, keep_days=3650)
    yield w
    w.close()


def rows(db: Path, sql: str, *args: object) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def apply_ops(path: Path, ops: list[tuple]) -> None:
    """Record `ops` (the writer's operations) into the history at `path` in one transaction."""
    con = connect(path)
    con.execute("BEGIN")
    txn = Txn(con)
    for op in ops:
        txn.apply(op)
    txn.finish()
    con.execute("COMMIT")
    con.close()
