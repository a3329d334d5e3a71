"""The Teammate API patterns' plans (`{NN-MM}.plan.jsonl`) as task definitions.

Line 1 is the plan header: `p` (phase) and `n` (plan number) make the plan id `p-n` ("03-01");
`d` lists plans this one waits for (every task here is blocked by every task there); `xd` lists
cross-phase artifacts (`{p, n, a, r}`) that must be complete before any task is created.
Lines 2+ are tasks: `id` ("T1"), `a` (action), `f` (files), `td` (tasks of this plan it waits for).
A task's key is `<plan id>/<task id>` ("03-01/T1"); `blocked_by` holds keys.

Parsing writes nothing; a malformed plan raises PlanError naming every bad line.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The patterns' task statuses are read with every task file, so they live in the models.
from teamtui.protocol.models import PATTERN_STATUSES, task_status  # noqa: F401

# A plan larger than this is refused rather than loaded.
MAX_PLAN_BYTES = 4 * 1024 * 1024
_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class PlanError(ValueError):
    """A plan that cannot be imported: every problem with its line number (0: the whole file)."""

    def __init__(self, source: str, problems: list[tuple[int, str]]):
        self.source = source
        self.problems = problems
        super().__init__("\n".join(f"{source}:{no}: {why}" if no else f"{source}: {why}" for no, why in problems))


@dataclass(frozen=True, slots=True)
class CrossPhaseDep:
    """One `xd` entry: an artifact of another phase's plan that must be complete first."""

    plan_id: str
    artifact: str = ""
    reason: str = ""


@dataclass(slots=True)
class PlanTask:
    plan_id: str
    task_id: str
    action: str
    files: list[str] = field(default_factory=list)
    # Keys ("03-01/T1") of the tasks this one waits for.
    blocked_by: list[str] = field(default_factory=list)
    # The task line's other keys (`v`, `done`, `spec`, `ts`, `tp`...), kept as written.
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.plan_id}/{self.task_id}"


@dataclass(slots=True)
class Plan:
    plan_id: str
    source: str
    title: str = ""
    depends_on: list[str] = field(default_factory=list)
    cross_phase: list[CrossPhaseDep] = field(default_factory=list)
    tasks: list[PlanTask] = field(default_factory=list)
    header: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CrossPhaseCheck:
    plan_id: str
    dep: CrossPhaseDep
    # The summary's `s` ("complete", "partial", "failed"), or "missing" when no summary was found.
    status: str

    @property
    def ok(self) -> bool:
        return self.status == "complete"


