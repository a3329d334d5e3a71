"""A simulated teammate for `teamtui demo`: claims tasks, logs plausible progress, messages its
teammates, answers shutdown requests. DEMO_ROLE=crash crashes once mid-task; DEMO_ROLE=pending
finishes its notes before shutting down and reports pending work."""

from __future__ import annotations

import os
import random
import sys
import time

from teamtui.protocol.models import Message, Task
from teamtui.protocol.teammate import Teammate

STEPS = [
    ("info", "reading {files}"),
    ("info", "sketching the change for #{id}"),
    ("info", "editing {files}"),
    ("info", "running the tests for #{id}"),
]
HICCUPS = [
    ("warning", "flaky test in {files}, retrying"),
    ("warning", "lint: line too long in {files}"),
    ("error", "type check failed on {files}; fixing"),
]


class DemoTeammate:
    def __init__(self) -> None:
        self.me = Teammate.from_env()
        self.speed = float(os.environ.get("DEMO_SPEED", "1") or 1)
        self.role = os.environ.get("DEMO_ROLE", "")
        self.rng = random.Random(f"{self.me.name}-{os.getpid()}")
        self.crash_marker = self.me.team.team_dir / f".demo-crashed-{self.me.name}"

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds / self.speed)

    def run(self) -> int:
        me = self.me
        me.log(f"{me.name} joined team {me.team.name} ({os.environ.get('TEAMTUI_AGENT_ID', '')})")
        while True:
            wake = me.idle_loop(timeout=60 / self.speed)
            for m in wake.messages:
                self.read(m)
            if wake.shutdown is not None:
                return self.shut_down(wake.shutdown, None)
            if wake.task is not None:
                code = self.work(wake.task)
                if code is not None:
                    return code

    def read(self, m: Message) -> None:
        self.me.log(f"{m.type} from {m.sender}: {m.content}", "debug" if m.type == "broadcast" else "info")

    def work(self, task: Task) -> int | None:
        me = self.me
        files = ", ".join(task.files) or "the codebase"
        for path in task.files:  # Specflow's broadcast names one file
            me.broadcast(f"TOUCHING_FILE {path} for #{task.id}")
        duration = self.rng.uniform(10, 20)
        steps = list(STEPS)
        if self.rng.random() < 0.4:
            steps.insert(self.rng.randrange(1, len(steps)), self.rng.choice(HICCUPS))
        for i, (level, text) in enumerate(steps):
            me.log(text.format(files=files, id=task.id), level)
            self.sleep(duration / len(steps))
            if self.role == "crash" and i == 1 and self.crash_once():
                me.log(f"worker process crashed while on #{task.id} (simulated)", "error")
                sys.stdout.flush()
                os._exit(3)
            request = me.shutdown_requested()
            if request is not None:
                return self.shut_down(request, task)
        me.complete(task.id, f"{task.subject}: done, tests green")
        self.tell_a_teammate(task)
        return None

    def crash_once(self) -> bool:
        try:
            fd = os.open(self.crash_marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        os.close(fd)
        return True

    def tell_a_teammate(self, task: Task) -> None:
        cfg = self.me.team.read_config()
        others = [m.name for m in cfg.members if m.name != self.me.name and m.status.value != "shutdown"]
        if not others:
            return
        to = self.rng.choice(others)
        if task.blocks:
            text = f"#{task.id} is done, so #{', #'.join(task.blocks)} can start"
        else:
            text = f"finished #{task.id} ({task.subject}); anything you need from me?"
        self.me.send(to, text)

    def shut_down(self, request: Message, task: Task | None) -> int:
        me = self.me
        if task is not None:
            me.log(f"shutdown requested while on #{task.id}: stopping, the task goes back to the board", "warning")
            me.release(task.id)
            me.answer_shutdown(request, status="in_progress", pending_work=[f"#{task.id} {task.subject}"])
        elif self.role == "pending":
            me.log("shutdown requested: finishing my handover notes first")
            self.sleep(3)
            me.answer_shutdown(
                request,
                status="in_progress",
                pending_work=["handover notes saved as a draft, not proofread"],
                artifacts_committed=True,
                reason="Handover notes saved as a draft; proofreading is left.",
            )
        else:
            me.answer_shutdown(request, artifacts_committed=True)
        me.log("shutting down")
        return 0


def main() -> int:
    return DemoTeammate().run()


if __name__ == "__main__":
    raise SystemExit(main())
