"""NodeRestriction: a node's kubelet (user `system:node:<name>` in group `system:nodes`) may only
touch what belongs to its node: its own Node object (no taint changes, no labels outside the kubelet's
set), mirror pods bound to it (owned by its Node, referencing no secrets, configmaps, claims or service
account), the status, deletion and eviction of pods bound to it, and its own lease."""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.plugins.service_account import references_secrets
from svc.apiserver.admission.registry import PluginContext
from svc.machinery import status
from svc.machinery.status import GroupResource
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
USER_PREFIX = "system:node:"
NODES_GROUP = "system:nodes"
_KUBELET_LABELS = (
    "kubernetes.io/hostname",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/instance-type",
    "node.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "node.kubernetes.io/windows-build",
)


def _changed_keys(new: dict[str, str], old: dict[str, str]) -> set[str]:
    return {k for k in new.keys() | old.keys() if new.get(k) != old.get(k)}


def _uses_configmaps(spec: Obj) -> bool:
    for volume in spec.get("volumes") or []:
        if volume.get("configMap") is not None:
            return True
        if any(s.get("configMap") is not None for s in (volume.get("projected") or {}).get("sources") or []):
            return True
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(field) or []:
            if any(s.get("configMapRef") for s in container.get("envFrom") or []):
                return True
            if any((e.get("valueFrom") or {}).get("configMapKeyRef") for e in container.get("env") or []):
                return True
    return False


