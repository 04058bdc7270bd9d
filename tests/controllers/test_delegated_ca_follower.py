"""The daemon's client CAs follow their sources: a `--client-ca-file` is read again every minute, the
`extension-apiserver-authentication` ConfigMap is watched, and a CA that no longer loads keeps the
last one (upstream's dynamic CA providers)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from svc.apiserver.authn.extension_configmap import NAME as CONFIGMAP
from svc.client.clock import FakeClock
from svc.controllers.delegated_ca_follower import FILE_REFRESH_SECONDS, FollowedAuthorities
from svc.controllers.delegated_certs import CertificateOptions
from tests.apiserver.authn.peers import Authority


def test_a_rewritten_ca_file_is_loaded_at_the_next_refresh_and_a_broken_one_is_not(tmp_path: Path) -> None:
    first, second = Authority.create("first-ca"), Authority.create("second-ca")
    path = tmp_path / "ca.crt"
    path.write_text(first.pem)

    async def scenario() -> list[str]:
        clock = FakeClock()
        followed = FollowedAuthorities(CertificateOptions(client_ca_file=str(path)), None, clock=clock)
        await followed.start("svc-system")
        await asyncio.sleep(0)  # the refresh task starts its first wait
        seen = []
        for content in (second.pem, "not a certificate"):
            path.write_text(content)
            await clock.advance(FILE_REFRESH_SECONDS / 2)
            seen.append(followed.authorities.client_cas[0].subject.rfc4514_string())
            await clock.advance(FILE_REFRESH_SECONDS / 2)
            seen.append(followed.authorities.client_cas[0].subject.rfc4514_string())
        await followed.close()
        return seen

    assert asyncio.run(scenario()) == ["CN=first-ca", "CN=second-ca", "CN=second-ca", "CN=second-ca"]


class _ConfigMapSource:
    """The authentication ConfigMap as a client sees it: a get, a list, then the watch events queued."""

    def __init__(self, data: dict[str, str]) -> None:
        self.configmap = {
            "metadata": {"name": CONFIGMAP, "namespace": "svc-system", "resourceVersion": "1"},
            "data": data,
        }
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def get(self, path: str, **params: str) -> dict[str, Any]:
        return self.configmap

    async def request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        return {"items": [self.configmap], "metadata": {"resourceVersion": "1"}}

    async def watch(self, path: str, params: Any, **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        while True:
            yield await self.events.get()

    def modify(self, data: dict[str, str], version: str) -> None:
        metadata = {**self.configmap["metadata"], "resourceVersion": version}
        self.events.put_nowait({"type": "MODIFIED", "object": {"metadata": metadata, "data": data}})


def test_the_configmap_is_followed_and_a_removed_ca_keeps_the_last_one() -> None:
    first, second = Authority.create("first-ca"), Authority.create("second-ca")

    async def scenario() -> list[str]:
        source = _ConfigMapSource({"client-ca-file": first.pem})
        followed = FollowedAuthorities(CertificateOptions(), source, clock=FakeClock())  # type: ignore[arg-type]
        await followed.start("svc-system")
        seen = [followed.authorities.client_cas[0].subject.rfc4514_string()]
        for version, data in (("2", {"client-ca-file": second.pem}), ("3", {})):
            source.modify(data, version)
            for _ in range(50):  # the informer applies the event within a few loop turns
                await asyncio.sleep(0)
            seen.append(followed.authorities.client_cas[0].subject.rfc4514_string())
        await followed.close()
        return seen

    assert asyncio.run(scenario()) == ["CN=first-ca", "CN=second-ca", "CN=second-ca"]
