"""The certificatesigningrequest-cleaner controller in the real daemon beside a real API server whose
fake clock it follows."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.csr_fixtures import make_request
from tests.controllers.test_daemon import wait_for

CSRS = "/apis/certificates.svc/v1/certificatesigningrequests"


def test_a_denied_request_goes_after_an_hour_and_a_pending_one_after_a_day(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory("--enable-test-endpoints", "--clock=fake")
    rest = server.client()
    for name in ("pending", "denied"):
        spec = {"request": make_request(name), "signerName": "example.com/signer", "usages": ["client auth"]}
        assert rest.request("POST", CSRS, body={"metadata": {"name": name}, "spec": spec}).status == 201
    denied = rest.request("GET", f"{CSRS}/denied").json()
    denied["status"] = {"conditions": [{"type": "Denied", "status": "True", "reason": "ByTest", "message": "no"}]}
    assert rest.request("PUT", f"{CSRS}/denied/approval", body=denied).status == 200
    svc_controller_manager(server, "--controllers=csrcleaner")

    def gone(name: str) -> bool:
        return rest.request("GET", f"{CSRS}/{name}").status == 404

    assert not wait_for(lambda: gone("denied") or gone("pending"), timeout=1)
    # the cleaner looks every hour: one look an hour and a second on
    server.advance_clock(3601)
    assert wait_for(lambda: gone("denied"), timeout=15)
    assert not gone("pending")
    server.advance_clock(23 * 3600)
    assert wait_for(lambda: gone("pending"), timeout=15)
