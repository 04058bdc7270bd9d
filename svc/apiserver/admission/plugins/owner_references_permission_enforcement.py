"""OwnerReferencesPermissionEnforcement: changing an object's owner references needs permission to
delete the object, and setting `blockOwnerDeletion` needs permission to update the owner's
`finalizers` subresource (otherwise anyone could hold up the deletion of any owner)."""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.registry import PluginContext
from svc.apiserver.authz.authorizer import Attributes as AuthzAttributes
from svc.apiserver.authz.authorizer import Decision
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]


def _references(obj: Obj | None) -> list[Obj]:
    return list(((obj or {}).get("metadata") or {}).get("ownerReferences") or [])


def _new_blocking(new: Obj, old: Obj | None) -> list[Obj]:
    """References that block owner deletion now and did not before (by uid)."""
    before = {ref.get("uid") for ref in _references(old) if ref.get("blockOwnerDeletion")}
    return [ref for ref in _references(new) if ref.get("blockOwnerDeletion") and ref.get("uid") not in before]


class OwnerReferencesPermissionEnforcement:
    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def _decide(self, attributes: AuthzAttributes) -> tuple[bool, str]:
        decision, reason = await self._context.server.authorizer.authorize(attributes)
        return decision is Decision.ALLOW, reason

    async def validate(self, attributes: Attributes) -> None:
        obj = attributes.object
        if attributes.operation not in (Operation.CREATE, Operation.UPDATE) or not isinstance(obj, dict):
            return
        if _references(obj) == _references(attributes.old_object):
            return
        resource, user = attributes.resource, attributes.user
        allowed, reason = await self._decide(
            AuthzAttributes(
                user,
                "delete",
                True,
                namespace=attributes.namespace,
                api_group=resource.upstream_group,
                api_version=resource.version,
                resource=resource.name,
                subresource=attributes.subresource,
                name=attributes.name,
            )
        )
        if not allowed:
            raise forbidden(attributes, f"cannot set an ownerRef on a resource you can't delete: {reason}, <nil>")
        blocking = _new_blocking(obj, attributes.old_object)
        if not blocking:
            return
        anything = AuthzAttributes(user, "update", True, api_group="*", resource="*", subresource="finalizers")
        if (await self._decide(anything))[0]:
            return
        for ref in blocking:
            group, _, version = str(ref.get("apiVersion", "")).rpartition("/")
            served = self._context.server.resources.for_kind(
                self._context.profile.group(group), version, ref.get("kind", "")
            )
            if served is None:
                raise forbidden(
                    attributes,
                    f"cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion "
                    f'{ref.get("apiVersion")} Kind {ref.get("kind")}: no matches for kind "{ref.get("kind")}" '
                    f'in version "{ref.get("apiVersion")}"',
                )
            allowed, reason = await self._decide(
                AuthzAttributes(
                    user,
                    "update",
                    True,
                    namespace=attributes.namespace if served.namespaced else "",
                    api_group=served.upstream_group,
                    api_version=served.version,
                    resource=served.name,
                    subresource="finalizers",
                    name=ref.get("name", ""),
                )
            )
            if not allowed:
                raise forbidden(
                    attributes,
                    "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set "
                    f"finalizers on: {reason}, <nil>",
                )


def build(context: PluginContext) -> OwnerReferencesPermissionEnforcement:
    return OwnerReferencesPermissionEnforcement(context)
