"""The etcd anchor: a real etcd (Debian `etcd-server`) on loopback, driven through `aetcd`.

Puts and single-key ranges run at the same concurrency and value size as the ConfigMap rows, and a
range of as many pod-sized values as the list rows return, so "our create / etcd put" and "our get
/ etcd range" compare the same work on the same machine. The gRPC client runs in a process of
its own (on the default asyncio loop, one channel shared by all workers, as an API server uses
etcd); etcd is installed with apt-get when it is missing, and its rows say n/a when it cannot be.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import shutil
import subprocess
import time
from pathlib import Path

import aetcd
import aiohttp

from bench.client import CpuClock, Measurement, drive
from bench.plan import Plan
from bench.procfs import cpu_seconds
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row, not_measured, size
from bench.server import free_port

PACKAGE = "etcd-server"
TOOLS_ETCD = Path(__file__).resolve().parents[2] / ".tools" / "bin" / "etcd"
MESSAGE_LIMIT = 512 << 20
LIST_PREFIX = b"/registry/pods/bench-list/"


def _apt_get(*arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(["apt-get", *arguments], capture_output=True, text=True, env=environment, timeout=900)


def ensure_etcd() -> tuple[str, str]:
    """The etcd binary's path: the etcd 3.5 `make tools` unpacks into .tools/bin, else the system's, else
    bookworm's package installed now; ("", reason) when impossible."""
    if TOOLS_ETCD.exists():
        return str(TOOLS_ETCD), ""
    found = shutil.which("etcd")
    if found:
        return found, ""
    if shutil.which("apt-get") is None:
        return "", f"etcd is not installed and there is no apt-get to install {PACKAGE}"
    progress(f"etcd: not found, running apt-get install -y {PACKAGE}")
    result = _apt_get("install", "-y", PACKAGE)
    if result.returncode != 0:
        progress("etcd: install failed, running apt-get update and trying again")
        _apt_get("update")
        result = _apt_get("install", "-y", PACKAGE)
    found = shutil.which("etcd")
    if found:
        return found, ""
    detail = (result.stderr.strip().splitlines() or ["no output"])[-1]
    return "", f"etcd is missing and `apt-get install -y {PACKAGE}` failed ({detail})"


def _version(binary: str) -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        output = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
        return output.splitlines()[0].split()[-1]
    return "unknown"


def _launch(binary: str, workdir: Path, client_url: str, peer_url: str) -> subprocess.Popen[bytes]:
    workdir.mkdir(parents=True, exist_ok=True)
    arguments = [
        "--name=bench",
        f"--data-dir={workdir / 'etcd-data'}",
        f"--listen-client-urls={client_url}",
        f"--advertise-client-urls={client_url}",
        f"--listen-peer-urls={peer_url}",
        f"--initial-advertise-peer-urls={peer_url}",
        f"--initial-cluster=bench={peer_url}",
        "--logger=zap",
        "--log-level=error",
    ]
    with (workdir / "etcd.log").open("ab") as log:
        return subprocess.Popen([binary, *arguments], cwd=workdir, stdout=log, stderr=subprocess.STDOUT)


async def start_etcd(binary: str, workdir: Path) -> tuple[subprocess.Popen[bytes], int]:
    client_port, peer_port = free_port(), free_port()
    client_url = f"http://127.0.0.1:{client_port}"
    process = _launch(binary, workdir, client_url, f"http://127.0.0.1:{peer_port}")
    deadline = time.monotonic() + 60
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"etcd exited with status {process.returncode}; see {workdir / 'etcd.log'}")
            with contextlib.suppress(aiohttp.ClientError, OSError, asyncio.TimeoutError):
                async with session.get(f"{client_url}/health") as response:
                    if response.status == 200 and b"true" in await response.read():
                        return process, client_port
            await asyncio.sleep(0.05)
    process.kill()
    process.wait()
    raise TimeoutError("etcd did not become healthy within 60 s")


