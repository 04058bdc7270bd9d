"""Field ownership for every write: who set which field (`metadata.managedFields`).

Runs inside the write's transform, before admission, as upstream's field manager does: a create,
update or patch records an `Update` entry for its manager; an apply merges its configuration with
the `Apply` rules (conflicts, force, removal of fields the applier stopped sending).
"""

from __future__ import annotations

import functools
from typing import Any

from svc.api.reset_fields import KeepOnly, Reset, reset_fields
from svc.api.schemas import schema_for
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status
from svc.machinery.apply import ApplyConflict, FieldFilter, ManagedFieldsError, TypedError, ignored_fields
from svc.machinery.apply import update_managed_fields as record_update
from svc.machinery.apply.last_applied import apply_upgrading_last_applied
from svc.registry.create import now_rfc3339

Obj = dict[str, Any]
_MAX_MANAGER = 128
SCALE_DEFINITION = "io.k8s.api.autoscaling.v1.Scale"


def manager_name(scope: Scope) -> str:
    """The `fieldManager` parameter, else the user agent's product name (upstream's default)."""
    name = scope.query.get("fieldManager", "")
    if len(name) > _MAX_MANAGER:
        raise status.bad_request(f"fieldManager: Too long: may not be more than {_MAX_MANAGER} bytes")
    if name:
        return name
    return _agent_product(scope.ctx.request.headers.get("User-Agent", ""))


@functools.lru_cache(maxsize=64)
def _agent_product(agent: str) -> str:
    """A client sends the same User-Agent on every request: its manager name is worked out once."""
    return "".join(ch for ch in agent.split("/", 1)[0] if ch.isprintable())[:_MAX_MANAGER]


def _ignored(scope: Scope) -> FieldFilter:
    """What the write's strategy resets (or does not let it change): the field manager neither records
    nor merges ownership of it."""
    return _ignored_for(reset_fields(scope.resource, scope.subresource))


@functools.cache
def _ignored_for(reset: Reset) -> FieldFilter:
    if isinstance(reset, KeepOnly):
        return ignored_fields(keep_only=reset.patterns)
    return ignored_fields(reset)


def track(scope: Scope, live: Obj | None, new: Obj) -> Obj:
    """Records the write's `Update` entry on the object as decoding leaves it: upstream's conversion
    (a Secret's `stringData` folded into `data`) runs before its field manager sees the object, which
    reads it without the empty values its Go type leaves out (no `f:data` for `data: {}`); a map the
    kind's update checks tell from an absent one when sent empty goes on to them (`prune_served`)."""
    scope.store.strategy.normalize(new)
    kept = scope.store.strategy.nil_distinct_maps
    sent_empty = {key: new[key] for key in kept if new.get(key) == {}} if kept else None
    if scope.store.omit_empty_decoded is not None:
        scope.store.omit_empty_decoded(new)
    recorded = _recorded(scope, live, new, scope.resource.definition)
    return {**recorded, **sent_empty} if sent_empty else recorded


def track_scale(scope: Scope, live: Obj, new: Obj) -> Obj:
    """Records a write through `/scale` on the Scale object, as upstream's field manager of the scale
    subresource does (the registry carries the ownership of `spec.replicas` over to the parent)."""
    return _recorded(scope, live, new, SCALE_DEFINITION)


def _recorded(scope: Scope, live: Obj | None, new: Obj, definition: str) -> Obj:
    return record_update(
        live,
        new,
        manager=manager_name(scope),
        operation_time=now_rfc3339(),
        subresource=scope.subresource,
        schema=schema_for(definition),
        ignored=_ignored(scope),
    )


def apply_configuration(
    scope: Scope, live: Obj | None, config: Obj, *, manager: str, force: bool, definition: str | None = None
) -> Obj:
    """Applies `config` to `live`, an object of the resource or of `definition` (the Scale of `/scale`)."""
    try:
        return apply_upgrading_last_applied(
            live,
            config,
            manager=manager,
            force=force,
            annotation=scope.server.profile.last_applied_annotation,
            operation_time=now_rfc3339(),
            subresource=scope.subresource,
            schema=schema_for(definition or scope.resource.definition),
            ignored=_ignored(scope),
        )
    except ApplyConflict as conflict:
        raise conflict.status_error() from None
    except (TypedError, ManagedFieldsError) as error:
        where = f"{scope.namespace}/{scope.name}" if scope.namespace else scope.name
        gvk = f"{scope.resource.api_version}, Kind={scope.resource.kind}"
        raise status.internal_error(f"failed to create typed patch object ({where}; {gvk}): {error}") from None
