"""A real etcd on loopback for tests: started in a directory of its own, killed and restarted on
the same ports and data, so a test can take the store away from a running API server; and a cluster
of three such members for the HA tests, any of which can be killed and restarted.

The binary is the etcd 3.5 that `make tools` unpacks into `.tools/bin`, else the system's, else
bookworm's `etcd-server` installed with apt-get, as the bench's etcd anchor finds it
(`bench.anchors.etcd.ensure_etcd`); `SVC_TEST_STORE=etcd` runs every test server on one
shared etcd, each under a key prefix of its own.
"""

from __future__ import annotations

import contextlib
import ssl
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from svc.testing.harness import free_port

if TYPE_CHECKING:
    from svc.client.rest import RestClient


@dataclass(frozen=True)
class EtcdTls:
    """Files of an etcd that serves TLS and asks clients for a certificate of `ca_file`, and of a
    client certificate it accepts."""

    ca_file: Path
    cert_file: Path
    key_file: Path
    client_cert_file: Path
    client_key_file: Path

    def client_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.ca_file))
        context.load_cert_chain(self.client_cert_file, self.client_key_file)
        return context


class EtcdProcess:
    def __init__(self, binary: str, workdir: Path, *, name: str = "test", tls: EtcdTls | None = None) -> None:
        self.binary = binary
        self.workdir = workdir
        self.name = name
        self.tls = tls
        self.client_port = free_port()
        self.peer_port = free_port()
        self.initial_cluster = f"{name}={self.peer_url}"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.client_port}"

    @property
    def peer_url(self) -> str:
        return f"http://127.0.0.1:{self.peer_port}"

    def server_flags(self, prefix: str = "") -> tuple[str, ...]:
        """The flags of an API server storing in this etcd (under `--store-prefix=prefix` when given)."""
        flags = store_flags(self.url, prefix)
        if self.tls is None:
            return flags
        return (
            *flags,
            f"--store-cafile={self.tls.ca_file}",
            f"--store-certfile={self.tls.client_cert_file}",
            f"--store-keyfile={self.tls.client_key_file}",
        )

    def start(self, timeout: float = 60.0) -> None:
        """Start (or restart, on the same ports and data) and wait until etcd reports itself healthy."""
        self.launch()
        self.wait_healthy(timeout)

    def launch(self) -> None:
        """Start the process without waiting: a cluster's members are healthy only once a quorum runs."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        arguments = [
            f"--name={self.name}",
            f"--data-dir={self.workdir / 'data'}",
            f"--listen-client-urls={self.url}",
            f"--advertise-client-urls={self.url}",
            f"--listen-peer-urls={self.peer_url}",
            f"--initial-advertise-peer-urls={self.peer_url}",
            f"--initial-cluster={self.initial_cluster}",
            "--initial-cluster-token=svc-test",
            "--logger=zap",
            "--log-level=error",
        ]
        if self.tls is not None:
            arguments += [
                f"--cert-file={self.tls.cert_file}",
                f"--key-file={self.tls.key_file}",
                f"--trusted-ca-file={self.tls.ca_file}",
                "--client-cert-auth",
            ]
        with (self.workdir / "etcd.log").open("ab") as log:
            self.process = subprocess.Popen([self.binary, *arguments], stdout=log, stderr=subprocess.STDOUT)

    def wait_healthy(self, timeout: float = 60.0) -> None:
        assert self.process is not None
        deadline = time.monotonic() + timeout
        context = self.tls.client_context() if self.tls else None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"etcd exited with {self.process.returncode}; see {self.workdir / 'etcd.log'}")
            with (
                contextlib.suppress(OSError, ValueError),
                urllib.request.urlopen(f"{self.url}/health", timeout=2, context=context) as response,
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


class EtcdCluster:
    """Members on loopback that form one cluster; `urls` is what `--store-servers` takes."""

    def __init__(self, binary: str, workdir: Path, size: int = 3) -> None:
        self.members = [EtcdProcess(binary, workdir / f"member-{index}", name=f"m{index}") for index in range(size)]
        initial = ",".join(f"{member.name}={member.peer_url}" for member in self.members)
        for member in self.members:
            member.initial_cluster = initial

    @property
    def urls(self) -> str:
        return ",".join(member.url for member in self.members)

    def server_flags(self, prefix: str = "") -> tuple[str, ...]:
        """The flags of an API server storing in this cluster, through every member."""
        return store_flags(self.urls, prefix)

    def start(self, timeout: float = 60.0) -> None:
        for member in self.members:
            member.launch()
        for member in self.members:
            member.wait_healthy(timeout)

    def kill(self) -> None:
        for member in self.members:
            member.kill()


def store_flags(urls: str, prefix: str = "") -> tuple[str, ...]:
    flags = ("--storage-backend=store3", f"--store-servers={urls}")
    return (*flags, f"--store-prefix={prefix}") if prefix else flags


def wait_status(client: RestClient, path: str, wanted: int, timeout: float = 30.0) -> int:
    """GET `path` until it answers `wanted` (an etcd member or quorum coming and going) or `timeout`
    passes; returns the last status (0 when the server could not be reached)."""
    deadline = time.monotonic() + timeout
    code = 0
    while time.monotonic() < deadline:
        try:
            code = client.request("GET", path).status
        except OSError:
            code = 0
        if code == wanted:
            return code
        time.sleep(0.1)
    return code
