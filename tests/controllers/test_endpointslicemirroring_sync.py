"""The endpointslice-mirroring controller over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.endpointslicemirroring import EndpointSliceMirroringController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
SLICES = "/apis/discovery.svc/v1/namespaces/ns/endpointslices"


def endpoints(subsets: list[Obj], **metadata: Any) -> Obj:
    return {"metadata": {"name": "db", "namespace": "ns", "uid": "ep-uid", **metadata}, "subsets": subsets}


def service(selector: Obj | None = None) -> Obj:
    spec = {"ports": [{"port": 5432}]} | ({"selector": selector} if selector is not None else {})
    return {"metadata": {"name": "db", "namespace": "ns"}, "spec": spec}


def mirror(eps: list[Obj], services: list[Obj], slices=(), **options: Any) -> tuple[Any, Any]:
    context, client = make_context()
    controller = EndpointSliceMirroringController(context, **options)
    controller.endpoints.replace(eps)
    controller.services.replace(services)
    controller.slices.replace(list(slices))
    return controller, client


PORTS = [{"name": "pg", "port": 5432, "protocol": "TCP"}]


def test_a_selectorless_services_endpoints_become_one_slice_per_family() -> None:
    async def scenario() -> None:
        subsets = [
            {
                "addresses": [{"ip": "10.0.0.2", "nodeName": "n1"}, {"ip": "fd00::1"}],
                "notReadyAddresses": [{"ip": "10.0.0.3", "hostname": "b"}],
                "ports": PORTS,
            }
        ]
        annotations = {"team": "data", "endpoints.svc.io/last-change-trigger-time": "x"}
        controller, client = mirror([endpoints(subsets, labels={"app": "db"}, annotations=annotations)], [service()])
        await controller.sync("ns/db")
        created = [body for verb, path, body in client.calls if verb == "create" and path == SLICES]
        by_family = {body["addressType"]: body for body in created}
        assert set(by_family) == {"IPv4", "IPv6"}
        ipv4 = by_family["IPv4"]
        assert ipv4["endpoints"] == [
            {"addresses": ["10.0.0.2"], "conditions": {"ready": True}, "nodeName": "n1"},
            {"addresses": ["10.0.0.3"], "conditions": {"ready": False}, "hostname": "b"},
        ]
        assert ipv4["ports"] == PORTS
        assert ipv4["metadata"]["labels"] == {
            "app": "db",
            "svc.io/service-name": "db",
            "endpointslice.svc.io/managed-by": "endpointslicemirroring-controller.k8s.io",
        }
        assert ipv4["metadata"]["annotations"] == {"team": "data"}
        assert ipv4["metadata"]["ownerReferences"][0]["kind"] == "Endpoints"

    asyncio.run(scenario())


def test_a_selecting_service_or_skip_mirror_label_deletes_mirrored_slices() -> None:
    async def scenario() -> None:
        labels = {
            "svc.io/service-name": "db",
            "endpointslice.svc.io/managed-by": "endpointslicemirroring-controller.k8s.io",
        }
        old = {"metadata": {"name": "db-abc", "namespace": "ns", "labels": labels}, "addressType": "IPv4"}
        subsets = [{"addresses": [{"ip": "10.0.0.2"}], "ports": PORTS}]
        controller, client = mirror([endpoints(subsets)], [service({"app": "db"})], [old])
        await controller.sync("ns/db")
        assert client.calls == [("delete", f"{SLICES}/db-abc", None)]
        skip = endpoints(subsets, labels={"endpointslice.svc.io/skip-mirror": "true"})
        controller, client = mirror([skip], [service()], [old])
        await controller.sync("ns/db")
        assert client.calls == [("delete", f"{SLICES}/db-abc", None)]

    asyncio.run(scenario())


def test_addresses_over_the_subset_limit_and_bad_ips_are_skipped_with_events() -> None:
    async def scenario() -> None:
        addresses = [{"ip": f"10.0.0.{index}"} for index in range(1, 5)] + [{"ip": "not-an-ip"}]
        controller, client = mirror(
            [endpoints([{"addresses": addresses, "ports": PORTS}])], [service()], max_per_subset=2
        )
        await controller.sync("ns/db")
        created = [body for verb, _, body in client.calls if verb == "create"]
        assert [e["addresses"] for e in created[0]["endpoints"]] == [["10.0.0.1"], ["10.0.0.2"]]
        reasons = [(body["reason"], body["message"]) for _, _, body in client.events]
        assert reasons == [
            (
                "TooManyAddressesToMirror",
                "A max of 2 addresses can be mirrored to EndpointSlices per Endpoints subset. 3 addresses were skipped",
            )
        ]

    asyncio.run(scenario())
