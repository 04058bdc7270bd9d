"""Test-toolkit endpoints under `/testing/v1/`: snapshots, the revision log, compaction and vacuum.

They replace or rewrite the whole store, so they exist only when `--enable-test-endpoints` is on
and only members of `system:masters` may call them; anyone else gets 403, as for a path their
authorization does not grant. Routes:

- `GET /testing/v1/snapshots`: the names of the saved snapshots.
- `POST /testing/v1/snapshots/{name}`: save the store as snapshot `name`.
- `POST /testing/v1/snapshots/{name}/restore`: replace the store with it; the watch caches reload
  (from the image kept at save, see `svc.apiserver.snapshot_images`) and every open watch ends with
  410 Gone, so informers relist.
- `GET /testing/v1/revisions?from=A&to=B&limit=N`: the log of changes with revisions in (A, B].
- `POST /testing/v1/compact?revision=N`: compact up to N (default: the current revision).
- `POST /testing/v1/vacuum`: rebuild the database file and empty its write-ahead log.
- `GET|PUT|DELETE /testing/v1/faults`: the fault-injection rules (see `svc.apiserver.faults`).
- `GET /testing/v1/clock`, `POST /testing/v1/clock/advance?seconds=N`: the server's clock, a fake
  one moved forward (see `svc.apiserver.clock.endpoint`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
from aiohttp import web

from svc.apiserver.authz.modes import PRIVILEGED_GROUP
from svc.apiserver.clock.endpoint import serve_clock
from svc.apiserver.context import RequestContext
from svc.apiserver.faults.endpoint import serve_faults
from svc.apiserver.responses import respond
from svc.apiserver.snapshot_restore import restore_snapshot
from svc.machinery import status
from svc.storage import errors
from svc.storage.backend import KeyValue
from svc.storage.sqlite.backend import Change, SqliteBackend

PREFIX = "/testing/v1/"
_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_DEFAULT_LIMIT = 500
_MAX_LIMIT = 10_000


async def serve(ctx: RequestContext, path: str) -> web.StreamResponse:
    _authorize(ctx, path)
    try:
        return await _dispatch(ctx, path)
    except errors.BackendUnavailableError as error:
        raise status.service_unavailable(str(error)) from None


async def _dispatch(ctx: RequestContext, path: str) -> web.StreamResponse:
    parts = path[len(PREFIX) :].split("/")
    method = ctx.request.method
    query = ctx.request.query
    if parts == ["snapshots"] and method in ("GET", "HEAD"):
        directory = ctx.server.options.data_dir / "snapshots"
        names = sorted(path.stem for path in directory.glob("*.db")) if directory.is_dir() else []
        return _reply(ctx, {"items": names})
    if parts[0] == "snapshots" and len(parts) in (2, 3) and method == "POST":
        name = _snapshot_name(parts[1])
        if len(parts) == 2:
            return await _save(ctx, name)
        if parts[2] == "restore":
            return await _restore(ctx, name)
    elif parts == ["revisions"] and method in ("GET", "HEAD"):
        return await _revisions(ctx, query)
    elif parts == ["compact"] and method == "POST":
        return await _compact(ctx, query)
    elif parts[0] == "clock":
        return await serve_clock(ctx, parts)
    elif parts == ["faults"]:
        return await serve_faults(ctx)
    elif parts == ["vacuum"] and method == "POST":
        before, after = await _sqlite(ctx).vacuum()
        return _reply(ctx, {"bytesBefore": before, "bytesAfter": after})
    raise status.not_found_path()


def _authorize(ctx: RequestContext, path: str) -> None:
    user = ctx.user
    name = user.name if user is not None else "system:anonymous"
    verb = ctx.request.method.lower()
    if not ctx.server.options.enable_test_endpoints:
        raise status.forbidden(None, "", f'User "{name}" cannot {verb} path "{path}": test endpoints are disabled')
    if user is None or PRIVILEGED_GROUP not in user.groups:
        raise status.forbidden(None, "", f'User "{name}" cannot {verb} path "{path}"')


def _backend(ctx: RequestContext) -> Any:
    backend = ctx.server.backend
    if backend is None:
        raise status.service_unavailable("storage is not ready")
    return backend


def _sqlite(ctx: RequestContext) -> SqliteBackend:
    """Snapshots, the revision log and vacuum are the embedded store's; etcd has its own tools."""
    backend = _backend(ctx)
    if not isinstance(backend, SqliteBackend):
        raise status.bad_request("this endpoint needs the embedded store (--storage-backend=sqlite)")
    return backend


