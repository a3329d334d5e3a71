"""TailReader: complete new lines only, whatever the chunking; truncation and replacement detected."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from teamtui.protocol.tail import TailReader

lines_st = st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b), max_size=30)


@st.composite
def stream_and_cuts(draw):
    lines = draw(lines_st)
    tail = draw(st.binary(max_size=20).filter(lambda b: b"\n" not in b))
    data = b"".join(line + b"\n" for line in lines) + tail
    cuts = sorted(draw(st.sets(st.integers(0, len(data)), max_size=12)))
    return lines, tail, data, cuts


@settings(max_examples=150, deadline=None, database=None)
@given(stream_and_cuts())
def test_any_chunking_yields_exactly_the_lines(case) -> None:
    lines, tail, data, cuts = case
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "inbox.jsonl"
        path.write_bytes(b"")
        reader = TailReader(path, chunk=7)  # a small chunk also exercises reads split mid-line
        got: list[bytes] = []
        numbers: list[int] = []
        bounds = [0, *cuts, len(data)]
        for a, b in zip(bounds, bounds[1:]):
            with open(path, "ab") as fh:
                fh.write(data[a:b])
            batch = reader.read_all()
            assert not batch.reset
            got += batch.lines
            numbers += batch.line_numbers
        assert got == lines
        assert numbers == list(range(1, len(lines) + 1))
        if tail:
            # The partial last line is handed out once its newline arrives, and not before.
            with open(path, "ab") as fh:
                fh.write(b"\n")
            assert reader.read_all().lines == [tail]


def test_partial_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b"')
    r = TailReader(path)
    assert r.read().lines == [b'{"a": 1}']
    assert r.read().lines == []
    with open(path, "ab") as fh:
        fh.write(b": 2}\n")
    assert r.read().lines == [b'{"b": 2}']


def test_truncation_is_detected_and_reread_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"one\ntwo\n")
    r = TailReader(path)
    assert r.read().lines == [b"one", b"two"]
    path.write_bytes(b"3\n")  # a drain, then a new short message
    batch = r.read()
    assert batch.reset and batch.lines == [b"3"]


def test_truncate_then_refill_past_the_old_offset_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"first message\n")
    r = TailReader(path)
    r.read()
    path.write_bytes(b"a different, longer first line\nsecond\n")
    batch = r.read()
    assert batch.reset
    assert batch.lines == [b"a different, longer first line", b"second"]


def test_replaced_file_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"old\n")
    r = TailReader(path)
    r.read()
    new = tmp_path / "new"
    new.write_bytes(b"old\nnew\n")  # same prefix, but another file
    os.replace(new, path)
    batch = r.read()
    assert batch.reset and batch.lines == [b"old", b"new"]


def test_missing_file_then_created(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    r = TailReader(path)
    assert r.read().missing
    path.write_bytes(b"hi\n")
    assert r.read().lines == [b"hi"]
    path.unlink()
    batch = r.read()
    assert batch.missing and batch.reset


def test_overlong_line_is_reported_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"ok\n" + b"x" * 100 + b"\nafter\n")
    r = TailReader(path, max_line_bytes=50, chunk=16)
    batch = r.read_all()
    assert batch.lines == [b"ok", b"after"]
    assert batch.overlong == [(2, 100)]


def test_directory_in_place_of_the_file_is_an_error_not_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.mkdir()
    batch = TailReader(path).read()
    assert batch.error and "directory" in batch.error


ops_st = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.binary(max_size=30)),
        st.tuples(st.just("truncate"), st.just(b"")),
        st.tuples(st.just("replace"), st.binary(max_size=30)),
    ),
    max_size=25,
)


@settings(max_examples=150, deadline=None, database=None)
@given(ops_st)
def test_after_appends_drains_and_replacements_the_reader_holds_the_files_lines(ops) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "inbox.jsonl"
        path.write_bytes(b"")
        reader = TailReader(path, chunk=5)
        seen: list[bytes] = []
        for op, data in ops:
            if op == "append":
                with open(path, "ab") as fh:
                    fh.write(data)
            elif op == "truncate":  # the owner drained its inbox
                with open(path, "r+b") as fh:
                    fh.truncate(0)
            else:  # another file renamed over this one
                tmp = Path(d) / "new"
                tmp.write_bytes(data)
                os.replace(tmp, path)
            batch = reader.read_all()
            if batch.reset:
                seen = []
            seen += batch.lines
            content = path.read_bytes()
            assert seen == content.split(b"\n")[:-1]


def test_reapplying_one_changed_task_reads_only_that_file(native_root: Path) -> None:
    from teamtui.protocol import NativeTeam, TeamState

    store = NativeTeam(native_root, "refactor-auth")
    state = TeamState(store)
    state.load_all()
    before = state.files_read
    store.update_task("3", subject="changed")
    changes = state.apply(store.task_path("3"))
    assert state.files_read == before + 1
    assert [(c.kind, c.key) for c in changes] == [("task", "3")]
    assert state.tasks["3"].subject == "changed"