async def _measure(
    port: int,
    etcd_pid: int,
    ops: dict[int, int],
    value_bytes: int,
    list_objects: int,
    list_value_bytes: int,
    repeats: int,
) -> dict[str, Measurement]:
    clock = CpuClock(lambda: cpu_seconds(etcd_pid))
    failures = (aetcd.exceptions.ClientError, RuntimeError)
    options = {"grpc.max_receive_message_length": MESSAGE_LIMIT, "grpc.max_send_message_length": MESSAGE_LIMIT}
    results: dict[str, Measurement] = {}
    async with aetcd.Client(host="127.0.0.1", port=port, options=options) as client:
        value = b"x" * value_bytes
        for concurrency, count in ops.items():
            keys = [f"/registry/configmaps/bench/c{concurrency}-{index}".encode() for index in range(count)]

            async def put(index: int, keys: list[bytes] = keys) -> None:
                await client.put(keys[index], value)

            async def get(index: int, keys: list[bytes] = keys) -> None:
                if await client.get(keys[index]) is None:
                    raise RuntimeError("a key just written was not found")

            await drive(put, count=concurrency * 4, concurrency=concurrency, clock=clock, failures=failures)
            results[f"put/{concurrency}"] = await drive(
                put, count=count, concurrency=concurrency, clock=clock, failures=failures, repeatable=True
            )
            results[f"range/{concurrency}"] = await drive(
                get, count=count, concurrency=concurrency, clock=clock, failures=failures, repeatable=True
            )
        pod_value = b"x" * list_value_bytes

        async def fill(index: int) -> None:
            await client.put(LIST_PREFIX + f"obj-{index}".encode(), pod_value)

        async def range_all(_: int) -> None:
            found = await client.get_prefix(LIST_PREFIX)
            if len(found) != list_objects:
                raise RuntimeError(f"a range returned {len(found)} values, expected {list_objects}")

        await drive(fill, count=list_objects, concurrency=64, clock=clock, failures=failures)
        results["list"] = await drive(
            range_all, count=repeats, concurrency=1, clock=clock, failures=failures, repeatable=True
        )
    return results


def measure(
    port: int,
    etcd_pid: int,
    ops: dict[int, int],
    value_bytes: int,
    list_objects: int,
    list_value_bytes: int,
    repeats: int,
) -> dict[str, Measurement]:
    """Entry point of the client process."""
    return asyncio.run(_measure(port, etcd_pid, ops, value_bytes, list_objects, list_value_bytes, repeats))


async def run(workdir: Path, plan: Plan, *, value_bytes: int, list_value_bytes: int) -> tuple[Section, Facts]:
    section = Section("Anchor: etcd through aetcd (gRPC)", LATENCY_HEADERS)
    facts: Facts = {}
    binary, reason = await asyncio.get_running_loop().run_in_executor(None, ensure_etcd)
    if not binary:
        progress(f"etcd: {reason}; the etcd rows are n/a")
        for name in ("etcd put", "etcd range (one key)", "etcd range (all values)"):
            not_measured(section, name, reason)
        return section, facts
    process, port = await start_etcd(binary, workdir)
    try:
        progress(f"etcd {_version(binary)}: put, range and a {plan.list_objects:,}-value range")
        spawn = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
            results = await asyncio.get_running_loop().run_in_executor(
                pool,
                measure,
                port,
                process.pid,
                plan.anchor_ops,
                value_bytes,
                plan.list_objects,
                list_value_bytes,
                plan.list_repeats,
            )
    finally:
        process.terminate()
        process.wait(30)
    for concurrency in plan.anchor_ops:
        put, get = results[f"put/{concurrency}"], results[f"range/{concurrency}"]
        section.add(*latency_row("etcd put", concurrency, put, f"{size(value_bytes)} values"))
        section.add(*latency_row("etcd range (one key, linearizable)", concurrency, get))
        facts[f"etcd put/{concurrency}"] = put.rate
        facts[f"etcd range/{concurrency}"] = get.rate
    listed = results["list"]
    note = f"{plan.list_objects:,} values of {size(list_value_bytes)}; throughput is ranges per second"
    section.add(*latency_row("etcd range of a prefix (all values)", 1, listed, note))
    facts["etcd list"] = listed.p50
    section.notes.append(f"etcd {_version(binary)}, default settings (fsync on every commit), one gRPC channel")
    return section, facts
