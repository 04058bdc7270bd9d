"""The Node authorizer (`--authorization-mode=Node`): what a kubelet may do, decided per node.

A request from `system:node:<name>` in group `system:nodes` may read the secrets, config maps,
claims, volumes, service-account tokens and resource claims of the pods bound to that node (the
graph), its own Node, Lease and CSINode, the pods bound to it (by `spec.nodeName` field selector), and
whatever upstream's `system:node` ClusterRole grants for everything else. Every other user gets no
opinion, so the next mode decides. Reasons are upstream's texts, shown in 403 messages.
"""

from __future__ import annotations

from collections.abc import Sequence

from svc.api.brand import Profile
from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.apiserver.authz.node.graph import ATTACHMENTS, PODS, SLICES, VOLUMES, NodeGraph
from svc.apiserver.authz.node.references import CLAIMS, CONFIG_MAPS, RESOURCE_CLAIMS, SECRETS, SERVICE_ACCOUNTS
from svc.apiserver.authz.rbac.rules import Rule, allows
from svc.machinery.labels import Operator
from svc.registry.admission import UserInfo

NODE_USER_PREFIX = "system:node:"
NODES_GROUP = "system:nodes"

Answer = tuple[Decision, str]
_NO_OPINION: Answer = (Decision.NO_OPINION, "")
_ALLOW: Answer = (Decision.ALLOW, "")
_POD_SUBRESOURCE_WRITES = frozenset({("status", "update"), ("status", "patch"), ("eviction", "create")})


def node_name_of(user: UserInfo) -> str | None:
    """The node a user is, or None when the user is not a node (upstream's node identifier)."""
    if not user.name.startswith(NODE_USER_PREFIX) or NODES_GROUP not in user.groups:
        return None
    return user.name[len(NODE_USER_PREFIX) :]


