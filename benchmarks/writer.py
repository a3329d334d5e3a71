"""The other process: writes a team's files the way teammates do, and says when.

Two modes (plain os calls, no teamtui import, so it is a stranger to the app):

  writer.py ROOT cmd      reads commands on stdin, one JSON object a line:
                            {"op": "log",   "member": "m000", "token": "L0001"}   append a log line
                            {"op": "inbox", "member": "m000", "token": "I0001"}   append an inbox line
                            {"op": "task",  "task": 1, "members": 5, "token": "T0001"}  rewrite a task file
                            {"op": "quit"}
                          and answers each with {"token": ..., "t": <time.time() just before the write>}.
  writer.py ROOT load N RATE SECONDS
                          N teammates each append RATE log lines a second for SECONDS; every line
                          carries its write time in "ts" and a token "S<member>-<seq>"; at the end one
                          JSON line {"written": count, "late": worst lag behind schedule in s}.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from teamgen import inbox_path, log_path, member_name, task_dict, task_path


def append(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def rewrite_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def do(root: Path, cmd: dict) -> float:
    op, token = cmd["op"], cmd.get("token", "")
    t = time.time()
    if op == "log":
        line = {"ts": t, "level": "info", "text": f"{token} benchmark log line"}
        append(log_path(root, cmd["member"]), (json.dumps(line) + "\n").encode())
    elif op == "inbox":
        line = {"type": "message", "sender": "lead", "content": f"{token} benchmark message", "timestamp": t}
        append(inbox_path(root, cmd["member"]), (json.dumps(line) + "\n").encode())
    elif op == "task":
        d = task_dict(cmd["task"], cmd["members"], subject=f"{token} rewritten task")
        rewrite_atomic(task_path(root, cmd["task"]), (json.dumps(d, indent=2) + "\n").encode())
    else:
        raise ValueError(op)
    return t


def command_mode(root: Path) -> None:
    out = sys.stdout
    for raw in sys.stdin:
        cmd = json.loads(raw)
        if cmd["op"] == "quit":
            break
        t = do(root, cmd)
        out.write(json.dumps({"token": cmd.get("token", ""), "t": t}) + "\n")
        out.flush()


def load_mode(root: Path, members: int, rate: float, seconds: float) -> None:
    names = [member_name(i) for i in range(members)]
    fds = {n: os.open(log_path(root, n), os.O_WRONLY | os.O_APPEND) for n in names}
    interval = 1.0 / (rate * members)  # one line at a time, round robin over the teammates
    start = time.time()
    n = 0
    late = 0.0
    seq = dict.fromkeys(names, 0)
    sys.stdout.write(json.dumps({"start": start}) + "\n")
    sys.stdout.flush()
    try:
        while True:
            due = start + n * interval
            if due - start >= seconds:
                break
            now = time.time()
            if due > now:
                time.sleep(due - now)
            else:
                late = max(late, now - due)
            name = names[n % members]
            seq[name] += 1
            t = time.time()
            line = {"ts": t, "level": "info", "text": f"S{name}-{seq[name]} sustained load line"}
            os.write(fds[name], (json.dumps(line) + "\n").encode())
            n += 1
    finally:
        for fd in fds.values():
            os.close(fd)
    sys.stdout.write(json.dumps({"written": n, "late": late, "end": time.time()}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    root = Path(sys.argv[1])
    if sys.argv[2] == "cmd":
        command_mode(root)
    else:
        load_mode(root, int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]))
