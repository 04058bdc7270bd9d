"""Reading a watch stream in tests: events as dicts, with a deadline."""

from __future__ import annotations

import json
import queue
import threading
from typing import Any


class WatchReader:
    """Reads a watch on a thread so a test can wait for events with a timeout."""

    def __init__(self, client: Any, path: str, params: dict[str, Any]) -> None:
        self.events: queue.Queue[dict | None] = queue.Queue()
        self._lines = client.stream(path, params={"watch": "1", **params})
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for line in self._lines:
                self.events.put(json.loads(line))
        finally:
            self.events.put(None)

    def next(self, timeout: float = 5.0) -> dict | None:
        return self.events.get(timeout=timeout)

    def take(self, count: int, timeout: float = 5.0) -> list[dict]:
        return [self.next(timeout) for _ in range(count)]

    def types_and_names(self, count: int) -> list[tuple[str, str]]:
        return [(e["type"], e["object"]["metadata"].get("name", "")) for e in self.take(count)]
