"""The health checks named after upstream's post-start hooks, in the order upstream registers them.

Upstream's kube-apiserver lists one `poststarthook/<name>` check per start hook in `/livez`, `/readyz`
and `/healthz`; scripts and operators read those names. Ours start the same jobs in `Server.start`,
so a hook's check passes once the server has started, as upstream's passes once its hook has returned.
Only jobs this server really runs get a check: the flow control and identity Lease hooks only while
those are enabled, as upstream. `start-service-ip-repair-controllers` passes once the cluster IP and
node port repair loops have each been through everything once, as upstream's hook returns then.
Names that carry a brand take it from the profile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.apiserver.health import Check, HealthCheck

if TYPE_CHECKING:
    from svc.apiserver.server import Server


def _serves(server: Server, group: str, resource: str) -> bool:
    return any(r.upstream_group == group and r.name == resource for r in server.resources)


def post_start_checks(server: Server, started: Check, rbac_bootstrapped: Check) -> list[HealthCheck]:
    """The checks of the API server's own start hooks (the aggregator adds its own after them)."""
    profile, options = server.profile, server.options
    flow_control = options.flowcontrol.enable_priority_and_fairness
    names = ["start-apiserver-admission-initializer", "generic-apiserver-start-informers"]
    if flow_control:
        names += ["priority-and-fairness-config-consumer", "priority-and-fairness-filter"]
    names += [
        "storage-object-count-tracker-hook",
        "start-apiextensions-informers",
        "start-apiextensions-controllers",
        "crd-informer-synced",
        "start-system-namespaces-controller",
        "start-cluster-authentication-info-controller",
    ]
    if options.feature_gates.enabled("APIServerIdentity"):
        names += [
            f"start-{profile.apiserver_name}-identity-lease-controller",
            f"start-{profile.apiserver_name}-identity-lease-garbage-collector",
        ]
    names += ["start-legacy-token-tracking-controller", "start-service-ip-repair-controllers", "rbac/bootstrap-roles"]
    if _serves(server, "scheduling.k8s.io", "priorityclasses"):
        names.append("scheduling/bootstrap-system-priority-classes")
    if flow_control:
        names.append("priority-and-fairness-config-producer")
    names.append("bootstrap-controller")
    if _serves(server, "networking.k8s.io", "servicecidrs"):
        names.append(f"start-{profile.default_service}-service-cidr-controller")

    async def repaired() -> None:
        repairs = server.service_repairs
        if not repairs or not all(repair.first_pass_done for repair in repairs):
            raise RuntimeError("not finished")

    special = {"rbac/bootstrap-roles": rbac_bootstrapped, "start-service-ip-repair-controllers": repaired}
    return [HealthCheck(f"poststarthook/{name}", special.get(name, started)) for name in names]
