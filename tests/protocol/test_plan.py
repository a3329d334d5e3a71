"""The Teammate API patterns' plan.jsonl mapped to tasks, in the patterns' exact schema:
header `p`, `n`, `t`, `d`, `xd`; tasks `id`, `a`, `f`, `td` (plus `v`, `done`, `spec`...)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from teamtui.protocol.models import Task, TaskStatus
from teamtui.protocol.plan import (
    PlanError,
    check_cross_phase,
    link_plans,
    load_plan,
    parse_plan,
    read_summaries,
    task_dicts,
    task_status,
)


def jsonl(*objs) -> str:
    return "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs)


# The reference's concrete example: 03-01 has T1..T7 (T3 waits for T1); 03-02 depends on 03-01.
PLAN_A = jsonl(
    {"p": "03", "n": "01", "t": "Task-level blocking", "w": 1, "d": [], "obj": "Document blocking"},
    *[
        {
            "id": f"T{i}",
            "tp": "auto",
            "a": f"Action {i}",
            "f": [f"references/file{i}.md"],
            "v": "grep passes",
            "done": "section exists",
            "spec": "",
            "ts": "",
        }
        | ({"td": ["T1"]} if i == 3 else {})
        for i in range(1, 8)
    ],
)
PLAN_B = jsonl(
    {
        "p": "03",
        "n": "02",
        "t": "Follow-up",
        "d": ["03-01"],
        "xd": [{"p": "02", "n": "01", "a": "types.ts", "r": "needs API types"}],
    },
    {"id": "T1", "a": "Use the blocking section", "f": ["agents/lead.md"]},
    {"id": "T2", "a": "Add ## Task-Level Blocking section", "f": ["references/teammate-api-patterns.md"], "td": ["T1"]},
)


def test_td_and_the_plan_level_d_become_blocked_by() -> None:
    a, b = parse_plan(PLAN_A, "03-01.plan.jsonl"), parse_plan(PLAN_B, "03-02.plan.jsonl")
    assert (a.plan_id, b.plan_id) == ("03-01", "03-02")
    tasks = {t.key: t for t in link_plans([a, b])}
    a_lines = [json.loads(x) for x in PLAN_A.splitlines()[1:]]
    all_of_a = [f"03-01/{t['id']}" for t in a_lines]
    assert all_of_a == [f"03-01/T{i}" for i in range(1, 8)]
    for t in a_lines:
        assert tasks[f"03-01/{t['id']}"].blocked_by == [f"03-01/{d}" for d in t.get("td", [])]
    assert tasks["03-01/T3"].blocked_by == ["03-01/T1"]
    assert tasks["03-02/T1"].blocked_by == all_of_a
    assert tasks["03-02/T2"].blocked_by == ["03-02/T1", *all_of_a]
    t3 = tasks["03-01/T3"]
    assert (t3.plan_id, t3.task_id, t3.action, t3.files) == ("03-01", "T3", "Action 3", ["references/file3.md"])
    assert t3.extra["v"] == "grep passes"


def test_board_tasks_get_file_safe_ids_and_keep_plan_id_and_task_id() -> None:
    tasks = link_plans([parse_plan(PLAN_A), parse_plan(PLAN_B)])
    dicts = task_dicts(tasks, first_id=10)
    by_key = {d["metadata"]["plan_task"]: d for d in dicts}
    assert [d["id"] for d in dicts] == [str(i) for i in range(10, 10 + len(tasks))]
    assert all("/" not in d["id"] and d["status"] == "pending" and d["owner"] == "" for d in dicts)
    b2 = by_key["03-02/T2"]
    assert (b2["metadata"]["plan_id"], b2["metadata"]["task_id"]) == ("03-02", "T2")
    assert b2["blocked_by"] == [by_key[k]["id"] for k in ["03-02/T1"] + [f"03-01/T{i}" for i in range(1, 8)]]
    assert b2["files"] == ["references/teammate-api-patterns.md"]
    # `blocks` is the other side of every blocked_by.
    for d in dicts:
        for dep in d["blocked_by"]:
            assert d["id"] in next(x for x in dicts if x["id"] == dep)["blocks"]
    for task in dicts:  # and the board reads them
        assert Task.model_validate(task).status == TaskStatus.PENDING


def test_a_plan_depending_on_one_imported_earlier_uses_its_known_tasks() -> None:
    b = parse_plan(PLAN_B)
    with pytest.raises(PlanError, match="depends on plan 03-01, which is neither imported nor known"):
        link_plans([b])
    tasks = link_plans([b], known={"03-01": ["03-01/T1", "03-01/T2"]})
    assert tasks[0].blocked_by == ["03-01/T1", "03-01/T2"]
    assert task_dicts(tasks)[0]["blocked_by"] == ["03-01/T1", "03-01/T2"]  # not in this import: kept as keys


def test_cross_phase_deps_are_checked_against_summaries(tmp_path: Path) -> None:
    phase = tmp_path / "phases" / "02-api"
    phase.mkdir(parents=True)
    plans = [parse_plan(PLAN_B)]
    assert [
        (c.dep.plan_id, c.dep.artifact, c.status, c.ok) for c in check_cross_phase(plans, read_summaries(tmp_path))
    ] == [("02-01", "types.ts", "missing", False)]
    (phase / "02-01.summary.jsonl").write_text(
        jsonl({"p": "02", "n": "01", "t": "API", "s": "partial", "tc": 3, "tt": 4})
    )
    assert [c.status for c in check_cross_phase(plans, read_summaries(tmp_path))] == ["partial"]
    (phase / "02-01.summary.jsonl").write_text(
        jsonl({"p": "02", "n": "01", "t": "API", "s": "complete", "tc": 4, "tt": 4})
    )
    checks = check_cross_phase(plans, read_summaries(tmp_path))
    assert [(c.plan_id, c.status, c.ok, c.dep.reason) for c in checks] == [
        ("03-02", "complete", True, "needs API types")
    ]


@pytest.mark.parametrize(
    ("text", "lines", "says"),
    [
        ("", [0], "empty plan"),
        (jsonl({"p": "03"}, {"id": "T1", "a": "x"}), [1], "'n' (plan number)"),
        (jsonl({"p": "03", "n": "01"}, {"id": "T1", "a": "x"}) + '{"id": "T2", "a": \n', [3], "not valid JSON"),
        (jsonl({"p": "03", "n": "01"}, ["T1", "x"]), [2], "expected a JSON object"),
        (jsonl({"p": "03", "n": "01"}, {"id": "T1"}), [2], "'a' (the action)"),
        (jsonl({"p": "03", "n": "01"}, {"id": "T1", "a": "x", "f": "src/a.py"}), [2], "'f' must be a list"),
        (jsonl({"p": "03", "n": "01"}, {"id": "T1", "a": "x"}, {"id": "T1", "a": "y"}), [3], "used twice"),
        (jsonl({"p": "03", "n": "01"}, {"id": "T1", "a": "x", "td": ["T9"]}), [2], "does not have"),
        (jsonl({"p": "03", "n": "01"}, {"id": "../T1", "a": "x"}), [2], "'id' must be a task id"),
        (jsonl({"p": "../03", "n": "01"}, {"id": "T1", "a": "x"}), [1], "'p' (phase)"),
        (jsonl({"p": "03", "n": "01", "d": "03-00"}, {"id": "T1", "a": "x"}), [1], "'d' must be a list"),
        (jsonl({"p": "03", "n": "01", "xd": [{"a": "x"}]}, {"id": "T1", "a": "x"}), [1], "'xd' entry 1"),
        (jsonl({"p": "03", "n": "01"}), [0], "no tasks"),
        ("[" * 5000 + "\n", [1], "not valid JSON"),
    ],
)
def test_a_malformed_plan_names_its_lines_and_writes_nothing(
    tmp_path: Path, text: str, lines: list[int], says: str
) -> None:
    path = tmp_path / "03-01.plan.jsonl"
    path.write_text(text)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in tmp_path.iterdir()}
    with pytest.raises(PlanError) as err:
        load_plan(path)
    assert [no for no, _ in err.value.problems] == lines
    assert says in str(err.value)
    if lines != [0]:
        assert f"{path}:{lines[0]}:" in str(err.value)
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in tmp_path.iterdir()} == before


def test_every_bad_line_is_reported_at_once(tmp_path: Path) -> None:
    text = jsonl({"p": "03", "n": "01"}, {"id": "T1"}, {"id": "T2", "a": "ok"}, {"id": "T3", "a": "x", "td": "T1"})
    with pytest.raises(PlanError) as err:
        parse_plan(text)
    assert [no for no, _ in err.value.problems] == [2, 4]


def test_a_plan_that_is_not_text_or_not_a_file_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.plan.jsonl"
    bad.write_bytes(jsonl({"p": "03", "n": "01"}).encode() + b'{"id":"T1","a":"\xff"}\n')
    with pytest.raises(PlanError, match=r":2: not UTF-8"):
        load_plan(bad)
    with pytest.raises(PlanError, match="not a regular file"):
        load_plan(tmp_path)
    fifo = tmp_path / "fifo.plan.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(PlanError, match="not a regular file"):  # and no hang waiting for a writer
        load_plan(fifo)
    with pytest.raises(PlanError, match="cannot read"):
        load_plan(tmp_path / "absent.plan.jsonl")


def test_tasks_waiting_for_each_other_in_a_circle_are_refused() -> None:
    a = parse_plan(
        jsonl({"p": "04", "n": "01"}, {"id": "T1", "a": "x", "td": ["T2"]}, {"id": "T2", "a": "y", "td": ["T1"]})
    )
    with pytest.raises(PlanError, match="circle: 04-01/T1 → 04-01/T2 → 04-01/T1"):
        link_plans([a])
    b = parse_plan(jsonl({"p": "04", "n": "02", "d": ["04-03"]}, {"id": "T1", "a": "x"}))
    c = parse_plan(jsonl({"p": "04", "n": "03", "d": ["04-02"]}, {"id": "T1", "a": "y"}))
    with pytest.raises(PlanError, match="circle"):
        link_plans([b, c])


def test_the_patterns_statuses_read_as_the_boards() -> None:
    expected = {"available": TaskStatus.PENDING, "claimed": TaskStatus.IN_PROGRESS, "complete": TaskStatus.COMPLETED}
    for theirs, ours in expected.items():
        assert Task.model_validate({"id": "T3", "status": task_status(theirs)}).status == ours
    for ours in TaskStatus:
        assert task_status(ours.value) == ours.value
    assert task_status("bogus") == "bogus" and task_status(None) is None
