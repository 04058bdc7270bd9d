"""The daemon's client CAs follow their sources: a `--client-ca-file` is read again every minute and a
CA that no longer loads keeps the last one (upstream's dynamic file CA content)."""

from __future__ import annotations

import asyncio
from pathlib import Path

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
