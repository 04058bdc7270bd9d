"""Subresources that act rather than store: a POST of one kind (Binding, Eviction) that changes another.

Upstream gives each its own REST object (`BindingREST`, `EvictionREST`) beside the pod's store. Here an
action is one async function over an `ActionRequest`; it reaches the stores it needs through
`store_for`, and writes through them (never around them), so admission, watch and resourceVersions
stay as for any other write.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from svc.registry.admission import Admission, UserInfo
from svc.registry.store import GenericStore

Obj = dict[str, Any]


@dataclass(frozen=True)
class ActionRequest:
    namespace: str
    name: str  # from the URL; empty for a collection action (POST /bindings)
    body: Obj
    dry_run: bool
    user: UserInfo
    admission: Admission
    store_for: Callable[[str, str], GenericStore]  # (upstream group, resource) -> its store


Action = Callable[[ActionRequest], Awaitable[None]]


def success(code: int) -> Obj:
    """The body upstream answers an action with: a Status of success, no details."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": code}
