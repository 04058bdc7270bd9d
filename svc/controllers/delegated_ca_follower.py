"""Keeping the CAs of the daemon's certificate authentication current, as upstream's dynamic CA
providers do: a CA left to the cluster follows the `extension-apiserver-authentication` ConfigMap
through an informer on that one object (upstream's `ConfigMapCAController` and
`DynamicRequestHeaderController`), and CA files named by flags are read again every minute
(upstream's `DynamicFileCAContent`, whose file watch is a latency optimisation over the same
minute). A rotated CA is then accepted without a restart.

As upstream, a CA is replaced only by one that loads: a file that no longer reads, a ConfigMap
deleted or left without the key keep the last CA loaded, so a bad edit does not lock everyone out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from svc.apiserver.authn.extension_configmap import NAME as CONFIGMAP
from svc.apiserver.authn.x509 import ClientCAError
from svc.client.aio import AsyncRestClient
from svc.client.clock import Clock, RealClock
from svc.client.informer import Handler, Informer, RestListerWatcher
from svc.controllers import delegated_certs
from svc.controllers.delegated_certs import Authorities, CertificateOptions

log = logging.getLogger(__name__)

# upstream's `FileRefreshDuration`
FILE_REFRESH_SECONDS = 60.0


@dataclass
class _OneConfigMap:
    """Lists and watches only the authentication ConfigMap (a field selector on its name)."""

    collection: RestListerWatcher

    def _params(self, params: Mapping[str, str]) -> dict[str, str]:
        return {**params, "fieldSelector": f"metadata.name={CONFIGMAP}"}

    async def list(self, params: Mapping[str, str]) -> dict[str, Any]:
        return await self.collection.list(self._params(params))

    def watch(self, params: Mapping[str, str]) -> Any:
        return self.collection.watch(self._params(params))


class FollowedAuthorities:
    """The current certificate authenticators (`authenticators`), rebuilt when a CA changes."""

    def __init__(
        self,
        options: CertificateOptions,
        client: AsyncRestClient | None,
        *,
        clock: Clock | None = None,
        file_refresh: float = FILE_REFRESH_SECONDS,
    ) -> None:
        self._options = options
        self._client = client
        self._clock = clock or RealClock()
        self._file_refresh = file_refresh
        self._flagged = Authorities()
        self._data: dict[str, str] = {}
        self.authorities = Authorities()
        self.authenticators: list[Any] = []
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def may_trust_certificates(self) -> bool:
        """A CA is named or may yet appear in the cluster: clients are asked for certificates."""
        options = self._options
        named = bool(options.client_ca_file or options.requestheader_client_ca_file)
        return named or delegated_certs.looks_up(options, self._client)

    async def start(self, namespace: str) -> None:
        """Load the CAs (LookupFailed when the cluster's lookup fails and that is not tolerated),
        then follow them."""
        self._flagged = delegated_certs.from_flags(self._options)
        self._data = await delegated_certs.lookup(self._options, self._client, namespace)
        self._rebuild()
        if self._options.client_ca_file or self._options.requestheader_client_ca_file:
            self._tasks.append(asyncio.create_task(self._reread_files(), name="client-ca-files"))
        if delegated_certs.looks_up(self._options, self._client):
            assert self._client is not None
            collection = RestListerWatcher(self._client, f"/api/v1/namespaces/{namespace}/configmaps")
            informer = Informer(_OneConfigMap(collection), clock=self._clock)
            informer.add_handler(Handler(on_add=self._configmap, on_update=lambda _old, new: self._configmap(new)))
            self._tasks.append(asyncio.create_task(informer.run(), name="client-ca-configmap"))

    def _configmap(self, configmap: dict[str, Any]) -> None:
        data = configmap.get("data") or {}
        if data != self._data:
            self._data = data
            self._rebuild()

    async def _reread_files(self) -> None:
        while True:
            await self._clock.sleep(self._file_refresh)
            try:
                flagged = delegated_certs.from_flags(self._options)
            except ClientCAError as error:
                log.error("keeping the client CAs loaded before: %s", error)
                continue
            if not _same(flagged, self._flagged):
                self._flagged = flagged
                self._rebuild()

    def _rebuild(self) -> None:
        """The authenticators of the flags' CAs completed from the ConfigMap; a CA that vanished
        keeps its last loaded value."""
        fresh = delegated_certs.with_configmap(self._options, self._flagged, self._data)
        last = self.authorities
        if not fresh.client_cas:
            fresh.client_cas = last.client_cas
        if not fresh.request_header_cas:
            fresh.request_header, fresh.request_header_cas = last.request_header, last.request_header_cas
        if _same(fresh, last):
            return
        if last.client_cas or last.request_header_cas:
            counts = len(fresh.client_cas), len(fresh.request_header_cas)
            log.info('"Loaded a new CA Bundle and Verifier" clientCAs=%d requestHeaderCAs=%d', *counts)
        self.authorities = fresh
        self.authenticators = fresh.authenticators()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []


def _same(one: Authorities, other: Authorities) -> bool:
    """Certificates compare by their encoding."""
    return (one.client_cas, one.request_header_cas, one.request_header) == (
        other.client_cas,
        other.request_header_cas,
        other.request_header,
    )
