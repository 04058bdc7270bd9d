"""The API server's identity Lease, as upstream's APIServerIdentity (GA, on by default).

Each API server keeps a Lease `apiserver-<hash>` in the system namespace, the hash being of its
hostname and the component name, so a restarted server on one host takes its lease back; it renews
the lease every 10 s with a one-hour duration, and every hour (and once at start) deletes the identity
leases of API servers that stopped renewing them. Clients count live API servers by listing leases with
the identity label.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import socket
import struct
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from svc.machinery import status, wallclock
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import DeleteOptions, ListOptions, Preconditions, WriteOptions

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)
Obj = dict[str, Any]

LEASE_DURATION_SECONDS = 3600
RENEW_INTERVAL = 10.0
GC_INTERVAL = 3600.0
IDENTITY_LABEL = "apiserver.kubernetes.io/identity"
HOSTNAME_LABEL = "kubernetes.io/hostname"


def identity(hostname: str, component: str) -> str:
    """`apiserver-` and the first 16 bytes of the SHA-256 of (hostname, component), each with a two-byte
    length prefix, in lower-case unpadded base32: upstream's derivation, so ids match across servers."""
    data = b"".join(struct.pack(">H", len(part)) + part for part in (hostname.encode(), component.encode()))
    digest = hashlib.sha256(data).digest()[:16]
    return "apiserver-" + base64.b32encode(digest).decode().rstrip("=").lower()


def micro_time(when: datetime | None = None) -> str:
    return (when or wallclock.now_datetime()).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def expired(lease: Obj, now: datetime) -> bool:
    """Leases without a renew time or duration are invalid and count as expired, as upstream's GC counts them."""
    spec = lease.get("spec") or {}
    renewed, duration = spec.get("renewTime"), spec.get("leaseDurationSeconds")
    if not renewed or duration is None:
        return True
    try:
        renewed_at = datetime.fromisoformat(renewed.replace("Z", "+00:00"))
    except ValueError:
        return True
    return renewed_at.timestamp() + duration < now.timestamp()


@dataclass
class IdentityLease:
    server: Server
    hostname: str = ""

    def __post_init__(self) -> None:
        profile = self.server.profile
        self.hostname = self.hostname or socket.gethostname().lower()
        self.name = identity(self.hostname, profile.apiserver_name)
        self.holder = f"{self.name}_{uuid.uuid4()}"
        self.namespace = profile.system_namespace
        self.labels = {
            profile.label(IDENTITY_LABEL): profile.apiserver_name,
            profile.label(HOSTNAME_LABEL): self.hostname,
        }
        self._user = UserInfo(profile.apiserver_name, groups=("system:masters",))

    def _store(self) -> Any:
        return self.server.store_for("coordination.k8s.io", "leases")

    async def renew(self) -> None:
        """Create the lease, or take it over and renew it."""
        store = self._store()
        spec = {
            "holderIdentity": self.holder,
            "leaseDurationSeconds": LEASE_DURATION_SECONDS,
            "renewTime": micro_time(),
        }
        try:
            current = await store.get(self.namespace, self.name)
        except status.StatusError as error:
            if error.code != 404:
                raise
            lease = {
                "apiVersion": store.resource.api_version,
                "kind": "Lease",
                "metadata": {"name": self.name, "namespace": self.namespace, "labels": dict(self.labels)},
                "spec": spec,
            }
            await store.create(self.namespace, lease, admission=NoAdmission(), user=self._user, options=WriteOptions())
            return

        async def renewed(latest: Obj | None) -> Obj:
            base = latest or current
            metadata = {**base["metadata"], "labels": {**(base["metadata"].get("labels") or {}), **self.labels}}
            return {**base, "metadata": metadata, "spec": {**(base.get("spec") or {}), **spec}}

        await store.update(
            self.namespace, self.name, renewed, admission=NoAdmission(), user=self._user, options=WriteOptions()
        )

    async def collect_garbage(self) -> list[str]:
        """Delete the expired identity leases of this component in the system namespace; returns their names."""
        store = self._store()
        found = await store.list(self.namespace, ListOptions())
        label, component = self.server.profile.label(IDENTITY_LABEL), self.server.profile.apiserver_name
        now = wallclock.now_datetime()
        deleted = []
        for lease in found.get("items") or []:
            metadata = lease["metadata"]
            if (metadata.get("labels") or {}).get(label) != component or not expired(lease, now):
                continue
            options = DeleteOptions(preconditions=Preconditions(resource_version=metadata["resourceVersion"]))
            try:
                await store.delete(self.namespace, metadata["name"], options, admission=NoAdmission(), user=self._user)
            except status.StatusError as error:
                if error.code not in (404, 409):
                    raise
                continue
            deleted.append(metadata["name"])
        return deleted


async def identity_lease_loop(lease: IdentityLease, *, interval: float = RENEW_INTERVAL) -> None:
    while True:
        try:
            await lease.renew()
        except (status.StatusError, OSError) as error:
            log.warning("renewing the identity lease %s: %s", lease.name, error)
        await wallclock.sleep(interval)


async def identity_gc_loop(lease: IdentityLease, *, interval: float = GC_INTERVAL) -> None:
    while True:
        try:
            for name in await lease.collect_garbage():
                log.info("deleted the expired identity lease %s", name)
        except (status.StatusError, OSError) as error:
            log.warning("collecting expired identity leases: %s", error)
        await wallclock.sleep(interval)
