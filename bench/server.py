"""The server under test: the real `svc-apiserver` program, started, watched and stopped from outside.

It runs as `sys.executable -m svc.apiserver` with this process's environment, in a working
directory of its own (so `python -m` puts no source tree of ours ahead of the installed or
PYTHONPATH one), on embedded SQLite in its own data directory. Its RSS and CPU time are read from
/proc, so nothing inside the server has to cooperate with the measurement.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from bench.client import Credentials, load_credentials
from bench.procfs import cpu_seconds, rss_bytes


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ServerProcess:
    """A running `svc-apiserver`, with the time it took from exec to its first `/readyz` 200."""

    process: subprocess.Popen[bytes]
    data_dir: Path
    port: int
    startup_seconds: float
    credentials: Credentials

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def rss(self) -> int:
        return rss_bytes(self.pid)

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


async def _ready(session: aiohttp.ClientSession, url: str) -> bool:
    with contextlib.suppress(aiohttp.ClientError, OSError, asyncio.TimeoutError):
        async with session.get(f"{url}/readyz") as response:
            return response.status == 200
    return False


def _launch(data_dir: Path, port: int, extra: tuple[str, ...]) -> subprocess.Popen[bytes]:
    data_dir.mkdir(parents=True, exist_ok=True)
    arguments = ["--data-dir", str(data_dir), "--bind-address", "127.0.0.1", "--secure-port", str(port)]
    arguments += ["--brand-profile", "kubernetes", *extra]
    with (data_dir.parent / f"{data_dir.name}.log").open("ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "svc.apiserver", *arguments],
            cwd=data_dir.parent,
            env=dict(os.environ),
            stdout=log,
            stderr=subprocess.STDOUT,
        )


async def start_server(data_dir: Path, *, ready_within: float = 300.0, extra: tuple[str, ...] = ()) -> ServerProcess:
    """Starts the server on a free loopback port and returns once `/readyz` answers 200; `extra` are
    further flags.

    The start time runs from just before the exec to the first 200, polled every 5 ms; it includes
    the interpreter's start and imports, as a real (re)start does.
    """
    port = free_port()
    log = data_dir.parent / f"{data_dir.name}.log"
    started = time.perf_counter()
    process = _launch(data_dir, port, extra)
    kubeconfig = data_dir / "admin.kubeconfig"
    url = f"https://127.0.0.1:{port}"
    deadline = started + ready_within
    credentials: Credentials | None = None
    session: aiohttp.ClientSession | None = None
    try:
        while time.perf_counter() < deadline:
            if process.poll() is not None:
                last = (log.read_text(errors="replace").strip().splitlines() or ["(no output)"])[-1]
                raise RuntimeError(f"svc-apiserver exited with status {process.returncode}: {last}")
            if session is None and kubeconfig.exists():
                credentials = load_credentials(kubeconfig, data_dir.parent / f"{data_dir.name}-client")
                connector = aiohttp.TCPConnector(ssl=credentials.ssl_context(), force_close=True)
                session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=2))
            if session is not None and await _ready(session, url):
                elapsed = time.perf_counter() - started
                assert credentials is not None
                return ServerProcess(process, data_dir, port, elapsed, credentials)
            await asyncio.sleep(0.005)
    finally:
        if session is not None:
            await session.close()
    process.kill()
    process.wait()
    raise TimeoutError(f"svc-apiserver was not ready within {ready_within:.0f} s; see {log}")
