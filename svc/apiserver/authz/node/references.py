"""What a pod or a persistent volume refers to, as the Node authorizer's graph records it.

The lists follow upstream's pod and PV visitors: a pod refers to the secrets of its image pull secrets,
volumes (secret, projected, and the secret references of volume plugins) and environment; to the
config maps of its volumes and environment; to its claims (persistent, generic ephemeral, resource
claims) and its service account. A persistent volume refers to the claim bound to it and to the
secrets its plugin reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Obj = dict[str, Any]
Reference = tuple[str, str, str]
"""(resource, namespace, name)."""

SECRETS = "secrets"
CONFIG_MAPS = "configmaps"
CLAIMS = "persistentvolumeclaims"
SERVICE_ACCOUNTS = "serviceaccounts"
RESOURCE_CLAIMS = "resourceclaims"

# Volume plugins whose `secretRef` names a secret in the pod's namespace.
_POD_VOLUME_SECRET_REFS = ("cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos")
_CSI_SECRET_REFS = (
    "controllerPublishSecretRef",
    "nodeStageSecretRef",
    "nodePublishSecretRef",
    "controllerExpandSecretRef",
    "nodeExpandSecretRef",
)


def _dicts(value: Any) -> Iterator[Obj]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _name(value: Any, key: str = "name") -> str:
    return value.get(key) or "" if isinstance(value, dict) else ""


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _containers(spec: Obj) -> Iterator[Obj]:
    for field in ("initContainers", "containers", "ephemeralContainers"):
        yield from _dicts(spec.get(field))


def _environment(spec: Obj) -> Iterator[tuple[str, str]]:
    for container in _containers(spec):
        for source in _dicts(container.get("envFrom")):
            if name := _name(source.get("secretRef")):
                yield SECRETS, name
            if name := _name(source.get("configMapRef")):
                yield CONFIG_MAPS, name
        for variable in _dicts(container.get("env")):
            value_from = variable.get("valueFrom")
            if not isinstance(value_from, dict):
                continue
            if name := _name(value_from.get("secretKeyRef")):
                yield SECRETS, name
            if name := _name(value_from.get("configMapKeyRef")):
                yield CONFIG_MAPS, name


def _volumes(pod_name: str, spec: Obj) -> Iterator[tuple[str, str]]:
    for volume in _dicts(spec.get("volumes")):
        if name := _name(volume.get("secret"), "secretName"):
            yield SECRETS, name
        if name := _name(volume.get("configMap")):
            yield CONFIG_MAPS, name
        for source in _dicts(_field(volume.get("projected"), "sources")):
            if name := _name(source.get("secret")):
                yield SECRETS, name
            if name := _name(source.get("configMap")):
                yield CONFIG_MAPS, name
        for plugin in _POD_VOLUME_SECRET_REFS:
            if name := _name(_field(volume.get(plugin), "secretRef")):
                yield SECRETS, name
        if name := _name(volume.get("azureFile"), "secretName"):
            yield SECRETS, name
        if name := _name(_field(volume.get("csi"), "nodePublishSecretRef")):
            yield SECRETS, name
        if name := _name(volume.get("persistentVolumeClaim"), "claimName"):
            yield CLAIMS, name
        if isinstance(volume.get("ephemeral"), dict) and (volume_name := _name(volume)):
            yield CLAIMS, f"{pod_name}-{volume_name}"


def pod_references(pod: Obj) -> set[Reference]:
    """Everything a pod bound to a node lets that node read."""
    metadata = pod.get("metadata") or {}
    namespace, pod_name = metadata.get("namespace") or "", metadata.get("name") or ""
    spec = pod.get("spec") or {}
    found: set[tuple[str, str]] = set()
    found.update((SECRETS, name) for name in map(_name, _dicts(spec.get("imagePullSecrets"))) if name)
    found.update(_environment(spec))
    found.update(_volumes(pod_name, spec))
    if account := spec.get("serviceAccountName"):
        found.add((SERVICE_ACCOUNTS, account))
    for claim in _dicts(spec.get("resourceClaims")):
        if name := claim.get("resourceClaimName"):
            found.add((RESOURCE_CLAIMS, name))
    for claim in _dicts((pod.get("status") or {}).get("resourceClaimStatuses")):
        if name := claim.get("resourceClaimName"):
            found.add((RESOURCE_CLAIMS, name))
    return {(resource, namespace, name) for resource, name in found if isinstance(name, str)}


def volume_claim(volume: Obj) -> tuple[str, str] | None:
    """The (namespace, name) of the claim a persistent volume is bound to."""
    claim = (volume.get("spec") or {}).get("claimRef")
    if not isinstance(claim, dict) or not claim.get("name"):
        return None
    return claim.get("namespace") or "", claim["name"]


def volume_secrets(volume: Obj) -> set[tuple[str, str]]:
    """The (namespace, name) of each secret a persistent volume's plugin reads; a reference without a
    namespace means the bound claim's namespace (azureFile's default, as upstream)."""
    spec = volume.get("spec") or {}
    claim = volume_claim(volume)
    default_namespace = claim[0] if claim else ""
    found: set[tuple[str, str]] = set()

    def add(reference: Any, name_key: str = "name", namespace_key: str = "namespace") -> None:
        if isinstance(reference, dict) and (name := reference.get(name_key)):
            found.add((reference.get(namespace_key) or default_namespace, name))

    for plugin in _POD_VOLUME_SECRET_REFS:
        add(_field(spec.get(plugin), "secretRef"))
    add(spec.get("azureFile"), "secretName", "secretNamespace")
    for field in _CSI_SECRET_REFS:
        add(_field(spec.get("csi"), field))
    return found
