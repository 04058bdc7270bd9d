"""The etcd backend: the revisioned key-value interface over etcd's v3 gRPC API.

etcd already is the model the interface was written after, so each call maps onto one request:
create, update and delete are transactions guarded by the key's mod revision (a create by "mod
revision is 0"), so a lost compare-and-swap costs one round trip that also reads what is stored;
ranges go out with etcd's own limit and revision; a watch is one gRPC stream per prefix with
`prev_kv`, so DELETE events carry the last value. Keys and values are written as they come, so the
layout is upstream's (`<prefix>/<resource>/<namespace>/<name>`) and tools reading an upstream
cluster's etcd read ours.

etcd sends progress notifications only every few minutes by itself; a watch cache asked for a
consistent read, or for a revision another resource's write produced, must learn much sooner that a
quiet prefix is current. So `request_progress` asks the prefix's progress-notifying watch for a
progress report (etcd's `WatchProgressRequest`, answered once the stream has sent every event up to
the header revision), as upstream's cacher does while a reader waits.

Every gRPC failure that is not a refusal by etcd (unreachable, timed out, leader lost) surfaces as
StoreUnreachableError (a BackendUnavailableError), which the API turns into 503s and readiness into a
failing check; nothing is retried behind the caller's back, so an acknowledged write is one etcd
committed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
from aetcd import rpc

from svc.storage import errors
from svc.storage.backend import Event, EventType, KeyValue, Progress, RangeResult
from svc.storage.etcd import txn_wire
from svc.storage.etcd.watch_connection import UNAVAILABLE, WatchConnections, tls_context

# etcd's default `--max-request-bytes`; a larger request would only be refused by etcd with the same text.
MAX_REQUEST_BYTES = 1536 * 1024
# Responses (a page of a large range, a batch of watch events) may be far larger than requests.
MAX_MESSAGE_BYTES = 2**31 - 1
# The key whose version counts the compaction rounds of every API server on one etcd (upstream's name).
COMPACT_REV_KEY = b"compact_rev_key"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TlsFiles:
    cafile: str = ""
    certfile: str = ""
    keyfile: str = ""


def _read(path: str) -> bytes | None:
    if not path:
        return None
    with open(path, "rb") as handle:
        return handle.read()


def _split(server: str) -> tuple[str, str]:
    """Scheme (http when none is given) and `host:port` of an etcd URL."""
    scheme, _, rest = server.partition("://")
    return ("http", server.rstrip("/")) if not rest else (scheme, rest.rstrip("/"))


def _target(servers: list[str]) -> tuple[str, bool]:
    """The gRPC target for the etcd URLs (all of them when they are IP literals, so gRPC fails over
    between members), and whether they use TLS."""
    split = [_split(server) for server in servers]
    secure = any(scheme == "https" for scheme, _ in split)
    hosts = [host for _, host in split]
    literal = all(host.split(":")[0].replace(".", "").isdigit() for host in hosts)
    if literal and len(hosts) > 1:
        return "ipv4:" + ",".join(hosts), secure
    return hosts[0], secure


def _members(servers: list[str]) -> list[tuple[str, int]]:
    """Host and port of each etcd URL (etcd's client port when none is given)."""
    members = []
    for _, rest in map(_split, servers):
        host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", "2379")
        members.append((host.strip("[]"), int(port)))
    return members


class EtcdBackend:
    in_process = False

    def __init__(
        self,
        servers: list[str],
        *,
        tls: TlsFiles | None = None,
        request_timeout: float = 60.0,
        dial_timeout: float = 60.0,
    ) -> None:
        if not servers:
            raise ValueError("--store-servers must not be empty")
        self._servers = servers
        self._tls = tls or TlsFiles()
        self._request_timeout = request_timeout
        self._dial_timeout = dial_timeout
        self._channel: grpc.aio.Channel | None = None
        self._kv: Any = None
        self._txn_wire: Any = None
        self._watches: WatchConnections | None = None
        self._maintenance: Any = None
        self._lease: Any = None
        self._compacted = 0
        self._streams: set[_Stream] = set()
        self._closed = False
        self.progress_on_demand = False

    # -- lifecycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        target, secure = _target(self._servers)
        options = [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.keepalive_time_ms", 30_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.initial_reconnect_backoff_ms", 200),
            ("grpc.max_reconnect_backoff_ms", 2_000),
        ]
        credentials_used = secure or bool(self._tls.cafile or self._tls.certfile)
        if credentials_used:
            credentials = grpc.ssl_channel_credentials(
                _read(self._tls.cafile), _read(self._tls.keyfile), _read(self._tls.certfile)
            )
            self._channel = grpc.aio.secure_channel(target, credentials, options=options)
        else:
            self._channel = grpc.aio.insecure_channel(target, options=options)
        self._kv = rpc.KVStub(self._channel)
        # the writes' transactions, sent as the bytes `txn_wire` encodes rather than as messages
        self._txn_wire = self._channel.unary_unary(
            "/etcdserverpb.KV/Txn", response_deserializer=rpc.TxnResponse.FromString, _registered_method=True
        )
        context = tls_context(self._tls.cafile, self._tls.certfile, self._tls.keyfile) if credentials_used else None
        self._watches = WatchConnections(_members(self._servers), context)
        self._maintenance = rpc.MaintenanceStub(self._channel)
        self._lease = rpc.LeaseStub(self._channel)
        await self._wait_reachable()
        status = await self._call(self._maintenance.Status, rpc.StatusRequest())
        self.progress_on_demand = answers_progress_in_order(status.version)

    async def _wait_reachable(self) -> None:
        """Retry until etcd answers or the dial timeout passes, then fail with what went wrong."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._dial_timeout
        while True:
            try:
                await self.current_revision()
                return
            except errors.BackendUnavailableError as error:
                if loop.time() >= deadline:
                    await self.close()
                    raise errors.BackendUnavailableError(
                        f"cannot reach etcd at {','.join(self._servers)} within {self._dial_timeout:g}s: {error}"
                    ) from None
                log.warning("etcd at %s is not reachable yet, retrying: %s", ",".join(self._servers), error)
                await asyncio.sleep(0.5)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for stream in list(self._streams):
            stream.call.cancel()
        if self._watches is not None:
            self._watches.close()
        if self._channel is not None:
            await self._channel.close()

    # -- calls -------------------------------------------------------------------------------
    async def _call(self, method: Any, request: Any) -> Any:
        if self._closed:
            raise errors.BackendUnavailableError("storage is closed")
        try:
            return await method(request, timeout=self._request_timeout, wait_for_ready=False)
        except grpc.aio.AioRpcError as error:
            raise self._translate(error) from None

    def _translate(self, error: grpc.aio.AioRpcError) -> Exception:
        details = error.details() or ""
        if "required revision has been compacted" in details:
            return errors.CompactedError(0, self._compacted)
        if "future revision" in details:
            return errors.FutureRevisionError(0, 0)
        if "request is too large" in details:
            return errors.RequestTooLargeError()
        if error.code() in UNAVAILABLE:
            return errors.StoreUnreachableError(f"etcd: {details or error.code().name}")
        return errors.StorageError(f"etcd: {details}")

    # -- reads -------------------------------------------------------------------------------
    async def current_revision(self) -> int:
        response = await self._call(self._kv.Range, rpc.RangeRequest(key=b"\x00", count_only=True))
        return int(response.header.revision)

    async def compacted_revision(self) -> int:
        return self._compacted

    async def get(self, key: str) -> KeyValue | None:
        response = await self._call(self._kv.Range, rpc.RangeRequest(key=key.encode()))
        return _kv(response.kvs[0]) if response.kvs else None

    async def range(self, start: str, end: str, *, limit: int = 0, revision: int = 0) -> RangeResult:
        request = rpc.RangeRequest(key=start.encode(), range_end=end.encode(), limit=limit, revision=revision)
        try:
            response = await self._call(self._kv.Range, request)
        except errors.CompactedError:
            raise errors.CompactedError(revision, self._compacted) from None
        except errors.FutureRevisionError:
            raise errors.FutureRevisionError(revision, await self.current_revision()) from None
        at = revision or int(response.header.revision)
        return RangeResult([_kv(kv) for kv in response.kvs], at, bool(response.more), int(response.count))

    # -- writes ------------------------------------------------------------------------------
    async def create(self, key: str, value: bytes) -> KeyValue:
        self._check_size(key, value)
        response = await self._call(self._txn_wire, txn_wire.create_txn(key.encode(), value))
        if not response.succeeded:
            raise errors.KeyExistsError(key)
        revision = int(response.header.revision)
        return KeyValue(key, value, revision, revision)

    async def update(self, key: str, value: bytes, *, expected_revision: int) -> KeyValue:
        self._check_size(key, value)
        request = txn_wire.update_txn(key.encode(), value, expected_revision)
        response = await self._call(self._txn_wire, request)
        if not response.succeeded:
            raise _refusal(key, expected_revision, response)
        prev = response.responses[0].response_put.prev_kv
        revision = int(response.header.revision)
        return KeyValue(key, value, int(prev.create_revision), revision)

    async def delete(self, key: str, *, expected_revision: int) -> Event:
        response = await self._call(self._txn_wire, txn_wire.delete_txn(key.encode(), expected_revision))
        if not response.succeeded:
            raise _refusal(key, expected_revision, response)
        deleted = response.responses[0].response_delete_range
        if not deleted.prev_kvs:
            raise errors.KeyNotFoundError(key)
        prev = _kv(deleted.prev_kvs[0])
        tombstone = KeyValue(key, prev.value, prev.create_revision, int(response.header.revision))
        return Event(EventType.DELETE, tombstone, prev)

    async def _txn(self, compare: Any, success: Any, failure: Any) -> Any:
        request = rpc.TxnRequest(compare=[compare], success=[success], failure=[failure] if failure else [])
        return await self._call(self._kv.Txn, request)

    def _check_size(self, key: str, value: bytes) -> None:
        if len(key) + len(value) > MAX_REQUEST_BYTES:
            raise errors.RequestTooLargeError()

    async def compact(self, revision: int) -> None:
        current = await self.current_revision()
        if revision > current:
            raise errors.FutureRevisionError(revision, current)
        try:
            await self._call(self._kv.Compact, rpc.CompactionRequest(revision=revision))
        except errors.CompactedError:
            raise errors.CompactedError(revision, self._compacted) from None
        self._compacted = max(self._compacted, revision)

    async def put_expiring(self, key: str, value: bytes, ttl: int) -> None:
        """Write `key` attached to a new etcd lease of `ttl` seconds, so etcd deletes it unless it is written
        again in time (upstream's TTL writes: the master leases of the endpoint reconciler)."""
        self._check_size(key, value)
        grant = await self._call(self._lease.LeaseGrant, rpc.LeaseGrantRequest(TTL=ttl))
        await self._call(self._kv.Put, rpc.PutRequest(key=key.encode(), value=value, lease=grant.ID))

    async def compact_in_turn(self, known_time: int, revision: int) -> tuple[int, int]:
        """One round of the compaction that API servers sharing this etcd take in turns, as upstream's:
        the version of `compact_rev_key` (outside every prefix) is the round; a server whose
        `known_time` is the current round claims the next one by a compare-and-swap on it and compacts
        to `revision`, the revision it saw one round ago; a server that loses learns the round. So one
        server compacts per interval, and another takes over within two when it stops. Returns the
        round and the current revision, to pass to the next call."""
        name = COMPACT_REV_KEY
        response = await self._txn(
            rpc.Compare(key=name, target=rpc.Compare.VERSION, result=rpc.Compare.EQUAL, version=known_time),
            rpc.RequestOp(request_put=rpc.PutRequest(key=name, value=str(revision).encode())),
            rpc.RequestOp(request_range=rpc.RangeRequest(key=name)),
        )
        current = int(response.header.revision)
        if not response.succeeded:
            return int(response.responses[0].response_range.kvs[0].version), current
        if revision:
            await self.compact(revision)
        return known_time + 1, current

    async def check_writes(self) -> None:
        """Raises while etcd raised an alarm (NOSPACE, CORRUPT) that makes it refuse writes."""
        response = await self._call(self._maintenance.Status, rpc.StatusRequest())
        if response.errors:
            raise errors.BackendUnavailableError(f"etcd: {'; '.join(response.errors)}")

    async def storage_size(self) -> tuple[str, int]:
        """etcd's cluster id (hex, as upstream labels it) and its database file's size."""
        response = await self._call(self._maintenance.Status, rpc.StatusRequest())
        return f"{response.header.cluster_id:x}", int(response.dbSize)

    # -- watch -------------------------------------------------------------------------------
    async def watch(
        self, prefix: str, *, after_revision: int, progress_notify: bool = False
    ) -> AsyncIterator[Event | Progress]:
        if self._closed:
            raise errors.BackendUnavailableError("storage is closed")
        create = rpc.WatchCreateRequest(
            key=prefix.encode(),
            range_end=_prefix_end(prefix.encode()),
            start_revision=after_revision + 1,
            prev_kv=True,
            progress_notify=progress_notify,
        )
        assert self._watches is not None
        stream = _Stream(await self._watches.open_call(), prefix, after_revision)
        self._streams.add(stream)
        last = after_revision
        try:
            stream.call.write(rpc.WatchRequest(create_request=create))
            async for response in stream.call:
                if response.compact_revision:
                    self._compacted = max(self._compacted, int(response.compact_revision) - 1)
                    raise errors.CompactedError(after_revision, int(response.compact_revision) - 1)
                if response.canceled:
                    raise errors.BackendUnavailableError(f"etcd canceled the watch: {response.cancel_reason}")
                for event in response.events:
                    converted = _event(event)
                    last = stream.seen = converted.revision
                    yield converted
                if not progress_notify or response.events:
                    continue
                stream.asked = False
                # The creation answer carries the current revision before the history after
                # `after_revision` is replayed: current only when there is nothing to replay.
                revision = int(response.header.revision)
                if not response.created or revision <= after_revision:
                    stream.seen = max(last, revision)
                    stream.progress = True
                    stream.keep_asking()
                    yield Progress(stream.seen)
                elif self.progress_on_demand:
                    stream.progress = True
                    stream.ask()
        finally:
            self._streams.discard(stream)
            stream.end()
        raise errors.BackendUnavailableError("etcd closed the watch stream")

    def request_progress(self, prefix: str, revision: int) -> None:
        if not self.progress_on_demand:
            return
        for stream in self._streams:
            if stream.prefix == prefix and stream.seen < revision:
                # remembered even before etcd confirms the watch: its creation answer may report a
                # revision short of this one, and the stream then goes on asking (keep_asking)
                stream.wanted = max(stream.wanted, revision)
                if stream.progress:
                    stream.ask()


_ASK_AGAIN_SECONDS = 0.1
"""How often a watch behind a waiting reader's revision is asked again (as upstream's progress requester)."""


@dataclass(eq=False)
class _Stream:
    """One watch stream; `seen` is the revision it is known current up to."""

    call: Any
    prefix: str
    seen: int
    progress: bool = False
    asked: bool = False
    wanted: int = 0
    """A revision a reader waits for; asked again, now and then, until the stream has reached it."""
    _again: asyncio.TimerHandle | None = None

    def ask(self) -> None:
        """Request a progress report, unless one is already on its way, and go on asking while a
        reader waits."""
        if not self.asked:
            self._send()
        self.keep_asking()

    def keep_asking(self) -> None:
        """While the stream is short of the revision a reader waits for, ask again every
        `_ASK_AGAIN_SECONDS`, answered or not, as upstream's progress requester does: a report may
        come short (no write had reached the stream when it was asked), and etcd 3.5.16 drops a
        request that reaches a watch still replaying its history."""
        if self.wanted <= self.seen:
            self.wanted = 0
        elif self._again is None:
            self._again = asyncio.get_running_loop().call_later(_ASK_AGAIN_SECONDS, self._ask_again)

    def _ask_again(self) -> None:
        self._again = None
        if self.wanted > self.seen:
            self._send()
        self.keep_asking()

    def end(self) -> None:
        if self._again is not None:
            self._again.cancel()
        self.call.cancel()

    def _send(self) -> None:
        self.asked = True
        self.call.write(rpc.WatchRequest(progress_request=rpc.WatchProgressRequest()))


def answers_progress_in_order(version: str) -> bool:
    """Whether etcd answers a progress request only once the watch has sent every earlier event.
    Older releases answer at once, possibly ahead of events still to come (etcd issue 15220, fixed in
    3.4.31 and 3.5.13; upstream serves consistent reads from etcd, not the cache, before those)."""
    try:
        major, minor, patch = (int(part) for part in version.split("-")[0].split(".")[:3])
    except ValueError:
        return False
    if (major, minor) == (3, 4):
        return patch >= 31
    if (major, minor) == (3, 5):
        return patch >= 13
    return (major, minor) > (3, 5)


def _refusal(key: str, expected: int, response: Any) -> Exception:
    found = response.responses[0].response_range.kvs
    if not found:
        return errors.KeyNotFoundError(key)
    return errors.RevisionConflictError(key, expected, int(found[0].mod_revision), _kv(found[0]))


def _kv(kv: Any) -> KeyValue:
    return KeyValue(kv.key.decode(), kv.value, int(kv.create_revision), int(kv.mod_revision))


def _event(event: Any) -> Event:
    prev = _kv(event.prev_kv) if event.HasField("prev_kv") else None
    if event.type == rpc.Event.DELETE:
        value = prev.value if prev is not None else b""
        created = prev.create_revision if prev is not None else 0
        return Event(
            EventType.DELETE, KeyValue(event.kv.key.decode(), value, created, int(event.kv.mod_revision)), prev
        )
    return Event(EventType.PUT, _kv(event.kv), prev)


def _prefix_end(prefix: bytes) -> bytes:
    return prefix[:-1] + bytes([prefix[-1] + 1])
