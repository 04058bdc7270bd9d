"""A status write may keep an address the stored status already lists in a form strict validation now
refuses (upstream's `validOldIPs`); a new address in that form is refused. Such data can only predate
the strict rule, so these run the status rules directly."""

from __future__ import annotations

from svc.api.validation.engine import run_update
from svc.api.validation.status_core import STATUS

LEGACY = "010.0.0.1"


def _service(ip: str) -> dict:
    return {"spec": {"type": "LoadBalancer"}, "status": {"loadBalancer": {"ingress": [{"ip": ip, "ipMode": "VIP"}]}}}


def _pod(ip: str) -> dict:
    return {"spec": {}, "status": {"podIPs": [{"ip": ip}]}}


def test_a_stored_load_balancer_address_is_judged_as_then() -> None:
    table = STATUS[("", "Service")]
    assert run_update(table, _service(LEGACY), _service(LEGACY)) == []
    assert [error.detail for error in run_update(table, _service(LEGACY), _service("10.0.0.1"))] == [
        "must not have leading 0s"
    ]


def test_a_stored_pod_address_is_judged_as_then() -> None:
    table = STATUS[("", "Pod")]
    assert run_update(table, _pod(LEGACY), _pod(LEGACY)) == []
    assert [error.field for error in run_update(table, _pod(LEGACY), _pod("10.0.0.1"))] == ["status.podIPs[0]"]