class NodeAuthorizer:
    def __init__(self, graph: NodeGraph, node_rules: Sequence[Rule], profile: Profile) -> None:
        self._graph = graph
        self._rules = tuple(node_rules)
        self._lease_namespace = profile.node_lease_namespace
        self._coordination = profile.group("coordination.k8s.io")
        self._storage = profile.group("storage.k8s.io")
        self._resource = profile.group("resource.k8s.io")

    async def authorize(self, attributes: Attributes) -> Answer:
        node = node_name_of(attributes.user)
        if node is None:
            return _NO_OPINION
        if not node:
            return Decision.NO_OPINION, f'unknown node for user "{attributes.user.name}"'
        if attributes.is_resource_request:
            answer = self._subdivided(node, attributes)
            if answer is not None:
                return answer
        return _ALLOW if any(allows(rule, attributes) for rule in self._rules) else _NO_OPINION

    def _subdivided(self, node: str, attributes: Attributes) -> Answer | None:
        """The answer for resources whose access depends on the node; None for the others."""
        group, resource = attributes.api_group, attributes.resource
        if group == "":
            if resource in (SECRETS, CONFIG_MAPS):
                return self._read_namespaced(node, attributes)
            if resource == CLAIMS:
                if attributes.subresource == "status":
                    return self._status_update(node, attributes)
                return self._get(node, attributes)
            if resource == VOLUMES:
                return self._get(node, attributes)
            if resource == SERVICE_ACCOUNTS:
                return self._create_token(node, attributes)
            if resource == "nodes":
                return self._node(node, attributes)
            if resource == PODS:
                return self._pod(node, attributes)
        elif group == self._resource:
            if resource == RESOURCE_CLAIMS:
                return self._get(node, attributes)
            if resource == SLICES:
                return self._resource_slice(node, attributes)
        elif group == self._storage:
            if resource == ATTACHMENTS:
                return self._get(node, attributes)
            if resource == "csinodes":
                return self._own_object(node, attributes, "a CSINode", "CSINode")
        elif group == self._coordination and resource == "leases":
            return self._lease(node, attributes)
        return None

    def _related(self, node: str, attributes: Attributes) -> Answer:
        if not attributes.name:
            return Decision.NO_OPINION, "No Object name found"
        if self._graph.related(node, attributes.resource, attributes.namespace, attributes.name):
            return _ALLOW
        return Decision.NO_OPINION, f"no relationship found between node '{node}' and this object"

    def _get(self, node: str, attributes: Attributes) -> Answer:
        if attributes.verb != "get":
            return Decision.NO_OPINION, "can only get individual resources of this type"
        if attributes.subresource:
            return Decision.NO_OPINION, "cannot get subresource"
        return self._related(node, attributes)

    def _read_namespaced(self, node: str, attributes: Attributes) -> Answer:
        if attributes.verb not in ("get", "list", "watch"):
            return Decision.NO_OPINION, "can only read resources of this type"
        if attributes.subresource:
            return Decision.NO_OPINION, "cannot read subresource"
        if not attributes.namespace:
            return Decision.NO_OPINION, "can only read namespaced object of this type"
        return self._related(node, attributes)

    def _status_update(self, node: str, attributes: Attributes) -> Answer:
        if attributes.verb not in ("update", "patch"):
            return Decision.NO_OPINION, "can only get/update/patch this type"
        return self._related(node, attributes)

    def _create_token(self, node: str, attributes: Attributes) -> Answer:
        if attributes.verb != "create" or not attributes.name:
            return Decision.NO_OPINION, "can only create tokens for individual service accounts"
        if attributes.subresource != "token":
            return Decision.NO_OPINION, "can only create token subresource of serviceaccount"
        return self._related(node, attributes)

    def _lease(self, node: str, attributes: Attributes) -> Answer:
        if attributes.verb not in ("get", "create", "update", "patch", "delete"):
            return Decision.NO_OPINION, "can only get, create, update, patch, or delete a node lease"
        if attributes.namespace != self._lease_namespace:
            return Decision.NO_OPINION, f'can only access leases in the "{self._lease_namespace}" system namespace'
        if attributes.verb != "create" and attributes.name != node:
            return Decision.NO_OPINION, "can only access node lease with the same name as the requesting node"
        return _ALLOW

    def _own_object(self, node: str, attributes: Attributes, article: str, kind: str) -> Answer:
        if attributes.verb not in ("get", "create", "update", "patch", "delete"):
            return Decision.NO_OPINION, f"can only get, create, update, patch, or delete {article}"
        if attributes.subresource:
            return Decision.NO_OPINION, f"cannot authorize {kind} subresources"
        if attributes.verb != "create" and attributes.name != node:
            return Decision.NO_OPINION, f"can only access {kind} with the same name as the requesting node"
        return _ALLOW

    def _resource_slice(self, node: str, attributes: Attributes) -> Answer:
        if attributes.subresource:
            return Decision.NO_OPINION, "cannot authorize ResourceSlice subresources"
        verb = attributes.verb
        if verb == "create":
            return _ALLOW  # NodeRestriction checks the slice's node at admission
        if verb in ("get", "update", "patch", "delete"):
            return self._related(node, attributes)
        if verb in ("watch", "list", "deletecollection"):
            if _selects(attributes, "spec.nodeName", node):
                return _ALLOW
            return (
                Decision.NO_OPINION,
                "can only list/watch/deletecollection resourceslices with nodeName field selector",
            )
        return (
            Decision.NO_OPINION,
            "only the following verbs are allowed for a ResourceSlice: "
            "get, watch, list, create, update, patch, delete, deletecollection",
        )

    def _node(self, node: str, attributes: Attributes) -> Answer:
        verb, subresource = attributes.verb, attributes.subresource
        if subresource == "" and verb in ("create", "update", "patch"):
            return _ALLOW  # NodeRestriction limits a node to its own Node object
        if subresource == "" and verb in ("get", "list", "watch"):
            if attributes.name == node:
                return _ALLOW
            if not attributes.name:
                return Decision.NO_OPINION, f"node '{node}' cannot read all nodes, only its own Node object"
            return Decision.NO_OPINION, f"node '{node}' cannot read '{attributes.name}', only its own Node object"
        if subresource == "status" and verb in ("update", "patch"):
            return _ALLOW
        return _NO_OPINION

    def _pod(self, node: str, attributes: Attributes) -> Answer:
        verb, subresource = attributes.verb, attributes.subresource
        if subresource == "":
            if verb == "get":
                return self._get(node, attributes)
            if verb in ("list", "watch"):
                if _selects(attributes, "spec.nodeName", node):
                    return _ALLOW
                if attributes.name:
                    return self._related(node, attributes)
                return Decision.NO_OPINION, "can only list/watch pods with spec.nodeName field selector"
            if verb in ("create", "delete"):
                return _ALLOW  # mirror pods; NodeRestriction limits them to the node
        elif (subresource, verb) in _POD_SUBRESOURCE_WRITES:
            return _ALLOW  # kubelet status reports and evictions; NodeRestriction limits them to the node
        return _NO_OPINION


def _selects(attributes: Attributes, field: str, value: str) -> bool:
    return any(
        requirement.field == field and requirement.operator is Operator.EQUALS and requirement.value == value
        for requirement in attributes.field_requirements
    )
