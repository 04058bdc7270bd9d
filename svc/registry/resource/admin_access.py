"""Admin access to devices only in namespaces labelled for it (upstream's `AuthorizedForAdmin` and
`AuthorizedForAdminStatus`, run by the ResourceClaim and ResourceClaimTemplate strategies).

A claim (or template) asking for `adminAccess` may be created only in a namespace labelled
`resource.kubernetes.io/admin-access: "true"`; an allocation granting admin access may be written to a
claim's status only there too, unless the stored allocation already granted it (an allocation never
changes once set). The request's spec is immutable, so spec updates are not checked again. The check
needs the namespace, which a strategy cannot read here, so it runs as a write hook, just before the
kind's validation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from svc.machinery import status
from svc.machinery.field_errors import FieldError, aggregate_message, forbidden
from svc.registry.hooks import Finish

Obj = dict[str, Any]
NamespaceGetter = Callable[[str], Awaitable[Obj | None]]

ADMIN_NAMESPACE_LABEL: Final = "resource.kubernetes.io/admin-access"
_DETAIL: Final = (
    f"admin access to devices requires the `{ADMIN_NAMESPACE_LABEL}: true` label on the containing namespace"
)


async def _nothing(stored: bool) -> None:
    return None


def _items(node: Any, *path: str) -> list[Any]:
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, list) else []


def _requested(request: Any) -> bool:
    """`adminAccess` of an exact request (v1) or of the request itself (v1beta1's flat shape)."""
    if not isinstance(request, dict):
        return False
    exactly = request.get("exactly")
    return (exactly.get("adminAccess") if isinstance(exactly, dict) else request.get("adminAccess")) is True


def requested_path(requests: list[Any]) -> str | None:
    """The path upstream reports for the first request asking for admin access (always under `spec`)."""
    for index, request in enumerate(requests):
        if _requested(request):
            return f"spec.devices.requests[{index}].adminAccess"
    return None


def granted_path(claim: Any) -> str | None:
    """The first allocation result granting admin access, upstream's `adminRequested`."""
    for index, result in enumerate(_items(claim, "status", "allocation", "devices", "results")):
        if isinstance(result, dict) and result.get("adminAccess") is True:
            return f"status.allocation.devices.results[{index}].adminAccess"
    return None


class AdminAccessCheck:
    """The write hooks (svc/registry/hooks.py) of ResourceClaims (`spec` at the top) and
    ResourceClaimTemplates (`spec.spec`)."""

    def __init__(self, group_kind: str, spec_path: tuple[str, ...], get_namespace: NamespaceGetter) -> None:
        self._group_kind = group_kind
        self._spec_path = spec_path
        self._get_namespace = get_namespace

    async def _require_label(self, namespace: str, name: str, path: str) -> None:
        found = await self._get_namespace(namespace)
        # A missing namespace is NamespaceLifecycle's to refuse, with its own error.
        labels = ((found or {}).get("metadata") or {}).get("labels") or {}
        if found is not None and labels.get(ADMIN_NAMESPACE_LABEL) != "true":
            errors: list[FieldError] = [forbidden(path, _DETAIL)]
            raise status.invalid(self._group_kind, name, errors, aggregate_message(errors))

    async def begin_create(self, namespace: str, obj: Obj, *, dry_run: bool) -> Finish:
        path = requested_path(_items(obj, *self._spec_path, "devices", "requests"))
        if path is not None:
            await self._require_label(namespace, (obj.get("metadata") or {}).get("name", ""), path)
        return _nothing

    async def begin_update(self, new: Obj, old: Obj, *, dry_run: bool) -> Finish:
        return _nothing

    async def begin_subresource_update(self, subresource: str, new: Obj, old: Obj) -> None:
        if subresource != "status" or granted_path(old) is not None:
            return
        path = granted_path(new)
        if path is not None:
            metadata = old.get("metadata") or {}
            await self._require_label(metadata.get("namespace", ""), metadata.get("name", ""), path)

    async def after_delete(self, obj: Obj) -> None:
        return None


_SPECS: Final = {"resourceclaims": ("spec",), "resourceclaimtemplates": ("spec", "spec")}


def build_admin_access_check(
    upstream_group: str, resource: str, group_kind: str, get_namespace: NamespaceGetter
) -> AdminAccessCheck | None:
    """The check for a store of resource.k8s.io's claims or claim templates; None for other stores."""
    spec_path = _SPECS.get(resource) if upstream_group == "resource.k8s.io" else None
    return AdminAccessCheck(group_kind, spec_path, get_namespace) if spec_path is not None else None
