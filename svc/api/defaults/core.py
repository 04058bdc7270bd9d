"""The core group's kinds other than Pods and Services (see `pod_spec` and `services`).

Status fields that upstream also defaults (a volume's or claim's `Pending` phase, a node's
allocatable resources) are left to the strategies that own status. A Namespace's name label is
brand-bearing and set by its strategy.
"""

from __future__ import annotations

from svc.api.defaults.pod_spec import inherit_labels, template, template_labels
from svc.api.defaults.quantities import round_resource_list
from svc.api.defaults.volumes import FILESYSTEM, claim_spec, persistent_volume_source
from svc.api.defaults.walk import Obj, child, entries, fill, fill_nil

_LIMIT_LISTS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")


def pod_template(obj: Obj) -> None:
    template(child(obj, "template"))


def replication_controller(obj: Obj) -> None:
    """The selector and the object's labels default to the template's labels."""
    spec = child(obj, "spec")
    if spec is None:
        return
    pod_template_spec = child(spec, "template")
    labels = template_labels(pod_template_spec)
    if labels and not spec.get("selector"):
        spec["selector"] = dict(labels)
    inherit_labels(obj, labels)
    fill_nil(spec, "replicas", 1)
    template(pod_template_spec)


def secret(obj: Obj) -> None:
    fill(obj, "type", "Opaque")


def persistent_volume(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    fill(spec, "persistentVolumeReclaimPolicy", "Retain")
    fill_nil(spec, "volumeMode", FILESYSTEM)
    round_resource_list(spec, "capacity")
    persistent_volume_source(spec)


def persistent_volume_claim(obj: Obj) -> None:
    claim_spec(child(obj, "spec"))


def endpoints(obj: Obj) -> None:
    for subset in entries(obj, "subsets"):
        for port in entries(subset, "ports"):
            fill(port, "protocol", "TCP")


def _limit_range_item(item: Obj) -> None:
    """A container limit defaults to the max, a default request to the default limit, then the min."""
    if item.get("type") == "Container":
        maximum, minimum = child(item, "max") or {}, child(item, "min") or {}
        limit = {**maximum, **(child(item, "default") or {})}
        request = {**minimum, **limit, **(child(item, "defaultRequest") or {})}
        for key, value in (("default", limit), ("defaultRequest", request)):
            if value and isinstance(item.get(key), dict | None):
                item[key] = value
    for key in _LIMIT_LISTS:
        round_resource_list(item, key)


def limit_range(obj: Obj) -> None:
    for item in entries(child(obj, "spec"), "limits"):
        _limit_range_item(item)


def resource_quota(obj: Obj) -> None:
    round_resource_list(child(obj, "spec"), "hard")
