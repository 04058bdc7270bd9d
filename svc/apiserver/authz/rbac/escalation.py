"""Escalation prevention: nobody grants, through a role or a binding, permissions they do not hold.

Upstream does this in the RBAC storage before admission; here it is the first step of admission for
the four RBAC resources (it needs the requesting user, which admission carries). A role may be written
by a user who holds every permission it grants or who may `escalate` roles; a binding by one who holds
every permission of the referenced role or who may `bind` it. Members of `system:masters` skip the
check, as upstream's privileged requests do. Writes that only touch garbage-collection fields (owner
references, finalizers) are never checked, so the garbage collector can always finish its work.
"""

from __future__ import annotations

import copy
from typing import Any

from svc.apiserver.authz.authorizer import Attributes as AuthzAttributes
from svc.apiserver.authz.authorizer import Decision, Union
from svc.apiserver.authz.modes import PRIVILEGED_GROUP
from svc.apiserver.authz.rbac.authorizer import aggregate
from svc.apiserver.authz.rbac.index import PolicyIndex
from svc.apiserver.authz.rbac.rules import Rule, compact, rules_of, uncovered
from svc.machinery import status
from svc.registry.admission import Attributes, Operation, UserInfo

Obj = dict[str, Any]
RBAC_GROUP = "rbac.authorization.k8s.io"
_ROLES = frozenset({"roles", "clusterroles"})
_BINDINGS = frozenset({"rolebindings", "clusterrolebindings"})
_FULL_AUTHORITY = (Rule(("*",), ("*",), ("*",)), Rule(("*",), non_resource_urls=("*",)))
_GC_FIELDS = ("ownerReferences", "finalizers", "deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion")


def _go_quoted_list(values: tuple[str, ...]) -> str:
    return "[" + " ".join(f'"{value}"' for value in values) + "]"


def only_gc_fields_changed(new: Obj, old: Obj) -> bool:
    """Upstream's `IsOnlyMutatingGCFields`."""
    copied = copy.deepcopy(new)
    metadata = copied.setdefault("metadata", {})
    old_metadata = old.get("metadata") or {}
    for field in _GC_FIELDS:
        if field in old_metadata:
            metadata[field] = old_metadata[field]
        else:
            metadata.pop(field, None)
    return copied == old


class EscalationCheck:
    resources = frozenset((RBAC_GROUP, resource) for resource in _ROLES | _BINDINGS)

    def __init__(self, index: PolicyIndex, authorizer: Union) -> None:
        self.index = index
        self.authorizer = authorizer

    def _missing(self, user: UserInfo, namespace: str, granted: tuple[Rule, ...] | list[Rule]) -> str | None:
        """Upstream's `ConfirmNoEscalation`: None when `user` holds `granted`, else the message."""
        held, errors = self.index.rules_for(user, namespace)
        missing = uncovered(held, granted)
        if not missing:
            return None
        lines = sorted({rule.compact() for rule in compact(missing)})
        message = (
            f'user "{user.name}" (groups={_go_quoted_list(user.groups)}) is attempting to grant RBAC permissions '
            "not currently held:\n" + "\n".join(lines)
        )
        if errors:
            message += f"; resolution errors: [{aggregate(errors)}]"
        return message

    async def _allowed(self, user: UserInfo, verb: str, resource: str, namespace: str, name: str) -> bool:
        group = self.index.group
        attributes = AuthzAttributes(
            user, verb, True, namespace=namespace, api_group=group, resource=resource, name=name
        )
        decision, _ = await self.authorizer.authorize(attributes)
        return decision is Decision.ALLOW

    async def admit(self, attributes: Attributes) -> None:
        resource = attributes.resource
        if resource.upstream_group != RBAC_GROUP or attributes.subresource:
            return
        if attributes.operation not in (Operation.CREATE, Operation.UPDATE) or attributes.object is None:
            return
        user = attributes.user
        if PRIVILEGED_GROUP in user.groups:
            return
        obj, old = attributes.object, attributes.old_object
        if old is not None and only_gc_fields_changed(obj, old):
            return
        namespace = attributes.namespace
        name = (obj.get("metadata") or {}).get("name", "") or attributes.name
        if resource.name in _ROLES:
            message = await self._role_escalation(user, resource.name, namespace, name, obj)
        elif resource.name in _BINDINGS:
            message = await self._binding_escalation(user, namespace, obj)
        else:
            return
        if message:
            raise status.forbidden(resource.group_resource, name, message)

    async def _role_escalation(self, user: UserInfo, resource: str, namespace: str, name: str, obj: Obj) -> str | None:
        if await self._allowed(user, "escalate", resource, namespace, name):
            return None
        aggregating = resource == "clusterroles" and (obj.get("aggregationRule") or {}).get("clusterRoleSelectors")
        if aggregating and self._missing(user, "", _FULL_AUTHORITY):
            return "must have cluster-admin privileges to use an aggregationRule"
        return self._missing(user, namespace, rules_of(obj))

    async def _binding_escalation(self, user: UserInfo, namespace: str, obj: Obj) -> str | None:
        role_ref = obj.get("roleRef") or {}
        kind, role_name = str(role_ref.get("kind", "")), str(role_ref.get("name", ""))
        role_resource = "clusterroles" if kind == "ClusterRole" else "roles"
        if await self._allowed(user, "bind", role_resource, namespace, role_name):
            return None
        rules = self.index.role_rules(kind, role_name, namespace)
        if isinstance(rules, str):
            return rules
        return self._missing(user, namespace, rules)
