"""pytest plugin (registered as `svc` through the `pytest11` entry point): a real server per test.

Fixtures:
- `svc_server`: an in-process server (svc brand profile) on a free port, with its own data dir.
  Every server here runs without ServiceAccount admission (no controller creates the `default`
  account beside it) unless the test passes admission plugin flags itself.
- `svc_server_factory`: call it with extra `svc-apiserver` flags (e.g. `"--brand-profile=kubernetes"`)
  for servers with other options; every server it starts is stopped after the test.
- `svc_server_process`: the real `svc-apiserver` program in a subprocess (for restart and kill tests).
- `svc_controller_manager`: call it with a running server (and extra flags) to start the real
  `svc-controller-manager` beside it; it returns once the daemon leads and its controllers run (with
  `leading=False`, once it serves health: a standby candidate), and
  every daemon it starts is stopped after the test. Beside a server with `--clock=fake` it runs
  with `--clock=fake` too, following the server's clock: `server.advance_clock(seconds)` moves both.
- `svc_nodes`: call it with a running server and a node count to start the node simulator
  (`svc-nodes`) beside it; it returns once every node is Ready, and is stopped after the test.
  Beside a server with `--clock=fake` it follows that clock too (Lease renewals, pod run times).
- `svc_snapshot_server`: one server for the whole session, set up once and restored before each
  test from the snapshot taken after set-up (milliseconds, where a fresh server takes a second).
  Override the session fixture `svc_snapshot_setup(svc_session_server)` in a conftest.py to create
  the objects every test starts from.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from svc.testing.harness import (
    RunningControllerManager,
    RunningNodes,
    RunningServer,
    in_process_server,
    start_controller_manager,
    start_node_simulator,
    start_process,
    stop_controller_manager,
    stop_process,
    stop_process_of,
)

_BASELINE = "svc-snapshot-baseline"


@pytest.fixture
def svc_server_factory(tmp_path: Path) -> Iterator[Callable[..., RunningServer]]:
    with contextlib.ExitStack() as stack:
        counter = iter(range(1_000))

        def start(*args: str) -> RunningServer:
            data_dir = tmp_path / f"server-{next(counter)}"
            return stack.enter_context(in_process_server(data_dir, *args))

        yield start


@pytest.fixture
def svc_server(svc_server_factory: Callable[..., RunningServer]) -> RunningServer:
    return svc_server_factory()


@pytest.fixture
def svc_server_process(tmp_path: Path) -> Iterator[Callable[..., RunningServer]]:
    started: list[RunningServer] = []

    def start(*args: str, data_dir: Path | None = None, port: int = 0) -> RunningServer:
        running = start_process(data_dir or tmp_path / f"process-{len(started)}", *args, port=port)
        started.append(running)
        return running

    yield start
    for running in started:
        stop_process(running)


def _beside(server: RunningServer, args: tuple[str, ...]) -> tuple[str, ...]:
    """A daemon's flags, with the brand profile of an in-process server and, when its clock is fake,
    `--clock=fake` to follow it (unless the test gave either itself)."""
    if server.server is None:
        return args
    if not any(arg.startswith("--brand-profile") for arg in args):
        args = (f"--brand-profile={server.server.options.brand_profile}", *args)
    if server.server.clock is not None and not any(arg.startswith("--clock") for arg in args):
        args = ("--clock=fake", *args)
    return args


@pytest.fixture
def svc_controller_manager(tmp_path: Path) -> Iterator[Callable[..., RunningControllerManager]]:
    started: list[RunningControllerManager] = []

    def start(server: RunningServer, *args: str, leading: bool = True) -> RunningControllerManager:
        log = tmp_path / f"controller-manager-{len(started)}.log"
        running = start_controller_manager(server, *_beside(server, args), log=log, leading=leading)
        started.append(running)
        return running

    yield start
    for running in started:
        stop_controller_manager(running)


@pytest.fixture
def svc_nodes(tmp_path: Path) -> Iterator[Callable[..., RunningNodes]]:
    started: list[RunningNodes] = []

    def start(server: RunningServer, *args: str, count: int = 3) -> RunningNodes:
        log = tmp_path / f"nodes-{len(started)}.log"
        running = start_node_simulator(server, *_beside(server, args), count=count, log=log)
        started.append(running)
        return running

    yield start
    for running in started:
        stop_process_of(running.process)


@pytest.fixture(scope="session")
def svc_session_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """One in-process server for the session, with the test endpoints (snapshots) enabled."""
    with in_process_server(tmp_path_factory.mktemp("svc-session"), "--enable-test-endpoints") as running:
        yield running


@pytest.fixture(scope="session")
def svc_snapshot_setup(svc_session_server: RunningServer) -> None:
    """Override to create, once, the objects every `svc_snapshot_server` test starts from."""


@pytest.fixture(scope="session")
def _svc_snapshot_baseline(svc_session_server: RunningServer, svc_snapshot_setup: None) -> str:
    svc_session_server.save_snapshot(_BASELINE)
    return _BASELINE


@pytest.fixture
def svc_snapshot_server(svc_session_server: RunningServer, _svc_snapshot_baseline: str) -> Iterator[RunningServer]:
    svc_session_server.restore_snapshot(_svc_snapshot_baseline)
    yield svc_session_server
    svc_session_server.close_clients()
