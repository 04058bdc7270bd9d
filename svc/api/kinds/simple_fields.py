"""Field selectors that upstream supports for a kind, beyond metadata.name and metadata.namespace."""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.strategy import Strategy, default_field_labels

FIELDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    ),
    ("", "Event"): (
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    ),
    ("", "Secret"): ("type",),
    ("", "Namespace"): ("status.phase",),
    ("", "Node"): ("spec.unschedulable",),
    ("", "ReplicationController"): ("status.replicas",),
    ("", "Service"): ("spec.clusterIP", "spec.type"),
    ("apps", "ReplicaSet"): ("status.replicas",),
    ("batch", "Job"): ("status.successful",),
    ("certificates.k8s.io", "CertificateSigningRequest"): ("spec.signerName",),
}


def _render(value: Any) -> str:
    """Field values as upstream renders them for selectors (booleans lower-case, numbers plain)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _lookup(obj: dict[str, Any], path: str) -> Any:
    value: Any = obj
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def with_fields(strategy: Strategy, fields: tuple[str, ...]) -> Strategy:
    def field_labels(obj: dict[str, Any]) -> dict[str, str]:
        labels = default_field_labels(obj)
        for path in fields:
            value = _lookup(obj, path)
            if path == "source" and isinstance(value, dict):
                value = value.get("component", "")
            labels[path] = _render(value)
        return labels

    return dataclasses.replace(
        strategy, field_labels=field_labels, field_label_names=strategy.field_label_names | frozenset(fields)
    )
