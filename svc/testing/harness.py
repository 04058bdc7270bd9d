"""Running a real API server for a test: in this process (on a thread), or as a subprocess.

Both give a `RunningServer` with the URL, the admin kubeconfig and a REST client, so a test (ours,
or an operator author's) can drive it with any real client. A server starts in well under a
second on an empty SQLite database, so one isolated server per test is practical.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import http.client
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from svc.apiserver.health import failure
from svc.apiserver.options import parse_options
from svc.apiserver.server import Server
from svc.client.kubeconfig import load_kubeconfig
from svc.client.rest import RestClient

T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class RunningServer:
    url: str
    data_dir: Path
    kubeconfig: Path
    process: subprocess.Popen[bytes] | None = None
    server: Server | None = None
    loop: asyncio.AbstractEventLoop | None = None
    _clients: list[RestClient] = field(default_factory=list)

    def client(self, **kwargs: Any) -> RestClient:
        """A REST client authenticated as the admin (system:masters)."""
        client = RestClient(load_kubeconfig(self.kubeconfig), **kwargs)
        self._clients.append(client)
        return client

    def anonymous_client(self, **kwargs: Any) -> RestClient:
        config = load_kubeconfig(self.kubeconfig)
        anonymous = type(config)(server=config.server, ca_file=config.ca_file, ca_data=config.ca_data)
        client = RestClient(anonymous, **kwargs)
        self._clients.append(client)
        return client

    def save_snapshot(self, name: str) -> None:
        """Save the whole store as snapshot `name` (needs `--enable-test-endpoints`)."""
        self._admin("POST", f"/testing/v1/snapshots/{name}")

    def restore_snapshot(self, name: str) -> None:
        """Replace the whole store with snapshot `name`; open watches end with 410 Gone."""
        self._admin("POST", f"/testing/v1/snapshots/{name}/restore")

    def advance_clock(self, seconds: float) -> float:
        """Move the server's fake clock (`--clock=fake`) forward; a controller manager started with
        `--clock=fake` beside it follows. Returns the new time, in seconds since the epoch."""
        return float(self._admin("POST", "/testing/v1/clock/advance", {"seconds": repr(float(seconds))})["now"])

    def _admin(self, method: str, path: str, params: dict[str, str] | None = None) -> Any:
        if not self._clients:
            self.client()
        response = self._clients[0].request(method, path, params=params)
        if response.status >= 300:
            raise RuntimeError(
                f"{method} {path} failed with {response.status}: {response.body.decode(errors='replace')}"
            )
        return response.json()

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the in-process server's event loop (to reach into its storage in tests)."""
        assert self.loop is not None, "only an in-process server has a loop to call into"
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=30)

    def close_clients(self) -> None:
        for client in self._clients:
            client.close()
        self._clients.clear()


_ADMISSION_FLAGS = ("--enable-admission-plugins", "--disable-admission-plugins", "--admission-control")
ETCD_URL_VARIABLE = "SVC_TEST_ETCD_URL"
_OWN_STORE_FLAGS = ("--storage-backend", "--store-servers", "--store-prefix")


def _store_arguments(data_dir: Path, extra: list[str]) -> list[str]:
    """With a shared test etcd (`SVC_TEST_STORE=etcd`), the flags that put a server on it under a key
    prefix of its data directory's, so servers of different tests never see each other's objects and
    a server restarted on the same directory finds its own again. A test that chooses its store
    itself keeps it."""
    url = os.environ.get(ETCD_URL_VARIABLE)
    if not url or any(arg.partition("=")[0] in _OWN_STORE_FLAGS for arg in extra):
        return []
    prefix = "/registry-" + hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
    return ["--storage-backend=store3", f"--store-servers={url}", f"--store-prefix={prefix}"]


def _arguments(data_dir: Path, port: int, extra: list[str]) -> list[str]:
    """No controller creates the `default` service account beside a test server, so (as envtest
    does) its ServiceAccount admission is off unless the test chooses the admission plugins itself."""
    admission = (
        []
        if any(arg.partition("=")[0] in _ADMISSION_FLAGS for arg in extra)
        else ["--disable-admission-plugins=ServiceAccount"]
    )
    base = ["--data-dir", str(data_dir), "--bind-address", "127.0.0.1", "--secure-port", str(port)]
    return [*base, *_store_arguments(data_dir, extra), *admission, *extra]


async def _hooks_finished(server: Server) -> None:
    """Until every post-start hook's check passes: as `start_process` waits for /readyz, a test gets a
    server whose `/livez` and `/readyz` already pass (the service IP repair's first pass may take a
    moment on a loaded etcd). Readiness-only checks are left to the test, which may expect them to fail."""
    hooks = [check for check in server.health_checks["healthz"] if check.name.startswith("poststarthook/")]
    for _ in range(3000):  # 30 s at least
        failing = [check.name for check in hooks if await failure(check)]
        if not failing:
            return
        await asyncio.sleep(0.01)
    raise TimeoutError(f"post-start hooks did not finish: {', '.join(failing)}")


def _started(loop: asyncio.AbstractEventLoop, data_dir: Path, args: list[str]) -> Server:
    """A started server on a free port: another process may take the port picked before the server
    binds it (a busy test machine), so that case is retried on another port, twice at most."""
    attempt = 0
    while True:
        options = parse_options(_arguments(data_dir, free_port(), args))
        options.store_durable = False  # nothing here outlives this process: no fsync per commit
        server = Server(options)
        try:
            asyncio.run_coroutine_threadsafe(server.start(), loop).result(timeout=30)
            asyncio.run_coroutine_threadsafe(_hooks_finished(server), loop).result(timeout=90)
            return server
        except BaseException as error:
            asyncio.run_coroutine_threadsafe(server.stop(), loop).result(timeout=30)
            taken = isinstance(error, OSError) and error.errno == errno.EADDRINUSE
            if not taken or attempt == 2:
                raise
            attempt += 1