def _part(value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return value if isinstance(value, str) and _PART.fullmatch(value) else None


def _strings(value: object) -> list[str] | None:
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def parse_plan(text: str, source: str = "plan.jsonl") -> Plan:
    """One plan.jsonl. Raises PlanError listing each malformed line; nothing else happens."""
    problems: list[tuple[int, str]] = []
    lines = [(no, raw) for no, raw in enumerate(text.split("\n"), 1) if raw.strip()]
    if not lines:
        raise PlanError(source, [(0, "empty plan: line 1 must be the plan header")])
    decoded: list[tuple[int, dict[str, object]]] = []
    for no, raw in lines:
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            problems.append((no, f"not valid JSON ({exc.__class__.__name__}: {str(exc)[:80]})"))
            continue
        if not isinstance(obj, dict):
            problems.append((no, f"expected a JSON object, got {type(obj).__name__}"))
            continue
        decoded.append((no, obj))
    if problems:
        raise PlanError(source, problems)
    (hno, head), task_lines = decoded[0], decoded[1:]
    plan = _header(hno, head, source, problems)
    seen: set[str] = set()
    for no, obj in task_lines:
        task = _task(no, obj, plan.plan_id, problems)
        if task is None:
            continue
        if task.task_id in seen:
            problems.append((no, f"task id {task.task_id!r} is used twice"))
            continue
        seen.add(task.task_id)
        plan.tasks.append(task)
    for no, obj in task_lines:
        for dep in _strings(obj.get("td")) or []:
            if dep not in seen:
                problems.append((no, f"td names {dep!r}, which this plan does not have"))
            elif dep == obj.get("id"):
                problems.append((no, f"task {dep!r} waits for itself"))
    if not plan.tasks and not problems:
        problems.append((0, "the plan has no tasks (lines 2+)"))
    if problems:
        raise PlanError(source, problems)
    return plan


def _header(no: int, head: dict[str, Any], source: str, problems: list[tuple[int, str]]) -> Plan:
    p, n = _part(head.get("p")), _part(head.get("n"))
    if p is None or n is None:
        problems.append((no, "the header needs 'p' (phase) and 'n' (plan number), e.g. \"03\" and \"01\""))
    title = head.get("t")
    plan = Plan(f"{p}-{n}", source, title=title if isinstance(title, str) else "", header=head)
    deps = head.get("d", [])
    if _strings(deps) is None or any(_part(d) is None for d in deps):
        problems.append((no, "'d' must be a list of plan ids like \"03-01\""))
    else:
        plan.depends_on = list(deps)
    xd = head.get("xd", [])
    if not isinstance(xd, list):
        problems.append((no, "'xd' must be a list of {p, n, a, r} objects"))
        xd = []
    for i, dep in enumerate(xd):
        if isinstance(dep, dict) and _part(dep.get("p")) and _part(dep.get("n")):
            art, why = dep.get("a", ""), dep.get("r", "")
            plan.cross_phase.append(
                CrossPhaseDep(
                    f"{_part(dep['p'])}-{_part(dep['n'])}",
                    art if isinstance(art, str) else "",
                    why if isinstance(why, str) else "",
                )
            )
        elif isinstance(dep, str) and _part(dep):
            plan.cross_phase.append(CrossPhaseDep(dep))
        else:
            problems.append((no, f"'xd' entry {i + 1} needs 'p' and 'n'"))
    return plan


def _task(no: int, obj: dict[str, object], plan_id: str, problems: list[tuple[int, str]]) -> PlanTask | None:
    tid, action = _part(obj.get("id")), obj.get("a")
    files, td = _strings(obj.get("f", [])), _strings(obj.get("td", []))
    bad = [
        why
        for ok, why in (
            (tid is not None, "'id' must be a task id like \"T1\""),
            (isinstance(action, str) and action.strip(), "'a' (the action) must be a non-empty string"),
            (files is not None, "'f' must be a list of file paths"),
            (td is not None, "'td' must be a list of task ids"),
        )
        if not ok
    ]
    if bad:
        problems.extend((no, why) for why in bad)
        return None
    assert tid is not None and isinstance(action, str) and files is not None and td is not None  # as checked above
    extra = {k: v for k, v in obj.items() if k not in ("id", "a", "f", "td")}
    return PlanTask(plan_id, tid, action, list(files), [f"{plan_id}/{d}" for d in td], extra)


def load_plan(path: Path) -> Plan:
    """Read and parse one plan file (refusing one too large, or not a file)."""
    try:
        # Non-blocking: a FIFO in place of a plan must not hang the import.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise PlanError(str(path), [(0, f"cannot read: {exc.strerror or exc}")]) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PlanError(str(path), [(0, "not a regular file")])
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise PlanError(str(path), [(0, f"cannot read: {exc.strerror or exc}")]) from None
    finally:
        os.close(fd)
    if len(data) > MAX_PLAN_BYTES:
        raise PlanError(str(path), [(0, f"larger than {MAX_PLAN_BYTES} bytes")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise PlanError(str(path), [(line, "not UTF-8 text")]) from None
    return parse_plan(text, str(path))


def link_plans(plans: Iterable[Plan], known: Mapping[str, Iterable[str]] | None = None) -> list[PlanTask]:
    """Every task of `plans`, with each plan's `d` added: all task keys of each plan it names.
    `known` gives the task keys of plans imported earlier. A `d` naming a plan found in neither,
    or a plan id given twice, raises PlanError."""
    plans = list(plans)
    keys: dict[str, list[str]] = {pid: list(ks) for pid, ks in (known or {}).items()}
    problems: list[tuple[int, str]] = []
    for plan in plans:
        if plan.plan_id in keys and plan.plan_id not in (known or {}):
            problems.append((0, f"plan {plan.plan_id} is given twice ({plan.source})"))
        keys[plan.plan_id] = [t.key for t in plan.tasks]
    tasks = []
    for plan in plans:
        extra: list[str] = []
        for dep in plan.depends_on:
            if dep == plan.plan_id:
                problems.append((1, f"plan {plan.plan_id} ({plan.source}) depends on itself"))
            elif dep not in keys:
                problems.append(
                    (
                        1,
                        f"plan {plan.plan_id} ({plan.source}) depends on plan {dep}, which is neither imported nor known",
                    )
                )
            else:
                extra.extend(keys[dep])
        for t in plan.tasks:
            t.blocked_by = t.blocked_by + [k for k in extra if k not in t.blocked_by]
            tasks.append(t)
    cycle = _cycle({t.key: t.blocked_by for t in tasks})
    if cycle:
        problems.append((0, "tasks wait for each other in a circle: " + " → ".join(cycle)))
    if problems:
        raise PlanError("plans", problems)
    return tasks


def _cycle(graph: dict[str, list[str]]) -> list[str]:
    """One dependency circle in `graph` (key → keys it waits for), or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in graph:
        if state.get(start):
            continue
        path, stack = [start], [iter(graph.get(start, []))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif not state.get(nxt) and nxt in graph:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(graph[nxt]))
    return []


def check_cross_phase(plans: Iterable[Plan], summaries: Mapping[str, str]) -> list[CrossPhaseCheck]:
    """Each `xd` of each plan against `summaries` (plan id → its summary's `s`)."""
    return [
        CrossPhaseCheck(p.plan_id, dep, summaries.get(dep.plan_id, "missing")) for p in plans for dep in p.cross_phase
    ]


def read_summaries(root: Path, limit: int = 10_000) -> dict[str, str]:
    """Plan id → status `s` from the `{NN-MM}.summary.jsonl` files under `root` (single-line
    files `{p, n, s, ...}`). Unreadable summaries are skipped: their plans count as missing."""
    found: dict[str, str] = {}
    for i, path in enumerate(sorted(Path(root).rglob("*.summary.jsonl"))):
        if i >= limit:
            break
        try:
            with open(path, "rb") as fh:
                first = fh.readline(64 * 1024)
            rec = json.loads(first)
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(rec, dict) and _part(rec.get("p")) and _part(rec.get("n")) and isinstance(rec.get("s"), str):
            found[f"{_part(rec['p'])}-{_part(rec['n'])}"] = rec["s"]
    return found


def task_dicts(tasks: list[PlanTask], first_id: int = 1) -> list[dict[str, Any]]:
    """Board task dicts with numeric ids from `first_id` (a `/` cannot be in a task file name);
    `blocked_by` and `blocks` hold those ids, and `metadata` keeps `plan_id`, `task_id`, `plan_task`.
    A `blocked_by` key outside `tasks` (a plan imported earlier) stays as its key."""
    ids = {t.key: str(first_id + i) for i, t in enumerate(tasks)}
    blocks: dict[str, list[str]] = {}
    for t in tasks:
        for dep in t.blocked_by:
            if dep in ids:
                blocks.setdefault(ids[dep], []).append(ids[t.key])
    out = []
    for t in tasks:
        tid = ids[t.key]
        subject = next((ln.strip() for ln in t.action.split("\n") if ln.strip()), t.key)
        out.append(
            {
                "id": tid,
                "subject": subject,
                "description": t.action,
                "status": "pending",
                "owner": "",
                "blocks": blocks.get(tid, []),
                "blocked_by": [ids.get(k, k) for k in t.blocked_by],
                "files": t.files,
                "metadata": {
                    "plan_id": t.plan_id,
                    "task_id": t.task_id,
                    "plan_task": t.key,
                    **({"plan": t.extra} if t.extra else {}),
                },
            }
        )
    return out
