"""Seeing the lead's signed `permission_response` reach a pane teammate's inbox.

The teammate takes a new entry out of its inbox within about a second, so the inbox is watched
(watchfiles, in a thread, running before whatever should cause the response) and read on each
change. Only an entry from the lead, carrying `lead_sig` (the lead signs what it writes to pane
teammates) and, when known, the request's id counts; entries already there when the watch
started do not.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from teamtui.protocol.store import TeamStore


class ResponseWatch:
    def __init__(self, store: TeamStore, teammate: str, request_id: str = ""):
        self.store = store
        self.path = store.inbox_path(teammate)
        self.request_id = request_id
        self.response: dict[str, object] | None = None
        self._found = threading.Event()
        self._before: set[str] = set()
        self._watch: Any = None
        self._thread = threading.Thread(target=self._run, name="teamtui-response-watch", daemon=True)

    def __enter__(self) -> ResponseWatch:
        from teamtui.protocol.filewatch import FileWatch

        try:
            self._watch = FileWatch(self.path.parent)  # in place before anything can cause the response
        except (OSError, RuntimeError):
            return self  # no inbox folder to watch: wait() says nothing came
        self._before = {self._key(e) for e in self._entries()}
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._watch is not None:
            self._watch.stop.set()

    def wait(self, timeout: float) -> dict[str, object] | None:
        self._found.wait(timeout)
        return self.response

    def _entries(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.path.read_bytes()[: 16 << 20])
        except (OSError, ValueError, RecursionError):
            return []
        return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []

    @staticmethod
    def _key(entry: dict[str, object]) -> str:
        return str(entry.get("msg_id") or (entry.get("timestamp"), entry.get("text")))

    def _look(self) -> None:
        lead = self.store.lead_name
        for entry in self._entries():
            if entry.get("from") != lead or not entry.get("lead_sig") or self._key(entry) in self._before:
                continue
            try:
                payload = json.loads(entry.get("text") or "")
            except (TypeError, ValueError, RecursionError):
                continue
            if not isinstance(payload, dict) or payload.get("type") != "permission_response":
                continue
            if self.request_id and payload.get("request_id") != self.request_id:
                continue
            self.response = payload
            self._found.set()
            return

    def _run(self) -> None:
        try:
            for _ in self._watch.changes(debounce_ms=20, step_ms=5):
                self._look()
                if self._found.is_set():
                    return
        finally:
            self._watch.close()
