"""The in-process server fixture survives a port taken between picking it and binding it."""

from __future__ import annotations

import socket

from svc.testing import harness


def test_a_port_taken_before_the_bind_is_replaced_by_another(tmp_path, monkeypatch) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        ports = iter([taken.getsockname()[1]])
        real = harness.free_port
        monkeypatch.setattr(harness, "free_port", lambda: next(ports, None) or real())
        with harness.in_process_server(tmp_path / "data") as server:
            assert server.client().request("GET", "/readyz").status == 200
            assert not server.url.endswith(f":{taken.getsockname()[1]}")
