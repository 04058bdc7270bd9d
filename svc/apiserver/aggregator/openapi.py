"""OpenAPI merged with the extension servers': `/openapi/v2` and the `/openapi/v3` index.

Each available remote group version's `/openapi/v2` is downloaded (again after a minute, as upstream's
aggregator re-downloads specs periodically) and its paths under `/apis/<group>/<version>` with their
definitions are merged into the local document; the merged document, its ETag and its Protobuf form
are built once per change. The v3 index lists the remote group versions; their documents are proxied
to the extension server (`/openapi/v3/apis/<group>/<version>` is the same path there).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
from typing import Any

import aiohttp
import orjson

from svc.apiserver import openapi_protobuf
from svc.apiserver.aggregator.registry import Registry, RemoteService
from svc.apiserver.aggregator.resolver import Resolver
from svc.apiserver.aggregator.transport import Transport, TransportError
from svc.apiserver.webhook_client import ResolveError

Obj = dict[str, Any]

REFRESH_SECONDS = 60.0
FETCH_TIMEOUT_SECONDS = 5.0


class RemoteSpecs:
    """The v2 paths and definitions each remote group version serves, and when they were fetched."""

    def __init__(self, resolver: Resolver, transport: Transport) -> None:
        self.resolver = resolver
        self.transport = transport
        self.specs: dict[tuple[str, str], tuple[Obj, float]] = {}
        self.generation = 0

    def stale(self, entry: RemoteService, now: float) -> bool:
        fetched = self.specs.get((entry.group, entry.version))
        return fetched is None or now - fetched[1] > REFRESH_SECONDS

    async def fetch(self, entry: RemoteService, now: float) -> None:
        """Download the entry's `/openapi/v2`; a failure keeps what was fetched before."""
        try:
            address = await self.resolver.resolve(entry.service)
            context = self.transport.ssl_context(entry.ca_bundle, entry.insecure)
            async with asyncio.timeout(FETCH_TIMEOUT_SECONDS):
                async with self.transport.session().get(
                    f"https://{address.netloc}/openapi/v2",
                    headers={"Accept": "application/json"},
                    ssl=context,
                    server_hostname=entry.service.server_name,
                ) as response:
                    if response.status != 200:
                        return
                    document = orjson.loads(await response.read())
        except (ResolveError, TransportError, aiohttp.ClientError, TimeoutError, OSError, orjson.JSONDecodeError):
            return
        prefix = f"/apis/{entry.group}/{entry.version}"
        spec = {
            "paths": {
                p: v for p, v in (document.get("paths") or {}).items() if p == prefix or p.startswith(prefix + "/")
            },
            "definitions": document.get("definitions") or {},
        }
        key = (entry.group, entry.version)
        previous = self.specs.get(key)
        self.specs[key] = (spec, now)
        if previous is None or previous[0] != spec:
            self.generation += 1

    def drop(self, key: tuple[str, str]) -> None:
        if self.specs.pop(key, None) is not None:
            self.generation += 1


@functools.lru_cache(maxsize=4)
def _merge_v2(local: bytes, remote: tuple[tuple[str, bytes], ...]) -> tuple[bytes, str, bytes]:
    """The merged document, its ETag and its Protobuf encoding."""
    document = orjson.loads(local)
    for _, encoded in remote:
        spec = orjson.loads(encoded)
        document["paths"].update(spec["paths"])
        for name, schema in spec["definitions"].items():
            document["definitions"].setdefault(name, schema)
    body = orjson.dumps(document)
    etag = '"' + hashlib.sha512(body).hexdigest().upper() + '"'
    return body, etag, openapi_protobuf.document(document)


class MergedOpenAPI:
    def __init__(self, registry: Registry, specs: RemoteSpecs) -> None:
        self.registry = registry
        self.specs = specs
        self._encoded: dict[int, tuple[tuple[str, bytes], ...]] = {}

    def _remote(self) -> tuple[tuple[str, bytes], ...]:
        encoded = self._encoded.get(self.specs.generation)
        if encoded is None:
            live = sorted(
                (f"{g}/{v}", spec) for (g, v), (spec, _) in self.specs.specs.items() if self.registry.lookup(g, v)
            )
            encoded = tuple((name, orjson.dumps(spec)) for name, spec in live)
            self._encoded = {self.specs.generation: encoded}
        return encoded

    def v2(self, local: bytes) -> tuple[bytes, str, bytes] | None:
        """(document, ETag, Protobuf) merged with the remote specs, or None when there are none."""
        remote = self._remote()
        if not remote:
            return None
        return _merge_v2(local, remote)

    def v3_root(self, local: bytes) -> bytes:
        if not self.registry.remote:
            return local
        document = orjson.loads(local)
        for (group, version), entry in sorted(self.registry.remote.items()):
            if entry.available:
                key = f"apis/{group}/{version}"
                document["paths"].setdefault(key, {"serverRelativeURL": f"/openapi/v3/{key}"})
        return orjson.dumps(document)
