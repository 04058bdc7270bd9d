"""Pod specs wherever they appear (Pod, PodTemplate, ReplicationController, ReplicaSet, Deployment,
StatefulSet, DaemonSet, Job, CronJob), plus the defaults upstream reserves for Pods themselves.

Upstream keeps the two apart on purpose: a new default inside pod templates would change every
workload's template on upgrade and roll it out again, so service links, requests taken from limits,
pod-level resources and host ports under host networking are filled in Pods only.
"""

from __future__ import annotations

from typing import Final

from svc.api.defaults.containers import container
from svc.api.defaults.pod_resources import pod_level, requests_from_limits
from svc.api.defaults.quantities import round_requirements, round_resource_list
from svc.api.defaults.volumes import pod_volume
from svc.api.defaults.walk import Obj, child, child_or_new, entries, fill, fill_nil

TERMINATION_GRACE_PERIOD_SECONDS: Final = 30
SCHEDULER_NAME: Final = "default-scheduler"
CONTAINER_LISTS: Final = ("initContainers", "containers", "ephemeralContainers")


def pod_spec(spec: Obj) -> None:
    fill(spec, "dnsPolicy", "ClusterFirst")
    fill(spec, "restartPolicy", "Always")
    fill_nil(spec, "securityContext", {})
    fill_nil(spec, "terminationGracePeriodSeconds", TERMINATION_GRACE_PERIOD_SECONDS)
    fill(spec, "schedulerName", SCHEDULER_NAME)
    for volume in entries(spec, "volumes"):
        pod_volume(volume)
    for key in CONTAINER_LISTS:
        for item in entries(spec, key):
            container(item)
    round_requirements(spec)
    round_resource_list(spec, "overhead")


def template(obj: Obj | None) -> None:
    """A pod template (`spec.template` of the workloads, `template` of a PodTemplate)."""
    spec = child(obj, "spec")
    if spec is not None:
        pod_spec(spec)


def template_labels(obj: Obj | None) -> Obj | None:
    return child(child(obj, "metadata"), "labels")


def inherit_labels(obj: Obj, labels: Obj | None) -> None:
    """An object without labels of its own takes its pod template's (ReplicationController, Job)."""
    metadata = child_or_new(obj, "metadata") if labels else None
    if metadata is not None and not metadata.get("labels"):
        metadata["labels"] = dict(labels or {})


def _host_ports(spec: Obj) -> None:
    """With host networking, a container port is also the host port unless one is given."""
    for key in ("containers", "initContainers"):
        for item in entries(spec, key):
            for port in entries(item, "ports"):
                if isinstance(port.get("containerPort"), int):
                    fill(port, "hostPort", port["containerPort"])


def pod(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    requests_from_limits(spec)
    pod_level(spec)
    fill_nil(spec, "enableServiceLinks", True)
    if spec.get("hostNetwork") is True:
        _host_ports(spec)
    pod_spec(spec)