@contextlib.contextmanager
def in_process_server(data_dir: Path, *args: str) -> Iterator[RunningServer]:
    """A server on its own event loop thread in this process."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="svc-apiserver", daemon=True)
    thread.start()
    try:
        server = _started(loop, data_dir, list(args))
    except BaseException:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
        raise
    try:
        assert server.kubeconfig_path is not None
        running = RunningServer(server.url, data_dir, server.kubeconfig_path, server=server, loop=loop)
        yield running
        running.close_clients()
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def start_process(data_dir: Path, *args: str, port: int = 0, timeout: float = 30.0) -> RunningServer:
    """Start `svc-apiserver` as a subprocess and wait until /readyz answers 200."""
    port = port or free_port()
    log = open(data_dir.parent / f"{data_dir.name}.log", "ab")  # noqa: SIM115 - owned by the process
    process = subprocess.Popen(
        [sys.executable, "-m", "svc.apiserver", *_arguments(data_dir, port, list(args))],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    log.close()
    kubeconfig = data_dir / "admin.kubeconfig"
    running = RunningServer(f"https://127.0.0.1:{port}", data_dir, kubeconfig, process)
    log_path = data_dir.parent / f"{data_dir.name}.log"
    deadline = time.monotonic() + timeout
    last_answer = "no answer"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"svc-apiserver exited with {process.returncode}; log: {log_path}")
        if kubeconfig.exists():
            with contextlib.suppress(OSError, ValueError):
                client = RestClient(load_kubeconfig(kubeconfig), timeout=2.0)
                try:
                    response = client.request("GET", "/readyz", params={"verbose": "true"})
                    if response.status == 200:
                        return running
                    last_answer = f"{response.status}: {response.body.decode(errors='replace')}"
                finally:
                    client.close()
        time.sleep(0.05)
    stop_process(running)
    # The suite's temporary directory is gone when CI reports, so the reasons travel in the message.
    raise TimeoutError(
        f"svc-apiserver did not become ready in time; last /readyz: {last_answer}\nlog tail:\n{_tail(log_path)}"
    )


def _tail(path: Path, size: int = 3000) -> str:
    with contextlib.suppress(OSError):
        return path.read_bytes()[-size:].decode(errors="replace")
    return "(no log)"


def stop_process(running: RunningServer, *, kill: bool = False) -> None:
    """SIGTERM after closing the clients, or SIGKILL before: clients in use then see the server die,
    not their own connection closed under them."""
    if not kill:
        running.close_clients()
    process = running.process
    if process is not None and process.poll() is None:
        process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    running.close_clients()


@dataclass
class RunningControllerManager:
    process: subprocess.Popen[bytes]
    port: int
    log: Path


def start_controller_manager(
    server: RunningServer, *args: str, log: Path, port: int = 0, timeout: float = 30.0, leading: bool = True
) -> RunningControllerManager:
    """Start `svc-controller-manager` against `server` (its admin kubeconfig) and wait until its
    `/healthz` answers 200 and, with `leading`, lists a running controller (so it leads; a standby
    lists only `leaderElection`). Pass `leading=False` for a standby or a daemon with no controllers."""
    port = port or free_port()
    with open(log, "ab") as output:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "svc.controllers",
                "--kubeconfig",
                str(server.kubeconfig),
                "--bind-address",
                "127.0.0.1",
                "--secure-port",
                str(port),
                *args,
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    running = RunningControllerManager(process, port, log)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"svc-controller-manager exited with {process.returncode}; log: {log}")
        with contextlib.suppress(OSError):
            connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=2.0, context=context)
            try:
                connection.request("GET", "/healthz?verbose")
                response = connection.getresponse()
                lines = response.read().decode().splitlines()
                if response.status == 200 and (not leading or any("-controller ok" in line for line in lines)):
                    return running
            finally:
                connection.close()
        time.sleep(0.05)
    stop_controller_manager(running)
    raise TimeoutError(f"svc-controller-manager did not become healthy in time; log: {log}")


@dataclass
class RunningNodes:
    process: subprocess.Popen[bytes]
    names: list[str]
    log: Path


def start_node_simulator(
    server: RunningServer, *args: str, count: int, log: Path, timeout: float = 30.0
) -> RunningNodes:
    """Start `svc-nodes` against `server` with `count` nodes and wait until every node is Ready."""
    names = [f"node-{index}" for index in range(count)]
    with open(log, "ab") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "svc.nodes", "--kubeconfig", str(server.kubeconfig), f"--count={count}", *args],
            stdout=output,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    running = RunningNodes(process, names, log)
    client = server.client()
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"svc-nodes exited with {process.returncode}; log: {log}")
            listed = client.request("GET", "/api/v1/nodes")
            ready = {
                node["metadata"]["name"]
                for node in (listed.json().get("items") or [] if listed.status == 200 else [])
                if any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"].get("conditions", []))
            }
            if ready >= set(names):
                return running
            time.sleep(0.05)
    finally:
        client.close()
    stop_process_of(running.process)
    raise TimeoutError(f"svc-nodes did not register its nodes in time; log: {log}")


def stop_controller_manager(running: RunningControllerManager, *, kill: bool = False) -> None:
    stop_process_of(running.process, kill=kill)


def stop_process_of(process: subprocess.Popen[bytes], *, kill: bool = False) -> None:
    """Stop a daemon started beside a server: SIGTERM (or SIGKILL), and SIGKILL after 15 s."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
