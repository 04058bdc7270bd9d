"""Which backend stores what: the embedded SQLite file, or etcd, with per-resource etcd overrides.

Upstream lets `--store-servers-overrides` put single resources (events, typically) on etcd clusters
of their own; each distinct server list gets one backend here, and resources not overridden use the
default one.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeGuard

from svc.api.resources import earlier_layout_renames
from svc.storage.backend import Backend
from svc.storage.sqlite.backend import SqliteBackend

if TYPE_CHECKING:
    from svc.apiserver.options import Options
    from svc.storage.etcd.backend import EtcdBackend


def is_etcd(backend: Backend | None) -> TypeGuard[EtcdBackend]:
    """Whether `backend` is an etcd backend, asked without importing the etcd module (it loads gRPC, a
    tenth of a second a server on SQLite need not spend): a process that never loaded it has none."""
    module = sys.modules.get("svc.storage.etcd.backend")
    return module is not None and isinstance(backend, module.EtcdBackend)


@dataclass
class Backends:
    default: Backend
    overrides: dict[tuple[str, str], Backend] = field(default_factory=dict)

    def all(self) -> list[Backend]:
        """Each backend once (overrides that share servers share a backend)."""
        unique: dict[int, Backend] = {id(self.default): self.default}
        for backend in self.overrides.values():
            unique.setdefault(id(backend), backend)
        return list(unique.values())

    def for_resource(self, group: str, resource: str) -> Backend:
        return self.overrides.get((group, resource), self.default)

    async def close(self) -> None:
        for backend in self.all():
            await backend.close()


async def open_backends(options: Options) -> Backends:
    """Open (and reach) every backend the options name; raises BackendUnavailableError when one of
    them cannot be reached within the storage initialization timeout."""
    if options.storage_backend != "store3":
        renames = earlier_layout_renames(options.store_prefix)
        backend = SqliteBackend(options.data_dir / "state.db", renames=renames, durable=options.store_durable)
        await backend.start()
        return Backends(backend)
    by_servers: dict[tuple[str, ...], Backend] = {}
    backends: Backends | None = None
    try:
        for servers in [options.store_servers, *options.etcd.servers_overrides.values()]:
            if tuple(servers) not in by_servers:
                backend = options.etcd.backend(servers, options.request_timeout)
                await backend.start()
                by_servers[tuple(servers)] = backend
        backends = Backends(
            by_servers[tuple(options.store_servers)],
            {name: by_servers[tuple(servers)] for name, servers in options.etcd.servers_overrides.items()},
        )
    finally:
        if backends is None:
            for opened in by_servers.values():
                await opened.close()
    return backends
