"""A real etcd on loopback for tests: started in a directory of its own, killed and restarted on
the same ports and data, so a test can take the store away from a running API server.

The binary is Debian's `etcd-server` (3.4), installed with apt-get when missing, as the bench's etcd
anchor does (`bench.anchors.etcd.ensure_etcd`); `SVC_TEST_STORE=etcd` runs every test server on one
shared etcd, each under a key prefix of its own.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
import urllib.request
from pathlib import Path

from svc.testing.harness import free_port


class EtcdProcess:
    def __init__(self, binary: str, workdir: Path) -> None:
        self.binary = binary
        self.workdir = workdir
        self.client_port = free_port()
        self.peer_port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.client_port}"

    def start(self, timeout: float = 60.0) -> None:
        """Start (or restart, on the same ports and data) and wait until etcd reports itself healthy."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        peer = f"http://127.0.0.1:{self.peer_port}"
        arguments = [
            "--name=test",
            f"--data-dir={self.workdir / 'data'}",
            f"--listen-client-urls={self.url}",
            f"--advertise-client-urls={self.url}",
            f"--listen-peer-urls={peer}",
            f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=test={peer}",
            "--logger=zap",
            "--log-level=error",
        ]
        with (self.workdir / "etcd.log").open("ab") as log:
            self.process = subprocess.Popen([self.binary, *arguments], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"etcd exited with {self.process.returncode}; see {self.workdir / 'etcd.log'}")
            with (
                contextlib.suppress(OSError, ValueError),
                urllib.request.urlopen(f"{self.url}/health", timeout=2) as response,
            ):
                if b"true" in response.read():
                    return
            time.sleep(0.05)
        self.kill()
        raise TimeoutError("etcd did not become healthy in time")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        self.process = None