def _snapshot_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise status.bad_request(
            f'invalid snapshot name "{name}": a lowercase RFC 1123 label must consist of lower case '
            "alphanumeric characters or '-', and must start and end with an alphanumeric character"
        )
    return name


def _snapshot_path(ctx: RequestContext, name: str) -> Path:
    directory = ctx.server.options.data_dir / "snapshots"
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory / f"{name}.db"


def _reply(ctx: RequestContext, body: dict[str, Any], code: int = 200) -> web.StreamResponse:
    return respond(ctx, code, orjson.dumps(body), "application/json")


async def _save(ctx: RequestContext, name: str) -> web.StreamResponse:
    started = time.perf_counter()
    path = _snapshot_path(ctx, name)
    revision = await _sqlite(ctx).save_snapshot(path)
    await ctx.server.snapshot_images.capture(name, path, revision, ctx.server.caches)
    return _reply(ctx, {"name": name, "revision": revision, "seconds": time.perf_counter() - started}, 201)


async def _restore(ctx: RequestContext, name: str) -> web.StreamResponse:
    path = _snapshot_path(ctx, name)
    if not path.exists():
        raise status.StatusError(404, "NotFound", f'snapshot "{name}" not found', {"name": name})
    started = time.perf_counter()
    server = ctx.server
    try:
        restored = await restore_snapshot(_sqlite(ctx), server.caches, server.snapshot_images, name, path)
    except ValueError as error:
        raise status.bad_request(str(error)) from None
    timings = {"storageSeconds": restored.storage_seconds, "seconds": time.perf_counter() - started}
    return _reply(ctx, {"name": name, "revision": restored.revision, **timings})


def _integer(query: Mapping[str, str], name: str, default: int) -> int:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise status.bad_request(f'invalid value of "{name}": {raw!r}, expected a non-negative integer')
    return value


async def _revisions(ctx: RequestContext, query: Mapping[str, str]) -> web.StreamResponse:
    backend = _sqlite(ctx)
    current = await backend.current_revision()
    after = _integer(query, "from", 0)
    upto = _integer(query, "to", current)
    limit = min(_integer(query, "limit", _DEFAULT_LIMIT) or _DEFAULT_LIMIT, _MAX_LIMIT)
    if upto < after:
        raise status.bad_request(f'"to" ({upto}) must not be less than "from" ({after})')
    changes = await backend.history(after, upto, limit)
    items = [_describe(ctx, change) for change in changes]
    compacted = await backend.compacted_revision()
    return _reply(ctx, {"revision": current, "compacted": compacted, "more": len(changes) == limit, "items": items})


def _describe(ctx: RequestContext, change: Change) -> dict[str, Any]:
    """One change as the log reader wants it: what happened to which key, the user whose request
    made it (absent for the server's own writes), and the field manager when the object's managed
    fields say so (the manager whose entry was updated last)."""
    if change.deleted:
        kind = "DELETED"
    elif change.prev_revision:
        kind = "MODIFIED"
    else:
        kind = "ADDED"
    item: dict[str, Any] = {"revision": change.revision, "type": kind, "key": change.key}
    if change.writer is not None:
        item["user"] = change.writer
    objects = ctx.server.objects
    if objects is None:
        return item
    try:
        obj = objects.decode(KeyValue(change.key, change.value, change.create_revision, change.revision))
    except errors.StorageError:
        return item
    metadata = obj.get("metadata") or {}
    item["kind"] = obj.get("kind", "")
    item["namespace"] = metadata.get("namespace", "")
    item["name"] = metadata.get("name", "")
    entries = [entry for entry in metadata.get("managedFields") or [] if isinstance(entry, dict)]
    if entries:
        latest = max(entries, key=lambda entry: entry.get("time") or "")
        item["manager"] = latest.get("manager", "")
        item["operation"] = latest.get("operation", "")
    return item


async def _compact(ctx: RequestContext, query: Mapping[str, str]) -> web.StreamResponse:
    backend = _backend(ctx)
    revision = _integer(query, "revision", await backend.current_revision())
    try:
        await backend.compact(revision)
    except errors.CompactedError as error:
        raise status.bad_request(f"revision {revision} is already compacted (compacted: {error.compacted})") from None
    except errors.FutureRevisionError as error:
        raise status.bad_request(f"revision {revision} is in the future (current: {error.current})") from None
    return _reply(ctx, {"compacted": revision})
