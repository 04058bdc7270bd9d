"""`--permit-port-sharing`: two daemons bind the same secure port (SO_REUSEPORT), as upstream's."""

from __future__ import annotations

from pathlib import Path

from svc.testing.harness import RunningServer, free_port, start_controller_manager, stop_controller_manager


def test_two_daemons_share_a_port_with_permit_port_sharing(svc_server: RunningServer, tmp_path: Path) -> None:
    port = free_port()
    first = start_controller_manager(
        svc_server, "--controllers=ttl", "--permit-port-sharing", log=tmp_path / "first.log", port=port
    )
    try:
        second = start_controller_manager(
            svc_server,
            "--controllers=ttl",
            "--permit-port-sharing",
            log=tmp_path / "second.log",
            port=port,
            leading=False,
        )
        assert second.process.poll() is None
        stop_controller_manager(second)
    finally:
        stop_controller_manager(first)
