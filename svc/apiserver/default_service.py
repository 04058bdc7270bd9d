"""The cluster's own Service (`default/kubernetes`, `default/svc` under the svc profile), its endpoints,
and the default ServiceCIDR, kept by the API server as upstream's bootstrap controller and endpoint
reconciler keep them.

The Service takes the first IP of the primary service range and port 443, pointing at the secure
port; the Endpoints and the EndpointSlice name the addresses the endpoint reconciler chose (the API
servers of the cluster, `svc/apiserver/peers/endpoints.py`). Each pass creates what is missing and
puts back what was changed, so a deleted or edited object returns within one interval.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

from svc.apiserver.peers.endpoints import EndpointReconciler
from svc.machinery import status, wallclock
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions
from svc.storage import errors

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)
RECONCILE_INTERVAL = 10.0
Obj = dict[str, Any]


def _desired(server: Server, port: int, address: str, addresses: list[str] | None) -> list[tuple[str, str, str, Obj]]:
    """(upstream group, resource, namespace, object) for each object kept; the endpoints only when
    there are addresses (upstream refuses to erase every endpoint of the Service)."""
    profile = server.profile
    name = profile.default_service
    assert server.service_allocation is not None
    cluster_ips = server.service_allocation.cluster_ips
    cidrs = [str(network) for network in cluster_ips.cidrs]
    families = [("IPv4" if network.version == 4 else "IPv6") for network in cluster_ips.cidrs]
    family = "IPv6" if ":" in address else "IPv4"
    https = {"name": "https", "port": port, "protocol": "TCP"}
    cluster_ip = cluster_ips.first(families[0])
    kept = [
        (
            "networking.k8s.io",
            "servicecidrs",
            "",
            {"kind": "ServiceCIDR", "metadata": {"name": name}, "spec": {"cidrs": cidrs}},
        ),
        (
            "",
            "services",
            "default",
            {
                "kind": "Service",
                "metadata": {"name": name, "labels": {"component": "apiserver", "provider": name}},
                "spec": {
                    "type": "ClusterIP",
                    "clusterIP": cluster_ip,
                    "clusterIPs": [cluster_ip],
                    "ipFamilies": families[:1],
                    "ipFamilyPolicy": "SingleStack",
                    "sessionAffinity": "None",
                    "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}],
                },
            },
        ),
    ]
    if not addresses:
        return kept
    same_family = [ip for ip in addresses if (":" in ip) == (":" in address)]
    return [
        *kept,
        (
            "",
            "endpoints",
            "default",
            {
                "kind": "Endpoints",
                "metadata": {
                    "name": name,
                    "labels": {profile.label("endpointslice.kubernetes.io/skip-mirror"): "true"},
                },
                "subsets": [{"addresses": [{"ip": ip} for ip in addresses], "ports": [https]}],
            },
        ),
        (
            "discovery.k8s.io",
            "endpointslices",
            "default",
            {
                "kind": "EndpointSlice",
                "metadata": {"name": name, "labels": {profile.label("kubernetes.io/service-name"): name}},
                "addressType": family,
                "endpoints": [{"addresses": [ip], "conditions": {"ready": True}} for ip in same_family],
                "ports": [https],
            },
        ),
    ]


def _differs(current: Obj, wanted: Obj) -> bool:
    """Whether a field the reconciler owns differs (labels it sets, spec, subsets, endpoints, ports)."""
    labels = (current.get("metadata") or {}).get("labels") or {}
    if any(labels.get(key) != value for key, value in wanted["metadata"].get("labels", {}).items()):
        return True
    for field in ("subsets", "addressType", "endpoints", "ports"):
        if field in wanted and current.get(field) != wanted[field]:
            return True
    if "spec" in wanted and wanted["kind"] == "Service":
        spec = current.get("spec") or {}
        return spec.get("clusterIP") != wanted["spec"]["clusterIP"] or spec.get("ports") != wanted["spec"]["ports"]
    return "spec" in wanted and (current.get("spec") or {}).get("cidrs") != wanted["spec"]["cidrs"]


async def reconcile(server: Server, port: int, address: str, addresses: list[str] | None) -> None:
    user = UserInfo(server.profile.apiserver_name, groups=("system:masters",))
    for group, resource, namespace, wanted in _desired(server, port, address, addresses):
        store = server.store_for(group, resource)
        wanted = {"apiVersion": store.resource.api_version, **wanted}
        try:
            current = await store.get(namespace, wanted["metadata"]["name"])
        except status.StatusError as error:
            if error.code != 404:
                raise
            with contextlib.suppress(status.StatusError):
                await store.create(namespace, wanted, admission=NoAdmission(), user=user, options=WriteOptions())
            continue
        if not _differs(current, wanted):
            continue
        merged = {**current, **{key: value for key, value in wanted.items() if key != "metadata"}}
        merged["metadata"] = {
            **current["metadata"],
            "labels": {**(current["metadata"].get("labels") or {}), **wanted["metadata"].get("labels", {})},
        }

        async def replace(_: Obj | None, merged: Obj = merged) -> Obj:
            return merged

        await store.update(
            namespace, merged["metadata"]["name"], replace, admission=NoAdmission(), user=user, options=WriteOptions()
        )


async def default_service_loop(
    server: Server, port: int, address: str, reconciler: EndpointReconciler, *, interval: float = RECONCILE_INTERVAL
) -> None:
    while True:
        await wallclock.sleep(interval)
        try:
            await reconcile(server, port, address, await reconciler.addresses(address))
        except (status.StatusError, errors.StorageError, OSError) as error:
            log.warning("keeping the default service: %s", error)


async def stop_serving(server: Server, port: int, address: str, reconciler: EndpointReconciler) -> None:
    """Take this server's address out of the endpoints as it shuts down, so clients stop choosing it."""
    try:
        await reconcile(server, port, address, await reconciler.stop(address))
    except (status.StatusError, errors.StorageError, OSError) as error:
        log.warning("removing this server from the default service's endpoints: %s", error)
