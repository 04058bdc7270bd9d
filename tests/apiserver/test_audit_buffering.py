"""Batch mode and truncation: bounded buffers that drop and count when full, batches by size and
wait, everything buffered sent at shutdown, large events cut down, rotated logs gzipped."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import time
from pathlib import Path

from svc.apiserver.audit.batching import BatchBuffer
from svc.apiserver.audit.log_backend import LogBackend
from svc.apiserver.audit.options import BatchOptions, TruncateOptions
from svc.apiserver.audit.truncate import truncate_batch


def _event(index: int, padding: int = 100) -> dict:
    return {"auditID": f"id-{index}", "stage": "ResponseComplete", "requestObject": {"x": "y" * padding}}


def test_batches_fill_to_the_max_size_and_close_sends_the_rest() -> None:
    sent: list[list[str]] = []

    async def send(batch: list[dict]) -> None:
        sent.append([event["auditID"] for event in batch])

    async def scenario() -> None:
        buffer = BatchBuffer(
            BatchOptions(buffer_size=100, max_batch_size=3, max_wait=60.0, throttle_enable=False), send, print
        )
        for index in range(7):
            buffer.process(_event(index))
        for _ in range(100):
            if len(sent) >= 2:
                break
            await asyncio.sleep(0.01)
        await buffer.close()

    asyncio.run(scenario())
    assert sent == [["id-0", "id-1", "id-2"], ["id-3", "id-4", "id-5"], ["id-6"]]


def test_a_full_buffer_drops_and_counts() -> None:
    dropped: list[int] = []
    gate = asyncio.Event

    async def scenario() -> list[str]:
        release = gate()
        sent: list[str] = []

        async def send(batch: list[dict]) -> None:
            await release.wait()
            sent.extend(event["auditID"] for event in batch)

        options = BatchOptions(buffer_size=2, max_batch_size=1, max_wait=0.0, throttle_enable=False)
        buffer = BatchBuffer(options, send, dropped.append)
        buffer.process(_event(0))
        await asyncio.sleep(0.05)  # the first event is taken and held by the blocked send
        for index in range(1, 5):
            buffer.process(_event(index))
        release.set()
        await buffer.close()
        return sent

    sent = asyncio.run(scenario())
    assert sent == ["id-0", "id-1", "id-2"]
    assert sum(dropped) == 2


def test_truncation_cuts_objects_then_drops_and_splits_batches() -> None:
    options = TruncateOptions(enabled=True, max_batch_size=1000, max_event_size=400)
    small, large = _event(1, 10), _event(2, 1000)
    batches = truncate_batch([small, large, {"auditID": "huge", "user": "u" * 1000}], options)
    assert [[event["auditID"] for event in batch] for batch in batches] == [["id-1", "id-2"]]
    assert "requestObject" not in batches[0][1]
    assert batches[0][1]["annotations"] == {"audit.k8s.io/truncated": "true"}
    many = truncate_batch([_event(index, 200) for index in range(10)], options)
    assert len(many) > 1
    assert sum(len(batch) for batch in many) == 10


def _logged(log: Path) -> list[str]:
    return [json.loads(line)["auditID"] for line in log.read_text().splitlines()] if log.exists() else []


def test_log_batch_mode_writes_full_batches_and_holds_the_rest_for_the_wait(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"

    async def scenario() -> tuple[list[str], list[str]]:
        options = BatchOptions(buffer_size=100, max_batch_size=3, max_wait=60.0, throttle_enable=False)
        backend = LogBackend(str(log), batch=options)
        for index in range(7):
            backend.process(_event(index))
        for _ in range(200):  # bounded: two full batches are written at once
            if len(_logged(log)) >= 6:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        before_close = _logged(log)
        await backend.close()
        return before_close, _logged(log)

    before_close, after_close = asyncio.run(scenario())
    assert before_close == [f"id-{index}" for index in range(6)]  # the 7th waits for max_wait
    assert after_close == [f"id-{index}" for index in range(7)]


def test_log_batch_mode_drops_when_the_buffer_is_full(tmp_path: Path) -> None:
    dropped: list[int] = []
    log = tmp_path / "audit.log"

    async def scenario() -> None:
        options = BatchOptions(buffer_size=1, max_batch_size=1, max_wait=0.0, throttle_enable=False)
        backend = LogBackend(str(log), batch=options, on_drop=dropped.append)
        release, writing = threading.Event(), threading.Event()
        write = backend.out.write

        def slow_write(lines: list[bytes]) -> None:
            writing.set()
            assert release.wait(timeout=10)
            write(lines)

        backend.out.write = slow_write  # type: ignore[method-assign]
        backend.process(_event(0))
        assert await asyncio.to_thread(writing.wait, 10)  # event 0 is being written; the buffer has room for one
        backend.process(_event(1))
        backend.process(_event(2))
        release.set()
        await backend.close()

    asyncio.run(scenario())
    assert dropped == [1]
    assert _logged(log) == ["id-0", "id-1"]


def test_the_batch_flags_reach_the_log_backend(svc_server_factory, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
    log = tmp_path / "audit.log"
    server = svc_server_factory(
        f"--audit-policy-file={policy}",
        f"--audit-log-path={log}",
        "--audit-log-mode=batch",
        "--audit-log-batch-max-size=1000",
        "--audit-log-batch-max-wait=3s",
        "--audit-log-batch-throttle-enable=false",
    )
    answer = server.client().request("GET", "/api/v1/namespaces/default/configmaps")
    assert answer.status == 200
    assert answer.headers["Audit-ID"] not in _logged(log)  # held for the batch's wait
    deadline = time.monotonic() + 20
    while answer.headers["Audit-ID"] not in _logged(log) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert answer.headers["Audit-ID"] in _logged(log)


def test_rotated_logs_are_gzipped_with_compress(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    backend = LogBackend(str(log), max_size_mb=1, compress=True)
    for index in range(1500):
        backend.process(_event(index, 1000))
    backend.shutdown()
    (backup,) = tmp_path.glob("audit-*.log.gz")
    first = json.loads(gzip.decompress(backup.read_bytes()).splitlines()[0])
    assert first["auditID"] == "id-0"
    assert not list(tmp_path.glob("audit-*.log"))
