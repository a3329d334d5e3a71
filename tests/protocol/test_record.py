"""The value classes that replaced dataclasses on the CLI's path keep what callers relied on:
equality by fields, a readable repr, and (frozen ones) a hash and no assignment."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from teamtui.protocol.board import TaskState, TaskView
from teamtui.protocol.errors import ReadError
from teamtui.protocol.models import Task
from teamtui.protocol.changes import Change, ChangeKind
from teamtui.protocol.store import FileRef
from teamtui.tmux.mode import ModeDecision


def test_a_frozen_record_compares_hashes_and_refuses_assignment_like_a_frozen_dataclass() -> None:
    err = ReadError(Path("inbox.jsonl"), "bad JSON", 3)
    assert err == ReadError(Path("inbox.jsonl"), "bad JSON", line=3)
    assert err != ReadError(Path("inbox.jsonl"), "bad JSON", 4)
    assert err != FileRef("inbox", "bad JSON")  # another class is never equal
    assert len({err, ReadError(Path("inbox.jsonl"), "bad JSON", 3)}) == 1
    assert repr(err) == "ReadError(path=PosixPath('inbox.jsonl'), reason='bad JSON', line=3)"
    assert str(err) == "inbox.jsonl:3: bad JSON"
    with pytest.raises(AttributeError):
        err.line = 4  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del err.reason
    assert pickle.loads(pickle.dumps(err)) == err and copy.deepcopy(err) == err
    assert ModeDecision("tmux") == ModeDecision("tmux", "") != ModeDecision("tmux", "why")


def test_a_mutable_record_gets_fresh_defaults_and_is_unhashable() -> None:
    a, b = Change(ChangeKind.LOG, "ann"), Change(ChangeKind.LOG, "ann")
    assert a == b and a.messages is not b.messages  # each its own list, like default_factory
    a.entries.append("x")  # type: ignore[arg-type]
    assert a != b and b.entries == []
    with pytest.raises(TypeError):
        hash(a)
    view = TaskView(Task.model_validate({"id": "1"}), TaskState.READY)
    assert view.open_blockers == [] and view.held == "" and view.blocked_reason == ""
    assert repr(a).startswith("Change(kind=<ChangeKind.LOG: 'log'>, key='ann', detail=''")
    with pytest.raises(AttributeError):
        a.extra = 1  # type: ignore[attr-defined]  # slots: no stray attributes
