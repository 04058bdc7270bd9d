"""Running a real kopf operator against a test server: the handlers a test gives, each recording
what it saw as one JSON line, so the test reads the operator's reactions in order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from svc.testing.harness import RunningServer

_PREAMBLE = textwrap.dedent(
    """
    import json
    import kopf

    def record(kind, name, value):
        with open({log!r}, "a") as handle:
            handle.write(json.dumps([kind, name, value]) + "\\n")
    """
)
_WAIT_SECONDS = 60


@dataclass(frozen=True)
class KopfOperator:
    log: Path

    def events(self) -> list[list]:
        """Every `record(kind, name, value)` the handlers made so far, oldest first."""
        return [json.loads(line) for line in self.log.read_text().splitlines()] if self.log.exists() else []

    def wait_for(self, count: int) -> list[list]:
        """The recorded events once there are `count` of them (or all there are after a minute)."""
        deadline = time.monotonic() + _WAIT_SECONDS
        while time.monotonic() < deadline and len(self.events()) < count:
            time.sleep(0.2)
        return self.events()


@contextmanager
def running_kopf(server: RunningServer, handlers: str, directory: Path) -> Iterator[KopfOperator]:
    """`kopf run --standalone -n default` of `handlers` (module source that may call `record`)
    against `server`; stopped on exit, its output printed for the test report."""
    operator = KopfOperator(directory / "events.jsonl")
    source = directory / "operator.py"
    source.write_text(_PREAMBLE.format(log=str(operator.log)) + textwrap.dedent(handlers))
    process = subprocess.Popen(
        [sys.executable, "-m", "kopf", "run", "--standalone", "-n", "default", str(source)],
        env={**os.environ, "KUBECONFIG": str(server.kubeconfig)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield operator
    finally:
        process.terminate()
        try:
            output, _ = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        print(output)


@pytest.fixture
def kopf_operator(tmp_path: Path) -> Iterator[Callable[[RunningServer, str], KopfOperator]]:
    """Starts `running_kopf(server, handlers)` for a test; every operator started is stopped after it."""
    with ExitStack() as stack:
        yield lambda server, handlers: stack.enter_context(running_kopf(server, handlers, tmp_path))