class NodeRestriction:
    resources = frozenset(
        {("", "pods"), ("", "nodes"), ("", "persistentvolumeclaims"), ("coordination.k8s.io", "leases")}
    )

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        profile = context.profile
        self._domain = profile.label_domain
        self._mirror = profile.label("kubernetes.io/config.mirror")
        self._kubelet_labels = frozenset(profile.label(key) for key in _KUBELET_LABELS)
        self._lease_namespace = profile.node_lease_namespace

    async def admit(self, attributes: Attributes) -> None:
        user = attributes.user
        if not user.name.startswith(USER_PREFIX) or NODES_GROUP not in user.groups:
            return
        node = user.name.removeprefix(USER_PREFIX)
        if not node:
            raise forbidden(attributes, f'could not determine node from user "{user.name}"')
        name = attributes.resource.name
        if name == "pods":
            await self._pod(attributes, node)
        elif name == "nodes":
            self._node(attributes, node)
        elif name == "persistentvolumeclaims" and attributes.subresource != "status":
            raise forbidden(attributes, "may only update PVC status")
        elif name == "leases":
            self._lease(attributes, node)

    async def _bound_elsewhere(self, attributes: Attributes, pod_name: str, node: str) -> bool:
        pod = await self._context.get("", "pods", attributes.namespace, pod_name)
        if pod is None:
            raise status.not_found(GroupResource("", "pods"), pod_name)
        return (pod.get("spec") or {}).get("nodeName") != node

    async def _pod(self, attributes: Attributes, node: str) -> None:
        operation, subresource = attributes.operation, attributes.subresource
        if subresource == "status":
            if operation is not Operation.UPDATE:
                raise forbidden(attributes, f'unexpected operation "{operation.value}"')
            old, new = attributes.old_object or {}, attributes.object or {}
            if (old.get("spec") or {}).get("nodeName") != node:
                raise forbidden(
                    attributes, f'node "{node}" can only update pod status for pods with spec.nodeName set to itself'
                )
            if (old.get("metadata") or {}).get("labels") != (new.get("metadata") or {}).get("labels"):
                raise forbidden(attributes, f'node "{node}" cannot update labels through pod status')
        elif subresource == "eviction":
            if operation is not Operation.CREATE:
                raise forbidden(attributes, f"unexpected operation {operation.value}")
            if await self._bound_elsewhere(attributes, attributes.name, node):
                raise forbidden(attributes, f"node {node} can only evict pods with spec.nodeName set to itself")
        elif subresource:
            raise forbidden(
                attributes, f"unexpected pod subresource \"{subresource}\", only 'status' and 'eviction' are allowed"
            )
        elif operation is Operation.CREATE:
            await self._mirror_pod(attributes, node)
        elif operation is Operation.DELETE:
            if await self._bound_elsewhere(attributes, attributes.name, node):
                raise forbidden(attributes, f'node "{node}" can only delete pods with spec.nodeName set to itself')
        else:
            raise forbidden(
                attributes,
                f'unexpected operation "{operation.value}", node "{node}" can only create and delete mirror pods',
            )

    async def _mirror_pod(self, attributes: Attributes, node: str) -> None:
        pod = attributes.object or {}
        metadata, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        if self._mirror not in (metadata.get("annotations") or {}):
            raise forbidden(
                attributes, f'pod does not have "{self._mirror}" annotation, node "{node}" can only create mirror pods'
            )
        if spec.get("nodeName") != node:
            raise forbidden(attributes, f'node "{node}" can only create pods with spec.nodeName set to itself')
        owners = metadata.get("ownerReferences") or []
        if len(owners) > 1:
            raise forbidden(
                attributes, f'node "{node}" can only create pods with a single owner reference set to itself'
            )
        owner = owners[0] if owners else {}
        if (owner.get("apiVersion"), owner.get("kind"), owner.get("name")) != ("v1", "Node", node):
            raise forbidden(attributes, f'node "{node}" can only create pods with an owner reference set to itself')
        if not owner.get("controller"):
            raise forbidden(
                attributes, f'node "{node}" can only create pods with a controller owner reference set to itself'
            )
        if owner.get("blockOwnerDeletion"):
            raise forbidden(attributes, f'node "{node}" must not set blockOwnerDeletion on an owner reference')
        node_object = await self._context.get("", "nodes", "", node)
        if node_object is None:
            raise status.not_found(GroupResource("", "nodes"), node)
        uid = node_object["metadata"].get("uid")
        if owner.get("uid") != uid:
            raise forbidden(attributes, f"node {node} UID mismatch: expected {owner.get('uid')} got {uid}")
        for refers, what in (
            (bool(spec.get("serviceAccountName")), "a service account"),
            (references_secrets(spec), "secrets"),
            (_uses_configmaps(spec), "configmaps"),
            (
                any(
                    s.get("clusterTrustBundle") is not None
                    for v in spec.get("volumes") or []
                    for s in (v.get("projected") or {}).get("sources") or []
                ),
                "clustertrustbundles",
            ),
            (
                any(v.get("persistentVolumeClaim") is not None for v in spec.get("volumes") or []),
                "persistentvolumeclaims",
            ),
        ):
            if refers:
                raise forbidden(attributes, f'node "{node}" can not create pods that reference {what}')

    def _forbidden_labels(self, changed: set[str]) -> list[str]:
        bad = []
        for key in changed:
            domain = key.partition("/")[0] if "/" in key else ""
            restricted = f"node-restriction.{self._domain}"
            if domain == restricted or domain.endswith("." + restricted):
                bad.append(key)
                continue
            ours = domain in (self._domain, "k8s.io") or domain.endswith(("." + self._domain, ".k8s.io"))
            kubelet_namespace = domain in (f"kubelet.{self._domain}", f"node.{self._domain}") or domain.endswith(
                (f".kubelet.{self._domain}", f".node.{self._domain}")
            )
            if ours and key not in self._kubelet_labels and not kubelet_namespace:
                bad.append(key)
        return sorted(bad)

    def _node(self, attributes: Attributes, node: str) -> None:
        obj = attributes.object or {}
        requested = attributes.name or (obj.get("metadata") or {}).get("name", "")
        if requested != node:
            raise forbidden(attributes, f'node "{node}" is not allowed to modify node "{requested}"')
        labels = (obj.get("metadata") or {}).get("labels") or {}
        if attributes.operation is Operation.CREATE:
            if (obj.get("spec") or {}).get("configSource") is not None:
                raise forbidden(attributes, f'node "{node}" is not allowed to create pods with a non-nil configSource')
            bad = self._forbidden_labels(set(labels))
            if bad:
                raise forbidden(
                    attributes, f'node "{node}" is not allowed to set the following labels: {", ".join(bad)}'
                )
        elif attributes.operation is Operation.UPDATE:
            old = attributes.old_object or {}
            spec, old_spec = obj.get("spec") or {}, old.get("spec") or {}
            if spec.get("configSource") is not None and spec.get("configSource") != old_spec.get("configSource"):
                raise forbidden(
                    attributes, f'node "{node}" is not allowed to update configSource to a new non-nil configSource'
                )
            if (spec.get("taints") or []) != (old_spec.get("taints") or []):
                raise forbidden(attributes, f'node "{node}" is not allowed to modify taints')
            bad = self._forbidden_labels(_changed_keys(labels, (old.get("metadata") or {}).get("labels") or {}))
            if bad:
                raise forbidden(attributes, f"is not allowed to modify labels: {', '.join(bad)}")

    def _lease(self, attributes: Attributes, node: str) -> None:
        if attributes.namespace != self._lease_namespace:
            raise forbidden(attributes, f'can only access leases in the "{self._lease_namespace}" system namespace')
        name = attributes.name
        if attributes.operation is Operation.CREATE:
            name = ((attributes.object or {}).get("metadata") or {}).get("name", "")
        if name != node:
            raise forbidden(attributes, "can only access node lease with the same name as the requesting node")


def build(context: PluginContext) -> NodeRestriction:
    return NodeRestriction(context)
